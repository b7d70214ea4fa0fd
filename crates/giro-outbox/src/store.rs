//! The outbox table's SQL (`outbox_event`, identical in both databases).
//!
//! **One clock: PostgreSQL's.** Every instant that decides when a row is due — its creation and
//! first attempt, a lease, a backoff, retention — is computed and compared by the database
//! (`now()`) in the statement that uses it, never by the process that writes or reads the row:
//! a writer whose clock runs minutes ahead of a separate publisher's no longer makes its events
//! wait out the difference, and a publisher behind or ahead neither delays nor dead-letters
//! anything (SPEC §4.7, issue 30). A statement that decides by time takes `agora` as an
//! `Option`: `None` in production (the database's clock), an instant in tests that step through
//! a backoff or a lease without sleeping.
//!
//! **The relay's bookkeeping commits without waiting for the WAL flush.** The claim ([`CLAIM`])
//! and the settles ([`MARK_SENT`], [`mark_failed`]) set `synchronous_commit = off` for their own
//! one-statement transaction (`set_config(…, true)`, evaluated once as a one-time filter; the
//! session keeps its setting). Their commits are still atomic and visible at once; what a crash of
//! PostgreSQL itself (or a failover) can take is the last ~200 ms of them (`wal_writer_delay`), and
//! losing them loses nothing: a lost claim or a lost `SENT` leaves the row `PENDING`, so it is
//! delivered again once its lease ends and the receiver's inbox absorbs the duplicate; a lost
//! `FAILED` is one more attempt. A claim no longer waits for a disk flush before its events can
//! go out (one flush less between a writer's commit and the receiver's), and claims and settles
//! no longer queue for flushes behind the business commits. The business transactions — the
//! writers' outbox rows, the receiver's inbox row with its effect — and the operator's actions stay
//! synchronous: those are what must survive.
//!
//! **The attempt history** (`outbox_tentativa`, issue 26): the settle that ends an attempt
//! records it in the same statement (a data-modifying CTE over the `UPDATE`'s result, so one round
//! trip, and fenced by the same lease token: a settle whose token is stale changes no row and
//! records nothing). What is recorded: **every failure** ([`mark_failed`]), and **a success only
//! for an event that has failures on record** ([`MARK_SENT`]): the delivery that ended its
//! trouble. A success row for every event would double the writes of the hot path, where nearly
//! every event goes out at its first attempt, for a history nobody reads (the event's own row
//! says `SENT`, when, after how many attempts); the hot path pays one probe of the history's
//! index per event instead (`EXPLAIN ANALYZE` of a 500-event settle: 0.6 ms of probes, ~1 µs an
//! event, beside the `UPDATE`'s own tens of ms). An attempt lost with its publisher (a crash, a lease run out) has no
//! settle and no row: the numbers (the claim's count) show the gap. At most
//! [`TENTATIVAS_GUARDADAS`] rows per event, the newest: the settle deletes the older ones in the
//! same statement. The rows go with their event: retention ([`prune_sent`]) and the archiving of
//! a dead letter (`saida`'s) delete them in the statement that deletes the
//! event — the archive keeps the event's last error and count, not its history (the console
//! shows no archived event). No foreign key: `TRUNCATE outbox_event` alone (benchmarks, tools)
//! must keep working. An operator's replay keeps the history and starts the count over.

use chrono::{DateTime, Utc};
use giro_infra::db::Sql;
use uuid::Uuid;

use crate::evento::Evento;
use crate::status::Status;
use giro_infra::db::Tx;

/// `$1` id, `$2` tipo, `$3` payload, `$4` traceparent. `criado_em` (= the first attempt) is the
/// database's clock at the writer's transaction, not the event's `ocorridoEm`: the writer's
/// clock decides nothing about when its events go out.
pub const REGISTRAR: &str = "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em, traceparent) \
                             VALUES ($1, $2, $3, 'PENDING', now(), 0, now(), $4)";

/// How long an event due for the first time counts as fresh: the claim's fresh share
/// ([`CLAIM`]) takes such events, newest first, ahead of the backlog. Long enough to cover a
/// writer's transaction (its `criado_em` is the transaction's start) and a claim's round trip at
/// any load; short enough that the tail of an outage's backlog written just before the peer came
/// back is soon backlog again, not competition for live events.
pub const FRESCOR: std::time::Duration = std::time::Duration::from_secs(5);

// The two claims' shared text: the fresh share's scan (`novos`) and the lease (`UPDATE` of the
// rows in `due`). `concat!` takes only literals, so the fragments are macros.
macro_rules! claim_novos {
    () => {
        "WITH novos AS MATERIALIZED ( \
             SELECT id, true AS fresco, proxima_tentativa_em AS antes FROM outbox_event \
              WHERE status = 'PENDING' AND tentativas = 0 \
                AND criado_em > COALESCE($1, now()) - make_interval(secs => $5) \
                AND criado_em >= COALESCE($6, '-infinity'::timestamptz) \
                AND proxima_tentativa_em <= COALESCE($1, now()) \
              ORDER BY criado_em DESC \
              LIMIT $2 \
              FOR UPDATE SKIP LOCKED), "
    };
}
macro_rules! claim_lease {
    () => {
        "UPDATE outbox_event o SET proxima_tentativa_em = COALESCE($1, now()) + make_interval(secs => $3), \
                lease_token = $4, tentativas = o.tentativas + 1 \
           FROM due WHERE o.id = due.id \
            AND (SELECT set_config('synchronous_commit', 'off', true)) = 'off' \
         RETURNING o.id, o.tipo, o.payload::text, o.tentativas, o.criado_em, o.traceparent, \
                   extract(epoch FROM COALESCE($1, now()) - o.criado_em)::float8, \
                   due.fresco, due.antes, COALESCE($1, now())"
    };
}

/// `$1` agora (NULL = the database's clock), `$2` the fresh share (at most `limite`), `$3` the
/// lease in seconds, `$4` token, `$5` the freshness window in seconds ([`FRESCOR`]), `$6` and `$8`
/// the floors of the fresh share's and the backlog's scans ([`Pisos`]; NULL = none), `$7` limite.
///
/// **Fresh first** (issue 29): the claim takes up to `$2` rows among the *fresh* events — due
/// for the first time (`tentativas = 0`) and created within the window — newest first, then fills
/// the rest of `limite` with every other due row (retries, older first attempts) in the order of
/// `proxima_tentativa_em`, as before. After an outage the backlog (rows already attempted, or
/// older than the window) drains in the remaining share, at full speed whenever live traffic
/// needs less than its share; events written now never queue behind it. Newest first inside the
/// window: the tail of an outage written just before the peer came back does not go ahead of a
/// shopper's request made now; a fresh row not taken within the window joins the backlog, so
/// live traffic above the relay's capacity cannot starve anything either.
///
/// **Floors** (issue 29, dead tuples): each share's index scan starts at its floor instead of the
/// index's start ([`Pisos`] says why and how a floor moves).
///
/// The attempt is counted here, at the claim: a delivery that crashes or hangs the publisher (a
/// poison row) still counts one, and its lease is its backoff. Returns the event's age at the
/// claim in seconds (by the same clock), for the delivery deadline, whether the fresh share took
/// it, its `proxima_tentativa_em` before the claim, and the claim's instant.
pub const CLAIM: &str = concat!(
    claim_novos!(),
    "resto AS MATERIALIZED ( \
         SELECT id, false AS fresco, proxima_tentativa_em AS antes FROM outbox_event \
          WHERE status = 'PENDING' AND proxima_tentativa_em <= COALESCE($1, now()) \
            AND proxima_tentativa_em >= COALESCE($8, '-infinity'::timestamptz) \
            AND id <> ALL (ARRAY(SELECT id FROM novos)) \
          ORDER BY proxima_tentativa_em \
          LIMIT $7 - (SELECT count(*) FROM novos) \
          FOR UPDATE SKIP LOCKED), \
     due AS (SELECT * FROM novos UNION ALL SELECT * FROM resto) ",
    claim_lease!()
);

/// `$1` to `$6` as in [`CLAIM`]: `$2` is the whole claim.
///
/// **The express claim** (issue 29): only [`CLAIM`]'s fresh share — events due for the first time
/// and created within the window, newest first — for the relay's express lane
/// ([`crate::relay`]), when live events are written while the backlog's claims fill the pipe.
/// The same text for the share and the lease as [`CLAIM`], so the same columns back.
pub const CLAIM_FRESCOS: &str = concat!(claim_novos!(), "due AS (SELECT * FROM novos) ", claim_lease!());

/// How far behind the claim's instant a floor is set when a share's scan found everything its
/// range held: a writer's row carries its transaction's start (`now()`), so a transaction that
/// commits after the claim may bring a row up to its own duration older. A business transaction
/// that writes an event lasts milliseconds; one longer than this waits for the next sweep
/// (`outbox.varredura`).
pub const FOLGA: std::time::Duration = std::time::Duration::from_secs(1);

/// Where a claim's two index scans start. **Why**: a claim and a settle each leave the previous
/// version of the row behind (a dead tuple), and its entries in the claim's indexes stay, at the
/// key the row had: the first attempt's `criado_em`, the lease's end. While another session holds
/// the xmin horizon back (a long `REPEATABLE READ` report, a backup, a forgotten `psql`)
/// PostgreSQL can neither vacuum them nor mark them dead in the index, and a scan from the
/// index's start visits every one — a claim slows in proportion to how long the horizon has been
/// held (issue 29: p50 25 → 100 ms in 4 minutes). Every such entry lies below what the previous
/// claims took, so each scan starts where the last one left off:
///
/// - a share that came back with fewer rows than it asked for has taken every unlocked due row
///   its range held: its next floor is the claim's instant less `FOLGA`;
/// - a backlog share that came back full: its next floor is the highest `proxima_tentativa_em`
///   it took (nothing due below it is left unlocked); a fresh share that came back full keeps its
///   floor (newest first, it stopped early);
/// - every row that becomes due later does so at or after the database's `now()` of the
///   statement that makes it due (a settle's backoff, a lease's end, `make_due`), so above any
///   floor; only a writer's transaction longer than `FOLGA` or an operator's retry can land
///   below one, and a sweep (every `outbox.varredura`, 10 s) claims with no floor at all: the
///   one claim whose scan a held horizon still slows — it runs beside the others, never in their
///   way (giro-outbox's `relay::Publisher::sweep`).
///
/// A scan then visits only the dead entries of the last second or so, however long the horizon
/// has been held. A test that passes its own `agora` claims with no floors.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pisos {
    /// The fresh share's floor on `criado_em`.
    pub novos: Option<DateTime<Utc>>,
    /// The backlog share's floor on `proxima_tentativa_em`.
    pub resto: Option<DateTime<Utc>>,
}

impl Pisos {
    /// The floors after a claim of `limite` rows under `self` that took `claimed`.
    pub fn depois(self, claim: &Reclamados) -> Pisos {
        let (claimed, agora, limite, fresca) = (&claim.eventos, claim.agora, claim.limite, claim.fresca);
        let piso = agora - chrono::Duration::from_std(FOLGA).unwrap_or_default();
        let novos = claimed.iter().filter(|e| e.fresco_na_claim).count() as i64;
        let resto: Vec<&Claimed> = claimed.iter().filter(|e| !e.fresco_na_claim).collect();
        Pisos {
            novos: if novos < fresca { Some(piso) } else { self.novos },
            resto: if (resto.len() as i64) < limite - novos {
                Some(piso)
            } else {
                resto.iter().map(|e| e.antes).max().or(self.resto)
            },
        }
    }

    /// Each floor the lower of the two (none is the lowest: the index's start). A sweep's
    /// floors merge so: a sweep only ever lowers them.
    pub fn menores(self, outros: Pisos) -> Pisos {
        let menor = |a: Option<DateTime<Utc>>, b: Option<DateTime<Utc>>| a.zip(b).map(|(a, b)| a.min(b));
        Pisos { novos: menor(self.novos, outros.novos), resto: menor(self.resto, outros.resto) }
    }
}

/// The shipped `outbox.parte-fresca`: half of every claim for live traffic, at least half and
/// all that live traffic leaves for the backlog.
pub const PARTE_FRESCA: u8 = 50;

/// The fresh share of a claim of `limite` rows at `percent` (`outbox.parte-fresca`), rounded up.
pub fn parte_fresca(limite: i64, percent: u8) -> i64 {
    (limite * i64::from(percent.min(100)) + 99) / 100
}

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

/// The channel separate publishers `LISTEN` on; writers `NOTIFY` it (delivered at commit).
pub const CHANNEL: &str = "giro_outbox";

/// `ultimo_erro` is `VARCHAR(500)`.
pub const MAX_ERRO: usize = 500;

/// Writes `evento` as a `PENDING` row in the open business transaction (the original's
/// `Outbox.registrar`, propagation MANDATORY): id = eventId, tipo, payload, criado_em =
/// proxima_tentativa_em = the database's `now()` (the payload keeps `ocorridoEm`). The in-process
/// publisher is woken after commit ([`Tx::commit`]); separate publishers by one `NOTIFY` per
/// transaction when `outbox.notify` is on. Inside [`adiando`] the row is kept for
/// [`gravar_adiados`] instead: one statement for a whole batch's answers.
pub async fn registrar<S, E: Evento>(tx: &Tx<'_, S>, evento: &E) -> Result<(), tokio_postgres::Error> {
    let traceparent = giro_infra::trace::for_event().to_string();
    let linha = Adiado {
        id: evento.event_id(),
        tipo: evento.tipo().to_string(),
        payload: evento.payload(),
        traceparent,
    };
    if let Err(linha) = adiar(linha) {
        let stmt = REGISTRAR;
        tx.execute(stmt, &[&linha.id, &linha.tipo, &linha.payload, &linha.traceparent]).await?;
    }
    if tx.mark_event_written() && tx.notify_pg() {
        tx.execute("SELECT pg_notify($1, '')", &[&CHANNEL]).await?;
    }
    Ok(())
}

/// An outbox row [`registrar`] kept for [`gravar_adiados`].
#[derive(Debug)]
pub struct Adiado {
    id: Uuid,
    tipo: String,
    payload: serde_json::Value,
    traceparent: String,
}

tokio::task_local! {
    static ADIADOS: std::cell::RefCell<Vec<Adiado>>;
}

/// Keeps `linha` when running inside [`adiando`]; gives it back otherwise.
fn adiar(linha: Adiado) -> Result<(), Adiado> {
    let mut linha = Some(linha);
    let _ = ADIADOS.try_with(|a| {
        if let Some(l) = linha.take() {
            a.borrow_mut().push(l);
        }
    });
    linha.map_or(Ok(()), Err)
}

/// Runs `fut` (effects applied in one transaction) with the outbox rows [`registrar`] writes kept
/// aside, and returns them with its output, for [`gravar_adiados`] in the same transaction: the
/// receiver's answers to a `/eventos/lote` chunk become one statement instead of one per answer.
pub async fn adiando<T>(fut: impl std::future::Future<Output = T>) -> (T, Vec<Adiado>) {
    ADIADOS
        .scope(std::cell::RefCell::new(Vec::new()), async move {
            let out = fut.await;
            let linhas = ADIADOS.with(|a| a.take());
            (out, linhas)
        })
        .await
}

/// `$1` ids, `$2` tipos, `$3` payloads, `$4` traceparents: [`REGISTRAR`] for many rows.
pub const REGISTRAR_VARIOS: &str = "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em, traceparent) \
                                    SELECT id, tipo, payload, 'PENDING', now(), 0, now(), traceparent \
                                      FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::text[]) AS r(id, tipo, payload, traceparent)";

/// Writes the rows [`adiando`] kept, in one statement, in `tx` (the transaction of their effects).
pub async fn gravar_adiados<S>(tx: &Tx<'_, S>, linhas: &[Adiado]) -> Result<(), tokio_postgres::Error> {
    if linhas.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = linhas.iter().map(|l| l.id).collect();
    let tipos: Vec<&str> = linhas.iter().map(|l| l.tipo.as_str()).collect();
    let payloads: Vec<&serde_json::Value> = linhas.iter().map(|l| &l.payload).collect();
    let traces: Vec<&str> = linhas.iter().map(|l| l.traceparent.as_str()).collect();
    let stmt = REGISTRAR_VARIOS;
    tx.execute(stmt, &[&ids, &tipos, &payloads, &traces]).await?;
    Ok(())
}

/// A claimed event: leased to one publisher until `proxima_tentativa_em`, under `lease_token`.
#[derive(Clone, Debug)]
pub struct Claimed {
    pub id: Uuid,
    pub tipo: String,
    /// The stored JSON, sent as it is.
    pub payload: String,
    /// Attempts including this one.
    pub tentativas: i32,
    pub criado_em: DateTime<Utc>,
    pub traceparent: Option<String>,
    /// The event's age at the claim, by the database's clock (what the delivery deadline counts).
    pub idade: std::time::Duration,
    /// Taken by the claim's fresh share ([`CLAIM`]).
    pub fresco_na_claim: bool,
    /// Its `proxima_tentativa_em` before the claim (where the backlog's scan took it).
    pub antes: DateTime<Utc>,
}

/// What a claim took ([`claim_desde`]), fresh share first, and its instant by the database's
/// clock (or the test's `agora`).
#[derive(Clone, Debug)]
pub struct Reclamados {
    pub eventos: Vec<Claimed>,
    pub agora: DateTime<Utc>,
    /// The rows asked for, and how many of them the fresh share could take.
    pub limite: i64,
    pub fresca: i64,
}

/// Claims up to `limite` due events, fresh ones first ([`CLAIM`]), and leases them for `lease`
/// under `token`, in one statement that commits at once: no transaction stays open while they are
/// delivered, and rows another publisher holds are skipped without waiting. `agora`: `None` =
/// the database's clock. No floors: every due row is in range ([`claim_desde`] for the relay's).
pub async fn claim(
    c: &impl Sql,
    agora: Option<DateTime<Utc>>,
    limite: i64,
    lease: std::time::Duration,
    token: Uuid,
) -> Result<Vec<Claimed>, tokio_postgres::Error> {
    Ok(claim_desde(c, agora, limite, lease, token, PARTE_FRESCA, Pisos::default()).await?.eventos)
}

/// [`claim`] with `parte` percent of it for fresh events (`outbox.parte-fresca`) and each
/// share's scan starting at its floor ([`Pisos`]).
pub async fn claim_desde(
    c: &impl Sql,
    agora: Option<DateTime<Utc>>,
    limite: i64,
    lease: std::time::Duration,
    token: Uuid,
    parte: u8,
    pisos: Pisos,
) -> Result<Reclamados, tokio_postgres::Error> {
    let fresca = parte_fresca(limite, parte);
    let rows = c
        .query(
            CLAIM,
            &[
                &agora,
                &fresca,
                &lease.as_secs_f64(),
                &token,
                &FRESCOR.as_secs_f64(),
                &pisos.novos,
                &limite,
                &pisos.resto,
            ],
        )
        .await?;
    let mut claimed = claimed_rows(&rows);
    // The fresh share goes out first (the first chunk), the rest oldest first.
    claimed.sort_by_key(|e| (!e.fresco_na_claim, e.criado_em));
    // An empty claim returns no row to read its instant from; the floors need it (a cheap
    // statement, run only when there was nothing to claim).
    let agora = match rows.first() {
        Some(r) => r.get(9),
        None => c.query_one("SELECT COALESCE($1, now())", &[&agora]).await?.get(0),
    };
    Ok(Reclamados { eventos: claimed, agora, limite, fresca })
}

/// The express claim ([`CLAIM_FRESCOS`]): up to `limite` fresh events, newest first, their scan
/// starting at `piso` (the fresh share's floor, [`Pisos::novos`]).
pub async fn claim_frescos(
    c: &impl Sql,
    agora: Option<DateTime<Utc>>,
    limite: i64,
    lease: std::time::Duration,
    token: Uuid,
    piso: Option<DateTime<Utc>>,
) -> Result<Vec<Claimed>, tokio_postgres::Error> {
    let rows = c
        .query(CLAIM_FRESCOS, &[&agora, &limite, &lease.as_secs_f64(), &token, &FRESCOR.as_secs_f64(), &piso])
        .await?;
    let mut claimed = claimed_rows(&rows);
    claimed.sort_by_key(|e| std::cmp::Reverse(e.criado_em));
    Ok(claimed)
}

/// The claimed events of [`CLAIM`]'s or [`CLAIM_FRESCOS`]'s rows.
fn claimed_rows(rows: &[tokio_postgres::Row]) -> Vec<Claimed> {
    rows.iter()
        .map(|r| Claimed {
            id: r.get(0),
            tipo: r.get(1),
            payload: r.get(2),
            tentativas: r.get(3),
            criado_em: r.get(4),
            traceparent: r.get(5),
            idade: std::time::Duration::try_from_secs_f64(r.get::<_, f64>(6)).unwrap_or_default(),
            fresco_na_claim: r.get(7),
            antes: r.get(8),
        })
        .collect()
}

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
/// `proxima` is `None` (the publisher decided: a permanent refusal, or the delivery deadline or
/// the attempt limit reached). Only rows still under `token` change.
///
/// The same statement records each settled attempt in `outbox_tentativa` (see the module's
/// decisions): its number (the claim's count), the instant, `falha_transitoria` (rescheduled) or
/// `falha_permanente` (the attempt that made it a dead letter, whatever the reason), the error
/// and the peer's HTTP status when the error carries one; and deletes the event's attempts beyond
/// the newest [`TENTATIVAS_GUARDADAS`]. The rows come from the `UPDATE`'s own result, so a stale
/// token (the lease was lost and the row claimed again) records nothing. Returns how many
/// events it settled.
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

/// Makes up to `limite` events waiting in backoff due now, by the database's clock (the peer is
/// back: no reason to wait out the backoff); returns how many. Leased rows are left to their
/// publisher.
pub async fn make_due(c: &impl Sql, limite: i64) -> Result<u64, tokio_postgres::Error> {
    c.execute(
        "UPDATE outbox_event SET proxima_tentativa_em = now() WHERE id IN ( \
             SELECT id FROM outbox_event \
              WHERE status = 'PENDING' AND lease_token IS NULL AND proxima_tentativa_em > now() \
              ORDER BY proxima_tentativa_em LIMIT $1 FOR UPDATE SKIP LOCKED)",
        &[&limite],
    )
    .await
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
    let n: i64 = c
        .query_one(
            "WITH d AS (DELETE FROM outbox_event WHERE id IN ( \
                 SELECT id FROM outbox_event WHERE status = 'SENT' \
                    AND enviado_em < COALESCE($1, now()) - make_interval(secs => $2) \
                  LIMIT $3 FOR UPDATE SKIP LOCKED) RETURNING id), \
                  t AS (DELETE FROM outbox_tentativa WHERE event_id IN (SELECT id FROM d)) \
             SELECT count(*) FROM d",
            &[&agora, &retencao.as_secs_f64(), &limite],
        )
        .await?
        .get(0);
    Ok(n as u64)
}

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
    let r = c
        .query_one(
            "SELECT min(criado_em), extract(epoch FROM now() - min(criado_em))::float8 \
               FROM outbox_event WHERE status = 'PENDING'",
            &[],
        )
        .await?;
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
    #[serde(serialize_with = "ser_instante")]
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
    Ok(c.query(
        "SELECT numero, em, resultado, erro, status_http FROM outbox_tentativa \
          WHERE event_id = $1 ORDER BY id DESC LIMIT $2",
        &[&id, &TENTATIVAS_GUARDADAS],
    )
    .await?
    .iter()
    .map(|r| Tentativa {
        numero: r.get(0),
        em: r.get(1),
        resultado: r.get(2),
        erro: r.get(3),
        status: r.get(4),
    })
    .collect())
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
    #[serde(serialize_with = "ser_instante")]
    pub criado_em: DateTime<Utc>,
    #[serde(serialize_with = "ser_instante")]
    pub proxima_tentativa_em: DateTime<Utc>,
    #[serde(serialize_with = "ser_opt_instante")]
    pub enviado_em: Option<DateTime<Utc>>,
    pub ultimo_erro: Option<String>,
    pub payload: serde_json::Value,
}

fn ser_instante<S: serde::Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    crate::instante::serialize(t, s)
}

fn ser_opt_instante<S: serde::Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
    crate::instante::opcional::serialize(t, s)
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
/// `caminho`, [`Evento::CAMINHO_CHAVE`]), the last error.
pub async fn failed_with_key(
    c: &impl Sql,
    caminho: &[&str],
    limite: i64,
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    c.query(
        "SELECT id, tipo, payload #>> $1, coalesce(ultimo_erro, '') FROM outbox_event \
          WHERE status = 'FAILED' ORDER BY criado_em LIMIT $2",
        &[&caminho, &limite],
    )
    .await
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
    let rows = c
        .query(
            &format!(
                "SELECT {COLS} FROM outbox_event \
                 WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR tipo = $2) \
                   AND ($3::timestamptz IS NULL OR criado_em >= $3) AND ($4::timestamptz IS NULL OR criado_em < $4) \
                   AND ($5::uuid IS NULL OR (criado_em, id) < (SELECT criado_em, id FROM outbox_event WHERE id = $5)) \
                 ORDER BY criado_em DESC, id DESC LIMIT $6"
            ),
            &[&f.status, &f.tipo, &f.desde, &f.ate, &f.antes, &limite],
        )
        .await?;
    Ok(rows.iter().map(linha).collect())
}

// ---- An audit (Girô's `giro audit`): what it reads of an outbox, by status and by the payload
// paths its event type names. The audit joins these with its own tables itself (by id), so the
// outbox stays domain-free ----

/// Ids sent to PostgreSQL in one array parameter at most; longer lists go in several statements.
const IDS_POR_CONSULTA: usize = 10_000;

/// `PENDING` events created before `criado_antes` or attempted `tentativas_min` times or more,
/// oldest first: id, tipo, the aggregate key (the payload at `caminho`), the last error (`''`
/// when none), criado_em, tentativas.
pub async fn delayed(
    c: &impl Sql,
    caminho: &[&str],
    criado_antes: DateTime<Utc>,
    tentativas_min: i32,
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    c.query(
        "SELECT id, tipo, payload #>> $3, coalesce(ultimo_erro, ''), criado_em, tentativas FROM outbox_event \
          WHERE status = 'PENDING' AND (criado_em < $1 OR tentativas >= $2) ORDER BY criado_em",
        &[&criado_antes, &tentativas_min, &caminho],
    )
    .await
}

/// The status of each of `ids` that still has a row (a missing one was pruned after `SENT`, or
/// discarded).
pub async fn statuses(
    c: &impl Sql,
    ids: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, Status>, tokio_postgres::Error> {
    let mut out = std::collections::HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(IDS_POR_CONSULTA) {
        for r in c.query("SELECT id, status FROM outbox_event WHERE id = ANY($1)", &[&chunk]).await? {
            out.insert(r.get(0), r.get(1));
        }
    }
    Ok(out)
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
    let mut out = std::collections::HashSet::new();
    for chunk in valores.chunks(IDS_POR_CONSULTA) {
        for r in c
            .query(
                "SELECT (payload #>> $2)::uuid FROM outbox_event \
                  WHERE status = 'PENDING' AND tipo = ANY($1) AND (payload #>> $2)::uuid = ANY($3)",
                &[&tipos, &caminho, &chunk],
            )
            .await?
        {
            out.insert(r.get(0));
        }
    }
    Ok(out)
}

/// `SENT` events created at or after `desde`: id, tipo, the aggregate key (the payload at
/// `caminho`).
pub async fn sent_since(
    c: &impl Sql,
    caminho: &[&str],
    desde: DateTime<Utc>,
) -> Result<Vec<tokio_postgres::Row>, tokio_postgres::Error> {
    c.query(
        "SELECT id, tipo, payload #>> $2 FROM outbox_event WHERE status = 'SENT' AND criado_em >= $1",
        &[&desde, &caminho],
    )
    .await
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
