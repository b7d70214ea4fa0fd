//! estoque, the warehouse: lots with FEFO, serving restock requests, pent-up demand, lot intake,
//! product classification through the tag-worker, and the dashboard API.
//!
//! This module is the role's composition root; it never imports `mercado`.

use std::sync::Arc;

use axum::Router;
use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::config::{Config, Servico};
use crate::contracts::EventoIntegracao;
use crate::db::Tx;
use crate::inbox::receiver::Consumidor;
use crate::server::{self, Contexto, Role};

pub async fn serve(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    server::run(Servico::Estoque, config, build, shutdown).await
}

pub fn build(_ctx: &Contexto) -> anyhow::Result<Role> {
    Ok(Role { router: Router::new(), consumidor: Arc::new(ConsumidorEstoque) })
}

/// The event types estoque accepts on `/eventos`.
pub const ACEITOS: &[&str] = &["ReposicaoSolicitada"];

struct ConsumidorEstoque;

impl Consumidor for ConsumidorEstoque {
    fn aceitos(&self) -> &'static [&'static str] {
        ACEITOS
    }

    fn aplicar<'a>(&'a self, _tx: &'a Tx<'_>, _evento: &'a EventoIntegracao) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async { Ok(()) })
    }
}
