//! What a database error says about the session and the database ([`Trouble`]), and what the
//! pools do about it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::{reexecucao, Pool};

/// The instant every process-wide measure of time here is taken from.
pub(crate) fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Nanoseconds after [`epoch`] of the last stale-session error; 0 = none yet.
pub(super) static TAINTED_AT: AtomicU64 = AtomicU64::new(0);

pub(super) fn opened_before_taint(created: Instant) -> bool {
    let t = TAINTED_AT.load(Ordering::Relaxed);
    t != 0 && created <= epoch() + Duration::from_nanos(t)
}

/// The pools a process holds, by name, so `/metrics` can say how full each is.
static POOLS: std::sync::Mutex<Vec<(String, Pool)>> = std::sync::Mutex::new(Vec::new());

/// Names `pool` for the pool gauges of `/metrics` (`giro_db_pool_connections{pool}`).
pub fn registrar_pool(nome: &str, pool: &Pool) {
    if let Ok(mut p) = POOLS.lock() {
        p.retain(|(n, _)| n != nome);
        p.push((nome.to_string(), pool.clone()));
    }
}

/// Each registered pool's name and status (size, available, waiting, max).
pub fn pools() -> Vec<(String, deadpool_postgres::Status)> {
    POOLS.lock().map(|p| p.iter().map(|(n, pool)| (n.clone(), pool.status())).collect()).unwrap_or_default()
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
pub fn trouble(e: &tokio_postgres::Error) -> Option<Trouble> {
    let t = trouble_sem_marca(e);
    if t == Some(Trouble::StaleSession) {
        // Whoever sorts the error, the request's attempt learns its session was lost.
        reexecucao::sessao_perdida();
    }
    t
}

fn trouble_sem_marca(e: &tokio_postgres::Error) -> Option<Trouble> {
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

/// Looks at a database error wherever one is handled: a stale-session error makes the pools drop
/// every connection opened before it (they carry the same stale state). Returns the trouble.
pub fn note_error(e: &tokio_postgres::Error) -> Option<Trouble> {
    let t = trouble(e);
    if t == Some(Trouble::StaleSession) {
        let now = epoch().elapsed().as_nanos().max(1) as u64;
        let prev = TAINTED_AT.swap(now, Ordering::Relaxed);
        if prev == 0 || now.saturating_sub(prev) > 1_000_000_000 {
            tracing::warn!(error = %e, "stale database session; pooled connections opened before now are discarded");
        }
    }
    t
}

/// [`note_error`] for the first database error in an error chain; a pool that could not open a
/// connection in time marks the request's attempt as [`DbError`]'s conversion does. Whatever
/// answers 503 from an `anyhow` chain calls it, so a lost session is a lost session for the
/// re-run layer ([`reexecucao`]) wherever the request met it.
pub fn note_chain(e: &anyhow::Error) -> Option<Trouble> {
    e.chain().find_map(|c| c.downcast_ref::<tokio_postgres::Error>()).and_then(note_error).or_else(|| {
        note_pool_error(e.chain().find_map(|c| c.downcast_ref::<deadpool_postgres::PoolError>())?);
        Some(Trouble::StaleSession)
    })
}

/// A pool that gave no connection: a new connection refused or cut (the server down, shutting
/// down, failing over) or not opened in time marks the request's attempt ([`reexecucao`]); a
/// pool with no free slot does not (a second try at once would meet it again).
pub fn note_pool_error(e: &deadpool_postgres::PoolError) {
    use deadpool_postgres::{PoolError, TimeoutType};
    match e {
        PoolError::Backend(pg) => {
            trouble(pg);
        }
        PoolError::Timeout(TimeoutType::Create) => reexecucao::sessao_perdida(),
        _ => {}
    }
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
