//! The idempotent inbox (SPEC §4.6) and the receiving endpoints `POST /eventos` and
//! `POST /eventos/lote` ([`receiver`]).
//!
//! Each received event inserts its id with `ON CONFLICT (event_id) DO NOTHING` in the same
//! transaction as its effect: a duplicate changes nothing, and concurrent deliveries of one event
//! serialise on the primary key, so exactly one applies it.

pub mod receiver;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::db::Tx;

/// Records `event_id` as processed; true when it is new (apply the effect), false for a duplicate.
pub async fn registrar_se_novo(tx: &Tx<'_>, event_id: Uuid, agora: DateTime<Utc>) -> Result<bool, tokio_postgres::Error> {
    let stmt = tx
        .prepare_cached("INSERT INTO inbox_event (event_id, processado_em) VALUES ($1, $2) ON CONFLICT (event_id) DO NOTHING")
        .await?;
    Ok(tx.execute(&stmt, &[&event_id, &agora]).await? == 1)
}
