//! `demanda_reprimida` (SPEC §2.1, §3.12–3.13): pent-up demand — a restock request that found no
//! shippable lot, kept with the request's event id so the shipment that finally serves it answers
//! that very request (`correlationId`).
//!
//! Recorded when a `ReposicaoSolicitada` is denied `SEM_SALDO` (never for an unknown SKU); served
//! at lot intake, oldest first, one shipment each. A demand served **partially closes anyway**
//! (the original's kept behaviour): the market receives less, stays below its minimum and asks
//! again for the rest. Everything here runs with the product's row locked.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::expedicao;
use super::produto::Bloqueado;
use super::ErroEstoque;
use super::Tx;

#[derive(Clone, Debug, PartialEq)]
pub struct Demanda {
    pub id: i64,
    pub sku: String,
    pub qtd_solicitada: i32,
    /// The eventId of the `ReposicaoSolicitada` this demand stands for.
    pub solicitacao_original: Uuid,
    pub registrado_em: DateTime<Utc>,
}

/// Records an open demand for `produto` (the caller holds its row).
pub async fn registrar(
    tx: &Tx<'_>,
    produto: &Bloqueado<'_>,
    qtd_solicitada: i32,
    solicitacao_original: Uuid,
    agora: DateTime<Utc>,
) -> Result<(), tokio_postgres::Error> {
    let stmt =
        "INSERT INTO demanda_reprimida (sku, qtd_solicitada, solicitacao_original, atendida, registrado_em) \
             VALUES ($1, $2, $3, FALSE, $4)";
    tx.execute(stmt, &[&produto.sku, &qtd_solicitada, &solicitacao_original, &agora]).await?;
    Ok(())
}

/// The open demands of `produto`, in the order they are served (`registrado_em`, then `id`).
pub async fn abertas(tx: &Tx<'_>, produto: &Bloqueado<'_>) -> Result<Vec<Demanda>, tokio_postgres::Error> {
    let stmt = "SELECT id, sku, qtd_solicitada, solicitacao_original, registrado_em FROM demanda_reprimida \
             WHERE sku = $1 AND NOT atendida ORDER BY registrado_em, id";
    giro_infra::da_linhas!(
        tx.query(stmt, &[&produto.sku]).await?,
        Demanda { id, sku, qtd_solicitada, solicitacao_original, registrado_em }
    )
}

async fn marcar_atendida(tx: &Tx<'_>, id: i64) -> Result<(), tokio_postgres::Error> {
    let stmt = "UPDATE demanda_reprimida SET atendida = TRUE WHERE id = $1";
    tx.execute(stmt, &[&id]).await?;
    Ok(())
}

/// Serves the open demands of `produto`, oldest first, one shipment each, until no lot can ship;
/// each demand that got a shipment closes, even a partial one. Returns how many were served.
pub async fn atender_abertas(
    tx: &Tx<'_>,
    produto: &mut Bloqueado<'_>,
    agora: DateTime<Utc>,
) -> Result<i32, ErroEstoque> {
    let mut atendidas = 0;
    for demanda in abertas(tx, produto).await? {
        let Some(envio) = expedicao::expedir_do_proximo_lote(
            tx,
            produto,
            demanda.solicitacao_original,
            demanda.qtd_solicitada,
            agora,
        )
        .await?
        else {
            break;
        };
        marcar_atendida(tx, demanda.id).await?;
        atendidas += 1;
        tracing::info!(
            sku = %produto.sku, solicitacao = %demanda.solicitacao_original, qtd = envio.qtd,
            pedida = demanda.qtd_solicitada, lote = %envio.lote, "pent-up demand served"
        );
    }
    Ok(atendidas)
}

/// `giro_open_demand{age}`: open pent-up demand (requests waiting for a lot) by how long it has
/// waited — under an hour, under a day, longer — and the units it asks; read at scrape time.
pub fn metricas(c: &giro_infra::db::Client) -> futures_util::future::BoxFuture<'_, String> {
    Box::pin(async move {
        const SQL: &str = "SELECT count(*) FILTER (WHERE registrado_em > now() - interval '1 hour'), \
                                  count(*) FILTER (WHERE registrado_em <= now() - interval '1 hour' AND registrado_em > now() - interval '1 day'), \
                                  count(*) FILTER (WHERE registrado_em <= now() - interval '1 day'), \
                                  coalesce(sum(qtd_solicitada), 0)::bigint \
                           FROM demanda_reprimida WHERE NOT atendida";
        match c.query_one(SQL, &[]).await {
            Ok(r) => {
                let mut t = String::from(
                    "# HELP giro_open_demand Open pent-up demand (restock requests waiting for a lot) by age\n# TYPE giro_open_demand gauge\n",
                );
                for (i, idade) in ["lt_1h", "1h_1d", "gt_1d"].iter().enumerate() {
                    t.push_str(&format!("giro_open_demand{{age=\"{idade}\"}} {}\n", r.get::<_, i64>(i)));
                }
                t.push_str("# HELP giro_open_demand_units Units the open pent-up demand asks for\n# TYPE giro_open_demand_units gauge\n");
                t.push_str(&format!("giro_open_demand_units {}\n", r.get::<_, i64>(3)));
                t
            }
            Err(e) => {
                tracing::warn!(error = %e, "metrics: open demand query failed");
                String::new()
            }
        }
    })
}
