//! `POST /pedidos` (checkout), `GET /pedidos/{id}` and `POST /pedidos/{id}/pagamento`.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{Estado, Violacoes};
use crate::http::extract::{AppJson, AppPath};
use crate::mercado::erro::ErroMercado;
use crate::mercado::{checkout, dinheiro, pagamento, pedido};

/// The most items one order may carry (`@Size(max=50)`).
const MAX_ITENS: usize = 50;

#[derive(Debug, Deserialize)]
pub struct CheckoutRequest {
    #[serde(default)]
    itens: Option<Vec<ItemRequest>>,
}

#[derive(Debug, Deserialize)]
pub struct ItemRequest {
    #[serde(default)]
    sku: Option<String>,
    #[serde(default)]
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
            v.positivo(&format!("itens[{i}].qtd"), item.qtd);
        }
        v.resultado()?;
        Ok(itens.iter().filter_map(|i| Some((i.sku.as_deref()?, i.qtd?))).collect())
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct PedidoFechadoResposta {
    pedido_id: Uuid,
    #[serde(serialize_with = "dinheiro::numero")]
    total: Decimal,
    #[serde(with = "crate::contracts::instante")]
    reserva_expira_em: DateTime<Utc>,
}

pub async fn fechar(
    State(e): State<Arc<Estado>>,
    AppJson(req): AppJson<CheckoutRequest>,
) -> Result<Response, ErroMercado> {
    let itens = checkout::consolidar(req.validar()?)?;
    let f = checkout::fechar(&e.db, &itens, crate::mercado::agora(), e.ttl).await?;
    let location = format!("/pedidos/{}", f.pedido_id);
    let body = PedidoFechadoResposta {
        pedido_id: f.pedido_id,
        total: f.total,
        reserva_expira_em: f.reserva_expira_em,
    };
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], AppJson(body)).into_response())
}

fn id_do_pedido(AppPath(id): AppPath<String>) -> Result<Uuid, ErroMercado> {
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
    Ok(AppJson(pagamento::pagar(&e.db, id, crate::mercado::agora()).await?).into_response())
}
