//! mercado's operator pages' own reads (issue 18), operator session only:
//!
//! - `GET /operacao/produtos`: the storefront as the operator sees it — shelf, minimum, ideal,
//!   status and the open restock request of each product, by name.
//! - `GET /operacao/estoque/produtos/{sku}`: the SKU looked up in estoque exactly as
//!   `POST /produtos` looks it up (mercado's service token), so the registration form can say what
//!   the warehouse knows before it is sent: 200 with what estoque answered, 404 unknown to estoque
//!   (problem, the words of the 422 it would get), 503 estoque did not answer, 400 not a SKU.

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::Serialize;

use super::Estado;
use crate::contracts::instante;
use crate::http::extract::AppJson;
use crate::http::Problem;
use crate::mercado::catalogo_estoque::Consulta;
use crate::mercado::dinheiro;
use crate::mercado::erro::ErroMercado;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SolicitacaoAberta {
    pub event_id: uuid::Uuid,
    pub qtd: i32,
    /// `PENDENTE` (sent, waiting for estoque) or `AGUARDANDO_LOTE` (estoque has no balance yet).
    pub status: String,
    #[serde(serialize_with = "instante::serialize")]
    pub criada_em: DateTime<Utc>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProdutoOperador {
    pub sku: String,
    pub nome: String,
    #[serde(serialize_with = "dinheiro::numero")]
    pub preco: Decimal,
    pub status: String,
    pub prateleira: i32,
    pub estoque_minimo: i32,
    pub estoque_ideal: i32,
    pub categoria: Option<String>,
    pub reposicao_aberta: Option<SolicitacaoAberta>,
}

pub async fn produtos(State(e): State<Arc<Estado>>) -> Result<AppJson<Vec<ProdutoOperador>>, ErroMercado> {
    let client = e.db.client().await?;
    // At most one open request per SKU (uk_solicitacao_reposicao_ativa_por_sku), so one row each.
    let rows = client
        .query(
            "SELECT p.sku, p.nome, p.preco, p.status, p.estoque_prateleira, p.estoque_minimo, p.estoque_ideal, \
                    p.categoria, s.event_id, s.qtd_solicitada, s.status, s.criado_em \
               FROM produto_vitrine p \
               LEFT JOIN solicitacao_reposicao s ON s.sku = p.sku AND s.status IN ('PENDENTE', 'AGUARDANDO_LOTE') \
              ORDER BY p.nome, p.sku",
            &[],
        )
        .await?;
    Ok(AppJson(
        rows.iter()
            .map(|r| ProdutoOperador {
                sku: r.get(0),
                nome: r.get(1),
                preco: r.get(2),
                status: r.get(3),
                prateleira: r.get(4),
                estoque_minimo: r.get(5),
                estoque_ideal: r.get(6),
                categoria: r.get(7),
                reposicao_aberta: r.get::<_, Option<uuid::Uuid>>(8).map(|event_id| SolicitacaoAberta {
                    event_id,
                    qtd: r.get(9),
                    status: r.get(10),
                    criada_em: r.get(11),
                }),
            })
            .collect(),
    ))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NoEstoque {
    pub sku: String,
    pub descricao: Option<String>,
    pub categoria: Option<String>,
    pub tags: Option<Vec<String>>,
}

pub async fn no_estoque(
    State(e): State<Arc<Estado>>,
    sku: Result<Path<String>, PathRejection>,
) -> Result<AppJson<NoEstoque>, Problem> {
    let sku = sku.map(|Path(s)| s).unwrap_or_default();
    if !crate::contracts::sku_valido(&sku) {
        return Err(Problem::bad_request(format!(
            "parâmetro inválido: sku deve corresponder a \"{}\": {sku}",
            crate::contracts::SKU_REGEX
        )));
    }
    match e.catalogo.consultar(&sku).await {
        Consulta::Encontrado(p) => Ok(AppJson(NoEstoque {
            sku: p.sku,
            descricao: p.descricao,
            categoria: p.categoria,
            tags: p.tags,
        })),
        Consulta::Desconhecido => {
            Err(Problem::new(StatusCode::NOT_FOUND, ErroMercado::SkuDesconhecidoNoEstoque(sku).to_string()))
        }
        Consulta::Indisponivel => Err(Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "o estoque não respondeu; o produto pode ser cadastrado e será classificado depois",
        )),
    }
}
