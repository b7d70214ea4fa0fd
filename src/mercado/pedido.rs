//! Orders (`pedido`, `item_pedido`): the status machine, their SQL, and the order detail the
//! routes answer with (`PedidoDetalhe`, SPEC §6.3).

use crate::db::Sql;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::erro::ErroMercado;
use super::Tx;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatusPedido {
    AguardandoPagamento,
    Pago,
    /// Exists in the schema and the contract; nothing sets it (as in the original).
    Cancelado,
    Expirado,
}

impl StatusPedido {
    pub fn como_texto(self) -> &'static str {
        match self {
            StatusPedido::AguardandoPagamento => "AGUARDANDO_PAGAMENTO",
            StatusPedido::Pago => "PAGO",
            StatusPedido::Cancelado => "CANCELADO",
            StatusPedido::Expirado => "EXPIRADO",
        }
    }

    pub fn de_texto(s: &str) -> Result<Self, ErroMercado> {
        Ok(match s {
            "AGUARDANDO_PAGAMENTO" => StatusPedido::AguardandoPagamento,
            "PAGO" => StatusPedido::Pago,
            "CANCELADO" => StatusPedido::Cancelado,
            "EXPIRADO" => StatusPedido::Expirado,
            other => {
                return Err(ErroMercado::EstadoInvalido(format!("status de pedido desconhecido: {other}")))
            }
        })
    }
}

/// What a payment does to an order in `status` (SPEC §3.6); `prazo_vencido` = any reservation
/// reached its deadline (`agora >= expira_em`). `Ok(true)`: becomes PAGO; `Ok(false)`: already
/// paid, nothing changes.
pub fn pagar(id: Uuid, status: StatusPedido, prazo_vencido: bool) -> Result<bool, ErroMercado> {
    let prazo = || {
        ErroMercado::PagamentoRecusado(format!(
            "O prazo da reserva do pedido {id} terminou; os itens voltaram para a vitrine"
        ))
    };
    match status {
        StatusPedido::AguardandoPagamento if prazo_vencido => Err(prazo()),
        StatusPedido::AguardandoPagamento => Ok(true),
        StatusPedido::Pago => Ok(false),
        StatusPedido::Expirado => Err(prazo()),
        StatusPedido::Cancelado => Err(ErroMercado::PagamentoRecusado(format!(
            "O pedido {id} não aceita pagamento: está {}",
            status.como_texto()
        ))),
    }
}

/// An order line as checkout records it.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemNovo {
    pub sku: String,
    pub qtd: i32,
    pub preco_unitario: Decimal,
}

/// A new order: `$1` id, `$2` total, `$3` criado_em.
pub const INSERIR: &str =
    "INSERT INTO pedido (id, status, total, criado_em, cliente) VALUES ($1, 'AGUARDANDO_PAGAMENTO', $2, $3, $4)";
/// One of its lines: `$1` pedido_id, `$2` sku, `$3` qtd, `$4` preco_unitario.
pub const INSERIR_ITEM: &str =
    "INSERT INTO item_pedido (pedido_id, sku, qtd, preco_unitario) VALUES ($1, $2, $3, $4)";

/// Locks the order, waiting for a lock held elsewhere (payment).
pub async fn travar(tx: &Tx<'_>, id: Uuid) -> Result<Option<StatusPedido>, ErroMercado> {
    let stmt = "SELECT status FROM pedido WHERE id = $1 FOR UPDATE";
    status_de(tx.query_opt(stmt, &[&id]).await?)
}

/// Locks the order unless someone else holds it (the expiry sweep: a payment in progress or
/// another replica is never waited for). `None` when locked or gone.
pub async fn travar_sem_esperar(tx: &Tx<'_>, id: Uuid) -> Result<Option<StatusPedido>, ErroMercado> {
    let stmt = "SELECT status FROM pedido WHERE id = $1 FOR UPDATE SKIP LOCKED";
    status_de(tx.query_opt(stmt, &[&id]).await?)
}

fn status_de(r: Option<tokio_postgres::Row>) -> Result<Option<StatusPedido>, ErroMercado> {
    r.map(|r| {
        r.try_get::<_, String>("status").map_err(ErroMercado::from).and_then(|s| StatusPedido::de_texto(&s))
    })
    .transpose()
}

pub async fn mudar_status(tx: &Tx<'_>, id: Uuid, status: StatusPedido) -> Result<(), ErroMercado> {
    let stmt = "UPDATE pedido SET status = $2 WHERE id = $1";
    tx.execute(stmt, &[&id, &status.como_texto()]).await?;
    Ok(())
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemDetalhe {
    pub sku: String,
    /// The storefront name, or the SKU when the product is gone.
    pub nome: String,
    pub qtd: i32,
    #[serde(serialize_with = "super::dinheiro::numero")]
    pub preco_unitario: Decimal,
}

/// `PedidoDetalhe`, the body of `GET /pedidos/{id}` and of a payment.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PedidoDetalhe {
    pub id: Uuid,
    pub status: &'static str,
    #[serde(serialize_with = "super::dinheiro::numero")]
    pub total: Decimal,
    #[serde(with = "crate::contracts::instante")]
    pub criado_em: DateTime<Utc>,
    /// The earliest deadline among the order's reservations; null when it has none.
    #[serde(serialize_with = "crate::contracts::instante::opcional::serialize")]
    pub reserva_expira_em: Option<DateTime<Utc>>,
    pub itens: Vec<ItemDetalhe>,
}

pub async fn detalhe(db: &impl Sql, id: Uuid) -> Result<Option<PedidoDetalhe>, ErroMercado> {
    let stmt = "SELECT p.status, p.total, p.criado_em, \
                    (SELECT min(r.expira_em) FROM reserva r WHERE r.pedido_id = p.id) AS reserva_expira_em \
             FROM pedido p WHERE p.id = $1";
    let Some(p) = db.query_opt(stmt, &[&id]).await? else {
        return Ok(None);
    };
    let itens = "SELECT i.sku, coalesce(v.nome, i.sku) AS nome, i.qtd, i.preco_unitario \
             FROM item_pedido i LEFT JOIN produto_vitrine v ON v.sku = i.sku \
             WHERE i.pedido_id = $1 ORDER BY i.id";
    let itens = db
        .query(itens, &[&id])
        .await?
        .iter()
        .map(|r| {
            Ok(ItemDetalhe {
                sku: r.try_get("sku")?,
                nome: r.try_get("nome")?,
                qtd: r.try_get("qtd")?,
                preco_unitario: r.try_get("preco_unitario")?,
            })
        })
        .collect::<Result<Vec<_>, ErroMercado>>()?;
    let status: String = p.try_get("status")?;
    Ok(Some(PedidoDetalhe {
        id,
        status: StatusPedido::de_texto(&status)?.como_texto(),
        total: p.try_get("total")?,
        criado_em: p.try_get("criado_em")?,
        reserva_expira_em: p.try_get("reserva_expira_em")?,
        itens,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payment_rules_follow_the_status_and_the_deadline() {
        let id = Uuid::nil();
        assert_eq!(pagar(id, StatusPedido::AguardandoPagamento, false).ok(), Some(true));
        assert_eq!(pagar(id, StatusPedido::Pago, false).ok(), Some(false), "repeat payment is a no-op");
        assert_eq!(pagar(id, StatusPedido::Pago, true).ok(), Some(false), "a paid order stays paid");
        let prazo = format!("O prazo da reserva do pedido {id} terminou; os itens voltaram para a vitrine");
        assert_eq!(
            pagar(id, StatusPedido::AguardandoPagamento, true).map_err(|e| e.to_string()),
            Err(prazo.clone())
        );
        assert_eq!(pagar(id, StatusPedido::Expirado, false).map_err(|e| e.to_string()), Err(prazo));
        assert_eq!(
            pagar(id, StatusPedido::Cancelado, false).map_err(|e| e.to_string()),
            Err(format!("O pedido {id} não aceita pagamento: está CANCELADO"))
        );
    }
}
