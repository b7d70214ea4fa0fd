//! Checkout (SPEC §3.5): one transaction that debits the shelf of every item, records the order
//! and its reservations, and runs the restock trigger for every product touched.
//!
//! Items are consolidated per SKU and the products are locked in ascending SKU order (the lock
//! order of [`super::produto`]), so concurrent checkouts never deadlock. A short item returns
//! before commit: the transaction is dropped and rolls back, so no debit, order, reservation or
//! outbox row survives. The reservation happens here, not at payment: the last unit cannot be
//! sold twice.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::erro::ErroMercado;
use super::pedido::{self, ItemNovo};
use super::{produto, reposicao, reserva};
use crate::db::Db;

/// The largest value of `pedido.total` (`NUMERIC(12,2)`).
const TOTAL_MAXIMO: Decimal = Decimal::from_parts(3_567_587_327, 232, 0, false, 2);

#[derive(Clone, Debug, PartialEq)]
pub struct PedidoFechado {
    pub pedido_id: Uuid,
    pub total: Decimal,
    pub reserva_expira_em: DateTime<Utc>,
}

/// Sums the quantities per SKU, in ascending SKU order; every quantity must be positive.
pub fn consolidar<'a>(itens: impl IntoIterator<Item = (&'a str, i32)>) -> Result<BTreeMap<String, i32>, ErroMercado> {
    let mut por_sku: BTreeMap<String, i32> = BTreeMap::new();
    for (sku, qtd) in itens {
        if qtd <= 0 {
            return Err(ErroMercado::invalido(format!("quantidade deve ser positiva: {qtd}")));
        }
        let soma = por_sku.entry(sku.to_string()).or_insert(0);
        *soma = soma
            .checked_add(qtd)
            .ok_or_else(|| ErroMercado::invalido(format!("quantidade excede o limite para o SKU {sku}")))?;
    }
    if por_sku.is_empty() {
        return Err(ErroMercado::invalido("checkout sem itens"));
    }
    Ok(por_sku)
}

/// Closes an order for `itens` at `agora`; its reservations expire at `agora + ttl`.
pub async fn fechar(db: &Db, itens: &BTreeMap<String, i32>, agora: DateTime<Utc>, ttl: Duration) -> Result<PedidoFechado, ErroMercado> {
    if itens.is_empty() {
        return Err(ErroMercado::invalido("checkout sem itens"));
    }
    let ttl = chrono::Duration::from_std(ttl).map_err(|e| ErroMercado::EstadoInvalido(format!("reserva.ttl: {e}")))?;
    let expira_em = agora + ttl;
    let pedido_id = Uuid::new_v4();

    let mut client = db.client().await?;
    let tx = db.begin(&mut client).await?;
    let mut total = Decimal::ZERO;
    let mut linhas = Vec::with_capacity(itens.len());
    let mut tocados = Vec::with_capacity(itens.len());
    for (sku, &qtd) in itens {
        let mut p = produto::travar(&tx, sku).await?.ok_or_else(|| ErroMercado::ProdutoNaoEncontrado(sku.clone()))?;
        p.debitar(qtd)?;
        produto::salvar_prateleira(&tx, &p).await?;
        total = p
            .preco
            .checked_mul(Decimal::from(qtd))
            .and_then(|v| total.checked_add(v))
            .filter(|t| *t <= TOTAL_MAXIMO)
            .ok_or_else(|| ErroMercado::invalido("total do pedido excede o limite de 9999999999.99"))?;
        linhas.push(ItemNovo { sku: sku.clone(), qtd, preco_unitario: p.preco });
        tocados.push(p);
    }
    pedido::inserir(&tx, pedido_id, total, agora, &linhas).await?;
    for l in &linhas {
        reserva::inserir(&tx, pedido_id, &l.sku, l.qtd, expira_em).await?;
    }
    for p in &tocados {
        reposicao::avaliar(&tx, p, agora).await?;
    }
    tx.commit().await?;
    tracing::info!(pedido = %pedido_id, %total, itens = linhas.len(), "order closed");
    Ok(PedidoFechado { pedido_id, total, reserva_expira_em: expira_em })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_consolidated_per_sku_in_ascending_order() {
        let m = consolidar([("7894900011517", 2), ("2000000000114", 1), ("7894900011517", 3)]).unwrap();
        assert_eq!(m.into_iter().collect::<Vec<_>>(), vec![("2000000000114".into(), 1), ("7894900011517".into(), 5)]);
    }

    #[test]
    fn empty_carts_bad_quantities_and_overflow_are_refused() {
        let e = |r: Result<BTreeMap<String, i32>, ErroMercado>| r.map_err(|e| e.to_string()).err();
        assert_eq!(e(consolidar([])), Some("checkout sem itens".into()));
        assert_eq!(e(consolidar([("12345678", 0)])), Some("quantidade deve ser positiva: 0".into()));
        assert_eq!(e(consolidar([("12345678", -2)])), Some("quantidade deve ser positiva: -2".into()));
        assert_eq!(
            e(consolidar([("12345678", i32::MAX), ("12345678", 1)])),
            Some("quantidade excede o limite para o SKU 12345678".into())
        );
    }

    #[test]
    fn the_total_limit_is_the_column_s() {
        assert_eq!(TOTAL_MAXIMO.to_string(), "9999999999.99");
    }
}
