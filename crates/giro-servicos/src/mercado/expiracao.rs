//! Reservation expiry (SPEC §3.7, the original's `ExpiracaoDeReservas`): the orders whose
//! reservations are past their deadline give their units back to the shelf and become EXPIRADO,
//! in batches of `reserva.lote-expiracao`.
//!
//! - **The sweep wakes at the next deadline** (the database's clock), the interval being only the
//!   longest wait ([`espera_ate`]): with the original's fixed 30 s a reservation could stay held
//!   up to 30 s past its deadline, its units shown sold out meanwhile (issue 29: 1 353 of 1 503
//!   orders still held 106 s in).
//! - **A round drains what is due**: a full batch that expired something is followed at once by
//!   the next ([`Lote::ha_mais`]), so the sweep keeps up with any rate of abandoned carts.
//! - **Several replicas** sweep at once safely: each order in its own transaction that locks it
//!   `FOR UPDATE SKIP LOCKED` (an order a payment or another replica holds is left for the next
//!   round), skipped if already expired or paid, so units come back once.
//! - An order becomes EXPIRADO only when every one of its active reservations was returned in
//!   that transaction; else nothing of it changes. One that fails is left out of the selection
//!   for a while ([`evitados`], 5 s doubling to 5 min), so it cannot hold the head of the `LIMIT`.
//! - **The database's clock decides** what is due (`expira_em <= now()`), never the replica's: a
//!   replica whose clock runs ahead would expire the others' fresh reservations (issue 30). The
//!   test entry points ([`expirar_vencidas`], [`rodada`]) take an instant instead.
//! - Returned units may push the shelf above ideal and trigger no restock (the excess is at most
//!   the reservation; a documented decision of the original).

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::erro::ErroMercado;
use super::pedido::{self, StatusPedido};
use super::produto;
use super::reserva::{self, StatusReserva};
use super::Tx;
use giro_infra::db::Db;
use giro_infra::supervisor::{Pausas, Vivo};

/// Orders whose expiry failed, left out of the selection until their retry instant: 5 s doubling
/// to 5 min, remembered an hour after the pause ends.
pub fn evitados() -> Pausas<Uuid> {
    Pausas::new(Duration::from_secs(5), Duration::from_secs(300), Duration::from_secs(3600))
}

/// The sweep loop: a round at start (orders may have expired while the service was down), then
/// one every `intervalo` after the previous round ends, until `shutdown`.
pub async fn agendar(db: Db, intervalo: Duration, lote: i64, shutdown: CancellationToken, vivo: Vivo) {
    tracing::info!(intervalo_s = intervalo.as_secs_f64(), lote, "reservation expiry sweep started");
    let mut evitados = evitados();
    let mut rodadas = vivo.falhas("reservation expiry round failed");
    let mut prazos =
        vivo.falhas("reading the next reservation deadline failed; sweeping again after the interval");
    loop {
        let mut expirados = 0;
        loop {
            let Some(b) = rodadas.notar(lote_da_rodada(&db, None, lote, &mut evitados).await, intervalo)
            else {
                break;
            };
            expirados += b.expirados;
            vivo.ok();
            if !b.ha_mais(lote) || shutdown.is_cancelled() {
                break;
            }
        }
        if expirados > 0 {
            tracing::info!(pedidos = expirados, "expired orders returned their units");
        }
        vivo.ok();
        let prazo = prazos.notar(proximo_prazo(&db).await, intervalo);
        let espera = prazo.map_or(intervalo, |p| espera_ate(p, intervalo));
        tokio::select! {
            _ = shutdown.cancelled() => break,
            _ = tokio::time::sleep(espera) => {}
        }
    }
    tracing::info!("reservation expiry sweep stopped");
}

/// How long until the earliest active reservation is due, by the database's clock: `Some(0)`
/// when one is due already, `None` when none is active. One read of the partial index on
/// `expira_em`.
pub async fn proximo_prazo(db: &Db) -> Result<Option<Duration>, ErroMercado> {
    let client = db.client().await?;
    let secs: Option<f64> = client
        .query_one(
            "SELECT GREATEST(EXTRACT(EPOCH FROM min(expira_em) - now()), 0)::float8 FROM reserva WHERE status = 'ATIVA'",
            &[],
        )
        .await?
        .get(0);
    Ok(secs.map(|s| Duration::from_secs_f64(s.max(0.0))))
}

/// What is left due after a round is held by a payment in progress, or failing: looked at
/// again after this, not spun on.
pub const PAUSA_SE_VENCIDA: Duration = Duration::from_secs(1);

/// The sweep's next wait: until the earliest deadline (a hair after it, so it is due), never
/// longer than `intervalo` (a reservation written later with a shorter TTL, by a replica
/// configured otherwise, is still found in time) and never a spin on a deadline already past.
pub fn espera_ate(prazo: Option<Duration>, intervalo: Duration) -> Duration {
    match prazo {
        None => intervalo,
        Some(d) if d.is_zero() => PAUSA_SE_VENCIDA.min(intervalo),
        Some(d) => (d + Duration::from_millis(10)).min(intervalo),
    }
}

/// One round as if the database's clock read `agora` (tests): returns how many orders it
/// expired. An order that fails is logged and left for the next round; the others go on.
pub async fn expirar_vencidas(db: &Db, agora: DateTime<Utc>, limite: i64) -> Result<usize, ErroMercado> {
    rodada(db, agora, limite, &mut evitados()).await
}

/// [`expirar_vencidas`], leaving out the orders that failed recently (`evitados`).
pub async fn rodada(
    db: &Db,
    agora: DateTime<Utc>,
    limite: i64,
    evitados: &mut Pausas<Uuid>,
) -> Result<usize, ErroMercado> {
    Ok(lote_da_rodada(db, Some(agora), limite, evitados).await?.expirados)
}

/// What one batch of the sweep did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lote {
    /// Orders selected as due.
    pub selecionados: usize,
    /// Of those, the ones expired by this batch.
    pub expirados: usize,
}

impl Lote {
    /// Whether another batch may find more due at once: this one was full and made progress.
    pub fn ha_mais(&self, limite: i64) -> bool {
        self.expirados > 0 && i64::try_from(self.selecionados).is_ok_and(|n| n >= limite)
    }
}

/// `agora`: `None` = the database's clock.
async fn lote_da_rodada(
    db: &Db,
    agora: Option<DateTime<Utc>>,
    limite: i64,
    evitados: &mut Pausas<Uuid>,
) -> Result<Lote, ErroMercado> {
    let fora = evitados.ativos();
    let ids: Vec<Uuid> = {
        let client = db.client().await?;
        let stmt = "SELECT pedido_id FROM reserva WHERE status = 'ATIVA' AND expira_em <= COALESCE($1, now()) AND NOT (pedido_id = ANY($3)) \
                 GROUP BY pedido_id ORDER BY min(expira_em) LIMIT $2";
        client.query(stmt, &[&agora, &limite, &fora]).await?.iter().map(|r| r.get(0)).collect()
    };
    let selecionados = ids.len();
    let mut expirados = 0;
    for id in ids {
        match expirar_pedido(db, id, agora).await {
            Ok(true) => {
                evitados.ok(&id);
                expirados += 1;
            }
            Ok(false) => {}
            Err(e) => {
                evitados.falhou(id);
                tracing::error!(pedido = %id, error = %e, "expiring an order failed; left out of the sweep for a while");
            }
        }
    }
    Ok(Lote { selecionados, expirados })
}

/// Expires one order if it is still awaiting payment and nobody holds it; true when it did.
/// `agora`: `None` = the database's clock.
pub async fn expirar_pedido(db: &Db, id: Uuid, agora: Option<DateTime<Utc>>) -> Result<bool, ErroMercado> {
    let mut client = db.client().await?;
    let tx = Tx::begin(db, &mut client).await?;
    match pedido::travar_sem_esperar(&tx, id).await? {
        None => {
            tracing::debug!(pedido = %id, "order locked elsewhere; left for the next round");
            return Ok(false);
        }
        Some(StatusPedido::AguardandoPagamento) => {}
        Some(_) => return Ok(false),
    }
    // Sorted by SKU: products are locked in the same order as checkout locks them.
    let reservas = reserva::do_pedido(&tx, id, agora).await?;
    if reservas.iter().any(|r| r.status == StatusReserva::Ativa && !r.vencida) {
        // Not every reservation is due: the order is not expired yet (nothing changes).
        tx.rollback().await?;
        return Ok(false);
    }
    devolver(&tx, id, reservas, StatusPedido::Expirado).await?;
    tx.commit().await?;
    tracing::info!(pedido = %id, "order expired; units back on the shelf");
    metrics::counter!("giro_orders_total", "event" => "expired").increment(1);
    Ok(true)
}

/// Cancels the unpaid order `id` for the operator (issue 39, SPEC §3.7): locked as a payment locks
/// it (waiting), so of a payment and a cancel of the same order exactly one wins; by the
/// database's clock, an order past its deadline is the sweep's (409, as a paid or closed one),
/// else its units go back to the shelf by [`devolver`], as an expiry gives them back.
pub async fn cancelar(db: &Db, id: Uuid) -> Result<(), ErroMercado> {
    let mut client = db.client().await?;
    let tx = Tx::begin(db, &mut client).await?;
    let status = pedido::travar(&tx, id).await?.ok_or(ErroMercado::PedidoNaoEncontrado(id))?;
    let reservas = reserva::do_pedido(&tx, id, None).await?;
    let motivo = match status {
        StatusPedido::AguardandoPagamento if reservas.iter().any(|r| r.vencida) => {
            "o prazo da reserva terminou e os itens já voltam para a vitrine"
        }
        StatusPedido::AguardandoPagamento => "",
        StatusPedido::Pago => "ele já foi pago",
        StatusPedido::Expirado => "a reserva já expirou e os itens voltaram para a vitrine",
        StatusPedido::Cancelado => "ele já foi cancelado",
    };
    if !motivo.is_empty() {
        let m = format!("O pedido {id} não pode ser cancelado: {motivo}.");
        return Err(ErroMercado::CancelamentoRecusado(m));
    }
    devolver(&tx, id, reservas, StatusPedido::Cancelado).await?;
    tx.commit().await?;
    tracing::info!(pedido = %id, "order cancelled by the operator; units back on the shelf");
    metrics::counter!("giro_orders_total", "event" => "cancelled").increment(1);
    Ok(())
}

/// The one release of reserved units: every active reservation of the locked order `id` goes
/// back to the shelf (products locked by SKU, as checkout locks them) and becomes EXPIRADA; the
/// order becomes `status` (EXPIRADO by the sweep, CANCELADO by the operator).
async fn devolver(
    tx: &Tx<'_>,
    id: Uuid,
    reservas: Vec<reserva::Reserva>,
    status: StatusPedido,
) -> Result<(), ErroMercado> {
    for r in reservas {
        if r.status != StatusReserva::Ativa {
            continue;
        }
        let Some(mut p) = produto::travar(tx, &r.sku).await? else {
            // The foreign key makes this impossible; refuse rather than lose units silently.
            return Err(ErroMercado::EstadoInvalido(format!("reserva {} de SKU ausente {}", r.id, r.sku)));
        };
        p.aplicar(|p| p.devolver(r.qtd))?;
        produto::salvar_prateleira(tx, &p).await?;
        if !reserva::expirar(tx, r.id).await? {
            return Err(ErroMercado::EstadoInvalido(format!("reserva {} não estava ativa", r.id)));
        }
    }
    pedido::mudar_status(tx, id, status).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sweep_sleeps_until_the_next_deadline_within_the_interval_and_never_spins() {
        let intervalo = Duration::from_secs(30);
        assert_eq!(espera_ate(None, intervalo), intervalo, "nothing active: the interval");
        assert_eq!(espera_ate(Some(Duration::from_secs(4)), intervalo), Duration::from_millis(4010));
        assert_eq!(
            espera_ate(Some(Duration::from_secs(90)), intervalo),
            intervalo,
            "never past the interval"
        );
        assert_eq!(espera_ate(Some(Duration::ZERO), intervalo), PAUSA_SE_VENCIDA, "held or failing: no spin");
        assert_eq!(espera_ate(Some(Duration::ZERO), Duration::from_millis(200)), Duration::from_millis(200));
    }
}
