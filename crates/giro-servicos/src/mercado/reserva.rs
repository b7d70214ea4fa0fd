//! Reservations (`reserva`): units held on the shelf for an order from checkout until it is paid
//! (CONFIRMADA) or its deadline passes (EXPIRADA). Checkout already debited the shelf, so a
//! reservation is what the expiry sweep gives back. Every function here takes the open
//! transaction; the order's row is locked by the caller.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::erro::ErroMercado;
use super::Tx;

#[derive(Clone, Debug, PartialEq)]
pub struct Reserva {
    pub id: Uuid,
    pub sku: String,
    pub qtd: i32,
    pub expira_em: DateTime<Utc>,
    pub status: StatusReserva,
    /// Its deadline is reached (`expira_em <= now()`, the deadline itself included), by the
    /// database's clock when [`do_pedido`] was read — never a replica's own clock, which may
    /// run ahead of the one that reserved it.
    pub vencida: bool,
}

status! {
    /// `reserva.status`: what the row holds. Spelled here and in this module's SQL only.
    StatusReserva, "reserva" {
        /// Units held for an unpaid order.
        Ativa = "ATIVA",
        /// The order was paid: the units are sold.
        Confirmada = "CONFIRMADA",
        /// The deadline passed: the units went back to the shelf.
        Expirada = "EXPIRADA",
    }
}

/// A reservation of a new order: `$1` id, `$2` sku, `$3` qtd, `$4` pedido_id, `$5` the TTL in
/// seconds. The deadline is the database's clock (`now()` + TTL), like every instant that decides
/// when a row is due (SPEC §4.7): a replica whose clock is behind would otherwise reserve with
/// deadlines already past.
pub const INSERIR: &str = "INSERT INTO reserva (id, sku, qtd, pedido_id, expira_em, status) \
                           VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5), 'ATIVA')";

/// [`do_pedido`]'s read: `$1` pedido_id, `$2` the instant (NULL = the database's clock).
pub const DO_PEDIDO: &str =
    "SELECT id, sku, qtd, expira_em, status, expira_em <= COALESCE($2, now()) AS vencida \
     FROM reserva WHERE pedido_id = $1 ORDER BY sku, id";

/// The order's reservations, by SKU (the product lock order); `vencida` at `agora` (`None` = the
/// database's clock; tests pass an instant).
pub async fn do_pedido(
    tx: &Tx<'_>,
    pedido_id: Uuid,
    agora: Option<DateTime<Utc>>,
) -> Result<Vec<Reserva>, ErroMercado> {
    tx.query(DO_PEDIDO, &[&pedido_id, &agora])
        .await?
        .iter()
        .map(|r| {
            Ok(Reserva {
                id: r.try_get("id")?,
                sku: r.try_get("sku")?,
                qtd: r.try_get("qtd")?,
                expira_em: r.try_get("expira_em")?,
                status: StatusReserva::de_texto(r.try_get("status")?)?,
                vencida: r.try_get("vencida")?,
            })
        })
        .collect()
}

/// `confirmar()` for every active reservation of paid order `$1`.
pub const CONFIRMAR_DO_PEDIDO: &str =
    "UPDATE reserva SET status = 'CONFIRMADA' WHERE pedido_id = $1 AND status = 'ATIVA'";

/// [`CONFIRMAR_DO_PEDIDO`]; returns how many were confirmed.
pub async fn confirmar_do_pedido(tx: &Tx<'_>, pedido_id: Uuid) -> Result<u64, ErroMercado> {
    Ok(tx.execute(CONFIRMAR_DO_PEDIDO, &[&pedido_id]).await?)
}

/// `expirar()`: ATIVA → EXPIRADA; false when it was no longer active.
pub async fn expirar(tx: &Tx<'_>, id: Uuid) -> Result<bool, ErroMercado> {
    let stmt = "UPDATE reserva SET status = 'EXPIRADA' WHERE id = $1 AND status = 'ATIVA'";
    Ok(tx.execute(stmt, &[&id]).await? == 1)
}
