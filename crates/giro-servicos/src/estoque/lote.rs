//! `lote` (SPEC §2.1, §3.11): lots of a product, each with its own balance, and the FEFO choice of
//! the lot to ship from.
//!
//! **FEFO** (first expired, first out): among the SKU's lots with units left and not expired —
//! `validade` is today or later, or absent — the earliest `validade` first, lots without expiry
//! last, then the oldest receipt, then the lowest id. "Today" is the civil date in
//! `America/Sao_Paulo` of the instant `agora` the caller passes, computed in SQL: a lot whose
//! `validade` is today still ships; one whose `validade` was yesterday never does (its units stay
//! in the product's balance, as the original's).
//!
//! Every function here runs with the product's row locked: the locked product
//! (`produto::Bloqueado`, the aggregate root) receives and ships lots by calling them, so lots of
//! one SKU are never changed concurrently. This module does not know the product type: the
//! dependency goes one way, produto → lote.

use chrono::{DateTime, NaiveDate, Utc};
use tokio_postgres::Row;

use super::ErroEstoque;
use super::Tx;

/// The civil date of `$n::timestamptz` in the warehouse's time zone, as SQL.
macro_rules! hoje_sql {
    ($n:literal) => {
        concat!("(", $n, "::timestamptz AT TIME ZONE 'America/Sao_Paulo')::date")
    };
}
pub(super) use hoje_sql;

#[derive(Clone, Debug, PartialEq)]
pub struct Lote {
    pub id: i64,
    pub sku: String,
    pub codigo_lote: String,
    /// Received quantity (immutable).
    pub quantidade: i32,
    /// `None`: no expiry.
    pub validade: Option<NaiveDate>,
    pub recebido_em: DateTime<Utc>,
    pub quantidade_disponivel: i32,
}

fn de_linha(row: &Row) -> Result<Lote, tokio_postgres::Error> {
    Ok(giro_infra::da_linha!(
        row,
        Lote { id, sku, codigo_lote, quantidade, validade, recebido_em, quantidade_disponivel }
    ))
}

/// Inserts a received lot of `sku` (called by `Bloqueado::receber_lote`, which credits the
/// product's balance with it) entered by `operador`: code not blank, quantity positive; all of it available. A code
/// already used for this SKU fails on `uk_lote_sku_codigo` ([`ErroEstoque::Conflito`]). Returns
/// the new lot's id.
pub(super) async fn inserir(
    tx: &Tx<'_>,
    sku: &str,
    codigo_lote: &str,
    quantidade: i32,
    validade: Option<NaiveDate>,
    recebido_em: DateTime<Utc>,
    operador: &str,
) -> Result<i64, ErroEstoque> {
    if codigo_lote.trim().is_empty() {
        return Err(ErroEstoque::Invalido("codigoLote é obrigatório".into()));
    }
    if quantidade <= 0 {
        return Err(ErroEstoque::Invalido(format!("quantidade do lote deve ser positiva: {quantidade}")));
    }
    let stmt =
        "INSERT INTO lote (sku, codigo_lote, quantidade, validade, recebido_em, quantidade_disponivel, operador) \
             VALUES ($1, $2, $3, $4, $5, $3, $6) RETURNING id";
    let linha =
        tx.query_one(stmt, &[&sku, &codigo_lote, &quantidade, &validade, &recebido_em, &operador]).await?;
    Ok(linha.try_get(0)?)
}

/// The FEFO lot of `sku` at `agora` (the original's `proximoParaExpedir(sku, hoje)`), if any.
pub async fn proximo_para_expedir(
    tx: &Tx<'_>,
    sku: &str,
    agora: DateTime<Utc>,
) -> Result<Option<Lote>, tokio_postgres::Error> {
    let stmt = concat!(
        "SELECT id, sku, codigo_lote, quantidade, validade, recebido_em, quantidade_disponivel FROM lote \
             WHERE sku = $1 AND quantidade_disponivel > 0 AND (validade IS NULL OR validade >= ",
        hoje_sql!("$2"),
        ") ORDER BY validade ASC NULLS LAST, recebido_em ASC, id ASC LIMIT 1"
    );
    tx.query_opt(stmt, &[&sku, &agora]).await?.as_ref().map(de_linha).transpose()
}

/// Takes `qtd` units out of `lote` (the original's `Lote.retirar`: 0 < qtd ≤ available): a
/// shipment or a write-off.
pub(super) async fn retirar(tx: &Tx<'_>, lote: &Lote, qtd: i32) -> Result<(), ErroEstoque> {
    let codigo = &lote.codigo_lote;
    if qtd <= 0 {
        return Err(ErroEstoque::Interno(anyhow::anyhow!(
            "retirada do lote {codigo} deve ser positiva: {qtd}"
        )));
    }
    let stmt = "UPDATE lote SET quantidade_disponivel = quantidade_disponivel - $2 \
             WHERE id = $1 AND quantidade_disponivel >= $2";
    if tx.execute(stmt, &[&lote.id, &qtd]).await? != 1 {
        return Err(ErroEstoque::Interno(anyhow::anyhow!("lote {codigo} sem {qtd} unidades disponíveis")));
    }
    Ok(())
}

/// The civil date "today" at `agora` in the warehouse's time zone, as SQL computes it for FEFO
/// (so the intake's and the write-off's "expired" agree with what ships).
pub async fn hoje(
    c: &impl giro_infra::db::Sql,
    agora: DateTime<Utc>,
) -> Result<NaiveDate, tokio_postgres::Error> {
    let stmt = concat!("SELECT ", hoje_sql!("$1"));
    c.query_one(stmt, &[&agora]).await?.try_get(0)
}

/// The lot `codigo_lote` of `sku`, if any (the product's row is locked by the caller).
pub async fn por_codigo(
    tx: &Tx<'_>,
    sku: &str,
    codigo_lote: &str,
) -> Result<Option<Lote>, tokio_postgres::Error> {
    let stmt =
        "SELECT id, sku, codigo_lote, quantidade, validade, recebido_em, quantidade_disponivel FROM lote \
             WHERE sku = $1 AND codigo_lote = $2";
    tx.query_opt(stmt, &[&sku, &codigo_lote]).await?.as_ref().map(de_linha).transpose()
}
