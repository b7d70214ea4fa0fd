//! `giro bench`'s command line (clap types only), flattened into the executable's `giro bench`.
//! Flags follow the executable's rule (src/cli.rs): generic ones as the ecosystem spells them,
//! the older names as hidden aliases.

use std::path::PathBuf;

use clap::{Args, Subcommand};

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
