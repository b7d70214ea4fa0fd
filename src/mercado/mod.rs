//! mercado, the storefront: catalogue, checkout with reservations, simulated payment, the
//! reservation expiry sweep, the restock trigger and the consumers of estoque's answers.
//!
//! This module is the role's composition root; it never imports `estoque` (the two share only
//! the contracts, the outbox/inbox machinery and the infrastructure).

use axum::Router;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{Config, Servico};
use crate::db::Pool;
use crate::server::{self, Role};

pub async fn serve(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    server::run(Servico::Mercado, config, build, shutdown).await
}

fn build(_config: &Config, _pool: Pool, _tasks: &TaskTracker, _shutdown: &CancellationToken) -> anyhow::Result<Role> {
    Ok(Role { router: Router::new() })
}
