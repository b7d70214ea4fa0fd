//! estoque, the warehouse: lots with FEFO, serving restock requests, pent-up demand, lot intake,
//! product classification through the tag-worker, and the dashboard API.
//!
//! This module is the role's composition root; it never imports `mercado`.

use axum::Router;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{Config, Servico};
use crate::db::Pool;
use crate::server::{self, Role};

pub async fn serve(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    server::run(Servico::Estoque, config, build, shutdown).await
}

fn build(_config: &Config, _pool: Pool, _tasks: &TaskTracker, _shutdown: &CancellationToken) -> anyhow::Result<Role> {
    Ok(Role { router: Router::new() })
}
