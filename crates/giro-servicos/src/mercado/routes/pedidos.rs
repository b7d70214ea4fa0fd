//! `POST /pedidos` (checkout), `GET /pedidos/{id}` and `POST /pedidos/{id}/pagamento`.

use std::sync::Arc;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use serde::Deserialize;
use uuid::Uuid;

use super::{validado, Estado};
use crate::mercado::erro::ErroMercado;
use crate::mercado::{checkout, pagamento, pedido};
use giro_contracts::Violacoes;
use giro_http::extract::{AppJson, AppPath};
use giro_http::limite::EnderecoCliente;

/// The most items one order may carry (`@Size(max=50)`).
const MAX_ITENS: usize = 50;

#[derive(Debug, Deserialize)]
pub struct CheckoutRequest {
    itens: Option<Vec<ItemRequest>>,
}

#[derive(Debug, Deserialize)]
pub struct ItemRequest {
    sku: Option<String>,
    qtd: Option<i32>,
}

impl CheckoutRequest {
    /// `@NotEmpty @Size(max=50)`, each item a GTIN and a positive quantity.
    fn validar(&self) -> Result<Vec<(&str, i32)>, ErroMercado> {
        let mut v = Violacoes::default();
        let itens = self.itens.as_deref().unwrap_or_default();
        if itens.is_empty() {
            v.add("itens", "não deve estar vazio");
        }
        if itens.len() > MAX_ITENS {
            v.add("itens", &format!("tamanho deve ser entre 0 e {MAX_ITENS}"));
        }
        for (i, item) in itens.iter().enumerate() {
            v.sku(&format!("itens[{i}].sku"), item.sku.as_deref());
            v.positivo_obrigatorio(&format!("itens[{i}].qtd"), item.qtd);
        }
        validado(v)?;
        Ok(itens.iter().filter_map(|i| Some((i.sku.as_deref()?, i.qtd?))).collect())
    }
}

/// `Idempotency-Key`: optional; 1 to 255 visible ASCII characters (a UUID in practice).
fn chave_idempotencia(headers: &HeaderMap) -> Result<Option<String>, ErroMercado> {
    let Some(v) = headers.get("idempotency-key") else { return Ok(None) };
    match v.to_str() {
        Ok(s) if (1..=255).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(Some(s.to_string()))
        }
        _ => Err(ErroMercado::invalido("Idempotency-Key inválida: de 1 a 255 caracteres ASCII visíveis")),
    }
}

/// A bound of `checkout.*` (0: none).
fn limite(max: u32) -> Option<i64> {
    (max > 0).then_some(i64::from(max))
}

pub async fn fechar(
    State(e): State<Arc<Estado>>,
    headers: HeaderMap,
    cliente: Option<Extension<EnderecoCliente>>,
    AppJson(req): AppJson<CheckoutRequest>,
) -> Result<Response, ErroMercado> {
    let chave = chave_idempotencia(&headers)?;
    let itens = checkout::consolidar(req.validar()?)?;
    let op = checkout::Opcoes {
        // The neighbourhood (an IPv6 /64), as every per-address bound counts it.
        cliente: cliente.map(|c| c.0 .0),
        max_unidades: limite(e.checkout.max_unidades_reservadas),
        max_por_produto: limite(e.checkout.max_unidades_por_produto),
        chave,
    };
    let (f, repetido) = checkout::fechar_com(&e.db, &itens, crate::mercado::agora(), e.ttl, &op).await?;
    let location = format!("/pedidos/{}", f.pedido_id);
    let mut res = (StatusCode::CREATED, [(header::LOCATION, location)], AppJson(f)).into_response();
    if repetido {
        res.headers_mut().insert("idempotent-replayed", axum::http::HeaderValue::from_static("true"));
    }
    Ok(res)
}

pub(super) fn id_do_pedido(AppPath(id): AppPath<String>) -> Result<Uuid, ErroMercado> {
    Uuid::parse_str(&id)
        .map_err(|_| ErroMercado::invalido(format!("id do pedido inválido (esperado UUID): {id}")))
}

pub async fn detalhe(State(e): State<Arc<Estado>>, id: AppPath<String>) -> Result<Response, ErroMercado> {
    let id = id_do_pedido(id)?;
    let client = e.db.client().await?;
    let d = pedido::detalhe(&client, id).await?.ok_or(ErroMercado::PedidoNaoEncontrado(id))?;
    Ok(AppJson(d).into_response())
}

pub async fn pagar(State(e): State<Arc<Estado>>, id: AppPath<String>) -> Result<Response, ErroMercado> {
    let id = id_do_pedido(id)?;
    Ok(AppJson(pagamento::pagar(&e.db, id, None).await?).into_response())
}
