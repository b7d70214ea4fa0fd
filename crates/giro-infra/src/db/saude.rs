//! A pool's health ([`Saude`], one per pool, shared by its clones): what its sessions' errors
//! said, read by the pool's own recycling (a stale session drops every connection opened before
//! it) and by readiness (a database out of disk or memory). The pool's [`Client`](super::Client)
//! and [`Tx`](super::Tx) note each failed statement there ([`Saude::notar_erro`]); nothing about
//! the database's health is process-global. Also what an error says ([`Trouble`], [`Falha`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use deadpool_postgres::{PoolError, TimeoutType};

use super::DbError;

/// The instant every process-wide measure of time here is taken from (a clock origin only).
pub(crate) fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Now, in nanoseconds after [`epoch`]; never 0 (0 means "never").
fn agora_ns() -> u64 {
    epoch().elapsed().as_nanos().max(1) as u64
}

/// SQLSTATEs of a database that cannot take work until an operator acts: disk full (53100), out
/// of memory (53200). Not 53300 (too many connections): pooled sessions still work then.
const SEM_RECURSO: [&str; 2] = ["53100", "53200"];

/// The health of one pool's database (see the module doc).
#[derive(Debug, Default)]
pub struct Saude {
    /// Nanoseconds after [`epoch`] of the last stale-session error; 0 = none yet.
    manchada_em: AtomicU64,
    /// When a statement last failed for [`SEM_RECURSO`] (0 = not since the last check that writes
    /// went through) and its SQLSTATE.
    exausta_em: AtomicU64,
    exausta_codigo: Mutex<&'static str>,
}

impl Saude {
    /// Notes what a failed statement of this pool says: a stale session makes the pool drop every
    /// connection opened before now ([`Saude::manchar`]); a database out of disk or memory makes
    /// readiness check writes until one goes through ([`Saude::exaustao`]).
    pub fn notar_erro(&self, e: &tokio_postgres::Error) {
        if trouble(e) == Some(Trouble::StaleSession) && self.manchar() {
            tracing::warn!(error = %e, "stale database session; pooled connections opened before now are discarded");
        }
        if let Some(codigo) = e.code().and_then(|c| SEM_RECURSO.into_iter().find(|s| *s == c.code())) {
            self.notar_exaustao(codigo);
        }
    }

    /// Every connection of this pool opened before now is dropped instead of handed out again;
    /// true unless it was already so within the last second (whoever logs it, logs once).
    pub(crate) fn manchar(&self) -> bool {
        let agora = agora_ns();
        let antes = self.manchada_em.swap(agora, Ordering::Relaxed);
        antes == 0 || agora.saturating_sub(antes) > 1_000_000_000
    }

    /// A connection opened at `criada` predates the last stale-session error.
    pub(crate) fn aberta_antes_da_mancha(&self, criada: Instant) -> bool {
        let t = self.manchada_em.load(Ordering::Relaxed);
        t != 0 && criada <= epoch() + Duration::from_nanos(t)
    }

    fn notar_exaustao(&self, codigo: &'static str) {
        if let Ok(mut g) = self.exausta_codigo.lock() {
            *g = codigo;
        }
        if self.exausta_em.swap(agora_ns(), Ordering::Relaxed) == 0 {
            tracing::warn!(sqlstate = codigo, "the database ran out of a resource (disk or memory); readiness checks writes until they go through");
        }
    }

    /// The resource exhaustion seen since writes last went through, if any: `(mark, sqlstate)`.
    /// `/readyz` then probes a write and calls [`Saude::exaustao_superada`] with `mark` when it
    /// passes.
    pub fn exaustao(&self) -> Option<(u64, &'static str)> {
        let em = self.exausta_em.load(Ordering::Relaxed);
        (em != 0).then(|| (em, self.exausta_codigo.lock().map(|g| *g).unwrap_or("53100")))
    }

    /// A write went through after the exhaustion marked `mark`: forget it (unless a newer one came).
    pub fn exaustao_superada(&self, mark: u64) {
        if self.exausta_em.compare_exchange(mark, 0, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
            tracing::info!("the database takes writes again");
        }
    }
}

/// What a database error says about the session and the database.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trouble {
    /// The session cannot be trusted any more: the connection is lost (class 08, closed), the
    /// server is shutting down (57P01–57P03), the session is read-only (25006) or was ended
    /// for idling in a transaction (25P03). Every pooled connection opened before it is dropped.
    StaleSession,
    /// The database is busy, not broken: a lock or statement timeout (55P03, 57014), a deadlock
    /// or serialization failure (40P01, 40001), or out of a resource — disk full, memory,
    /// connection slots (class 53). Trying again later may succeed.
    Busy,
}

/// [`Trouble`] by SQLSTATE alone; `None` for an error about the request itself.
pub fn trouble_of_sqlstate(c: &str) -> Option<Trouble> {
    if c.starts_with("08") || matches!(c, "57P01" | "57P02" | "57P03" | "25006" | "25P03") {
        Some(Trouble::StaleSession)
    } else if c.starts_with("53") || matches!(c, "55P03" | "57014" | "40P01" | "40001") {
        Some(Trouble::Busy)
    } else {
        None
    }
}

/// Classifies a database error by SQLSTATE: `Some` when it is the database's trouble (answered
/// 503, "try again"), `None` for an error about the request itself (a bug or a constraint).
/// Only classifies: it marks nothing.
pub fn trouble(e: &tokio_postgres::Error) -> Option<Trouble> {
    if e.is_closed() {
        return Some(Trouble::StaleSession);
    }
    match e.code() {
        Some(code) => trouble_of_sqlstate(code.code()),
        // No SQLSTATE: an I/O failure on the socket, or a client-side error (type conversion).
        None => {
            let io =
                std::error::Error::source(e).is_some_and(|s| s.downcast_ref::<std::io::Error>().is_some());
            io.then_some(Trouble::StaleSession)
        }
    }
}

/// A database failure: a driver error, or a pool that gave no connection.
#[derive(Clone, Copy, Debug)]
pub enum Falha<'a> {
    Pg(&'a tokio_postgres::Error),
    Pool(&'a PoolError),
}

impl Falha<'_> {
    /// The request's session was lost (class 08, 57P01–57P03, 25006, 25P03, a closed connection),
    /// or a new connection could not be opened for such a reason or in time — not a pool with no
    /// free slot, which a second try at once would meet again.
    pub fn sessao_perdida(&self) -> bool {
        match *self {
            Falha::Pg(e) | Falha::Pool(PoolError::Backend(e)) => trouble(e) == Some(Trouble::StaleSession),
            Falha::Pool(p) => matches!(p, PoolError::Timeout(TimeoutType::Create)),
        }
    }
}

impl DbError {
    /// The failure this error carries.
    pub fn falha(&self) -> Falha<'_> {
        match self {
            DbError::Pool(p) => Falha::Pool(p),
            DbError::Pg(e) => Falha::Pg(e),
        }
    }
}

/// The first database failure in `e`'s chain, if any: a pool error, a driver error, or either
/// inside [`DbError`] (whose `Pg` variant is transparent, so the driver error itself is not in the
/// chain, only its causes).
pub fn na_cadeia(e: &anyhow::Error) -> Option<Falha<'_>> {
    e.chain().find_map(|c| {
        if let Some(d) = c.downcast_ref::<DbError>() {
            return Some(d.falha());
        }
        if let Some(pg) = c.downcast_ref::<tokio_postgres::Error>() {
            return Some(Falha::Pg(pg));
        }
        c.downcast_ref::<PoolError>().map(Falha::Pool)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_s_trouble_is_told_from_the_request_s_by_sqlstate() {
        for c in ["08006", "08001", "57P01", "57P03", "25006", "25P03"] {
            assert_eq!(trouble_of_sqlstate(c), Some(Trouble::StaleSession), "{c}");
        }
        // Disk full, out of memory, too many connections: resources, not the request.
        for c in ["53000", "53100", "53200", "53300", "53400", "55P03", "57014", "40P01", "40001"] {
            assert_eq!(trouble_of_sqlstate(c), Some(Trouble::Busy), "{c}");
        }
        for c in ["23505", "23514", "22001", "42P01", "XX000"] {
            assert_eq!(trouble_of_sqlstate(c), None, "{c}");
        }
    }
}
