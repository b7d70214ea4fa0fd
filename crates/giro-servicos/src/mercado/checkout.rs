//! Checkout (SPEC §3.5): one transaction that debits the shelf of every item, records the order
//! and its reservations, and runs the restock trigger for every product touched.
//!
//! Items are consolidated per SKU and the products are locked in ascending SKU order (the lock
//! order of [`super::produto`]), so concurrent checkouts never deadlock. A short item returns
//! before commit: the transaction is dropped and rolls back, so no debit, order, reservation or
//! outbox row survives. The reservation happens here, not at payment: the last unit cannot be
//! sold twice.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::erro::ErroMercado;
use super::pedido::{self, ItemNovo};
use super::produto::Travado;
use super::Tx;
use super::{produto, reposicao, reserva};
use giro_infra::db::Db;
use giro_infra::db::Param;

/// The largest value of `pedido.total` (`NUMERIC(12,2)`).
const TOTAL_MAXIMO: Decimal = Decimal::from_parts(3_567_587_327, 232, 0, false, 2);

/// A closed order, as `POST /pedidos` answers it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PedidoFechado {
    pub pedido_id: Uuid,
    /// The order's short number and when it was closed (issue 26), besides the original's fields.
    pub numero: i64,
    #[serde(with = "giro_contracts::instante")]
    pub criado_em: DateTime<Utc>,
    #[serde(serialize_with = "super::dinheiro::numero")]
    pub total: Decimal,
    #[serde(with = "giro_contracts::instante")]
    pub reserva_expira_em: DateTime<Utc>,
}

/// Sums the quantities per SKU, in ascending SKU order; every quantity must be positive.
pub fn consolidar<'a>(
    itens: impl IntoIterator<Item = (&'a str, i32)>,
) -> Result<BTreeMap<String, i32>, ErroMercado> {
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

/// The bounds of an anonymous checkout (issue 13); all off by default.
#[derive(Clone, Debug, Default)]
pub struct Opcoes {
    /// Who checks out (the client address), recorded on the order.
    pub cliente: Option<IpAddr>,
    /// Units `cliente` may hold in unpaid, unexpired reservations, this order included.
    pub max_unidades: Option<i64>,
    /// Units of one SKU `cliente` may hold in unpaid, unexpired reservations, this order included
    /// (`checkout.max-unidades-por-produto`): a bound of 200 units across products would still let
    /// one address empty a product of 87.
    pub max_por_produto: Option<i64>,
    /// The request's `Idempotency-Key`, as the client sent it (scoped to `cliente` here).
    pub chave: Option<String>,
}

/// The key as stored: prefixed with the client's neighbourhood, so the namespace is each
/// client's own — another client sending the same key and items gets an order of its own, never
/// the first client's (issue 25). A retry must therefore come from the same neighbourhood (the
/// same IPv4 address, the same IPv6 /64), which a client retrying a lost answer does.
fn chave_do_cliente(cliente: Option<IpAddr>, chave: &str) -> String {
    match cliente {
        Some(ip) => format!("{ip}|{chave}"),
        None => format!("-|{chave}"),
    }
}

/// How long an `Idempotency-Key` is remembered.
/// Written as `interval '1 day'` in this module's SQL too.
pub const VALIDADE_CHAVE: chrono::Duration = chrono::Duration::days(1);

/// The items as the key remembers them: `sku:qtd` in SKU order (what "the same body" means).
fn assinatura(itens: &BTreeMap<String, i32>) -> String {
    itens.iter().map(|(s, q)| format!("{s}:{q}")).collect::<Vec<_>>().join(",")
}

/// Claims `$1` chave for `$2` itens and `$3` pedido_id, or takes over a key that expired; returns a
/// row when this checkout holds the key. A key another transaction holds uncommitted makes this
/// wait for it: then it returns nothing if the other committed (a replay), a row if it rolled
/// back. The key is taken before the order row exists; no foreign key ties them (V18): this
/// transaction writes both or neither, and orders are never deleted. A key's age is the database's
/// clock (issue 30): stamped with `now()`, expired only when older than a day by both that clock
/// and the caller's instant (`$4`, a day before it), so a replica whose clock runs ahead cannot
/// take, purge or ignore a key another replica just took.
const TOMAR_CHAVE: &str = "INSERT INTO checkout_idempotencia AS k (chave, itens, pedido_id, criado_em) VALUES ($1, $2, $3, now()) \
                           ON CONFLICT (chave) DO UPDATE SET itens = EXCLUDED.itens, pedido_id = EXCLUDED.pedido_id, criado_em = EXCLUDED.criado_em \
                           WHERE k.criado_em <= LEAST($4, now() - interval '1 day') RETURNING 1";

/// The order an unexpired `chave` already closed: `Ok(None)` when there is none; a 422 when it
/// was used for other items.
async fn repetido(
    c: &impl giro_infra::db::Sql,
    chave: &str,
    itens: &str,
    agora: DateTime<Utc>,
) -> Result<Option<PedidoFechado>, ErroMercado> {
    let stmt = "SELECT k.itens, p.id, p.numero, p.total, p.criado_em, \
                    (SELECT min(r.expira_em) FROM reserva r WHERE r.pedido_id = p.id) AS expira \
             FROM checkout_idempotencia k JOIN pedido p ON p.id = k.pedido_id \
             WHERE k.chave = $1 AND k.criado_em > LEAST($2, now() - interval '1 day')";
    let Some(row) = c.query_opt(stmt, &[&chave, &(agora - VALIDADE_CHAVE)]).await? else {
        return Ok(None);
    };
    if row.try_get::<_, String>("itens")? != itens {
        return Err(ErroMercado::IdempotenciaDivergente);
    }
    let criado: DateTime<Utc> = row.try_get("criado_em")?;
    Ok(Some(PedidoFechado {
        pedido_id: row.try_get("id")?,
        numero: row.try_get("numero")?,
        criado_em: criado,
        total: row.try_get("total")?,
        reserva_expira_em: row.try_get::<_, Option<DateTime<Utc>>>("expira")?.unwrap_or(criado),
    }))
}

/// Deletes at most `limite` keys older than a day at `agora`; returns how many. Keys another
/// sweep holds are skipped, so any number of replicas may run it.
pub async fn purgar_chaves(db: &Db, agora: DateTime<Utc>, limite: i64) -> Result<u64, ErroMercado> {
    let client = db.client().await?;
    let sql = "DELETE FROM checkout_idempotencia WHERE chave IN \
               (SELECT chave FROM checkout_idempotencia WHERE criado_em <= LEAST($1, now() - interval '1 day') LIMIT $2 FOR UPDATE SKIP LOCKED)";
    Ok(client.execute(sql, &[&(agora - VALIDADE_CHAVE), &limite]).await?)
}

/// Keys purged per statement by [`limpar_chaves`].
pub const LOTE_PURGA: i64 = 1000;

/// How often [`limpar_chaves`] looks for expired keys.
pub const INTERVALO_PURGA: Duration = Duration::from_secs(60);

/// The expired keys' purge, a supervised loop of its own (a checkout never deletes): every
/// [`INTERVALO_PURGA`], batches of [`LOTE_PURGA`] until one comes back short.
pub async fn limpar_chaves(
    db: Db,
    shutdown: tokio_util::sync::CancellationToken,
    vivo: giro_infra::supervisor::Vivo,
) {
    let mut falhas = vivo.falhas("purging expired Idempotency-Keys failed; trying again later");
    loop {
        loop {
            let Some(n) = falhas.notar(purgar_chaves(&db, super::agora(), LOTE_PURGA).await, INTERVALO_PURGA)
            else {
                break;
            };
            vivo.ok();
            if n > 0 {
                tracing::debug!(chaves = n, "expired Idempotency-Keys purged");
            }
            if n < LOTE_PURGA as u64 || shutdown.is_cancelled() {
                break;
            }
        }
        vivo.ok();
        tokio::select! {
            _ = shutdown.cancelled() => break,
            _ = tokio::time::sleep(INTERVALO_PURGA) => {}
        }
    }
}

/// Closes an order for `itens` at `agora`, within the bounds of `op`; its reservations expire at
/// `agora + ttl`. The flag is true when the answer replays an order an `Idempotency-Key` already
/// closed (nothing reserved this time).
pub async fn fechar_com(
    db: &Db,
    itens: &BTreeMap<String, i32>,
    agora: DateTime<Utc>,
    ttl: Duration,
    op: &Opcoes,
) -> Result<(PedidoFechado, bool), ErroMercado> {
    if itens.is_empty() {
        return Err(ErroMercado::invalido("checkout sem itens"));
    }
    let assinado = assinatura(itens);
    let pedido_id = Uuid::new_v4();

    let chave = op.chave.as_deref().map(|k| chave_do_cliente(op.cliente, k));
    let mut client = db.client().await?;
    let tx = Tx::begin(db, &mut client).await?;
    if let Some(ip) = op.cliente {
        reservas_do_cliente(&tx, ip, op, itens, agora).await?;
    }
    let mut total = Decimal::ZERO;
    let mut linhas = Vec::with_capacity(itens.len());
    let mut tocados = Vec::with_capacity(itens.len());
    for (i, (sku, &qtd)) in itens.iter().enumerate() {
        let travado = match (&chave, i) {
            // The key is claimed in this transaction, pipelined with the first lock (one round
            // trip): a replay is found by the claim's conflict, with no lookup beforehand.
            (Some(chave), 0) => {
                let claim = async {
                    let stmt = TOMAR_CHAVE;
                    tx.query_opt(stmt, &[chave, &assinado, &pedido_id, &(agora - VALIDADE_CHAVE)]).await
                };
                let (tomada, travado) = tokio::join!(claim, produto::travar(&tx, sku));
                if tomada?.is_none() {
                    drop(travado);
                    tx.rollback().await?;
                    return match repetido(&client, chave, &assinado, agora).await? {
                        Some(f) => Ok((f, true)),
                        None => Err(ErroMercado::Conflito),
                    };
                }
                travado?
            }
            _ => produto::travar(&tx, sku).await?,
        };
        let mut p = travado.ok_or_else(|| ErroMercado::ProdutoNaoEncontrado(sku.clone()))?;
        if !p.listado {
            return Err(ErroMercado::ProdutoForaDoCatalogo(sku.clone()));
        }
        p.aplicar(|p| p.debitar(qtd))?;
        total = p
            .preco
            .checked_mul(Decimal::from(qtd))
            .and_then(|v| total.checked_add(v))
            .filter(|t| *t <= TOTAL_MAXIMO)
            .ok_or_else(|| ErroMercado::invalido("total do pedido excede o limite de 9999999999.99"))?;
        linhas.push(ItemNovo { sku: sku.clone(), qtd, preco_unitario: p.preco });
        tocados.push(p);
    }
    // No shelf went below its minimum (the hot path): the restock trigger has nothing to do, and
    // the COMMIT goes out with the writes.
    let sem_reposicao = tocados.iter().all(|p| p.quantidade_a_repor(false).is_none());
    let (expira_em, numero, criado_em) =
        gravar(&tx, &tocados, pedido_id, total, &linhas, ttl, op.cliente, sem_reposicao).await?;
    if !sem_reposicao {
        for p in &tocados {
            reposicao::avaliar(&tx, p, agora).await?;
        }
    }
    let esgotados = tocados.iter().filter(|p| p.prateleira == 0).count();
    drop(tocados);
    tx.commit().await?;
    tracing::info!(pedido = %pedido_id, %total, itens = linhas.len(), "order closed");
    metrics::counter!("giro_orders_total", "event" => "created").increment(1);
    if esgotados > 0 {
        metrics::counter!("giro_stockouts_total").increment(esgotados as u64);
    }
    Ok((PedidoFechado { pedido_id, numero, criado_em, total, reserva_expira_em: expira_em }, false))
}

/// The reservation bounds: the units `ip` holds in unpaid, unexpired reservations plus this order
/// must stay within `op.max_unidades`, and those of each SKU within `op.max_por_produto`; one
/// query, grouped by SKU. Checkouts of one address are not serialised for it (many shoppers may
/// share an address behind a NAT): requests in flight at the same moment may pass together, so
/// a bound can be exceeded by what those few orders hold — the rate limit bounds how many.
async fn reservas_do_cliente(
    tx: &Tx<'_>,
    ip: IpAddr,
    op: &Opcoes,
    itens: &BTreeMap<String, i32>,
    agora: DateTime<Utc>,
) -> Result<(), ErroMercado> {
    if op.max_unidades.is_none() && op.max_por_produto.is_none() {
        return Ok(());
    }
    let pedidas: i64 = itens.values().map(|q| i64::from(*q)).sum();
    if op.max_unidades.is_some_and(|max| pedidas > max) {
        return Err(ErroMercado::ReservasDemais { espera: None });
    }
    if let Some(max) = op.max_por_produto {
        if let Some((sku, _)) = itens.iter().find(|(_, q)| i64::from(**q) > max) {
            return Err(ErroMercado::ReservasDemaisDoProduto { sku: sku.clone(), max, espera: None });
        }
    }
    // Held until the database's clock passes the deadline (the expiry sweep's clock): a replica
    // whose clock runs ahead must not count another's fresh reservations as gone.
    let stmt = "SELECT r.sku, SUM(r.qtd)::bigint AS retidas, MIN(r.expira_em) AS proxima \
             FROM pedido p JOIN reserva r ON r.pedido_id = p.id \
             WHERE p.cliente = $1 AND p.status = 'AGUARDANDO_PAGAMENTO' AND r.status = 'ATIVA' AND r.expira_em > LEAST($2, now()) \
             GROUP BY r.sku";
    let rows = tx.query(stmt, &[&ip, &agora]).await?;
    let (mut retidas, mut proxima) = (0i64, None::<DateTime<Utc>>);
    let espera = |p: Option<DateTime<Utc>>| p.and_then(|p| (p - agora).to_std().ok());
    for row in &rows {
        let sku: String = row.try_get("sku")?;
        let n: i64 = row.try_get("retidas")?;
        let primeira: DateTime<Utc> = row.try_get("proxima")?;
        retidas += n;
        proxima = Some(proxima.map_or(primeira, |p| p.min(primeira)));
        if let (Some(max), Some(q)) = (op.max_por_produto, itens.get(&sku)) {
            if n + i64::from(*q) > max {
                return Err(ErroMercado::ReservasDemaisDoProduto {
                    sku,
                    max,
                    espera: espera(Some(primeira)),
                });
            }
        }
    }
    if op.max_unidades.is_some_and(|max| retidas + pedidas > max) {
        return Err(ErroMercado::ReservasDemais { espera: espera(proxima) });
    }
    Ok(())
}

/// The writes of a checkout — shelves, the order, its lines, its reservations — sent together
/// (tokio-postgres pipelines queries issued at once on one connection, in the order they are
/// polled: the order row goes before the rows that reference it), so they cost one round trip
/// instead of one each; with `commit`, the COMMIT goes in that round trip too. The product rows
/// are already locked. Returns the reservations' deadline and the order's number and instant as
/// stored.
#[allow(clippy::too_many_arguments)]
async fn gravar(
    tx: &Tx<'_>,
    tocados: &[Travado<'_>],
    pedido_id: Uuid,
    total: Decimal,
    linhas: &[ItemNovo],
    ttl: Duration,
    cliente: Option<IpAddr>,
    commit: bool,
) -> Result<(DateTime<Utc>, i64, DateTime<Utc>), ErroMercado> {
    let (upd, ped, item, res) =
        (produto::SALVAR_PRATELEIRA, pedido::INSERIR, pedido::INSERIR_ITEM, reserva::INSERIR);
    // Prepared before the pipeline (cached: no round trip after a connection's first checkout),
    // so each write goes out on its first poll, the order row ahead of the rows referencing it;
    // a statement still being prepared would be sent late, and an item before its order fails
    // the foreign key (a fresh connection's first checkouts answered 500 before this).
    giro_infra::db::Sql::aquecer(tx, &[upd, ped, item, res]).await?;
    // The reservations' deadline is the database's clock (SPEC §4.7), returned by the order's row.
    let ttl_s = ttl.as_secs_f64();
    let status: Vec<&'static str> = tocados.iter().map(|p| p.status.nome()).collect();
    let reservas: Vec<Uuid> = linhas.iter().map(|_| Uuid::new_v4()).collect();
    // Every statement's parameters first: the pipelined futures borrow them.
    let prateleiras: Vec<[&dyn Param; 3]> =
        tocados.iter().zip(&status).map(|(p, st)| [&p.sku as &dyn Param, &p.prateleira, st]).collect();
    let cabeca = [&pedido_id as &dyn Param, &total, &cliente, &ttl_s];
    let itens: Vec<[&dyn Param; 4]> =
        linhas.iter().map(|l| [&pedido_id as &dyn Param, &l.sku, &l.qtd, &l.preco_unitario]).collect();
    let reservadas: Vec<[&dyn Param; 5]> = linhas
        .iter()
        .zip(&reservas)
        .map(|(l, id)| [id as &dyn Param, &l.sku, &l.qtd, &pedido_id, &ttl_s])
        .collect();
    let mut escritas = Vec::with_capacity(1 + tocados.len() + 2 * linhas.len());
    escritas.extend(prateleiras.iter().map(|p| tx.execute(upd, p)));
    escritas.extend(itens.iter().map(|p| tx.execute(item, p)));
    escritas.extend(reservadas.iter().map(|p| tx.execute(res, p)));
    // The order row is sent first (polled first by the join below), then the rows referencing it.
    let pedido = tx.query_one(ped, &cabeca);
    // The COMMIT is polled last: it goes out behind every write, since `try_join_all` polls up to
    // 30 futures in order on its first poll (futures-util's small case). A larger cart commits
    // after its writes' answers: a write sent after the COMMIT would run outside the transaction.
    let commit = commit && escritas.len() <= 30;
    let fim = async {
        match commit {
            true => tx.commit_em_seguida().await,
            false => Ok(()),
        }
    };
    let (pedido, escritas, fim) = tokio::join!(pedido, futures_util::future::try_join_all(escritas), fim);
    let pedido = pedido?;
    escritas?;
    fim?;
    Ok((pedido.try_get(2)?, pedido.try_get(0)?, pedido.try_get(1)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_consolidated_per_sku_in_ascending_order() {
        let m = consolidar([("7894900011517", 2), ("2000000000114", 1), ("7894900011517", 3)]).unwrap();
        assert_eq!(
            m.into_iter().collect::<Vec<_>>(),
            vec![("2000000000114".into(), 1), ("7894900011517".into(), 5)]
        );
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
