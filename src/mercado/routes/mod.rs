//! mercado's HTTP routes (SPEC §6.3), thin: parse and validate the input (400 naming each field,
//! nothing written), call the use case, shape the answer. Statuses come from
//! [`ErroMercado::problem`](super::erro::ErroMercado::problem).
//!
//! Who may call: the catalogue reads, checkout, the order page and payment are anonymous and
//! need no CSRF (the original's storefront buys without an account); `POST /produtos` needs the
//! operator's session and CSRF (CSRF is checked first, as Spring's filter chain does). `/sessao`,
//! `/eventos`, health and the deny-by-default fallback are added by `server::app`.

mod operacao;
mod pedidos;
mod produtos;

use std::sync::Arc;
use std::time::Duration;

use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{get, post};
use axum::Router;

use super::catalogo_estoque::CatalogoEstoque;
use crate::db::Db;
use crate::http::auth::{self, Seguranca};
use crate::http::throttle;

/// What the handlers share.
pub struct Estado {
    pub db: Db,
    pub catalogo: CatalogoEstoque,
    /// Reservation lifetime (`reserva.ttl`).
    pub ttl: Duration,
}

pub fn router(estado: Arc<Estado>, seguranca: Arc<Seguranca>) -> Router {
    Router::new()
        .route("/openapi.json", get(crate::http::openapi::mercado))
        .route("/produtos", get(produtos::listar))
        .route(
            "/produtos",
            post(produtos::cadastrar)
                .route_layer(from_fn(auth::require_operador))
                .route_layer(from_fn_with_state(seguranca, auth::csrf)),
        )
        .route("/produtos/{sku}", get(produtos::buscar))
        .route("/operacao/produtos", get(operacao::produtos).route_layer(from_fn(auth::require_operador)))
        .route(
            "/operacao/estoque/produtos/{sku}",
            get(operacao::no_estoque).route_layer(from_fn(auth::require_operador)),
        )
        .route("/pedidos", post(pedidos::fechar).route_layer(from_fn(throttle::checkout)))
        .route("/pedidos/{id}", get(pedidos::detalhe))
        .route("/pedidos/{id}/pagamento", post(pedidos::pagar).route_layer(from_fn(throttle::checkout)))
        .with_state(estado)
}

/// Bean-Validation-style violations: `"<campo> <mensagem>"`, reported sorted in one 400.
#[derive(Default)]
struct Violacoes(Vec<String>);

impl Violacoes {
    fn add(&mut self, campo: &str, mensagem: &str) {
        self.0.push(format!("{campo} {mensagem}"));
    }

    fn sku(&mut self, campo: &str, sku: Option<&str>) {
        match sku {
            None => self.add(campo, "não deve ser nulo"),
            Some(s) if !crate::contracts::sku_valido(s) => {
                self.add(campo, &format!("deve corresponder a \"{}\"", crate::contracts::SKU_REGEX))
            }
            Some(_) => {}
        }
    }

    fn positivo(&mut self, campo: &str, n: Option<i32>) {
        match n {
            None => self.add(campo, "não deve ser nulo"),
            Some(n) if n <= 0 => self.add(campo, "deve ser maior que 0"),
            Some(_) => {}
        }
    }

    fn resultado(mut self) -> Result<(), super::erro::ErroMercado> {
        if self.0.is_empty() {
            return Ok(());
        }
        self.0.sort();
        Err(super::erro::ErroMercado::invalido(format!("requisição inválida: {}", self.0.join("; "))))
    }
}
