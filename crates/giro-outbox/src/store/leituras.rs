//! The operator's reads: the counts and the gauges' numbers, one event and its attempts (the
//! console), the filtered lists (`giro outbox list`), and what an audit reads of an outbox.

use chrono::{DateTime, Utc};
use giro_infra::db::{por_partes, Sql};
use uuid::Uuid;

use crate::status::Status;

#[cfg(feature = "operador")]
/// Counts per status and the age of the oldest pending event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Contagem {
    pub pending: i64,
    pub sent: i64,
    pub failed: i64,
    pub oldest_pending: Option<DateTime<Utc>>,
    /// Its age in seconds by the database's clock (what the metric and the alerts show: a
    /// process whose clock is off would report an age off by as much).
    pub oldest_pending_age_s: Option<f64>,
}

/// How many events are in `status` (planned with the value, so `PENDING` and `SENT` use their
/// partial indexes).
pub async fn count(c: &impl Sql, status: Status) -> Result<i64, tokio_postgres::Error> {
    Ok(c.query_one("SELECT count(*) FROM outbox_event WHERE status = $1", &[&status]).await?.get(0))
}

#[cfg(feature = "operador")]
pub async fn status(c: &impl Sql) -> Result<Contagem, tokio_postgres::Error> {
    let mut s = Contagem::default();
    for r in c.query("SELECT status, count(*) FROM outbox_event GROUP BY status", &[]).await? {
        let n: i64 = r.get(1);
        match r.try_get::<_, Status>(0) {
            Ok(Status::Pending) => s.pending = n,
            Ok(Status::Sent) => s.sent = n,
            Ok(Status::Failed) => s.failed = n,
            // The CHECK constraint allows no other value.
            Err(_) => {}
        }
    }
    let sql = "SELECT min(criado_em), extract(epoch FROM now() - min(criado_em))::float8 \
               FROM outbox_event WHERE status = 'PENDING'";
    let r = c.query_one(sql, &[]).await?;
    s.oldest_pending = r.get(0);
    s.oldest_pending_age_s = r.get::<_, Option<f64>>(1).map(|a| a.max(0.0));
    Ok(s)
}

// ---- The event console (`/operacao/outbox`, `outbox::console`): one event, and a filtered page ----

#[cfg(feature = "operador")]
/// One event with the console's columns ([`COLS`]), if it exists.
pub async fn one(c: &impl Sql, id: Uuid) -> Result<Option<tokio_postgres::Row>, tokio_postgres::Error> {
    c.query_opt(&format!("SELECT {} FROM outbox_event WHERE id = $1", COLS), &[&id]).await
}

#[cfg(feature = "operador")]
/// One delivery attempt of an event, as the console shows it (`outbox_tentativa`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Tentativa {
    pub numero: i32,
    #[serde(serialize_with = "crate::instante::serialize")]
    pub em: DateTime<Utc>,
    /// `falha_transitoria`, `falha_permanente` or `enviado`.
    pub resultado: String,
    pub erro: Option<String>,
    /// The peer's HTTP status, when it answered one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<i16>,
}

#[cfg(feature = "operador")]
/// The event's attempts on record, newest first (at most [`TENTATIVAS_GUARDADAS`]).
pub async fn tentativas(c: &impl Sql, id: Uuid) -> Result<Vec<Tentativa>, tokio_postgres::Error> {
    let sql = "SELECT numero, em, resultado, erro, status_http AS status FROM outbox_tentativa \
                WHERE event_id = $1 ORDER BY id DESC LIMIT $2";
    let rows = c.query(sql, &[&id, &super::TENTATIVAS_GUARDADAS]).await?;
    giro_infra::da_linhas!(rows, Tentativa { numero, em, resultado, erro, status })
}

// ---- The admin commands (`giro outbox …`, `outbox::admin`) and the console ----

/// An event as the admin commands and the console show it (camelCase JSON).
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Linha {
    pub id: Uuid,
    pub tipo: String,
    pub status: Status,
    pub tentativas: i32,
    #[serde(serialize_with = "crate::instante::serialize")]
    pub criado_em: DateTime<Utc>,
    #[serde(serialize_with = "crate::instante::serialize")]
    pub proxima_tentativa_em: DateTime<Utc>,
    #[serde(serialize_with = "crate::instante::opcional::serialize")]
    pub enviado_em: Option<DateTime<Utc>>,
    pub ultimo_erro: Option<String>,
    pub payload: serde_json::Value,
}

/// The columns [`linha`] reads, in its order.
pub const COLS: &str =
    "id, tipo, status, tentativas, criado_em, proxima_tentativa_em, enviado_em, ultimo_erro, payload";

/// A row of [`COLS`] as a [`Linha`].
pub fn linha(r: &tokio_postgres::Row) -> Linha {
    Linha {
        id: r.get(0),
        tipo: r.get(1),
        status: r.get(2),
        tentativas: r.get(3),
        criado_em: r.get(4),
        proxima_tentativa_em: r.get(5),
        enviado_em: r.get(6),
        ultimo_erro: r.get(7),
        payload: r.get(8),
    }
}

/// Up to `limite` dead letters, oldest first: id, tipo, the aggregate key (the payload at
/// `caminho`, [`Evento::CAMINHO_CHAVE`](crate::Evento::CAMINHO_CHAVE)), the last error.
pub async fn failed_with_key(
    c: &impl Sql,
    caminho: &[&str],
    limite: i64,
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    let sql = "SELECT id, tipo, payload #>> $1, coalesce(ultimo_erro, '') FROM outbox_event \
               WHERE status = 'FAILED' ORDER BY criado_em LIMIT $2";
    c.query(sql, &[&caminho, &limite]).await
}

#[cfg(feature = "operador")]
/// Up to `limite` events, oldest first, of one status (`PENDING`, `SENT`, `FAILED`) or all.
/// What `giro outbox list` selects: each filter optional; `antes` is the last id of the previous
/// page (events created before it, ties broken by id).
#[derive(Clone, Debug, Default)]
pub struct Filtro {
    pub status: Option<Status>,
    pub tipo: Option<String>,
    pub desde: Option<DateTime<Utc>>,
    pub ate: Option<DateTime<Utc>>,
    pub antes: Option<Uuid>,
}

#[cfg(feature = "operador")]
/// Newest first. An operator's look, not a hot path: it may sort the outbox (retention bounds it).
pub async fn list(c: &impl Sql, f: &Filtro, limite: i64) -> Result<Vec<Linha>, tokio_postgres::Error> {
    let sql = format!(
        "SELECT {COLS} FROM outbox_event \
         WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR tipo = $2) \
           AND ($3::timestamptz IS NULL OR criado_em >= $3) AND ($4::timestamptz IS NULL OR criado_em < $4) \
           AND ($5::uuid IS NULL OR (criado_em, id) < (SELECT criado_em, id FROM outbox_event WHERE id = $5)) \
         ORDER BY criado_em DESC, id DESC LIMIT $6"
    );
    let rows = c.query(&sql, &[&f.status, &f.tipo, &f.desde, &f.ate, &f.antes, &limite]).await?;
    Ok(rows.iter().map(linha).collect())
}

// ---- An audit (Girô's `giro audit`): what it reads of an outbox, by status and by the payload
// paths its event type names. The audit joins these with its own tables itself (by id), so the
// outbox stays domain-free ----

/// `PENDING` events created before `criado_antes` or attempted `tentativas_min` times or more,
/// oldest first: id, tipo, the aggregate key (the payload at `caminho`), the last error (`''`
/// when none), criado_em, tentativas.
pub async fn delayed(
    c: &impl Sql,
    caminho: &[&str],
    criado_antes: DateTime<Utc>,
    tentativas_min: i32,
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    let sql = "SELECT id, tipo, payload #>> $3, coalesce(ultimo_erro, ''), criado_em, tentativas \
               FROM outbox_event WHERE status = 'PENDING' AND (criado_em < $1 OR tentativas >= $2) \
               ORDER BY criado_em";
    c.query(sql, &[&criado_antes, &tentativas_min, &caminho]).await
}

/// The status of each of `ids` that still has a row (a missing one was pruned after `SENT`, or
/// discarded).
pub async fn statuses(
    c: &impl Sql,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, Status>, tokio_postgres::Error> {
    let rows = por_partes(c, "SELECT id, status FROM outbox_event WHERE id = ANY($1)", &[], ids).await?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// Of `valores`, those found (as a UUID) at `caminho` in the payload of a `PENDING` event of one
/// of `tipos`: for example the requests whose answers are still on their way, when an answer
/// carries the request's id.
pub async fn pending_referencing(
    c: &impl Sql,
    tipos: &[&str],
    caminho: &[&str],
    valores: &[Uuid],
) -> Result<std::collections::HashSet<Uuid>, tokio_postgres::Error> {
    let sql = "SELECT (payload #>> $2)::uuid FROM outbox_event \
                WHERE status = 'PENDING' AND tipo = ANY($1) AND (payload #>> $2)::uuid = ANY($3)";
    Ok(por_partes(c, sql, &[&tipos, &caminho], valores).await?.iter().map(|r| r.get(0)).collect())
}

/// `SENT` events created at or after `desde`: id, tipo, the aggregate key (the payload at
/// `caminho`).
pub async fn sent_since(
    c: &impl Sql,
    caminho: &[&str],
    desde: DateTime<Utc>,
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    let sql = "SELECT id, tipo, payload #>> $2 FROM outbox_event WHERE status = 'SENT' AND criado_em >= $1";
    c.query(sql, &[&desde, &caminho]).await
}
