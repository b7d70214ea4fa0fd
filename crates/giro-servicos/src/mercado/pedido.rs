//! Orders (`pedido`, `item_pedido`): the status machine, their SQL, and the order detail the
//! routes answer with (`PedidoDetalhe`, SPEC §6.3).
//!
//! Issue 26: every order has a short `numero` besides its UUID (an identity column from 1001,
//! mercado V22), which the shopper sees with the date and reads out to the shop; the UUID stays
//! the key of every route. The owner's reads ([`listar`], [`detalhe_operador`]) page by number,
//! newest first, filtered by status and by a period of instants (`de` inclusive, `ate`
//! exclusive: the browser turns the owner's local dates into instants, so days follow the shop's
//! time zone, not the server's).

use chrono::{DateTime, Utc};
use giro_infra::db::{Param, Sql};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::erro::ErroMercado;
use super::Tx;
use crate::parametro::Pagina;

status! {
    StatusPedido, "pedido" {
        AguardandoPagamento = "AGUARDANDO_PAGAMENTO",
        Pago = "PAGO",
        /// Set only by the operator's cancel of an unpaid order (issue 39; the original never set it).
        Cancelado = "CANCELADO",
        Expirado = "EXPIRADO",
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
            status.nome()
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

/// A new order: `$1` id, `$2` total, `$3` cliente; dated by the database's clock (SPEC §4.7), it
/// returns its `numero` and `criado_em` as stored, so the checkout's answer shows what the page will,
/// and its reservations' deadline for a TTL of `$4` seconds (what [`super::reserva::INSERIR`]
/// writes in the same transaction: `now()` is the transaction's start), with no statement of its own.
pub const INSERIR: &str = "INSERT INTO pedido (id, status, total, criado_em, cliente) \
                           VALUES ($1, 'AGUARDANDO_PAGAMENTO', $2, now(), $3) \
                           RETURNING numero, criado_em, now() + make_interval(secs => $4)";
/// One of its lines: `$1` pedido_id, `$2` sku, `$3` qtd, `$4` preco_unitario.
pub const INSERIR_ITEM: &str =
    "INSERT INTO item_pedido (pedido_id, sku, qtd, preco_unitario) VALUES ($1, $2, $3, $4)";

/// Locks order `$1`, waiting for a lock held elsewhere (payment).
pub const TRAVAR: &str = "SELECT status FROM pedido WHERE id = $1 FOR UPDATE";

/// Locks the order ([`TRAVAR`]).
pub async fn travar(tx: &Tx<'_>, id: Uuid) -> Result<Option<StatusPedido>, ErroMercado> {
    status_de(tx.query_opt(TRAVAR, &[&id]).await?)
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

/// Order `$1` becomes status `$2`; also stamps `pago_em` (the database's clock) when it becomes PAGO.
pub const MUDAR_STATUS: &str = "UPDATE pedido SET status = $2::text, \
                                pago_em = CASE WHEN $2::text = 'PAGO' THEN now() ELSE pago_em END WHERE id = $1";

/// [`MUDAR_STATUS`].
pub async fn mudar_status(tx: &Tx<'_>, id: Uuid, status: StatusPedido) -> Result<(), ErroMercado> {
    tx.execute(MUDAR_STATUS, &[&id, &status.nome()]).await?;
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
    /// The short number people read (issue 26).
    pub numero: i64,
    pub status: &'static str,
    #[serde(serialize_with = "super::dinheiro::numero")]
    pub total: Decimal,
    #[serde(with = "giro_contracts::instante")]
    pub criado_em: DateTime<Utc>,
    /// The earliest deadline among the order's reservations; null when it has none.
    #[serde(serialize_with = "giro_contracts::instante::opcional::serialize")]
    pub reserva_expira_em: Option<DateTime<Utc>>,
    pub itens: Vec<ItemDetalhe>,
}

/// The detail's order row: `$1` id.
pub const DETALHE: &str = "SELECT p.numero, p.status, p.total, p.criado_em, \
                               (SELECT min(r.expira_em) FROM reserva r WHERE r.pedido_id = p.id) AS reserva_expira_em \
                           FROM pedido p WHERE p.id = $1";
/// The detail's lines: `$1` pedido_id.
pub const DETALHE_ITENS: &str = "SELECT i.sku, coalesce(v.nome, i.sku) AS nome, i.qtd, i.preco_unitario \
                                 FROM item_pedido i LEFT JOIN produto_vitrine v ON v.sku = i.sku \
                                 WHERE i.pedido_id = $1 ORDER BY i.id";

pub async fn detalhe(db: &impl Sql, id: Uuid) -> Result<Option<PedidoDetalhe>, ErroMercado> {
    // Independent reads, sent together (pipelined on one connection): one round trip.
    let param: [&dyn Param; 1] = [&id];
    let (p, itens) = tokio::join!(db.query_opt(DETALHE, &param), db.query(DETALHE_ITENS, &param));
    let Some(p) = p? else {
        return Ok(None);
    };
    let itens = giro_infra::da_linhas!(itens?, ItemDetalhe { sku, nome, qtd, preco_unitario })?;
    let status: String = p.try_get("status")?;
    Ok(Some(PedidoDetalhe {
        id,
        numero: p.try_get("numero")?,
        status: StatusPedido::de_texto(&status)?.nome(),
        total: p.try_get("total")?,
        criado_em: p.try_get("criado_em")?,
        reserva_expira_em: p.try_get("reserva_expira_em")?,
        itens,
    }))
}

/// The owner's order list's query, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FiltroPedidos {
    pub status: Option<StatusPedido>,
    pub de: Option<DateTime<Utc>>,
    pub ate: Option<DateTime<Utc>>,
    /// The order's short number (issue 39: the owner searches by what the shopper reads out).
    pub numero: Option<i64>,
    pub pagina: i64,
    pub tamanho: i64,
}

pub const TAMANHO_PADRAO: i64 = 20;
pub const TAMANHO_MAXIMO: i64 = 100;

/// One order of the owner's list.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PedidoResumo {
    pub id: Uuid,
    pub numero: i64,
    pub status: &'static str,
    #[serde(serialize_with = "super::dinheiro::numero")]
    pub total: Decimal,
    #[serde(with = "giro_contracts::instante")]
    pub criado_em: DateTime<Utc>,
    /// Lines of the order and the units over them.
    pub itens: i64,
    pub unidades: i64,
}

/// The owner's list: newest first (by number, which follows creation), one page.
pub async fn listar(db: &impl Sql, f: &FiltroPedidos) -> Result<Pagina<PedidoResumo>, ErroMercado> {
    let filtro = "($1::text IS NULL OR p.status = $1) AND ($2::timestamptz IS NULL OR p.criado_em >= $2) \
                  AND ($3::timestamptz IS NULL OR p.criado_em < $3) AND ($4::bigint IS NULL OR p.numero = $4)";
    let stmt = &format!(
            "SELECT p.id, p.numero, p.status, p.total, p.criado_em, \
                    (SELECT count(*) FROM item_pedido i WHERE i.pedido_id = p.id) AS itens, \
                    (SELECT coalesce(sum(i.qtd), 0)::bigint FROM item_pedido i WHERE i.pedido_id = p.id) AS unidades \
             FROM pedido p WHERE {filtro} ORDER BY p.numero DESC LIMIT $5 OFFSET $6"
        );
    let contar = &format!("SELECT count(*) FROM pedido p WHERE {filtro}");
    let status = f.status.map(StatusPedido::nome);
    let offset = (f.pagina - 1) * f.tamanho;
    let rows = db.query(stmt, &[&status, &f.de, &f.ate, &f.numero, &f.tamanho, &offset]).await?;
    let total: i64 = db.query_one(contar, &[&status, &f.de, &f.ate, &f.numero]).await?.try_get(0)?;
    let itens = rows
        .iter()
        .map(|r| {
            Ok(PedidoResumo {
                id: r.try_get("id")?,
                numero: r.try_get("numero")?,
                status: StatusPedido::de_texto(r.try_get("status")?)?.nome(),
                total: r.try_get("total")?,
                criado_em: r.try_get("criado_em")?,
                itens: r.try_get("itens")?,
                unidades: r.try_get("unidades")?,
            })
        })
        .collect::<Result<Vec<_>, ErroMercado>>()?;
    Ok(Pagina { itens, total, pagina: f.pagina, tamanho: f.tamanho })
}

/// A reservation as the owner sees it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReservaOperador {
    pub sku: String,
    pub qtd: i32,
    /// `ATIVA`, `CONFIRMADA` or `EXPIRADA`.
    pub status: String,
    #[serde(with = "giro_contracts::instante")]
    pub expira_em: DateTime<Utc>,
}

/// The payment of an order: only the simulated one exists (SPEC §3.6), so it is when it was paid.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pagamento {
    /// `null` for orders paid before mercado V22 recorded the instant.
    #[serde(serialize_with = "giro_contracts::instante::opcional::serialize")]
    pub pago_em: Option<DateTime<Utc>>,
}

/// `GET /operacao/pedidos/{id}`: the shopper's detail plus the reservations and the payment.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PedidoOperador {
    #[serde(flatten)]
    pub pedido: PedidoDetalhe,
    pub reservas: Vec<ReservaOperador>,
    /// `null` until the order is paid.
    pub pagamento: Option<Pagamento>,
}

pub async fn detalhe_operador(db: &impl Sql, id: Uuid) -> Result<Option<PedidoOperador>, ErroMercado> {
    let Some(pedido) = detalhe(db, id).await? else {
        return Ok(None);
    };
    let stmt = "SELECT sku, qtd, status, expira_em FROM reserva WHERE pedido_id = $1 ORDER BY sku, id";
    let reservas = giro_infra::da_linhas!(
        db.query(stmt, &[&id]).await?,
        ReservaOperador { sku, qtd, status, expira_em }
    )?;
    let pagamento = if pedido.status == StatusPedido::Pago.nome() {
        let stmt = "SELECT pago_em FROM pedido WHERE id = $1";
        Some(Pagamento { pago_em: db.query_one(stmt, &[&id]).await?.try_get(0)? })
    } else {
        None
    };
    Ok(Some(PedidoOperador { pedido, reservas, pagamento }))
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
