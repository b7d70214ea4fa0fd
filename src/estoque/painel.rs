//! The dashboard's read-only queries (the original's `ConsultasPainel`, SPEC §6.2). They join
//! tables the other modules own, so they live here, in one place; nothing here changes state.
//! Only warehouse data: nothing about the market's minimums or its sold-out products.
//!
//! - `skusSemSaldo` counts **shippable** balance: products with no lot that has units left and is
//!   not expired (zero balance, or only expired lots) — unlike `saldo_disponivel`, which includes
//!   expired units.
//! - `lotesVencendo`: lots with units left whose `validade` is between today and today + 30 days,
//!   both inclusive ("today" in `America/Sao_Paulo` of the instant passed).
//! - `entregueEm` of a shipment is `reposicao_expedida.entregue_em`, filled by a trigger when its
//!   `ReposicaoEnviada` outbox row becomes `SENT` (migration V11): it survives the pruning of sent
//!   outbox rows, which the original's `LEFT JOIN outbox_event` would not.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::lote::hoje_sql;
use crate::contracts::instante;
use crate::db::Client;

/// Days ahead of today that count as "expiring" (inclusive).
pub const DIAS_ALERTA_VALIDADE: i32 = 30;
/// The most shipments `/painel/reposicoes` returns; the default is [`LIMITE_PADRAO`].
pub const LIMITE_MAXIMO: i64 = 100;
pub const LIMITE_PADRAO: i64 = 20;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resumo {
    pub skus_cadastrados: i64,
    pub skus_sem_saldo: i64,
    pub demandas_abertas: i64,
    pub lotes_vencendo: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DemandaAberta {
    pub id: i64,
    pub sku: String,
    pub descricao: String,
    pub qtd_solicitada: i32,
    #[serde(with = "instante")]
    pub registrado_em: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReposicaoRecente {
    pub event_id: Uuid,
    pub sku: String,
    pub descricao: String,
    pub qtd: i32,
    pub codigo_lote: String,
    #[serde(with = "instante")]
    pub expedido_em: DateTime<Utc>,
    /// `null` while the `ReposicaoEnviada` has not reached the market ("enviando").
    #[serde(serialize_with = "instante::opcional::serialize")]
    pub entregue_em: Option<DateTime<Utc>>,
}

/// The four KPIs at `agora`.
pub async fn resumo(client: &Client, agora: DateTime<Utc>) -> Result<Resumo, tokio_postgres::Error> {
    let stmt = concat!(
        "SELECT (SELECT count(*) FROM produto_estoque) AS skus, \
                    (SELECT count(*) FROM produto_estoque p WHERE NOT EXISTS ( \
                         SELECT 1 FROM lote l WHERE l.sku = p.sku AND l.quantidade_disponivel > 0 \
                            AND (l.validade IS NULL OR l.validade >= ",
        hoje_sql!("$1"),
        "))) AS sem_saldo, \
                    (SELECT count(*) FROM demanda_reprimida WHERE NOT atendida) AS demandas, \
                    (SELECT count(*) FROM lote WHERE quantidade_disponivel > 0 AND validade BETWEEN ",
        hoje_sql!("$1"),
        " AND ",
        hoje_sql!("$1"),
        " + $2::int) AS vencendo"
    );
    let row = client.query_one(stmt, &[&agora, &DIAS_ALERTA_VALIDADE]).await?;
    Ok(Resumo {
        skus_cadastrados: row.try_get("skus")?,
        skus_sem_saldo: row.try_get("sem_saldo")?,
        demandas_abertas: row.try_get("demandas")?,
        lotes_vencendo: row.try_get("vencendo")?,
    })
}

/// Open demands in the order they will be served (`registrado_em`, then `id`).
pub async fn demandas(client: &Client) -> Result<Vec<DemandaAberta>, tokio_postgres::Error> {
    let stmt = "SELECT d.id, d.sku, p.descricao, d.qtd_solicitada, d.registrado_em \
               FROM demanda_reprimida d JOIN produto_estoque p ON p.sku = d.sku \
              WHERE NOT d.atendida ORDER BY d.registrado_em, d.id";
    client
        .query(stmt, &[])
        .await?
        .iter()
        .map(|r| {
            Ok(DemandaAberta {
                id: r.try_get("id")?,
                sku: r.try_get("sku")?,
                descricao: r.try_get("descricao")?,
                qtd_solicitada: r.try_get("qtd_solicitada")?,
                registrado_em: r.try_get("registrado_em")?,
            })
        })
        .collect()
}

/// `limite` as `/painel/reposicoes` takes it: default 20, clamped to [1, 100].
pub fn limite(pedido: Option<i64>) -> i64 {
    pedido.unwrap_or(LIMITE_PADRAO).clamp(1, LIMITE_MAXIMO)
}

/// The latest `limite` shipments, newest first (`expedido_em DESC, id DESC`).
pub async fn reposicoes(
    client: &Client,
    limite: i64,
) -> Result<Vec<ReposicaoRecente>, tokio_postgres::Error> {
    let stmt = "SELECT r.event_id, r.sku, p.descricao, r.qtd, l.codigo_lote, r.expedido_em, r.entregue_em \
               FROM reposicao_expedida r \
               JOIN produto_estoque p ON p.sku = r.sku \
               JOIN lote l ON l.id = r.lote_id \
              ORDER BY r.expedido_em DESC, r.id DESC LIMIT $1";
    client
        .query(stmt, &[&limite])
        .await?
        .iter()
        .map(|r| {
            Ok(ReposicaoRecente {
                event_id: r.try_get("event_id")?,
                sku: r.try_get("sku")?,
                descricao: r.try_get("descricao")?,
                qtd: r.try_get("qtd")?,
                codigo_lote: r.try_get("codigo_lote")?,
                expedido_em: r.try_get("expedido_em")?,
                entregue_em: r.try_get("entregue_em")?,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limite_defaults_to_20_and_is_clamped_to_1_100() {
        assert_eq!(limite(None), 20);
        assert_eq!(limite(Some(0)), 1);
        assert_eq!(limite(Some(-5)), 1);
        assert_eq!(limite(Some(7)), 7);
        assert_eq!(limite(Some(100)), 100);
        assert_eq!(limite(Some(1000)), 100);
    }
}
