//! Database access: one pool per service database ([`Db`]), and the transaction type that
//! business functions take ([`Tx`]).
//!
//! A function that must run inside a business transaction (outbox writer, inbox, restock
//! trigger, every write of a role) takes `&Tx<'_, S>`: there is no pool or `GenericClient`
//! variant, so calling it outside a transaction does not compile (the original's "propagation
//! MANDATORY"). `S` says which service's database the transaction runs in, a marker the service
//! defines: each role names its own (`mercado::Tx`, `estoque::Tx` in giro-servicos) and opens it
//! with `Tx::begin`, so a mercado transaction passed to an estoque function does not compile. The
//! outbox writer and the inbox work on either database and are generic over `S`; [`Db::begin`]
//! opens one whose database is not stated ([`AnyDb`]), which only such generic code accepts
//! (tools, benchmarks, tests). [`Tx::commit`] also wakes the in-process publisher when the
//! transaction wrote an outbox event, after the commit, so the publisher never looks before the
//! row is visible.
//!
//! SQL goes out only through [`Sql`]: [`Pool`] hands out a [`Client`] and a [`Tx`], neither with a
//! way to tokio-postgres' own client; [`sql`] says how [`Pooler`] (`db.pooler`) chooses how a
//! statement is sent, and the session limits move from startup options to `SET LOCAL` after each
//! `BEGIN` under a transaction pooler (statements outside a transaction then get the role's
//! defaults: docs/operations.md).

/// `Tipo { campo, … }` read from `row`, each field from the column of its name
/// (`campo: row.try_get("campo")?`), and after a `;` the fields no column gives as they are
/// (`status`, `total: …`); the `?` returns from the enclosing function or closure.
#[macro_export]
macro_rules! da_linha {
    ($row:expr, $tipo:ident { $($campo:ident),* $(; $($outro:ident $(: $valor:expr)?),+)? $(,)? }) => {
        $tipo { $($campo: $row.try_get(stringify!($campo))?,)* $($($outro $(: $valor)?),+)? }
    };
}

/// Every row of `rows` as a `Tipo` read by [`da_linha!`]; the first column that cannot be read is
/// the error.
#[macro_export]
macro_rules! da_linhas {
    ($rows:expr, $tipo:ident { $($campo:ident),* $(,)? }) => {
        $crate::db::linhas(&$rows, |r| Ok($crate::da_linha!(r, $tipo { $($campo),* })))
    };
}

/// `rows` each read by `ler` ([`da_linhas!`]).
pub fn linhas<T>(
    rows: &[Row],
    ler: impl FnMut(&Row) -> Result<T, tokio_postgres::Error>,
) -> Result<Vec<T>, tokio_postgres::Error> {
    rows.iter().map(ler).collect()
}

/// The rows of `sql` for every id of `ids`, bound last (after `params`) 10 000 at a time: one
/// statement per part keeps each array, and each answer, bounded.
pub async fn por_partes(
    c: &impl Sql,
    sql: &str,
    params: &[&dyn Param],
    ids: &[uuid::Uuid],
) -> Result<Vec<Row>, tokio_postgres::Error> {
    let mut rows = Vec::new();
    for parte in ids.chunks(10_000) {
        rows.extend(c.query(sql, &[params, &[&parte]].concat()).await?);
    }
    Ok(rows)
}

pub mod leitura;
mod pool;
pub mod reexecucao;
mod saude;
pub mod sql;
mod tx;

use std::sync::Arc;

use tokio::sync::Notify;

pub use crate::config::{PoolLimits, VIDA_MAXIMA_PADRAO};
pub use pool::{
    causa, descrever, driver, em_lotes, nomear_conexao, ping, pool, pool_with, ready, wait_for, Client, Pool,
};
pub(crate) use saude::epoch;
pub use saude::{na_cadeia, trouble, trouble_of_sqlstate, Falha, Saude, Trouble};
pub use sql::{Param, PgTipo, Pooler, Sql};
pub use tokio_postgres::Row;
pub use tx::{AnyDb, Tx};

/// The instant business code runs at, truncated to microseconds (what PostgreSQL keeps), so an
/// instant answered or sent in an event right after a write equals the one read back later.
pub fn agora() -> chrono::DateTime<chrono::Utc> {
    use chrono::SubsecRound;
    chrono::Utc::now().trunc_subsecs(6)
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

/// A service's database: its pool and its outbox signal, and the read copy its public reads may
/// use ([`leitura`]).
#[derive(Clone)]
pub struct Db {
    pub pool: Pool,
    pub signal: Arc<OutboxSignal>,
    pub leitura: Option<Arc<leitura::Leitura>>,
}

/// A database failure. Converting into it only converts: the pool's health was noted where the
/// statement failed ([`Saude::notar_erro`]), and the request's attempt is marked where the error
/// is answered ([`reexecucao::marcar_se_sessao_perdida`]).
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database unavailable: {0}")]
    Pool(#[from] deadpool_postgres::PoolError),
    #[error(transparent)]
    Pg(#[from] tokio_postgres::Error),
}

impl DbError {
    /// True when the database, not the request, is at fault: answer 503 ("try again").
    pub fn indisponivel(&self) -> bool {
        match self {
            DbError::Pool(_) => true,
            DbError::Pg(e) => trouble(e).is_some(),
        }
    }
}

impl Db {
    pub fn new(pool: Pool, notify_pg: bool) -> Db {
        Db { pool, signal: Arc::new(OutboxSignal { notify_pg, ..OutboxSignal::default() }), leitura: None }
    }

    pub async fn client(&self) -> Result<Client, DbError> {
        let c = self.pool.get().await?;
        reexecucao::conexao_obtida();
        Ok(c)
    }

    /// Opens a transaction on `client` without saying whose database it is: only code generic
    /// over the database (the outbox writer, the inbox) accepts it. A role opens its own kind
    /// with `Tx::begin` (`mercado::Tx`, `estoque::Tx`).
    pub async fn begin<'a>(&self, client: &'a mut Client) -> Result<Tx<'a, AnyDb>, DbError> {
        Tx::begin(self, client).await
    }

    /// The pools of this database: its own and its read copy's, for the pool gauges of `/metrics`.
    pub fn pools(&self) -> Vec<Pool> {
        std::iter::once(self.pool.clone()).chain(self.leitura.as_ref().map(|l| l.pool.clone())).collect()
    }
}
