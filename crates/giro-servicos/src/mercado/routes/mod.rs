//! mercado's HTTP routes (SPEC §6.3), thin: parse and validate the input (400 naming each field,
//! nothing written), call the use case, shape the answer. Statuses come from
//! [`ErroMercado::problem`](super::erro::ErroMercado::problem).
//!
//! Who may call: the catalogue reads, checkout, the order page and payment are anonymous and
//! need no CSRF (the original's storefront buys without an account); `POST /produtos` and
//! `PATCH /operacao/produtos/{sku}` need the operator's session and CSRF (CSRF is checked first,
//! as Spring's filter chain does); the other `/operacao/` reads need the session. `/sessao`,
//! `/eventos`, health and the deny-by-default fallback are added by `server::app`.

mod graficos;
mod operacao;
mod pedidos;
mod produtos;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::middleware::{from_fn, from_fn_with_state, Next};
use axum::response::Response;
use axum::routing::{get, patch, post};
use axum::Router;

use super::catalogo_estoque::CatalogoEstoque;
use crate::config::CheckoutConfig;
use giro_contracts::Violacoes;
use giro_http::auth::{self, Seguranca};
use giro_http::limite::{self, EnderecoCliente, Limitador, Recusa};
use giro_infra::db::Db;

/// What the handlers share.
pub struct Estado {
    pub db: Db,
    pub catalogo: CatalogoEstoque,
    /// Reservation lifetime (`reserva.ttl`).
    pub ttl: Duration,
    /// The checkout's per-address bounds (`checkout.*`).
    pub checkout: CheckoutConfig,
}

/// mercado's OpenAPI document, written by hand (`openapi/mercado.json`).
const OPENAPI: &str = include_str!("../../../../../openapi/mercado.json");

pub fn router(estado: Arc<Estado>, seguranca: Arc<Seguranca>) -> Router {
    Router::new()
        .route("/openapi.json", get(giro_http::openapi::documento(OPENAPI)))
        .route("/produtos", get(produtos::listar))
        .route(
            "/produtos",
            post(produtos::cadastrar)
                .route_layer(from_fn(auth::require_operador))
                .route_layer(from_fn_with_state(seguranca.clone(), auth::csrf)),
        )
        .route("/produtos/{sku}", get(produtos::buscar))
        .route("/operacao/produtos", get(operacao::produtos).route_layer(from_fn(auth::require_operador)))
        .route(
            "/operacao/produtos/{sku}",
            patch(operacao::alterar_produto)
                .route_layer(from_fn(auth::require_operador))
                .route_layer(from_fn_with_state(seguranca, auth::csrf)),
        )
        .route("/operacao/pedidos", get(operacao::pedidos).route_layer(from_fn(auth::require_operador)))
        .route("/operacao/pedidos/{id}", get(operacao::pedido).route_layer(from_fn(auth::require_operador)))
        .route(
            "/operacao/estoque/produtos/{sku}",
            get(operacao::no_estoque).route_layer(from_fn(auth::require_operador)),
        )
        .route(
            "/operacao/graficos/vendas",
            get(graficos::vendas).route_layer(from_fn(auth::require_operador)),
        )
        .route(
            "/operacao/graficos/esgotados",
            get(graficos::esgotados).route_layer(from_fn(auth::require_operador)),
        )
        .route(
            "/operacao/graficos/prateleira",
            get(graficos::prateleira).route_layer(from_fn(auth::require_operador)),
        )
        .route(
            "/pedidos",
            post(pedidos::fechar).route_layer(from_fn_with_state(estado.clone(), limite_checkout)),
        )
        .route("/pedidos/{id}", get(pedidos::detalhe))
        .route(
            "/pedidos/{id}/pagamento",
            post(pedidos::pagar).route_layer(from_fn_with_state(estado.clone(), limite_checkout)),
        )
        .with_state(estado)
}

/// The requests' violations, reported sorted in one 400 (the builder is [`Violacoes`]).
/// A query parameter as it arrives: stripped; blank means absent.
fn presente(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// An integer query parameter from 1 to `max` (`padrao` when absent or blank); anything else is a
/// 400 that names it.
fn inteiro(nome: &str, v: &Option<String>, padrao: i64, max: i64) -> Result<i64, super::erro::ErroMercado> {
    match presente(v) {
        None => Ok(padrao),
        Some(s) => s.parse::<i64>().ok().filter(|n| (1..=max).contains(n)).ok_or_else(|| {
            super::erro::ErroMercado::Invalido(format!(
                "Parâmetro inválido: {nome} deve ser um número inteiro de 1 a {max}: {s}"
            ))
        }),
    }
}

fn validado(v: Violacoes) -> Result<(), super::erro::ErroMercado> {
    v.resultado("requisição inválida: ").map_err(super::erro::ErroMercado::invalido)
}

/// Route layer of `POST /pedidos` and `POST /pedidos/{id}/pagamento`: `checkout.max-por-minuto`
/// calls per address, counted by the service's throttle counters.
async fn limite_checkout(State(e): State<Arc<Estado>>, req: Request, next: Next) -> Response {
    let lim = req.extensions().get::<Arc<Limitador>>().cloned();
    let cliente = req.extensions().get::<EnderecoCliente>().copied();
    if let (Some(lim), Some(EnderecoCliente(ip))) = (lim, cliente) {
        if let Err(r) = lim.por_minuto("checkout", ip, e.checkout.max_por_minuto).await {
            if matches!(r, Recusa::Espera(_)) {
                tracing::warn!(client = %ip, "checkout rate limit reached");
            }
            return limite::recusar("pedidos demais deste endereço", r);
        }
    }
    next.run(req).await
}
