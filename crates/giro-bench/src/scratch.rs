//! Scratch databases for a benchmark: created (and migrated) on the cluster of an admin URL,
//! dropped when done, so a bench never touches the databases a deployment uses. Most benches
//! need both services' databases: [`with_pair`] creates the pair, runs the measurement on it and
//! drops it, so that set-up is written once.

use tokio_postgres::NoTls;

use giro_infra::config::DbConfig;
use giro_servicos::config::Servico;

pub struct Scratch {
    admin: tokio_postgres::Config,
    pub nome: String,
    pub db: DbConfig,
}

/// A client of `pg`, its connection driven by a task of its own.
async fn connect(pg: &tokio_postgres::Config) -> anyhow::Result<tokio_postgres::Client> {
    let (c, conn) = pg.connect(NoTls).await?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    Ok(c)
}

impl Scratch {
    pub async fn create(admin_url: &str, servico: Servico) -> anyhow::Result<Scratch> {
        let admin: tokio_postgres::Config = admin_url.parse()?;
        let nome = format!("giro_bench_{}_{}", servico.nome(), std::process::id());
        let c = connect(&admin).await?;
        // Two statements: DROP/CREATE DATABASE refuse to run inside one implicit transaction.
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {nome} WITH (FORCE)")).await?;
        c.batch_execute(&format!("CREATE DATABASE {nome}")).await?;
        let mut pg = admin.clone();
        pg.dbname(&nome);
        pg.application_name(format!("giro-bench-{}", servico.nome()));
        let db = DbConfig { pg };
        giro_servicos::migrate::run(servico, &db).await?;
        Ok(Scratch { admin, nome, db })
    }

    /// A connection of its own to this database (setting up and reading back a run).
    pub async fn conectar(&self) -> anyhow::Result<tokio_postgres::Client> {
        connect(&self.db.pg).await
    }

    /// The database's URL, for a `giro` process or a configuration.
    pub fn url(&self) -> String {
        let pg = &self.db.pg;
        let host = match pg.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
            _ => "127.0.0.1".into(),
        };
        let pw = pg.get_password().map(|p| String::from_utf8_lossy(p).into_owned()).unwrap_or_default();
        format!(
            "postgres://{}:{}@{}:{}/{}",
            pg.get_user().unwrap_or("postgres"),
            pw,
            host,
            pg.get_ports().first().copied().unwrap_or(5432),
            pg.get_dbname().unwrap_or_default()
        )
    }

    pub async fn drop_db(self) -> anyhow::Result<()> {
        let c = connect(&self.admin).await?;
        c.batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.nome)).await?;
        Ok(())
    }
}

/// Runs `medir` on a fresh pair of scratch databases, mercado's and estoque's, and drops both
/// before returning what it returned, so a measurement that fails still has its databases dropped.
pub async fn with_pair<T>(
    admin_url: &str,
    medir: impl AsyncFnOnce(&Scratch, &Scratch) -> anyhow::Result<T>,
) -> anyhow::Result<T> {
    let mercado = Scratch::create(admin_url, Servico::Mercado).await?;
    let estoque = Scratch::create(admin_url, Servico::Estoque).await?;
    let r = medir(&mercado, &estoque).await;
    mercado.drop_db().await?;
    estoque.drop_db().await?;
    r
}
