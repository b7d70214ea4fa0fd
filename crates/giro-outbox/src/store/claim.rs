//! The claim paths: the claim as a lease with its fresh share ([`CLAIM`]: fresh first, then the
//! backlog), the express claim of a writer's fresh events ([`CLAIM_FRESCOS`]), the index floors
//! each claim starts from ([`Pisos`]; a sweep is a claim from no floor), and the revive that makes
//! waiting rows due at once ([`make_due`]).

use chrono::{DateTime, Utc};
use giro_infra::db::{Param, Sql};
use uuid::Uuid;

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
/// **Fresh first** (issue 29): up to `$2` rows among the *fresh* events — due for the first time
/// and created within the window — newest first, then the rest of `limite` from every other due
/// row (retries, older first attempts) by `proxima_tentativa_em`. An outage's backlog drains in
/// the remaining share, at full speed whenever live traffic needs less; events written now never
/// queue behind it. Newest first: an outage's tail does not go ahead of a request made now; a
/// fresh row not taken within the window joins the backlog, so live traffic above the relay's
/// capacity starves nothing either. **Floors**: each share's scan starts at its floor ([`Pisos`]).
///
/// The attempt is counted here, at the claim: a delivery that crashes or hangs the publisher (a
/// poison row) still counts one, and its lease is its backoff. Returns the event's age at the
/// claim in seconds (the same clock, for the delivery deadline), whether the fresh share took it,
/// its `proxima_tentativa_em` before the claim, and the claim's instant.
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

/// Where a claim's two index scans start. **Why**: a claim and a settle each leave a dead version
/// of the row whose index entries stay at the key it had (the first attempt's `criado_em`, the
/// lease's end). While another session holds the xmin horizon back (a long report, a backup, a
/// forgotten `psql`) they can be neither vacuumed nor marked dead, and a scan from the index's
/// start visits every one (issue 29: p50 25 → 100 ms in 4 minutes). Every such entry lies below
/// what the previous claims took, so each scan starts where the last one left off:
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
    let (fresca, lease, frescor) = (parte_fresca(limite, parte), lease.as_secs_f64(), FRESCOR.as_secs_f64());
    let p: [&dyn Param; 8] = [&agora, &fresca, &lease, &token, &frescor, &pisos.novos, &limite, &pisos.resto];
    let rows = c.query(CLAIM, &p).await?;
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

/// Makes up to `limite` events waiting in backoff due now, by the database's clock (the peer is
/// back: no reason to wait out the backoff); returns how many. Leased rows are left to their
/// publisher.
pub async fn make_due(c: &impl Sql, limite: i64) -> Result<u64, tokio_postgres::Error> {
    let sql = "UPDATE outbox_event SET proxima_tentativa_em = now() WHERE id IN ( \
                   SELECT id FROM outbox_event \
                    WHERE status = 'PENDING' AND lease_token IS NULL AND proxima_tentativa_em > now() \
                    ORDER BY proxima_tentativa_em LIMIT $1 FOR UPDATE SKIP LOCKED)";
    c.execute(sql, &[&limite]).await
}
