//! `giro`: parse, load the configuration, initialise logging, dispatch (the map is in lib.rs).
use clap::Parser;
use giro::cli::{Cli, Command};
use giro_infra::telemetry::{config_error, exit_code};
use giro_servicos::config::{Config, Sources};
use giro_servicos::migrate;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let sources = Sources::from_process(cli.config.clone(), cli.flags());
    if let Command::Config { check, json } = cli.command {
        return giro_servicos::config::report::main(
            &sources,
            giro_servicos::config::report::Modo { check, json },
        );
    }
    let config = match Config::load(&sources) {
        Ok(c) => c,
        Err(e) => return config_error(&e),
    };
    if let Command::Audit { json } = cli.command {
        return giro_servicos::audit::main(&config, json);
    }
    giro_infra::telemetry::init(config.log_format);
    let format = config.log_format;
    let runtime = tokio::runtime::Runtime::new().map_err(anyhow::Error::from);
    exit_code(runtime.and_then(|rt| rt.block_on(dispatch(cli, config))), format)
}

async fn dispatch(cli: Cli, config: Config) -> anyhow::Result<()> {
    let shutdown = giro_infra::shutdown::on_signal;
    match cli.command {
        Command::Migrate(a) => migrate::command(&a.db.servicos(), a.esperar, &config, shutdown()).await,
        Command::Mercado { .. } => giro_servicos::mercado::serve(config, shutdown()).await,
        Command::Estoque { .. } => giro_servicos::estoque::serve(config, shutdown()).await,
        Command::Publisher(a) => giro_servicos::publisher_role::run(config, a.db, shutdown()).await,
        Command::Outbox(a) => {
            giro_servicos::outboxes::run(a, &config).await.map_err(giro_http::pg::para_comando)
        }
        Command::Bench(a) => giro_bench::run(a).await,
        Command::Dev { com_falhas } => giro_dev::run(cli.config, com_falhas, shutdown()).await,
        Command::Config { .. } | Command::Audit { .. } => Ok(()),
    }
}
