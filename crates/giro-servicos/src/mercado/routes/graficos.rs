//! mercado's operator home charts (issue 26), operator session only; each route one aggregated
//! series, the SQL doing the aggregation over a bounded window, by the database's clock:
//!
//! - `GET /operacao/graficos/vendas?horas=` (1–48, default 24): per hour, orders created, those
//!   paid and the revenue (the paid orders' totals), every hour of the window present.
//! - `GET /operacao/graficos/esgotados?horas=&limite=` (limite 1–20, default 5): the products
//!   that ran out most. A product is not recorded the moment its shelf empties, but each restock
//!   request is (`solicitacao_reposicao.criado_em`: its shelf fell below its minimum through
//!   sales), so the chart counts requests per product in the window, with its status now.
//! - `GET /operacao/graficos/prateleira?limite=` (1–50, default 12): shelf against minimum and
//!   ideal, the products closest to empty (shelf ÷ ideal) first. It is here, not in the
//!   warehouse's dashboard: mercado owns the minimum and the ideal, estoque never learns them.

use std::sync::Arc;

use axum::extract::State;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::Estado;
use crate::mercado::dinheiro;
use crate::mercado::erro::ErroMercado;
use giro_contracts::instante;
use giro_http::extract::{AppJson, AppQuery};

/// The query of a chart, read by hand so a bad value is named in the 400.
#[derive(Deserialize)]
pub struct Janela {
    horas: Option<String>,
    limite: Option<String>,
}

/// `v` as an integer from 1 to `max`, `padrao` when absent ([`crate::parametro::inteiro`]).
fn inteiro(nome: &str, v: &Option<String>, max: i64, padrao: i64) -> Result<i64, ErroMercado> {
    crate::parametro::inteiro(nome, v.as_deref(), padrao, max).map_err(ErroMercado::Invalido)
}

const HORAS_MAX: i64 = 48;
const HORAS_PADRAO: i64 = 24;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HoraVendas {
    #[serde(serialize_with = "instante::serialize")]
    pub hora: DateTime<Utc>,
    pub pedidos: i64,
    pub pagos: i64,
    #[serde(serialize_with = "dinheiro::numero")]
    pub receita: Decimal,
}

#[derive(Serialize)]
pub struct Vendas {
    pub horas: i64,
    pub pontos: Vec<HoraVendas>,
}

pub async fn vendas(
    State(e): State<Arc<Estado>>,
    AppQuery(q): AppQuery<Janela>,
) -> Result<AppJson<Vendas>, ErroMercado> {
    let horas = inteiro("horas", &q.horas, HORAS_MAX, HORAS_PADRAO)?;
    let client = e.db.client().await?;
    let sql =
        "WITH h AS (SELECT generate_series(date_trunc('hour', now()) - make_interval(hours => $1::int - 1), \
                                           date_trunc('hour', now()), interval '1 hour') AS hora), \
              p AS (SELECT date_trunc('hour', criado_em) AS hora, count(*) AS pedidos, \
                           count(*) FILTER (WHERE status = 'PAGO') AS pagos, \
                           sum(total) FILTER (WHERE status = 'PAGO') AS receita \
                      FROM pedido WHERE criado_em >= (SELECT min(hora) FROM h) GROUP BY 1) \
         SELECT h.hora, coalesce(p.pedidos, 0) AS pedidos, coalesce(p.pagos, 0) AS pagos, \
                coalesce(p.receita, 0)::numeric(14, 2) AS receita \
           FROM h LEFT JOIN p USING (hora) ORDER BY h.hora";
    let rows = client.query(sql, &[&(horas as i32)]).await?;
    let pontos = giro_infra::da_linhas!(rows, HoraVendas { hora, pedidos, pagos, receita })?;
    Ok(AppJson(Vendas { horas, pontos }))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Esgotado {
    pub sku: String,
    pub nome: String,
    /// `DISPONIVEL` or `ESGOTADO` now.
    pub status: String,
    pub reposicoes: i64,
}

#[derive(Serialize)]
pub struct Esgotados {
    pub horas: i64,
    pub produtos: Vec<Esgotado>,
}

pub async fn esgotados(
    State(e): State<Arc<Estado>>,
    AppQuery(q): AppQuery<Janela>,
) -> Result<AppJson<Esgotados>, ErroMercado> {
    let horas = inteiro("horas", &q.horas, HORAS_MAX, HORAS_PADRAO)?;
    let limite = inteiro("limite", &q.limite, 20, 5)?;
    let client = e.db.client().await?;
    let sql = "SELECT p.sku, p.nome, p.status, count(*) AS reposicoes \
                 FROM solicitacao_reposicao s JOIN produto_vitrine p ON p.sku = s.sku \
                WHERE s.criado_em >= now() - make_interval(hours => $1::int) \
                GROUP BY p.sku, p.nome, p.status ORDER BY reposicoes DESC, p.nome, p.sku LIMIT $2";
    let rows = client.query(sql, &[&(horas as i32), &limite]).await?;
    let produtos = giro_infra::da_linhas!(rows, Esgotado { sku, nome, status, reposicoes })?;
    Ok(AppJson(Esgotados { horas, produtos }))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Prateleira {
    pub sku: String,
    pub nome: String,
    pub prateleira: i32,
    pub estoque_minimo: i32,
    pub estoque_ideal: i32,
}

pub async fn prateleira(
    State(e): State<Arc<Estado>>,
    AppQuery(q): AppQuery<Janela>,
) -> Result<AppJson<Vec<Prateleira>>, ErroMercado> {
    let limite = inteiro("limite", &q.limite, 50, 12)?;
    let client = e.db.client().await?;
    let sql = "SELECT sku, nome, estoque_prateleira AS prateleira, estoque_minimo, estoque_ideal \
                 FROM produto_vitrine ORDER BY estoque_prateleira::float8 / estoque_ideal, nome, sku LIMIT $1";
    let rows = client.query(sql, &[&limite]).await?;
    Ok(AppJson(giro_infra::da_linhas!(
        rows,
        Prateleira { sku, nome, prateleira, estoque_minimo, estoque_ideal }
    )?))
}
