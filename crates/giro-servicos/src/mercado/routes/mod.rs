//! mercado's HTTP routes (SPEC §6.3), thin: parse and validate the input (400 naming each field,
//! nothing written), call the use case, shape the answer. Statuses come from
//! [`ErroMercado::problem`](super::erro::ErroMercado::problem).
//!
//! Who may call: the catalogue reads, checkout, the order page and payment are anonymous and
//! need no CSRF (the original's storefront buys without an account), and so is a product's image;
//! `POST /produtos`, `PATCH /operacao/produtos/{sku}`, its image's `PUT` and `DELETE` and
//! `POST /operacao/pedidos/{id}/cancelamento` need the operator's session and CSRF (CSRF is checked first,
//! as Spring's filter chain does); the other `/operacao/` reads need the session. `/sessao`,
//! `/eventos`, health and the deny-by-default fallback are added by `server::app`.

mod graficos;
mod imagem;
mod operacao;
mod pedidos;
mod produtos;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::middleware::{from_fn, from_fn_with_state, Next};
use axum::response::Response;
use axum::routing::{get, patch, post, put, MethodRouter};
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
    // The operator's writes: CSRF checked before the session.
    let escrita = |r| operador(r).route_layer(from_fn_with_state(seguranca.clone(), auth::csrf));
    let limitada = |r: MethodRouter<_>| r.route_layer(from_fn_with_state(estado.clone(), limite_checkout));
    Router::new()
        .route("/openapi.json", get(giro_http::openapi::documento(OPENAPI)))
        .route("/produtos", get(produtos::listar))
        .route("/produtos", escrita(post(produtos::cadastrar)))
        .route("/produtos/{sku}", get(produtos::buscar))
        .route("/operacao/produtos", operador(get(operacao::produtos)))
        .route("/operacao/produtos/{sku}", escrita(patch(operacao::alterar_produto)))
        .route("/produtos/{sku}/imagem", get(imagem::servir))
        .route(
            "/operacao/produtos/{sku}/imagem",
            escrita(put(imagem::enviar).delete(imagem::remover))
                .layer(DefaultBodyLimit::max(imagem::IMAGEM_MAX)),
        )
        .route("/operacao/pedidos", operador(get(operacao::pedidos)))
        .route("/operacao/pedidos/{id}", operador(get(operacao::pedido)))
        .route("/operacao/pedidos/{id}/cancelamento", escrita(post(operacao::cancelar)))
        .route("/operacao/estoque/produtos/{sku}", operador(get(operacao::no_estoque)))
        .route("/operacao/graficos/vendas", operador(get(graficos::vendas)))
        .route("/operacao/graficos/esgotados", operador(get(graficos::esgotados)))
        .route("/operacao/graficos/prateleira", operador(get(graficos::prateleira)))
        .route("/pedidos", limitada(post(pedidos::fechar)))
        .route("/pedidos/{id}", get(pedidos::detalhe))
        .route("/pedidos/{id}/pagamento", limitada(post(pedidos::pagar)))
        .with_state(estado)
}

/// `route` for the operator's session only (a method the path lacks stays a plain 405).
fn operador(route: MethodRouter<Arc<Estado>>) -> MethodRouter<Arc<Estado>> {
    route.route_layer(from_fn(auth::require_operador))
}

/// The URL the product JSON gives for an image with this ETag (`imagem`'s route, issue 39).
fn url_imagem(sku: &str, etag: Option<&str>) -> Option<String> {
    etag.map(|e| format!("/produtos/{sku}/imagem?v={e}"))
}

/// The requests' violations, reported sorted in one 400 (the builder is [`Violacoes`]).
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
