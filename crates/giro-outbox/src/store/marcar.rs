//! The settles — [`MARK_SENT`], [`mark_failed`], fenced by the lease token, each failure and the
//! success that ends a trouble recorded in `outbox_tentativa` — and the retention of `SENT` rows
//! ([`prune_sent`]).

use chrono::{DateTime, Utc};
use giro_infra::db::Sql;
use uuid::Uuid;

/// **The settles find their rows by the primary key.** Their "still pending" check is written
/// `status NOT IN ('SENT', 'FAILED')` — the same rows (`ck_outbox_event_status`) — and not
/// `status = 'PENDING'`: that predicate matches the partial index `ix_outbox_event_pendente`, which
/// the planner then scanned whole, filtering the ids, because it looks small. While another
/// session holds the xmin horizon that index keeps an entry for every row ever pending, and each
/// settle walked them all (issue 29: ~0.15 ms → ~230 ms a call; docs/benchmarks.md).
///
/// `$1` ids, `$2` token. `enviado_em` is the database's clock (retention counts from it). Returns
/// one row: how many events it settled. An event that has attempts on record (it failed before)
/// gets its success recorded too, in the same statement, within the bound ([`mark_failed`] says
/// why the others do not); the bound's 20 is [`TENTATIVAS_GUARDADAS`].
pub const MARK_SENT: &str = "WITH s AS (UPDATE outbox_event SET status = 'SENT', enviado_em = now(), \
                                    ultimo_erro = NULL, lease_token = NULL \
                              WHERE id = ANY($1) AND lease_token = $2 AND status NOT IN ('SENT', 'FAILED') \
                                AND (SELECT set_config('synchronous_commit', 'off', true)) = 'off' \
                              RETURNING id, tentativas), \
                                  h AS (SELECT s.id, s.tentativas FROM s \
                                         WHERE EXISTS (SELECT 1 FROM outbox_tentativa t WHERE t.event_id = s.id)), \
                                  v AS (DELETE FROM outbox_tentativa WHERE id IN ( \
                                          SELECT id FROM (SELECT t.id, row_number() OVER (PARTITION BY t.event_id ORDER BY t.id DESC) AS n \
                                                            FROM outbox_tentativa t WHERE t.event_id IN (SELECT id FROM h)) x \
                                           WHERE x.n >= 20)), \
                                  i AS (INSERT INTO outbox_tentativa (event_id, numero, em, resultado) \
                                        SELECT id, tentativas, now(), 'enviado' FROM h) \
                             SELECT count(*) FROM s";

/// The attempts kept per event ([`mark_failed`], [`MARK_SENT`]): the newest ones.
pub const TENTATIVAS_GUARDADAS: i64 = 20;

/// `ultimo_erro` is `VARCHAR(500)`.
pub const MAX_ERRO: usize = 500;

/// Marks delivered events `SENT` in one statement; only rows still under `token` change.
pub async fn mark_sent(c: &impl Sql, ids: &[Uuid], token: Uuid) -> Result<u64, tokio_postgres::Error> {
    if ids.is_empty() {
        return Ok(0);
    }
    let n: i64 = c.query_one(MARK_SENT, &[&ids, &token]).await?.get(0);
    Ok(n as u64)
}

/// A failed attempt of one event.
#[derive(Clone, Debug)]
pub struct Failure {
    pub id: Uuid,
    pub erro: String,
    /// `None` = dead letter (`FAILED`). `Some(d)` = transient: next attempt `d` after the
    /// database's `now()` at the settle.
    pub espera: Option<std::time::Duration>,
}

/// [`mark_failed`]'s statement: `$1` ids, `$2` errors, `$3` backoffs in seconds (NULL = a dead
/// letter), `$4` token, `$5` the peers' HTTP statuses, `$6` the attempts kept
/// ([`TENTATIVAS_GUARDADAS`]). Its rows by the primary key, as [`MARK_SENT`] says why.
pub const MARK_FAILED: &str = "WITH u AS (UPDATE outbox_event o SET \
                ultimo_erro = f.erro, \
                lease_token = NULL, \
                proxima_tentativa_em = COALESCE(now() + make_interval(secs => f.espera), o.proxima_tentativa_em), \
                status = CASE WHEN f.espera IS NULL THEN 'FAILED' ELSE 'PENDING' END \
           FROM unnest($1::uuid[], $2::text[], $3::float8[], $5::int2[]) AS f(id, erro, espera, status_http) \
          WHERE o.id = f.id AND o.lease_token = $4 AND o.status NOT IN ('SENT', 'FAILED') \
            AND (SELECT set_config('synchronous_commit', 'off', true)) = 'off' \
          RETURNING o.id, o.tentativas, o.status, f.erro, f.status_http), \
              v AS (DELETE FROM outbox_tentativa WHERE id IN ( \
                      SELECT id FROM (SELECT t.id, row_number() OVER (PARTITION BY t.event_id ORDER BY t.id DESC) AS n \
                                        FROM outbox_tentativa t WHERE t.event_id IN (SELECT id FROM u)) x \
                       WHERE x.n >= $6)) \
         INSERT INTO outbox_tentativa (event_id, numero, em, resultado, erro, status_http) \
         SELECT id, tentativas, now(), \
                CASE WHEN status = 'FAILED' THEN 'falha_permanente' ELSE 'falha_transitoria' END, erro, status_http \
           FROM u";

/// Settles failed attempts in one statement: each is rescheduled, or becomes `FAILED` when its
/// `espera` is `None` (the publisher decided). Only rows still under `token` change.
///
/// The same statement records each settled attempt in `outbox_tentativa` (the module says why):
/// its number (the claim's count), the instant, `falha_transitoria` or `falha_permanente` (the
/// attempt that made it a dead letter), the error and the peer's HTTP status when the error
/// carries one; and keeps the newest [`TENTATIVAS_GUARDADAS`]. Its rows are the `UPDATE`'s own
/// result, so a stale token records nothing. Returns how many events it settled.
pub async fn mark_failed(
    c: &impl Sql,
    failures: &[Failure],
    token: Uuid,
) -> Result<u64, tokio_postgres::Error> {
    if failures.is_empty() {
        return Ok(0);
    }
    let ids: Vec<Uuid> = failures.iter().map(|f| f.id).collect();
    let erros: Vec<String> = failures.iter().map(|f| truncate(&f.erro, MAX_ERRO)).collect();
    let esperas: Vec<Option<f64>> = failures.iter().map(|f| f.espera.map(|d| d.as_secs_f64())).collect();
    let statuses: Vec<Option<i16>> = failures.iter().map(|f| status_http(&f.erro)).collect();
    c.execute(MARK_FAILED, &[&ids, &erros, &esperas, &token, &statuses, &TENTATIVAS_GUARDADAS]).await
}

/// The peer's HTTP status in a delivery error, if any: what the publisher writes when the peer
/// answered (`… HTTP 503 Service Unavailable: …` for a whole request, `… item 400: …` for one event of a
/// batch).
pub fn status_http(erro: &str) -> Option<i16> {
    ["HTTP ", "item "].iter().find_map(|marca| {
        erro.match_indices(marca).find_map(|(i, _)| {
            let inicio = i + marca.len();
            let digitos = erro.get(inicio..inicio + 3)?;
            let depois = erro[inicio + 3..].chars().next();
            let status: i16 = digitos.parse().ok()?;
            (digitos.bytes().all(|b| b.is_ascii_digit())
                && !depois.is_some_and(|c| c.is_ascii_digit())
                && (100..600).contains(&status))
            .then_some(status)
        })
    })
}

pub fn truncate(s: &str, max: usize) -> String {
    s.chars().take(max).collect()
}

/// Deletes at most `limite` `SENT` rows delivered more than `retencao` before `agora` (`None` =
/// the database's clock); returns how many.
pub async fn prune_sent(
    c: &impl Sql,
    agora: Option<DateTime<Utc>>,
    retencao: std::time::Duration,
    limite: i64,
) -> Result<u64, tokio_postgres::Error> {
    // The events' attempts go with them, in the same statement.
    let sql = "WITH d AS (DELETE FROM outbox_event WHERE id IN ( \
                   SELECT id FROM outbox_event WHERE status = 'SENT' \
                      AND enviado_em < COALESCE($1, now()) - make_interval(secs => $2) \
                    LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING id), \
                    t AS (DELETE FROM outbox_tentativa WHERE event_id IN (SELECT id FROM d)) \
               SELECT count(*) FROM d";
    let n: i64 = c.query_one(sql, &[&agora, &retencao.as_secs_f64(), &limite]).await?.get(0);
    Ok(n as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_http_status_is_read_from_the_publishers_error() {
        assert_eq!(status_http("envio de ReposicaoSolicitada x falhou: HTTP 503: indisponível"), Some(503));
        assert_eq!(status_http("envio de lote falhou: HTTP 503 Service Unavailable: "), Some(503));
        assert_eq!(status_http("envio de ReposicaoSolicitada x falhou: item 422: qtd inválida"), Some(422));
        assert_eq!(status_http("connection refused"), None);
        assert_eq!(status_http("HTTP 5034"), None, "not a status");
        assert_eq!(status_http("HTTP 42"), None);
        assert_eq!(status_http("HTTP é"), None);
    }

    #[test]
    fn the_success_record_keeps_the_same_bound_as_the_failures() {
        assert!(MARK_SENT.contains(&format!("x.n >= {TENTATIVAS_GUARDADAS}")), "{MARK_SENT}");
    }
}
