//! Scratch databases for a benchmark: created (and migrated) on the cluster of an admin URL,
//! dropped when done, so a bench never touches the databases a deployment uses.

use tokio_postgres::NoTls;

use crate::config::{DbConfig, Servico};

pub struct Scratch {
    admin: tokio_postgres::Config,
    pub nome: String,
    pub db: DbConfig,
}

async fn admin_client(admin: &tokio_postgres::Config) -> anyhow::Result<tokio_postgres::Client> {
    let (c, conn) = admin.connect(NoTls).await?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(c)
}

impl Scratch {
    pub async fn create(admin_url: &str, servico: Servico) -> anyhow::Result<Scratch> {
        let admin: tokio_postgres::Config = admin_url.parse()?;
        let nome = format!("giro_bench_{}_{}", servico.nome(), std::process::id());
        let c = admin_client(&admin).await?;
        // Two statements: DROP/CREATE DATABASE refuse to run inside one implicit transaction.
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {nome} WITH (FORCE)")).await?;
        c.batch_execute(&format!("CREATE DATABASE {nome}")).await?;
        let mut pg = admin.clone();
        pg.dbname(&nome);
        pg.application_name(format!("giro-bench-{}", servico.nome()));
        let db = DbConfig { pg };
        crate::db::migrate::run(servico, &db).await?;
        Ok(Scratch { admin, nome, db })
    }

    pub async fn drop_db(self) -> anyhow::Result<()> {
        let c = admin_client(&self.admin).await?;
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.nome)).await?;
        Ok(())
    }
}
