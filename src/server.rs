//! Start-up of a service role (`giro mercado serve`, `giro estoque serve`): validate what the role
//! needs, build its pool, bind its listener, compose the router (health + the role's routes + the
//! shared layers), run the background loops, and serve until shutdown.
//!
//! The role modules only say what their router and loops are; the sequence lives here once.

use std::net::SocketAddr;

use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{Config, Servico};
use crate::db::{self, Pool};
use crate::http;

/// What a role contributes to a running service.
pub struct Role {
    pub router: Router,
}

/// Checks, before anything starts, the secrets every service needs: its own token (to
/// authenticate incoming service calls), its peer's token (to send events and, for mercado,
/// the product lookup) and the operator login.
pub fn validate(config: &Config, servico: Servico) -> Result<(), crate::config::ConfigError> {
    config.token_servico(servico)?;
    config.token_servico(servico.par())?;
    config.operador()?;
    Ok(())
}

pub async fn run(
    servico: Servico,
    config: Config,
    build: impl FnOnce(&Config, Pool, &TaskTracker, &CancellationToken) -> anyhow::Result<Role>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    validate(&config, servico)?;
    let own = config.servico(servico);
    let pool = db::pool(&own.db, config.db_pool_max, config.db_timeout)?;

    let addr = SocketAddr::new(config.endereco, own.porta);
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
    let bound = listener.local_addr()?;

    let tasks = TaskTracker::new();
    let role = build(&config, pool.clone(), &tasks, &shutdown)?;
    let router = http::finish(role.router.merge(http::health::router(pool.clone())));

    tracing::info!(service = %servico, addr = %bound, config = ?config.servico(servico).db, "giro {servico} listening on http://{bound}");
    let served = http::serve(listener, router, shutdown.clone(), config.prazo_desligamento).await;
    shutdown.cancel();
    tasks.close();
    if tokio::time::timeout(config.prazo_desligamento, tasks.wait()).await.is_err() {
        tracing::warn!("background tasks did not finish within the grace period");
    }
    tracing::info!(service = %servico, "stopped");
    served.map_err(Into::into)
}
