//! The `giro publisher` role: an outbox publisher as its own process, for one service's outbox or
//! both. Any number may run against one database; they compete through `FOR UPDATE SKIP LOCKED`.

use tokio_util::sync::CancellationToken;

use crate::config::{Config, Servico};
use crate::db;

pub async fn run(config: Config, only: Option<Servico>, shutdown: CancellationToken) -> anyhow::Result<()> {
    let servicos = match only {
        Some(s) => vec![s],
        None => vec![Servico::Mercado, Servico::Estoque],
    };
    for s in &servicos {
        // A publisher sends to the peer with the peer's token.
        config.token_servico(s.par())?;
    }
    let mut pools = Vec::new();
    for s in servicos {
        pools.push((s, db::pool(&config.servico(s).db, 4, config.db_timeout)?));
    }
    for (s, pool) in &pools {
        match db::ping(pool, config.db_timeout).await {
            Ok(()) => tracing::info!(outbox = %s, lote = config.outbox.lote, "publisher connected"),
            Err(e) => tracing::warn!(outbox = %s, error = %e, "database not reachable yet; will retry"),
        }
    }
    shutdown.cancelled().await;
    Ok(())
}
