//! The simulated payment (SPEC §3.6): the order is locked (waiting for the lock, unlike the
//! sweep), the database's clock decides (not this replica's: another replica may have reserved
//! with a clock minutes behind it) — a reservation past its deadline refuses the payment even before
//! the sweep has run — and a paid order's reservations become CONFIRMADA: checkout's debit is
//! the sale. Paying twice changes nothing and answers the same detail.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::erro::ErroMercado;
use super::pedido::{self, PedidoDetalhe, StatusPedido};
use super::reserva;
use super::Tx;
use giro_infra::db::{Db, Sql};

/// Pays order `id`; `agora`: `None` = the database's clock (tests pass an instant).
///
/// Three round trips when it pays, two otherwise: `BEGIN` + the lock + the reservations' read
/// (the server runs them in that order, so the read, a fresh READ COMMITTED snapshot, sees the
/// rows once the lock is held) · the writes + the detail's reads · `COMMIT`. That `COMMIT` stays
/// apart: the confirmed reservations are counted before it, and a wrong count rolls back.
pub async fn pagar(db: &Db, id: Uuid, agora: Option<DateTime<Utc>>) -> Result<PedidoDetalhe, ErroMercado> {
    let mut client = db.client().await?;
    let tx = Tx::begin(db, &mut client).await?;
    // Prepared first (cached: no round trip after the connection's first payment), so each
    // statement goes out on its first poll, in poll order: the lock before the read, the writes
    // before the detail's reads.
    let sqls = [
        pedido::TRAVAR,
        reserva::DO_PEDIDO,
        pedido::MUDAR_STATUS,
        reserva::CONFIRMAR_DO_PEDIDO,
        pedido::DETALHE,
        pedido::DETALHE_ITENS,
    ];
    Sql::aquecer(&tx, &sqls).await?;
    let (status, reservas) = tokio::join!(pedido::travar(&tx, id), reserva::do_pedido(&tx, id, agora));
    let status = status?.ok_or(ErroMercado::PedidoNaoEncontrado(id))?;
    let reservas = reservas?;
    let prazo_vencido = reservas.iter().any(|r| r.vencida);
    let pago_agora = pedido::pagar(id, status, prazo_vencido)?;
    let detalhe = if pago_agora {
        let (pago, confirmadas, detalhe) = tokio::join!(
            pedido::mudar_status(&tx, id, StatusPedido::Pago),
            reserva::confirmar_do_pedido(&tx, id),
            pedido::detalhe(&tx, id)
        );
        pago?;
        let confirmadas = confirmadas?;
        if confirmadas as usize != reservas.len() {
            // Every reservation of an order awaiting payment is active; anything else is a bug.
            return Err(ErroMercado::EstadoInvalido(format!(
                "pedido {id}: {confirmadas} de {} reservas estavam ativas",
                reservas.len()
            )));
        }
        let detalhe = detalhe?;
        tx.commit().await?;
        tracing::info!(pedido = %id, "order paid");
        detalhe
    } else {
        // Already paid: nothing written, so the COMMIT (which only releases the lock) goes with the reads.
        let (detalhe, fim) = tokio::join!(pedido::detalhe(&tx, id), tx.commit_em_seguida());
        fim?;
        detalhe?
    };
    let detalhe = detalhe.ok_or(ErroMercado::PedidoNaoEncontrado(id))?;
    if pago_agora {
        metrics::counter!("giro_orders_total", "event" => "paid").increment(1);
        metrics::counter!("giro_units_sold_total")
            .increment(reservas.iter().map(|r| r.qtd.max(0) as u64).sum());
    }
    Ok(detalhe)
}
