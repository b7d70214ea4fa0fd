//! Logging through `tracing`: human-readable lines by default, one JSON object per line with
//! `--log-format json` / `GIRO_LOG_FORMATO=json`. Logs go to stderr so stdout stays for command
//! output (`giro config`, `giro outbox list`). `RUST_LOG` refines the filter. In JSON every line
//! on stderr is a JSON object (panics and a role's final error included), so a log shipper needs
//! no multi-line rules; only a configuration error, found before the format is known, is plain text.
//!
//! What never to log: service tokens, the operator password, database passwords, Authorization
//! headers, session cookies. Configuration reaches logs only through its redacted `Debug`.

use std::io::IsTerminal;
use std::process::ExitCode;

use tracing_subscriber::{fmt, EnvFilter};

use crate::config::LogFormat;

const DEFAULT_FILTER: &str = "info,tower_http=info,tokio_postgres=warn";

pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    // Colours only on a terminal: journald, files and pipes get plain text (NO_COLOR honoured).
    let ansi = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let builder = fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(ansi);
    // A second init (tests) keeps the first subscriber.
    let _ = match format {
        LogFormat::Human => builder.with_target(false).try_init(),
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(false).try_init(),
    };
    if format == LogFormat::Json {
        // A panic becomes one more JSON line instead of free text on stderr.
        std::panic::set_hook(Box::new(|info| tracing::error!(panic = %info, "panic")));
    }
}

/// For tests: output captured per test by the test harness.
pub fn init_for_test() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    let _ = fmt().with_env_filter(filter).with_test_writer().try_init();
}

/// A configuration error, found before the log format is known: plain text on stderr, exit 2.
pub fn config_error(e: &crate::config::ConfigError) -> ExitCode {
    eprintln!("giro: configuration error: {e}");
    ExitCode::from(2)
}

/// How a command's end is reported: exit 0; a configuration error found late exits 2; any other
/// error is logged (and repeated on stderr in human format) and exits 1.
pub fn exit_code(result: anyhow::Result<()>, format: LogFormat) -> ExitCode {
    let Err(e) = result else { return ExitCode::SUCCESS };
    match e.downcast_ref::<crate::config::ConfigError>() {
        Some(c) if format == LogFormat::Json => {
            tracing::error!(error = %c, "configuration error");
            ExitCode::from(2)
        }
        Some(c) => config_error(c),
        // Said once: a log line in JSON (one object per line), a plain line for a person.
        None if format == LogFormat::Json => {
            tracing::error!("{e:#}");
            ExitCode::FAILURE
        }
        None => {
            eprintln!("giro: {e:#}");
            ExitCode::FAILURE
        }
    }
}
