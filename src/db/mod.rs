//! Database access: one pool per service database ([`Db`]), and the transaction type that
//! business functions take ([`Tx`]).
//!
//! A function that must run inside a business transaction (outbox writer, inbox, restock trigger,
//! every write of a role) takes `&Tx<'_>`: there is no pool or `GenericClient` variant, so calling
//! it outside a transaction does not compile (the original's "propagation MANDATORY").
//! [`Tx::commit`] also wakes the in-process publisher when the transaction wrote an outbox event,
//! after the commit, so the publisher never looks before the row is visible.

pub mod migrate;

use std::ops::Deref;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, RecyclingMethod, Runtime};
use tokio::sync::Notify;
use tokio_postgres::NoTls;
use tokio_util::sync::CancellationToken;

use crate::config::DbConfig;

pub type Pool = deadpool_postgres::Pool;
pub type Client = deadpool_postgres::Client;

/// Builds a pool; it connects lazily, so a service starts while its database is down and
/// answers `/readyz` with 503 until it is back. Every wait is bounded by `timeout`, so an
/// unreachable database fails a request quickly instead of hanging it.
pub fn pool(cfg: &DbConfig, max_size: usize, timeout: Duration) -> anyhow::Result<Pool> {
    let mut pg = cfg.pg.clone();
    pg.connect_timeout(timeout);
    pg.keepalives(true);
    let manager = Manager::from_config(pg, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
    let pool = Pool::builder(manager)
        .max_size(max_size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(timeout))
        .create_timeout(Some(timeout))
        .recycle_timeout(Some(timeout))
        .build()?;
    Ok(pool)
}

/// `SELECT 1` through the pool within `timeout`: what `/readyz` asks.
pub async fn ping(pool: &Pool, timeout: Duration) -> anyhow::Result<()> {
    let check = async {
        let client = pool.get().await?;
        client.simple_query("SELECT 1").await?;
        anyhow::Ok(())
    };
    tokio::time::timeout(timeout, check)
        .await
        .map_err(|_| anyhow::anyhow!("database did not answer within {timeout:?}"))?
}

/// First pause between database checks while waiting; doubles up to [`WAIT_MAX`].
const WAIT_FIRST: Duration = Duration::from_millis(250);
const WAIT_MAX: Duration = Duration::from_secs(5);

/// Waits until every pool answers `SELECT 1` (each try bounded by `timeout`), retrying with
/// backoff: what readiness (`READY=1`) and `giro migrate --esperar` wait for. Returns false if
/// `shutdown` fires first. `what` names the waiter in the log.
pub async fn wait_for(what: &str, pools: &[Pool], timeout: Duration, shutdown: &CancellationToken) -> bool {
    let mut pause = WAIT_FIRST;
    let mut tries = 0u32;
    loop {
        let mut failed = None;
        for pool in pools {
            if let Err(e) = ping(pool, timeout).await {
                failed = Some(e);
                break;
            }
        }
        let Some(e) = failed else { return true };
        tries += 1;
        // The first failure and then about one line a minute (5 s pauses), not one per try.
        if tries == 1 || tries % 12 == 0 {
            tracing::warn!(role = what, tries, error = %format!("{e:#}"), "waiting for the database");
        }
        tokio::select! {
            _ = shutdown.cancelled() => return false,
            _ = tokio::time::sleep(pause) => {}
        }
        pause = (pause * 2).min(WAIT_MAX);
    }
}

/// How a committed outbox event reaches publishers at once: in-process for the embedded one
/// (`wake`), `NOTIFY` at commit for separate processes (`notify_pg`, `outbox.notify`).
#[derive(Debug, Default)]
pub struct OutboxSignal {
    pub wake: Notify,
    pub notify_pg: bool,
    /// True while a publisher loop waits for a wake-up (nothing left to claim). Tests wait on it
    /// before writing, so a delivery they see came through the wake path, not the first round.
    pub idle: tokio::sync::watch::Sender<bool>,
}

/// A service's database: its pool and its outbox signal.
#[derive(Clone)]
pub struct Db {
    pub pool: Pool,
    pub signal: Arc<OutboxSignal>,
}

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database unavailable: {0}")]
    Pool(#[from] deadpool_postgres::PoolError),
    #[error(transparent)]
    Pg(#[from] tokio_postgres::Error),
}

impl Db {
    pub fn new(pool: Pool, notify_pg: bool) -> Db {
        Db { pool, signal: Arc::new(OutboxSignal { notify_pg, ..OutboxSignal::default() }) }
    }

    pub async fn client(&self) -> Result<Client, DbError> {
        Ok(self.pool.get().await?)
    }

    /// Opens a business transaction on `client` (READ COMMITTED, as the original).
    pub async fn begin<'a>(&self, client: &'a mut Client) -> Result<Tx<'a>, DbError> {
        let inner = client.transaction().await?;
        Ok(Tx { inner, signal: self.signal.clone(), wrote_event: AtomicBool::new(false) })
    }
}

/// An open business transaction.
pub struct Tx<'a> {
    inner: deadpool_postgres::Transaction<'a>,
    signal: Arc<OutboxSignal>,
    wrote_event: AtomicBool,
}

impl<'a> Deref for Tx<'a> {
    type Target = deadpool_postgres::Transaction<'a>;
    fn deref(&self) -> &Self::Target {
        &self.inner
    }
}

impl Tx<'_> {
    /// Marks that this transaction wrote an outbox event; returns true the first time, so the
    /// writer sends one `NOTIFY` per transaction, not per event.
    pub(crate) fn mark_event_written(&self) -> bool {
        !self.wrote_event.swap(true, Ordering::Relaxed)
    }

    pub(crate) fn notify_pg(&self) -> bool {
        self.signal.notify_pg
    }

    pub async fn commit(self) -> Result<(), tokio_postgres::Error> {
        let wrote = self.wrote_event.load(Ordering::Relaxed);
        let signal = self.signal.clone();
        self.inner.commit().await?;
        if wrote {
            signal.wake.notify_one();
        }
        Ok(())
    }

    pub async fn rollback(self) -> Result<(), tokio_postgres::Error> {
        self.inner.rollback().await
    }
}
