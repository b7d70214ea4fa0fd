//! mercado, the storefront: catalogue, checkout with reservations, simulated payment, the
//! reservation expiry sweep, the restock trigger and the consumers of estoque's answers.
//!
//! This module is the role's composition root; it never imports `estoque` (the two share only
//! the contracts, the outbox/inbox machinery and the infrastructure).

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
    server::run(Servico::Mercado, config, build, shutdown).await
}

pub fn build(_ctx: &Contexto) -> anyhow::Result<Role> {
    Ok(Role { router: Router::new(), consumidor: Arc::new(ConsumidorMercado) })
}

/// The event types mercado accepts on `/eventos`.
pub const ACEITOS: &[&str] = &["ReposicaoEnviada", "ReposicaoNegada", "ProdutoClassificado"];

struct ConsumidorMercado;

impl Consumidor for ConsumidorMercado {
    fn aceitos(&self) -> &'static [&'static str] {
        ACEITOS
    }

    fn aplicar<'a>(&'a self, _tx: &'a Tx<'_>, _evento: &'a EventoIntegracao) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async { Ok(()) })
    }
}
