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
use giro_infra::db::Db;

/// Pays order `id`; `agora`: `None` = the database's clock (tests pass an instant).
pub async fn pagar(db: &Db, id: Uuid, agora: Option<DateTime<Utc>>) -> Result<PedidoDetalhe, ErroMercado> {
    let mut client = db.client().await?;
    let tx = Tx::begin(db, &mut client).await?;
    let status = pedido::travar(&tx, id).await?.ok_or(ErroMercado::PedidoNaoEncontrado(id))?;
    let reservas = reserva::do_pedido(&tx, id, agora).await?;
    let prazo_vencido = reservas.iter().any(|r| r.vencida);
    let pago_agora = pedido::pagar(id, status, prazo_vencido)?;
    if pago_agora {
        pedido::mudar_status(&tx, id, StatusPedido::Pago).await?;
        let confirmadas = reserva::confirmar_do_pedido(&tx, id).await?;
        if confirmadas as usize != reservas.len() {
            // Every reservation of an order awaiting payment is active; anything else is a bug.
            return Err(ErroMercado::EstadoInvalido(format!(
                "pedido {id}: {confirmadas} de {} reservas estavam ativas",
                reservas.len()
            )));
        }
        tracing::info!(pedido = %id, "order paid");
    }
    let detalhe = pedido::detalhe(&tx, id).await?.ok_or(ErroMercado::PedidoNaoEncontrado(id))?;
    tx.commit().await?;
    if pago_agora {
        metrics::counter!("giro_orders_total", "event" => "paid").increment(1);
        metrics::counter!("giro_units_sold_total")
            .increment(reservas.iter().map(|r| r.qtd.max(0) as u64).sum());
    }
    Ok(detalhe)
}
