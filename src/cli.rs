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

use giro_infra::config::LogFormat;
use giro_servicos::config::Servico;

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
    Outbox(giro_outbox::operador::OutboxArgs<Servico>),
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
    Bench(giro_bench::cli::BenchArgs),
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
            DbAlvo::All => Servico::TODOS.to_vec(),
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
