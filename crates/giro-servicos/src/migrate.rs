//! Migrations, embedded in the binary from `migrations/mercado` and `migrations/estoque`
//! (refinery, `V<n>__<name>.sql`; the original's file names, then Girô's additions from V10).
//! Applying them twice changes nothing.

use tokio_postgres::NoTls;

use crate::config::Servico;
use giro_infra::config::DbConfig;

mod mercado {
    refinery::embed_migrations!("../../migrations/mercado");
}

mod estoque {
    refinery::embed_migrations!("../../migrations/estoque");
}

/// Applies the pending migrations of `servico`'s database; returns the names applied.
pub async fn run(servico: Servico, db: &DbConfig) -> anyhow::Result<Vec<String>> {
    let (mut client, connection) = db.pg.connect(NoTls).await?;
    let conn = tokio::spawn(async move {
        if let Err(e) = connection.await {
            tracing::warn!(error = %e, "migration connection ended with an error");
        }
    });
    let result = run_on(servico, &mut client).await;
    drop(client);
    let _ = conn.await;
    result
}

/// Applies the migrations on an open connection (the test harness migrates its template this way).
pub async fn run_on(servico: Servico, client: &mut tokio_postgres::Client) -> anyhow::Result<Vec<String>> {
    let runner = match servico {
        Servico::Mercado => mercado::migrations::runner(),
        Servico::Estoque => estoque::migrations::runner(),
    };
    let report = runner.run_async(client).await?;
    Ok(report.applied_migrations().iter().map(|m| m.to_string()).collect())
}

/// `giro migrate`: waits up to `esperar` for the databases to answer (when given), then applies
/// each one's pending migrations. Each database's `db-url` is required even beside `db-url-ddl`:
/// its user is the runtime role the schema owner grants.
pub async fn command(
    servicos: &[Servico],
    esperar: Option<std::time::Duration>,
    config: &crate::config::Config,
    shutdown: tokio_util::sync::CancellationToken,
) -> anyhow::Result<()> {
    for &s in servicos {
        config.db(s)?;
    }
    if let Some(wait) = esperar {
        let pools = servicos
            .iter()
            .map(|s| {
                let db = config.db(*s)?;
                Ok((
                    giro_infra::db::pool(db, 1, config.db_timeout)?,
                    giro_infra::db::descrever(s.nome(), s.var_db_url(), db),
                ))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let answered = tokio::time::timeout(
            wait,
            giro_infra::db::wait_for("migrate", &pools, config.db_timeout, &shutdown),
        )
        .await;
        match answered {
            Ok(true) => {}
            Ok(false) => anyhow::bail!("interrupted while waiting for the database"),
            Err(_) => anyhow::bail!(
                "the database did not answer within --wait {}",
                giro_infra::config::duration::format(wait)
            ),
        }
    }
    for &s in servicos {
        let (own, runtime) = (config.servico(s), config.db(s)?);
        // Past any transaction pooler: the schema owner's URL, else the direct one, else `db-url`.
        let db = own.db_ddl.as_ref().or(own.db_direta.as_ref()).unwrap_or(runtime);
        let applied =
            run(s, db).await.map_err(|e| giro_infra::db::nomear_conexao(e, s.nome(), s.var_db_url(), db))?;
        tracing::info!(db = %s, applied = applied.len(), "migrations applied: {}", applied.join(", "));
        if let (Some(ddl), Some(papel)) = (&own.db_ddl, runtime.pg.get_user()) {
            conceder(ddl, papel)
                .await
                .map_err(|e| giro_infra::db::nomear_conexao(e, s.nome(), s.var_db_url(), ddl))?;
            tracing::info!(db = %s, role = papel, "runtime role granted the service's privileges");
        }
    }
    Ok(())
}

/// What the runtime role of a service needs, granted by the schema owner after the migrations
/// (again each time, so tables a new migration creates are covered): read and write every table,
/// use the sequences — and nothing else: it creates, alters and drops nothing, and reads the
/// migration history without changing it. The role's name cannot be a bind parameter in `GRANT`,
/// so it is quoted as an identifier.
async fn conceder(ddl: &DbConfig, papel: &str) -> anyhow::Result<()> {
    let (client, connection) = ddl.pg.connect(NoTls).await?;
    let conn = tokio::spawn(connection);
    let r = format!("\"{}\"", papel.replace('"', "\"\""));
    let sql = format!(
        "GRANT USAGE ON SCHEMA public TO {r};
         GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {r};
         GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {r};
         REVOKE INSERT, UPDATE, DELETE ON refinery_schema_history FROM {r};"
    );
    let result = client.batch_execute(&sql).await;
    drop(client);
    let _ = conn.await;
    Ok(result?)
}
