use std::process::ExitCode;

use clap::Parser;

use giro::cli::{Cli, Command, ServeCommand};
use giro::config::{Config, ConfigError, Sources};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let sources = Sources::from_process(cli.config.clone(), flags(&cli));
    if let Command::Config = cli.command {
        return match giro::report::config(&sources) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => config_error(&e),
        };
    }
    let config = match Config::load(&sources) {
        Ok(c) => c,
        Err(e) => return config_error(&e),
    };
    if let Command::Audit { json } = cli.command {
        return audit(&config, json);
    }
    let log_format = config.log_format;
    giro::telemetry::init(log_format);
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("giro: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(dispatch(cli.command, config, cli.config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => match e.downcast_ref::<ConfigError>() {
            Some(c) if log_format == giro::config::LogFormat::Json => {
                tracing::error!(error = %c, "configuration error");
                ExitCode::from(2)
            }
            Some(c) => config_error(c),
            None => {
                tracing::error!("{e:#}");
                if log_format == giro::config::LogFormat::Human {
                    // JSON logs stay one object per line; the error above is already there.
                    eprintln!("giro: {e:#}");
                }
                ExitCode::FAILURE
            }
        },
    }
}

async fn dispatch(
    command: Command,
    config: Config,
    config_file: Option<std::path::PathBuf>,
) -> anyhow::Result<()> {
    let shutdown = giro::shutdown::on_signal();
    match command {
        Command::Migrate(args) => {
            if let Some(wait) = args.esperar {
                let pools = args
                    .db
                    .servicos()
                    .into_iter()
                    .map(|s| giro::db::pool(&config.servico(s).db, 1, config.db_timeout))
                    .collect::<anyhow::Result<Vec<_>>>()?;
                let answered = tokio::time::timeout(
                    wait,
                    giro::db::wait_for("migrate", &pools, config.db_timeout, &shutdown),
                )
                .await;
                match answered {
                    Ok(true) => {}
                    Ok(false) => anyhow::bail!("interrupted while waiting for the database"),
                    Err(_) => anyhow::bail!(
                        "the database did not answer within --esperar {}",
                        giro::config::duration::format(wait)
                    ),
                }
            }
            for s in args.db.servicos() {
                let applied = giro::db::migrate::run(s, &config.servico(s).db).await?;
                tracing::info!(db = %s, applied = applied.len(), "migrations applied: {}", applied.join(", "));
            }
            Ok(())
        }
        Command::Mercado { command: ServeCommand::Serve(_) } => giro::mercado::serve(config, shutdown).await,
        Command::Estoque { command: ServeCommand::Serve(_) } => giro::estoque::serve(config, shutdown).await,
        Command::Publisher(args) => giro::publisher::run(config, args.db, shutdown).await,
        Command::Outbox(args) => giro::outbox::admin::run(args, &config).await,
        Command::Config => Ok(()),
        Command::Bench(args) => bench(args).await,
        Command::Audit { .. } => Ok(()),
        Command::Dev => giro::dev::run(config_file, shutdown).await,
    }
}

/// Flags that override configuration keys (the highest layer).
fn flags(cli: &Cli) -> Vec<(&'static str, String, &'static str)> {
    let mut f = Vec::new();
    if let Some(fmt) = cli.log_format {
        f.push(("log.formato", format!("{fmt:?}").to_lowercase(), "--log-format"));
    }
    let serve = |f: &mut Vec<_>, porta_key: &'static str, a: &giro::cli::ServeArgs| {
        if let Some(p) = a.porta {
            f.push((porta_key, p.to_string(), "--porta"));
        }
        if a.sem_publicador {
            f.push(("outbox.publicador-embutido", "false".to_string(), "--sem-publicador"));
        }
    };
    match &cli.command {
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

/// `giro audit`: exit 0 agree, 1 disagree, 2 unreadable.
fn audit(config: &Config, json: bool) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("giro: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(giro::audit::auditar(config, chrono::Utc::now())) {
        Ok(r) => {
            if json {
                println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
            } else {
                print!("{}", giro::audit::texto(&r));
            }
            if r.concorda {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(e) => {
            eprintln!("giro: audit: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn config_error(e: &ConfigError) -> ExitCode {
    eprintln!("giro: configuration error: {e}");
    ExitCode::from(2)
}

async fn bench(args: giro::cli::BenchArgs) -> anyhow::Result<()> {
    use giro::cli::BenchCommand;
    let result = match args.command {
        BenchCommand::Checkout { clientes, segundos } => {
            giro::bench::checkout::run(giro::bench::checkout::CheckoutArgs {
                admin_url: args.pg_url,
                clientes,
                duracao: std::time::Duration::from_secs(segundos),
            })
            .await?
        }
        BenchCommand::Relay { eventos, publicadores, transportes, lote, linhas_antigas, taxa, segundos } => {
            giro::bench::relay::run(giro::bench::relay::RelayArgs {
                linhas_antigas,
                admin_url: args.pg_url,
                eventos,
                publicadores,
                transportes,
                lote,
                taxa,
                duracao: std::time::Duration::from_secs(segundos),
            })
            .await?
        }
    };
    eprintln!("{}", giro::bench::tabela(&result));
    let text = serde_json::to_string_pretty(&result)?;
    if let Some(path) = args.saida {
        std::fs::write(&path, &text)?;
    }
    println!("{text}");
    Ok(())
}
