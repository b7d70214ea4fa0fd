//! Database access: one pool per service database ([`Db`]), and the transaction type that
//! business functions take ([`Tx`]).
//!
//! A function that must run inside a business transaction (outbox writer, inbox, restock trigger,
//! every write of a role) takes `&Tx<'_, S>`: there is no pool or `GenericClient` variant, so calling
//! it outside a transaction does not compile (the original's "propagation MANDATORY").
//! `S` says which service's database the transaction runs in ([`Mercado`], [`Estoque`]): each
//! role names its own (`mercado::Tx`, `estoque::Tx`) and opens it with `Tx::begin`, so a mercado
//! transaction passed to an estoque function does not compile. The outbox writer and the inbox
//! work on either database and are generic over `S`; [`Db::begin`] opens one whose database is
//! not stated ([`AnyDb`]), which only such generic code accepts (tools, benchmarks, tests).
//! [`Tx::commit`] also wakes the in-process publisher when the transaction wrote an outbox event,
//! after the commit, so the publisher never looks before the row is visible.
//!
//! SQL goes out only through [`Sql`] ([`sql`]): [`Pool`] hands out a [`Client`] and a [`Tx`]
//! that expose its `query`/`query_one`/`query_opt`/`execute` and the simple-query protocol, and no
//! way to tokio-postgres' own client, so a named prepared statement that a transaction pooler would
//! break cannot be written outside this module. [`Pooler`] (`db.pooler`) chooses how: cached
//! prepared statements by default, unnamed typed statements under `transacao`, where the session
//! limits also move from startup options to `SET LOCAL` after each `BEGIN` (one more round trip
//! per transaction, only under `transacao`; statements outside a transaction get the role's
//! defaults: docs/operations.md).

pub mod leitura;
pub mod reexecucao;
pub mod sql;

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use deadpool_postgres::{Hook, HookError, Manager, ManagerConfig, RecyclingMethod, Runtime};
use tokio::sync::Notify;
use tokio_postgres::NoTls;
use tokio_util::sync::CancellationToken;

use crate::config::DbConfig;

pub use sql::{Param, PgTipo, Pooler, Sql};
pub use tokio_postgres::Row;

/// A service's connection pool; it hands out [`Client`]s, which send SQL only through [`Sql`].
#[derive(Clone)]
pub struct Pool {
    inner: deadpool_postgres::Pool,
    pooler: Pooler,
    /// `SET LOCAL` of the session limits, sent after each `BEGIN` under [`Pooler::Transacao`]
    /// (empty when none); under [`Pooler::Nenhum`] they are startup options instead.
    limites_locais: Arc<str>,
}

impl Pool {
    /// A connection from the pool (waits at most the pool's timeout).
    pub async fn get(&self) -> Result<Client, deadpool_postgres::PoolError> {
        Ok(Client {
            inner: self.inner.get().await?,
            pooler: self.pooler,
            limites_locais: self.limites_locais.clone(),
        })
    }

    /// How full the pool is.
    pub fn status(&self) -> deadpool_postgres::Status {
        self.inner.status()
    }

    pub fn pooler(&self) -> Pooler {
        self.pooler
    }
}

/// A pooled connection. It sends SQL through [`Sql`] (and the simple-query protocol, which names
/// no statement: [`Client::batch_execute`]); it has no way to the raw tokio-postgres client.
pub struct Client {
    inner: deadpool_postgres::Client,
    pooler: Pooler,
    limites_locais: Arc<str>,
}

impl Client {
    /// Runs `sql` (one statement or several, no parameters) with the simple-query protocol.
    pub async fn batch_execute(&self, sql: &str) -> Result<(), tokio_postgres::Error> {
        self.inner.batch_execute(sql).await
    }

    /// Runs `sql` with the simple-query protocol and returns its messages.
    pub async fn simple_query(
        &self,
        sql: &str,
    ) -> Result<Vec<tokio_postgres::SimpleQueryMessage>, tokio_postgres::Error> {
        self.inner.simple_query(sql).await
    }

    /// Opens a transaction whose database its opener does not state and that wakes no publisher
    /// (infrastructure: readiness probes, throttling counters).
    pub async fn transaction(&mut self) -> Result<Tx<'_, AnyDb>, tokio_postgres::Error> {
        Tx::abrir(self, Arc::new(OutboxSignal::default())).await
    }

    /// Closes this connection instead of returning it to the pool (its session holds state
    /// that must not be handed out again).
    pub fn descartar(self) {
        drop(deadpool_postgres::Object::take(self.inner));
    }

    pub fn pooler(&self) -> Pooler {
        self.pooler
    }
}

/// A connection of its own (tools, tests) has no statement cache: it sends unnamed statements,
/// which are right through any pooler.
impl sql::Base for tokio_postgres::Client {
    fn pooler(&self) -> Pooler {
        Pooler::Transacao
    }
    async fn preparar(&self, sql: &str) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
        self.prepare(sql).await
    }
    fn pg(&self) -> &(impl tokio_postgres::GenericClient + Sync) {
        self
    }
}

/// A transaction on such a connection (tools, tests), likewise.
impl sql::Base for tokio_postgres::Transaction<'_> {
    fn pooler(&self) -> Pooler {
        Pooler::Transacao
    }
    async fn preparar(&self, sql: &str) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
        self.prepare(sql).await
    }
    fn pg(&self) -> &(impl tokio_postgres::GenericClient + Sync) {
        self
    }
}

impl sql::Base for Client {
    fn pooler(&self) -> Pooler {
        self.pooler
    }
    async fn preparar(&self, sql: &str) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
        self.inner.prepare_cached(sql).await
    }
    fn pg(&self) -> &(impl tokio_postgres::GenericClient + Sync) {
        &**self.inner
    }
}

pub use crate::config::{PoolLimits, VIDA_MAXIMA_PADRAO};

/// Builds a pool; it connects lazily, so a service starts while its database is down and
/// answers `/readyz` with 503 until it is back. Every wait is bounded by `timeout`, so an
/// unreachable database fails a request quickly instead of hanging it.
pub fn pool(cfg: &DbConfig, max_size: usize, timeout: Duration) -> anyhow::Result<Pool> {
    pool_with(cfg, max_size, timeout, PoolLimits::default())
}

/// [`pool`] with session limits and a maximum connection lifetime. A connection is never handed
/// out again when it is older than `limits.vida_maxima`, was closed, or was opened before the
/// last error that says sessions are stale ([`note_error`]): a briefly read-only database, a
/// server shutdown or failover does not leave sessions that keep failing after the cause is gone.
pub fn pool_with(
    cfg: &DbConfig,
    max_size: usize,
    timeout: Duration,
    limits: PoolLimits,
) -> anyhow::Result<Pool> {
    let mut pg = cfg.pg.clone();
    pg.connect_timeout(timeout);
    pg.keepalives(true);
    pg.keepalives_idle(Duration::from_secs(30));
    let mut options = pg.get_options().unwrap_or_default().to_string();
    let mut locais = String::new();
    for (name, d) in [
        ("statement_timeout", limits.statement_timeout),
        ("lock_timeout", limits.lock_timeout),
        ("idle_in_transaction_session_timeout", limits.idle_in_transaction_timeout),
    ] {
        if !d.is_zero() {
            match limits.pooler {
                Pooler::Nenhum => options.push_str(&format!(" -c {name}={}", d.as_millis())),
                Pooler::Transacao => locais.push_str(&format!("SET LOCAL {name} = {};", d.as_millis())),
            }
        }
    }
    // A transaction pooler refuses the `options` startup parameter (PgBouncer: "unsupported
    // startup parameter"): under it the limits go with each transaction instead.
    if !options.trim().is_empty() {
        pg.options(options.trim());
    }
    let manager = Manager::from_config(pg, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
    let vida = limits.vida_maxima;
    let pool = deadpool_postgres::Pool::builder(manager)
        .max_size(max_size)
        .runtime(Runtime::Tokio1)
        .wait_timeout(Some(timeout))
        .create_timeout(Some(timeout))
        .recycle_timeout(Some(timeout))
        .pre_recycle(Hook::sync_fn(move |_client, metrics| {
            if !vida.is_zero() && metrics.age() >= vida {
                return Err(HookError::message("connection reached its maximum lifetime"));
            }
            if opened_before_taint(metrics.created) {
                return Err(HookError::message("connection opened before a stale-session error"));
            }
            Ok(())
        }))
        .build()?;
    Ok(Pool { inner: pool, pooler: limits.pooler, limites_locais: locais.into() })
}

/// The instant every process-wide measure of time here is taken from.
fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// Nanoseconds after [`epoch`] of the last stale-session error; 0 = none yet.
static TAINTED_AT: AtomicU64 = AtomicU64::new(0);

fn opened_before_taint(created: Instant) -> bool {
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

/// Where `servico`'s database is, as an operator needs it in an error: the role, the host(s)
/// and the database, and the variable that sets them; never the password.
pub fn descrever(servico: crate::config::Servico, cfg: &DbConfig) -> String {
    use tokio_postgres::config::Host;
    let portas = cfg.pg.get_ports();
    let hosts: Vec<String> = cfg
        .pg
        .get_hosts()
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let porta = portas.get(i).or(portas.first()).copied().unwrap_or(5432);
            match h {
                Host::Tcp(s) => format!("{s}:{porta}"),
                Host::Unix(p) => format!("{}:{porta}", p.display()),
            }
        })
        .collect();
    let var = crate::config::keys::by_name(&format!("{}.db-url", servico.nome())).map_or("?", |k| k.env);
    format!(
        "the {servico} database {} on {} as role {} ({var})",
        cfg.pg.get_dbname().unwrap_or("?"),
        hosts.join(","),
        cfg.pg.get_user().unwrap_or("?"),
    )
}

/// What went wrong at the bottom of a database error chain, without the layers that repeat
/// "error connecting to server": the server's message, or the innermost cause.
pub fn causa(e: &anyhow::Error) -> String {
    let db = e.chain().find_map(|c| {
        c.downcast_ref::<tokio_postgres::Error>().and_then(|p| p.as_db_error()).or_else(|| {
            match c.downcast_ref() {
                Some(deadpool_postgres::PoolError::Backend(b)) => b.as_db_error(),
                _ => None,
            }
        })
    });
    match db {
        Some(d) => d.message().to_string(),
        None => {
            let last = e.chain().last().map(|c| c.to_string()).unwrap_or_default();
            if last.is_empty() {
                "no answer".to_string()
            } else {
                last
            }
        }
    }
}

/// A failure to reach a database, said once and naming it: "cannot connect to the mercado
/// database mercado on 127.0.0.1:5432 as role mercado (MERCADO_DB_URL): Connection refused".
/// Errors that are not about connecting (a refused statement, a bug) pass unchanged.
pub fn nomear_conexao(e: anyhow::Error, servico: crate::config::Servico, cfg: &DbConfig) -> anyhow::Error {
    // Refused at the door: wrong password or role (class 28), no such database (3D000).
    let porta = |c: &str| c.starts_with("28") || c == "3D000";
    let conexao = e.chain().any(|c| {
        let pg = c.downcast_ref::<tokio_postgres::Error>().or_else(|| match c.downcast_ref() {
            Some(deadpool_postgres::PoolError::Backend(b)) => Some(b),
            _ => None,
        });
        match pg {
            Some(p) => p.code().map_or(p.as_db_error().is_none() && !p.is_closed(), |c| porta(c.code())),
            None => {
                c.downcast_ref::<deadpool_postgres::PoolError>().is_some()
                    || c.downcast_ref::<std::io::Error>().is_some()
            }
        }
    });
    if !conexao {
        return e;
    }
    anyhow::anyhow!("cannot connect to {}: {}", descrever(servico, cfg), causa(&e))
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

/// Whether a session can write: not a standby, not read-only.
const WRITABLE: &str = "SELECT NOT (pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on')";

/// What `/readyz` asks, within `timeout`: a pooled session answers and can write, and — when
/// `fresh` is given — a newly opened session can write too. A database made read-only
/// (`ALTER DATABASE … SET default_transaction_read_only`) only affects sessions opened after, so
/// the pool alone could answer "writable" while every new connection would fail. A pooled
/// session found read-only is stale: the pool drops it and every connection as old.
pub async fn ready(pool: &Pool, fresh: bool, timeout: Duration) -> anyhow::Result<()> {
    let check = async {
        let client = pool.get().await?;
        let writable = client.query_one(WRITABLE, &[]).await.inspect_err(|e| {
            note_error(e);
        })?;
        if !writable.get::<_, bool>(0) {
            let now = epoch().elapsed().as_nanos().max(1) as u64;
            TAINTED_AT.store(now, Ordering::Relaxed);
            client.descartar();
            anyhow::bail!("the database is read-only");
        }
        drop(client);
        if fresh {
            // A connection of the pool's own settings, outside the pool; closed when dropped.
            // Simple protocol: no named statement, whatever the pooler.
            let c = deadpool::managed::Manager::create(pool.inner.manager()).await?;
            let writable =
                c.simple_query(WRITABLE).await?.into_iter().any(
                    |m| matches!(m, tokio_postgres::SimpleQueryMessage::Row(r) if r.get(0) == Some("t")),
                );
            anyhow::ensure!(writable, "the database is read-only for new sessions");
        }
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
/// backoff: what readiness (`READY=1`) and `giro migrate --wait` wait for. Returns false if
/// `shutdown` fires first. `what` names the waiter in the log.
/// `pools` are each a pool and what it reaches ([`descrever`]), for the log line.
pub async fn wait_for(
    what: &str,
    pools: &[(Pool, String)],
    timeout: Duration,
    shutdown: &CancellationToken,
) -> bool {
    let mut pause = WAIT_FIRST;
    let mut tries = 0u32;
    loop {
        let mut failed = None;
        for (pool, alvo) in pools {
            if let Err(e) = ping(pool, timeout).await {
                failed = Some((e, alvo));
                break;
            }
        }
        let Some((e, alvo)) = failed else { return true };
        tries += 1;
        // The first failure and then about one line a minute (5 s pauses), not one per try.
        if tries == 1 || tries % 12 == 0 {
            tracing::warn!(role = what, tries, error = %causa(&e), "waiting for {alvo}");
        }
        tokio::select! {
            _ = shutdown.cancelled() => return false,
            _ = tokio::time::sleep(pause) => {}
        }
        pause = (pause * 2).min(WAIT_MAX);
    }
}

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

#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("database unavailable: {0}")]
    Pool(#[source] deadpool_postgres::PoolError),
    #[error(transparent)]
    Pg(tokio_postgres::Error),
}

impl From<deadpool_postgres::PoolError> for DbError {
    fn from(e: deadpool_postgres::PoolError) -> Self {
        note_pool_error(&e);
        DbError::Pool(e)
    }
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

impl From<tokio_postgres::Error> for DbError {
    fn from(e: tokio_postgres::Error) -> Self {
        note_error(&e);
        DbError::Pg(e)
    }
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
}

/// The database of mercado: the service marker of its transactions ([`Tx`]).
#[derive(Debug)]
pub enum Mercado {}

/// The database of estoque: the service marker of its transactions ([`Tx`]).
#[derive(Debug)]
pub enum Estoque {}

/// A transaction whose database its opener did not state ([`Db::begin`]).
#[derive(Debug)]
pub enum AnyDb {}

/// An open business transaction in the database of service `S` (a marker: [`Mercado`],
/// [`Estoque`], [`AnyDb`]); the SQL is the same whatever `S` is. A mercado transaction where an
/// estoque one is expected does not compile (the doctest is on `giro_servicos::mercado::Tx`).
pub struct Tx<'a, S> {
    inner: deadpool_postgres::Transaction<'a>,
    pooler: Pooler,
    signal: Arc<OutboxSignal>,
    wrote_event: AtomicBool,
    // `fn() -> S`: the marker is never held, so it changes neither Send nor Sync.
    servico: PhantomData<fn() -> S>,
}

impl<S> sql::Base for Tx<'_, S> {
    fn pooler(&self) -> Pooler {
        self.pooler
    }
    async fn preparar(&self, sql: &str) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
        self.inner.prepare_cached(sql).await
    }
    fn pg(&self) -> &(impl tokio_postgres::GenericClient + Sync) {
        &*self.inner
    }
}

impl<'a, S> Tx<'a, S> {
    /// Opens a business transaction on `client` from `db`'s pool (READ COMMITTED, as the
    /// original); `S` is the caller's: `mercado::Tx::begin(&db, &mut client)`.
    pub async fn begin(db: &Db, client: &'a mut Client) -> Result<Self, DbError> {
        reexecucao::transacao_aberta();
        Ok(Tx::abrir(client, db.signal.clone()).await?)
    }

    /// `BEGIN`, then under a transaction pooler the session limits as `SET LOCAL` (one more
    /// round trip; they last until this transaction ends, so nothing leaks to the next client of
    /// the same server connection).
    async fn abrir(client: &'a mut Client, signal: Arc<OutboxSignal>) -> Result<Self, tokio_postgres::Error> {
        let pooler = client.pooler;
        let locais = client.limites_locais.clone();
        let inner = client.inner.transaction().await?;
        if !locais.is_empty() {
            inner.batch_execute(&locais).await?;
        }
        Ok(Tx { inner, pooler, signal, wrote_event: AtomicBool::new(false), servico: PhantomData })
    }
}

impl<S> Tx<'_, S> {
    /// Marks that this transaction wrote an outbox event; returns true the first time, so the
    /// writer sends one `NOTIFY` per transaction, not per event.
    pub fn mark_event_written(&self) -> bool {
        !self.wrote_event.swap(true, Ordering::Relaxed)
    }

    pub fn notify_pg(&self) -> bool {
        self.signal.notify_pg
    }

    /// Runs `sql` (one statement or several, no parameters) with the simple-query protocol.
    pub async fn batch_execute(&self, sql: &str) -> Result<(), tokio_postgres::Error> {
        self.inner.batch_execute(sql).await
    }

    pub async fn commit(self) -> Result<(), tokio_postgres::Error> {
        let wrote = self.wrote_event.load(Ordering::Relaxed);
        let signal = self.signal.clone();
        // From here the outcome may be unknown: the request is not re-run ([`reexecucao`]).
        reexecucao::commit_enviado();
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
