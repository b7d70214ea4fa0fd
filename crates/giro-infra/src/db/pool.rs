//! A service's pool ([`Pool`]) and its connections ([`Client`]); building one, and asking it
//! whether the database answers and can write.

use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Hook, HookError, Manager, ManagerConfig, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;
use tokio_util::sync::CancellationToken;

use super::{sql, AnyDb, OutboxSignal, PoolLimits, Pooler, Saude, Tx};
use crate::config::DbConfig;

/// A service's connection pool; it hands out [`Client`]s, which send SQL only through [`Sql`].
/// Its clones share its connections and its health ([`Saude`]).
#[derive(Clone)]
pub struct Pool {
    inner: deadpool_postgres::Pool,
    pooler: Pooler,
    /// What opens a transaction: `BEGIN`, then under [`Pooler::Transacao`] the session limits as
    /// `SET LOCAL` in the same simple query; under [`Pooler::Nenhum`] they are startup options.
    abertura: Arc<str>,
    saude: Arc<Saude>,
    /// The label of its gauges in `/metrics` ([`Pool::nomeado`]); a pool without one is not shown.
    nome: Option<Arc<str>>,
}

impl Pool {
    /// A connection from the pool (waits at most the pool's timeout).
    pub async fn get(&self) -> Result<Client, deadpool_postgres::PoolError> {
        Ok(Client {
            inner: self.inner.get().await?,
            pooler: self.pooler,
            abertura: self.abertura.clone(),
            saude: self.saude.clone(),
        })
    }

    /// This pool's database health, as its sessions' errors told it.
    pub fn saude(&self) -> &Saude {
        &self.saude
    }

    /// This pool, shown as `nome` in the pool gauges of `/metrics` (`giro_db_pool_connections{pool}`).
    pub fn nomeado(mut self, nome: &str) -> Pool {
        self.nome = Some(nome.into());
        self
    }

    pub fn nome(&self) -> Option<&str> {
        self.nome.as_deref()
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
    pub(super) inner: deadpool_postgres::Client,
    pub(super) pooler: Pooler,
    pub(super) abertura: Arc<str>,
    /// Its pool's health: every statement that fails here is noted there.
    pub(super) saude: Arc<Saude>,
}

impl Client {
    /// Runs `sql` (one statement or several, no parameters) with the simple-query protocol.
    pub async fn batch_execute(&self, sql: &str) -> Result<(), tokio_postgres::Error> {
        self.inner.batch_execute(sql).await.inspect_err(|e| self.saude.notar_erro(e))
    }

    /// Runs `sql` with the simple-query protocol and returns its messages.
    pub async fn simple_query(
        &self,
        sql: &str,
    ) -> Result<Vec<tokio_postgres::SimpleQueryMessage>, tokio_postgres::Error> {
        self.inner.simple_query(sql).await.inspect_err(|e| self.saude.notar_erro(e))
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

/// A connection of its own or a transaction on one (tools, tests) has no statement cache: it
/// sends unnamed statements, which are right through any pooler.
impl<C: tokio_postgres::GenericClient + Sync> sql::Base for C {
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
    fn saude(&self) -> Option<&Saude> {
        Some(&self.saude)
    }
}

/// Builds a pool; it connects lazily, so a service starts while its database is down and
/// answers `/readyz` with 503 until it is back. Every wait is bounded by `timeout`, so an
/// unreachable database fails a request quickly instead of hanging it.
pub fn pool(cfg: &DbConfig, max_size: usize, timeout: Duration) -> anyhow::Result<Pool> {
    pool_with(cfg, max_size, timeout, PoolLimits::default())
}

/// [`pool`] with session limits and a maximum connection lifetime. A connection is never handed
/// out again when it is older than `limits.vida_maxima`, was closed, or was opened before the
/// last error that says sessions are stale ([`Saude::notar_erro`]): a briefly read-only database, a
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
    let mut abertura = String::from("BEGIN");
    for (name, d) in [
        ("statement_timeout", limits.statement_timeout),
        ("lock_timeout", limits.lock_timeout),
        ("idle_in_transaction_session_timeout", limits.idle_in_transaction_timeout),
    ] {
        if !d.is_zero() {
            match limits.pooler {
                Pooler::Nenhum => options.push_str(&format!(" -c {name}={}", d.as_millis())),
                Pooler::Transacao => abertura.push_str(&format!(";SET LOCAL {name} = {}", d.as_millis())),
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
    let saude = Arc::new(Saude::default());
    let manchas = saude.clone();
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
            if manchas.aberta_antes_da_mancha(metrics.created) {
                return Err(HookError::message("connection opened before a stale-session error"));
            }
            Ok(())
        }))
        .build()?;
    Ok(Pool { inner: pool, pooler: limits.pooler, abertura: abertura.into(), saude, nome: None })
}

/// Where `servico`'s database is, as an operator needs it in an error: the role, the host(s)
/// and the database, and `var`, the variable that sets them; never the password.
pub fn descrever(servico: &str, var: &str, cfg: &DbConfig) -> String {
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
    match e.chain().find_map(|c| driver(c)?.as_db_error()) {
        Some(d) => d.message().to_string(),
        None => {
            let last = e.chain().last().map(|c| c.to_string()).filter(|s| !s.is_empty());
            last.unwrap_or_else(|| "no answer".to_string())
        }
    }
}

/// The driver's error one link of an error chain is: itself, or a pool's backend error.
pub fn driver<'a>(c: &'a (dyn std::error::Error + 'static)) -> Option<&'a tokio_postgres::Error> {
    c.downcast_ref::<tokio_postgres::Error>().or_else(|| match c.downcast_ref() {
        Some(deadpool_postgres::PoolError::Backend(b)) => Some(b),
        _ => None,
    })
}

/// A failure to reach a database, said once and naming it: "cannot connect to the mercado
/// database mercado on 127.0.0.1:5432 as role mercado (MERCADO_DB_URL): Connection refused".
/// Errors that are not about connecting (a refused statement, a bug) pass unchanged.
pub fn nomear_conexao(e: anyhow::Error, servico: &str, var: &str, cfg: &DbConfig) -> anyhow::Error {
    // Refused at the door: wrong password or role (class 28), no such database (3D000).
    let porta = |c: &str| c.starts_with("28") || c == "3D000";
    let conexao = e.chain().any(|c| match driver(c) {
        Some(p) => p.code().map_or(p.as_db_error().is_none() && !p.is_closed(), |c| porta(c.code())),
        None => {
            c.downcast_ref::<deadpool_postgres::PoolError>().is_some()
                || c.downcast_ref::<std::io::Error>().is_some()
        }
    });
    if !conexao {
        return e;
    }
    anyhow::anyhow!("cannot connect to {}: {}", descrever(servico, var, cfg), causa(&e))
}

/// A purge in batches: `rodada` (one statement deleting at most `lote` rows, on a connection of
/// `pool`) again until one deletes fewer or `shutdown` fires; returns how many in all. With its
/// rows taken `FOR UPDATE SKIP LOCKED`, every replica may run it at once.
pub async fn em_lotes<Fut>(
    pool: &Pool,
    lote: i64,
    shutdown: &CancellationToken,
    rodada: impl Fn(Client) -> Fut,
) -> Result<u64, super::DbError>
where
    Fut: std::future::Future<Output = Result<u64, tokio_postgres::Error>>,
{
    let mut total = 0;
    loop {
        let n = rodada(pool.get().await?).await?;
        total += n;
        if n < lote as u64 || shutdown.is_cancelled() {
            return Ok(total);
        }
    }
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
        // A failure here is noted in the pool's health like any statement's.
        let writable = client.query_one(WRITABLE, &[]).await?;
        if !writable.get::<_, bool>(0) {
            pool.saude.manchar();
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
