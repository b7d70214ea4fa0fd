//! The command line: one executable, a subcommand per role (SPEC §1). clap types only; each role's
//! work lives in its own module and `main` dispatches.
//!
//! One rule names the flags: what is generic is spelt as the ecosystem spells it (`--port`,
//! `--wait`, `--output`, `--limit`, `--json`, `--force`, `--clients`, `--seconds`); the spec's
//! domain words stay in its Portuguese (`--lote`, `--db mercado|estoque`, `--eventos`). Names
//! used before the rule are hidden aliases (`--porta`, `--esperar`, `--saida`, …), so no script
//! breaks; `giro publisher --lote 100` is exactly as the spec has it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use giro_infra::config::{LogFormat, Servico};

/// Girô: a virtual market whose stock restocks itself.
///
/// Two services, mercado (the storefront) and estoque (the warehouse), each with its own
/// PostgreSQL database, agree through a transactional outbox, a publisher that delivers it over
/// HTTP and an idempotent inbox. One executable runs every role.
#[derive(Debug, Parser)]
#[command(name = "giro", version, propagate_version = true)]
pub struct Cli {
    /// TOML configuration file (default: config/giro.toml in the working directory, when present).
    #[arg(long, global = true, env = "GIRO_CONFIG", value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Log format: human-readable lines or one JSON object per line.
    #[arg(long, global = true, value_enum, value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,

    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply the embedded migrations to a database (running it twice changes nothing).
    Migrate(MigrateArgs),
    /// The storefront service: catalogue, checkout with reservations, payment, restock requests.
    Mercado {
        #[command(subcommand)]
        command: ServeCommand,
    },
    /// The warehouse service: lots (FEFO), restock shipments, pent-up demand, the dashboard API.
    Estoque {
        #[command(subcommand)]
        command: ServeCommand,
    },
    /// An outbox publisher as its own process; any number may compete over one outbox (SKIP LOCKED).
    Publisher(PublisherArgs),
    /// Look into an outbox and act on its dead letters (FAILED events).
    Outbox(giro_outbox::operador::OutboxArgs),
    /// Print the effective configuration as TOML (secrets masked) and where each value came from.
    Config {
        /// Check every setting and every secret a service needs; list each problem and exit 2
        /// when there is one (0 when all is well).
        #[arg(long)]
        check: bool,
        /// One JSON object (`ok`, `problems`, `keys`) instead of TOML.
        #[arg(long)]
        json: bool,
    },
    /// Measure Girô on scratch databases (see BENCHMARKS.md).
    Bench(BenchArgs),
    /// A complete local market: private PostgreSQL, migrations, both services with their
    /// publishers, the tag-worker and web fronts when available, the demo catalogue; Ctrl-C stops all.
    Dev {
        /// Also leave something for the event console to show: a dead letter in mercado's
        /// outbox (a restock request estoque refuses) and a delayed event in estoque's.
        #[arg(long = "with-faults", alias = "com-falhas")]
        com_falhas: bool,
    },
    /// Read both databases and report every disagreement between mercado and estoque, per SKU
    /// (exit 0 all agree, 1 disagreements, 2 a database cannot be read).
    Audit {
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub command: BenchCommand,

    /// Superuser URL of the cluster where scratch databases are created.
    #[arg(
        long,
        global = true,
        env = "GIRO_BENCH_PG_URL",
        default_value = "postgres://postgres:postgres@127.0.0.1:15432/postgres"
    )]
    pub pg_url: String,

    /// Write the JSON result here (it is also printed on stdout).
    #[arg(long = "output", alias = "saida", global = true, value_name = "FILE")]
    pub saida: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Checkout over HTTP at N concurrent shoppers against a real `giro mercado serve` (without
    /// and with an `Idempotency-Key` per order, as the storefront sends it, in alternating
    /// halves), pgbench with the same transaction as the reference, and each service's start-up
    /// time and memory.
    Checkout {
        /// Concurrent shoppers (and pgbench clients).
        #[arg(long = "clients", alias = "clientes", default_value_t = 16)]
        clientes: usize,
        /// Seconds of each run.
        #[arg(long = "seconds", alias = "segundos", default_value_t = 10)]
        segundos: u64,
        /// Mercado replicas to start on the scratch database; with more than one, the shoppers
        /// go through HAProxy (config/haproxy/giro.cfg) in front of them.
        #[arg(long, default_value_t = 1)]
        replicas: usize,
        /// Drive an already running mercado or its load balancer at this base URL instead
        /// (e.g. http://127.0.0.1:18080): its listed products, no scratch database, no pgbench.
        #[arg(long, value_name = "URL")]
        url: Option<String>,
        /// Then the same checkout load once more through PgBouncer in transaction mode
        /// (`db.pooler = "transacao"`), beside the direct run.
        #[arg(long)]
        pgbouncer: bool,
    },
    /// Outbox relay end to end (outbox → HTTP → inbox and effect committed): throughput with 1 and
    /// 2 publishers, batch and single transport; commit-to-ack latency at a steady rate.
    Relay {
        /// Events pre-written for each throughput run.
        #[arg(long, default_value_t = 20_000)]
        eventos: usize,
        /// Publisher counts to measure.
        #[arg(long = "publishers", alias = "publicadores", value_delimiter = ',', default_value = "1,2")]
        publicadores: Vec<usize>,
        /// Transports to measure (lote, single).
        #[arg(
            long = "transports",
            alias = "transportes",
            value_delimiter = ',',
            default_value = "lote,single"
        )]
        transportes: Vec<String>,
        /// The in-process publishers' first claim (outbox.lote; the service default is 50).
        #[arg(long, default_value_t = 500)]
        lote: usize,
        /// Old SENT rows for an extra pair of runs (empty table vs aged table); 0 skips it.
        #[arg(long = "old-rows", alias = "linhas-antigas", default_value_t = 0)]
        linhas_antigas: usize,
        /// Events per second for the latency run.
        #[arg(long = "rate", alias = "taxa", default_value_t = 500)]
        taxa: u32,
        /// Seconds of the latency run.
        #[arg(long = "seconds", alias = "segundos", default_value_t = 10)]
        segundos: u64,
        /// Also run separate `giro publisher --db mercado` processes against a real `giro estoque
        /// serve`, at the shipped defaults (throughput and latency), with a profile of each run.
        #[arg(long = "processes", alias = "processos")]
        processos: bool,
        /// `--lote` for those publishers (default: none, the shipped outbox.lote).
        #[arg(long = "processes-lote", alias = "lote-processos", value_name = "N", requires = "processos")]
        lote_processos: Option<usize>,
        /// Also run the peers (bench/peers: graphile-worker, pg-boss) with N jobs each.
        #[arg(long = "peers", alias = "pares", value_name = "N")]
        pares: Option<usize>,
        /// Instead of the runs above: N events waiting when the peer comes back, live events
        /// meanwhile; their latency and the drain rate, before issue 29 and now (issue 29).
        #[arg(long, value_name = "N")]
        backlog: Option<usize>,
        /// Live events per second while the backlog drains.
        #[arg(long = "live-rate", alias = "taxa-viva", default_value_t = 20)]
        taxa_viva: u32,
        /// Instead of the runs above (or beside --backlog): a REPEATABLE READ transaction held
        /// this long (e.g. 240s) beside a steady relay, after a --seconds baseline; rate and
        /// delivery latency per phase, before issue 29 and now.
        #[arg(long = "hold-horizon", alias = "segurar-horizonte", value_name = "DURATION", value_parser = giro_infra::config::duration::parse)]
        segurar_horizonte: Option<std::time::Duration>,
        /// Writers committing events as fast as they can during --hold-horizon.
        #[arg(long = "writers", alias = "escritores", default_value_t = 4)]
        escritores: usize,
    },
    /// Girô's relay (separate publishers at the shipped defaults) beside graphile-worker and
    /// pg-boss working no-op jobs on the same cluster (bench/peers, node ≥ 20 and npm).
    Peers {
        /// Events for Girô's relay run.
        #[arg(long, default_value_t = 50_000)]
        eventos: usize,
        /// Separate publishers for Girô's relay run.
        #[arg(long = "publishers", alias = "publicadores", default_value_t = 2)]
        publicadores: usize,
        /// Jobs each peer enqueues and works.
        #[arg(long, default_value_t = 10_000)]
        jobs: usize,
    },
    /// `giro audit` on a large shop: N restocks per side that went right, written in SQL, then the
    /// real `giro audit` timed on them.
    Audit {
        /// Events per side (requests in mercado's outbox, answers in estoque's).
        #[arg(long = "events", alias = "eventos", default_value_t = 150_000)]
        eventos: i32,
        /// Products the requests spread over.
        #[arg(long = "products", alias = "produtos", default_value_t = 20_000)]
        produtos: i32,
    },
    /// Abandoned carts: N unpaid orders with a short reservation TTL against a real mercado at the
    /// shipped defaults; how late after its deadline each is expired (its units held meanwhile).
    #[command(alias = "expiracao")]
    Expiry {
        /// Unpaid orders to close.
        #[arg(long = "orders", alias = "pedidos", default_value_t = 1500)]
        pedidos: usize,
        /// The reservations' TTL (reserva.ttl) for the run.
        #[arg(long, default_value = "10s", value_parser = giro_infra::config::duration::parse)]
        ttl: std::time::Duration,
    },
    /// Memory over time with nothing scraping: mercado, a separate publisher and estoque under a
    /// steady checkout-and-restock load; resident memory every 30 s.
    Soak {
        /// Checkouts per second, each asking for one restock.
        #[arg(long = "rate", alias = "taxa", default_value_t = 200)]
        taxa: u32,
        /// Minutes of load.
        #[arg(long = "minutes", alias = "minutos", default_value_t = 30)]
        minutos: u64,
    },
    /// The storefront's search (`GET /produtos?busca=`) on a generated catalogue: p50/p99 of a
    /// few queries through the statement the route runs.
    #[command(alias = "search")]
    Busca {
        /// Products generated in the scratch database.
        #[arg(long = "products", alias = "produtos", default_value_t = 100_000)]
        produtos: u32,
        /// Runs of each query.
        #[arg(long = "times", alias = "vezes", default_value_t = 200)]
        vezes: usize,
    },
    /// The restock round trip (request created → shelf credited) at a steady rate, with a real
    /// mercado and estoque and their embedded publishers at the shipped defaults.
    #[command(alias = "reposicao")]
    Restock {
        /// Checkouts per second, each asking for one restock.
        #[arg(long = "rate", alias = "taxa", default_value_t = 100)]
        taxa: u32,
        /// Seconds of load.
        #[arg(long = "seconds", alias = "segundos", default_value_t = 20)]
        segundos: u64,
    },
}

#[derive(Debug, Args)]
pub struct MigrateArgs {
    /// Which database to migrate.
    #[arg(long, value_enum)]
    pub db: DbAlvo,

    /// Wait up to this long (e.g. 30s, 5m) for the database to answer before migrating, instead of
    /// failing at once (what the systemd unit giro-migrate@ does at boot).
    #[arg(long = "wait", alias = "esperar", value_name = "DURATION", value_parser = giro_infra::config::duration::parse)]
    pub esperar: Option<std::time::Duration>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DbAlvo {
    Mercado,
    Estoque,
    All,
}

impl DbAlvo {
    pub fn servicos(self) -> Vec<Servico> {
        match self {
            DbAlvo::Mercado => vec![Servico::Mercado],
            DbAlvo::Estoque => vec![Servico::Estoque],
            DbAlvo::All => vec![Servico::Mercado, Servico::Estoque],
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum ServeCommand {
    /// Serve the HTTP API (and, unless disabled, a publisher for this service's outbox).
    Serve(ServeArgs),
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port to listen on (default: MERCADO_PORTA / ESTOQUE_PORTA, 18080 / 18081).
    #[arg(long = "port", alias = "porta", value_name = "PORT")]
    pub porta: Option<u16>,

    /// Do not run the embedded publisher; separate `giro publisher` processes relay the outbox.
    #[arg(long = "no-publisher", alias = "sem-publicador")]
    pub sem_publicador: bool,
}

#[derive(Debug, Args)]
pub struct PublisherArgs {
    /// Relay only this service's outbox (default: both).
    #[arg(long, value_enum)]
    pub db: Option<Servico>,

    /// Events in the first claim (outbox.lote); through a backlog claims grow toward outbox.lote-max.
    #[arg(long, value_name = "N")]
    pub lote: Option<usize>,
}

impl Cli {
    /// Flags that override configuration keys (the highest layer).
    pub fn flags(&self) -> Vec<(&'static str, String, &'static str)> {
        let mut f = Vec::new();
        if let Some(fmt) = self.log_format {
            f.push(("log.formato", format!("{fmt:?}").to_lowercase(), "--log-format"));
        }
        let serve = |f: &mut Vec<_>, porta_key: &'static str, a: &ServeArgs| {
            if let Some(p) = a.porta {
                f.push((porta_key, p.to_string(), "--port"));
            }
            if a.sem_publicador {
                f.push(("outbox.publicador-embutido", "false".to_string(), "--no-publisher"));
            }
        };
        match &self.command {
            Command::Mercado { command: ServeCommand::Serve(a) } => serve(&mut f, "mercado.porta", a),
            Command::Estoque { command: ServeCommand::Serve(a) } => serve(&mut f, "estoque.porta", a),
            Command::Publisher(a) => {
                if let Some(n) = a.lote {
                    f.push(("outbox.lote", n.to_string(), "--lote"));
                }
            }
            _ => {}
        }
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn verify_cli() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_spec_examples_parse() {
        for args in [
            &["giro", "mercado", "serve"][..],
            &["giro", "publisher", "--lote", "100"],
            &["giro", "migrate", "--db", "estoque"],
            &["giro", "migrate", "--db", "all", "--esperar", "5m"],
            &["giro", "estoque", "serve", "--porta", "9000", "--sem-publicador"],
            &["giro", "publisher", "--db", "mercado"],
            &["giro", "outbox", "status", "--db", "estoque"],
            &["giro", "outbox", "retry", "--db", "mercado", "--failed"],
        ] {
            assert!(Cli::try_parse_from(args).is_ok(), "{args:?}");
        }
    }
}
