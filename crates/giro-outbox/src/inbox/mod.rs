//! The idempotent inbox (SPEC §4.6), the receiving endpoints `POST /eventos` and
//! `POST /eventos/lote` (`receiver`); the inbox's retention is [`Retencao::inbox`](crate::Retencao::inbox).
//!
//! Each received event inserts its id with `ON CONFLICT (event_id) DO NOTHING` in the same
//! transaction as its effect: a duplicate changes nothing, and concurrent deliveries of one event
//! serialise on the primary key, so exactly one applies it.

#[cfg(feature = "http")]
mod receiver;

#[cfg(feature = "http")]
pub use receiver::{router, Consumidor, ConsumidorDe, EventoInvalido};

use chrono::{DateTime, Utc};
use uuid::Uuid;

use giro_infra::db::Tx;

/// Records `event_id` as processed (at the database's `now()`, what retention counts from); true
/// when it is new (apply the effect), false for a duplicate.
pub async fn registrar_se_novo<S>(tx: &Tx<'_, S>, event_id: Uuid) -> Result<bool, tokio_postgres::Error> {
    let stmt = "INSERT INTO inbox_event (event_id, processado_em) VALUES ($1, now()) ON CONFLICT (event_id) DO NOTHING";
    Ok(tx.execute(stmt, &[&event_id]).await? == 1)
}

/// Deletes at most `limite` inbox rows processed more than `retencao` before `agora` (`None` =
/// the database's clock; SPEC §9.1 retention); returns how many. Rows another sweep holds are
/// skipped.
pub async fn prune(
    c: &impl giro_infra::db::Sql,
    agora: Option<DateTime<Utc>>,
    retencao: std::time::Duration,
    limite: i64,
) -> Result<u64, tokio_postgres::Error> {
    let sql = "DELETE FROM inbox_event WHERE event_id IN ( \
                   SELECT event_id FROM inbox_event \
                    WHERE processado_em < COALESCE($1, now()) - make_interval(secs => $2) \
                    LIMIT $3 FOR UPDATE SKIP LOCKED)";
    c.execute(sql, &[&agora, &retencao.as_secs_f64(), &limite]).await
}

/// `$1` event ids; processado_em is the database's `now()`.
pub const REGISTRAR_NOVOS: &str =
    "INSERT INTO inbox_event (event_id, processado_em) SELECT unnest($1::uuid[]), now() \
                                   ON CONFLICT (event_id) DO NOTHING RETURNING event_id";

/// [`registrar_se_novo`] for many events in one statement; returns the ids that were new.
pub async fn registrar_novos<S>(
    tx: &Tx<'_, S>,
    event_ids: &[Uuid],
) -> Result<std::collections::HashSet<Uuid>, tokio_postgres::Error> {
    Ok(tx.query(REGISTRAR_NOVOS, &[&event_ids]).await?.iter().map(|r| r.get(0)).collect())
}
