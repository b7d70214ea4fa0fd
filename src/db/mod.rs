//! Database access: one deadpool pool per service database, and the transaction type that
//! business functions take.
//!
//! A function that must run inside a business transaction (outbox writer, inbox, restock trigger,
//! every write of a role) takes `&Tx<'_>`: there is no pool or `GenericClient` variant, so calling
//! it outside a transaction does not compile (the original's "propagation MANDATORY").

pub mod migrate;

use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

use crate::config::DbConfig;

pub type Pool = deadpool_postgres::Pool;
pub type Client = deadpool_postgres::Client;
/// An open business transaction.
pub type Tx<'a> = deadpool_postgres::Transaction<'a>;

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
    tokio::time::timeout(timeout, check).await.map_err(|_| anyhow::anyhow!("database did not answer within {timeout:?}"))?
}
