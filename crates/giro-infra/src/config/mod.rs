//! The typed settings the lower crates take — a database ([`DbConfig`]), the pools' limits
//! ([`PoolLimits`]), the relay's ([`OutboxConfig`]), the listeners' ([`LimitesHttp`]), the
//! operator's login ([`Operador`], [`LoginConfig`], [`SessaoConfig`]) — and what reading them
//! needs: [`Secret`]s (redacted in `Debug`, compared in constant time), [`duration`]s, database
//! URLs ([`dburl`]), addresses ([`rede`]), and [`ConfigError`], which ends the process with exit
//! code 2. Which keys exist and how they are layered and read is the application's
//! (`giro_servicos::config`).

pub mod dburl;
pub mod duration;
pub mod rede;
pub mod secret;

use std::fmt;
use std::time::Duration;

pub use secret::Secret;

/// A configuration problem; the message names the variable or key and says how to fix it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(pub String);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum LogFormat {
    Human,
    Json,
}

/// How to reach one database. `Debug` shows host, port, database and user, never the password.
#[derive(Clone)]
pub struct DbConfig {
    pub pg: tokio_postgres::Config,
}

impl fmt::Debug for DbConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hosts: Vec<String> = self
            .pg
            .get_hosts()
            .iter()
            .map(|h| match h {
                tokio_postgres::config::Host::Tcp(s) => s.clone(),
                tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
            })
            .collect();
        f.debug_struct("DbConfig")
            .field("hosts", &hosts)
            .field("ports", &self.pg.get_ports())
            .field("dbname", &self.pg.get_dbname())
            .field("user", &self.pg.get_user())
            .field("password", &self.pg.get_password().map(|_| "***"))
            .finish()
    }
}

#[derive(Clone, Debug)]
pub struct Operador {
    pub usuario: String,
    pub senha: Secret,
}

/// Operator sessions (stored in each service's database: `giro_http::auth::sessao`).
#[derive(Clone, Debug)]
pub struct SessaoConfig {
    pub ttl: Duration,
    pub intervalo_limpeza: Duration,
    pub lote_limpeza: i64,
}

#[derive(Clone, Debug)]
pub struct OutboxConfig {
    pub intervalo: Duration,
    pub lote: usize,
    pub timeout: Duration,
    pub backoff_maximo: Duration,
    /// When set, transient failures before `FAILED` (the original's key); the deadline
    /// [`OutboxConfig::prazo_entrega`] applies either way.
    pub max_tentativas: Option<i32>,
    /// Transient failures are retried until the event is this old; then it is `FAILED`.
    pub prazo_entrega: Duration,
    pub publicador_embutido: bool,
    pub visibilidade: Duration,
    pub concorrencia: usize,
    pub lote_max: usize,
    pub notify: bool,
    pub retencao: Duration,
    pub transporte: Transporte,
    /// The share of every claim, in percent (0–100), given to fresh events ahead of the backlog
    /// (giro-outbox's `store::CLAIM`); 0 claims strictly by `proxima_tentativa_em`.
    pub parte_fresca: u8,
    /// How often a sweep — a claim that scans its indexes from their start instead of from the
    /// floors the previous claims left (giro-outbox's `store::Pisos`), beside the loop's claims —
    /// runs; at least nine times its own duration apart. Zero = no floors: every claim scans
    /// from the start.
    pub varredura: Duration,
}

/// How a publisher sends a batch: `/eventos/lote` when the peer has it, or `/eventos` only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Transporte {
    Lote,
    Single,
}

/// Bounds every listener applies (issue 13): how long a client may take to send its headers, its
/// body, or to come back on a kept-alive connection, how long a whole request may take, and how
/// many connections one listener holds at once.
#[derive(Clone, Debug)]
pub struct LimitesHttp {
    /// From the first byte of a request's head to its end.
    pub timeout_cabecalho: Duration,
    /// From the end of the head to the end of the body.
    pub timeout_corpo: Duration,
    /// How long a connection may sit without a request (after accept or after an answer).
    pub timeout_ocioso: Duration,
    /// From the end of the head to the answer.
    pub timeout_requisicao: Duration,
    /// How long an answer may make no progress being written before the connection is closed.
    pub timeout_escrita: Duration,
    pub max_conexoes: usize,
    /// Connections one client neighbourhood (see `prefixo_ipv6`) holds at once on a listener.
    pub max_conexoes_por_endereco: usize,
    /// IPv6 clients are counted by this prefix (a /64 is one subscriber), for every per-address
    /// bound: login, checkout rate, reserved units, connections.
    pub prefixo_ipv6: u8,
    /// Rows the throttling counters table may hold; past it a new key is refused (fails closed).
    pub max_contadores: usize,
}

impl Default for LimitesHttp {
    fn default() -> Self {
        LimitesHttp {
            timeout_cabecalho: Duration::from_secs(10),
            timeout_corpo: Duration::from_secs(30),
            timeout_ocioso: Duration::from_secs(60),
            timeout_requisicao: Duration::from_secs(60),
            timeout_escrita: Duration::from_secs(30),
            max_conexoes: 1024,
            max_conexoes_por_endereco: 64,
            prefixo_ipv6: 64,
            max_contadores: 100_000,
        }
    }
}

/// Login throttling (issue 13): failures counted per client address and per user name.
#[derive(Clone, Debug)]
pub struct LoginConfig {
    pub max_falhas_endereco: u32,
    pub max_falhas_usuario: u32,
    pub janela: Duration,
}

/// Whether a connection pooler in transaction mode sits between Girô and PostgreSQL
/// (`db.pooler`): decides how statements are sent (`db::sql`), where session timeouts
/// are set (`SET LOCAL` per transaction instead of startup options) and where `LISTEN` runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pooler {
    /// Sessions are Girô's own: named prepared statements cached per connection.
    #[default]
    Nenhum,
    /// PgBouncer (or any pooler) in transaction mode: nothing outlives a transaction.
    Transacao,
}

impl std::str::FromStr for Pooler {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "nenhum" => Ok(Pooler::Nenhum),
            "transacao" => Ok(Pooler::Transacao),
            _ => Err("use nenhum ou transacao".to_string()),
        }
    }
}

/// How long a pooled connection lives at most when the caller does not say
/// ([`PoolLimits::vida_maxima`]): session state a connection picked up (a read-only default, a
/// server that failed over) cannot outlive it.
pub const VIDA_MAXIMA_PADRAO: Duration = Duration::from_secs(30 * 60);

/// What every pooled session is allowed: the session timeouts PostgreSQL enforces (zero = none)
/// and the connection's maximum lifetime.
#[derive(Clone, Copy, Debug)]
pub struct PoolLimits {
    /// `statement_timeout`: no statement runs longer (SQLSTATE 57014 → 503).
    pub statement_timeout: Duration,
    /// `lock_timeout`: no lock is waited for longer (SQLSTATE 55P03 → 503), so a row held by
    /// another session makes a request fail fast instead of hanging until the client gives up.
    pub lock_timeout: Duration,
    /// `idle_in_transaction_session_timeout`: a session left idle inside a transaction is ended.
    pub idle_in_transaction_timeout: Duration,
    pub vida_maxima: Duration,
    /// A transaction pooler in front of the database (`db.pooler`): the limits are then sent
    /// as `SET LOCAL` with each transaction, not as startup options ([`Pooler`]).
    pub pooler: Pooler,
}

impl Default for PoolLimits {
    fn default() -> Self {
        PoolLimits {
            statement_timeout: Duration::ZERO,
            lock_timeout: Duration::ZERO,
            idle_in_transaction_timeout: Duration::ZERO,
            vida_maxima: VIDA_MAXIMA_PADRAO,
            pooler: Pooler::Nenhum,
        }
    }
}
