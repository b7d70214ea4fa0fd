//! Reservation expiry (SPEC §3.7, the original's `ExpiracaoDeReservas`): every
//! `reserva.intervalo-expiracao`, up to `reserva.lote-expiracao` orders whose reservations are
//! past their deadline give their units back to the shelf and become EXPIRADO.
//!
//! Each order is handled in its own transaction that locks it with `FOR UPDATE SKIP LOCKED`: an
//! order locked by a payment in progress, or by another replica's sweep, is left for the next
//! round instead of waited for; one already expired (or paid) by the time the lock is taken is
//! skipped, so units come back once however many sweeps run. Returned units may push the shelf
//! above ideal and do not trigger a restock (the excess is at most the reservation; a documented
//! decision of the original). The loop logs failures and goes on; it stops on shutdown.

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::erro::ErroMercado;
use super::pedido::{self, StatusPedido};
use super::{produto, reserva};
use crate::db::Db;

/// The sweep loop: a round at start (orders may have expired while the service was down), then
/// one every `intervalo` after the previous round ends, until `shutdown`.
pub async fn agendar(db: Db, intervalo: Duration, lote: i64, shutdown: CancellationToken) {
    tracing::info!(intervalo_s = intervalo.as_secs_f64(), lote, "reservation expiry sweep started");
    loop {
        match expirar_vencidas(&db, super::agora(), lote).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(pedidos = n, "expired orders returned their units"),
            Err(e) => tracing::error!(error = %e, "reservation expiry round failed"),
        }
        tokio::select! {
            _ = shutdown.cancelled() => break,
            _ = tokio::time::sleep(intervalo) => {}
        }
    }
    tracing::info!("reservation expiry sweep stopped");
}

/// One round at `agora`: returns how many orders it expired. An order that fails is logged and
/// left for the next round; the others go on.
pub async fn expirar_vencidas(db: &Db, agora: DateTime<Utc>, limite: i64) -> Result<usize, ErroMercado> {
    let ids = {
        let client = db.client().await?;
        reserva::pedidos_com_reserva_vencida(&client, agora, limite).await?
    };
    let mut expirados = 0;
    for id in ids {
        match expirar_pedido(db, id, agora).await {
            Ok(true) => expirados += 1,
            Ok(false) => {}
            Err(e) => tracing::error!(pedido = %id, error = %e, "expiring an order failed"),
        }
    }
    Ok(expirados)
}

/// Expires one order if it is still awaiting payment and nobody holds it; true when it did.
pub async fn expirar_pedido(db: &Db, id: Uuid, agora: DateTime<Utc>) -> Result<bool, ErroMercado> {
    let mut client = db.client().await?;
    let tx = db.begin(&mut client).await?;
    match pedido::travar_sem_esperar(&tx, id).await? {
        None => {
            tracing::debug!(pedido = %id, "order locked elsewhere; left for the next round");
            return Ok(false);
        }
        Some(StatusPedido::AguardandoPagamento) => {}
        Some(_) => return Ok(false),
    }
    // Sorted by SKU: products are locked in the same order as checkout locks them.
    for r in reserva::do_pedido(&tx, id).await? {
        if r.status != "ATIVA" || !r.venceu_em(agora) {
            continue;
        }
        let Some(mut p) = produto::travar(&tx, &r.sku).await? else {
            // The foreign key makes this impossible; refuse rather than lose units silently.
            return Err(ErroMercado::EstadoInvalido(format!("reserva {} de SKU ausente {}", r.id, r.sku)));
        };
        p.devolver(r.qtd)?;
        produto::salvar_prateleira(&tx, &p).await?;
        if !reserva::expirar(&tx, r.id).await? {
            return Err(ErroMercado::EstadoInvalido(format!("reserva {} não estava ativa", r.id)));
        }
    }
    pedido::mudar_status(&tx, id, StatusPedido::Expirado).await?;
    tx.commit().await?;
    tracing::info!(pedido = %id, "order expired; units back on the shelf");
    Ok(true)
}
