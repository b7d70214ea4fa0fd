//! `giro config`: the effective configuration, one `key = value  # origin (ENV)` line per key, with
//! secrets masked: secret keys entirely, and the password inside any URL or connection string
//! ([`crate::mascara`]).
//!
//! The text is TOML that can be pasted back into a file: dotted keys, values with the type of the
//! reference's default (numbers and booleans bare, everything else a string). `--json` gives the
//! same as one object for scripts; `--check` prints every problem, not just the first, and exits 2
//! when there is one (a missing secret that a service needs included).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::config::layers::{Origin, DEFAULTS_TOML};
use crate::config::{keys::KEYS, Config, Layers, Sources};
use giro_infra::config::ConfigError;
use giro_infra::mascara::mask_password;

/// What `giro config` prints.
#[derive(Clone, Copy, Debug, Default)]
pub struct Modo {
    /// One JSON object instead of TOML.
    pub json: bool,
    /// Validate everything, list every problem, exit 2 when there is one.
    pub check: bool,
}

/// One key as shown: never a secret's value.
#[derive(Debug, Serialize)]
struct Linha {
    key: &'static str,
    env: &'static str,
    /// `None` when the key is unset.
    value: Option<toml::Value>,
    /// `default`, `file PATH`, `.env VAR`, `env VAR` or `flag --NAME`.
    origin: Option<String>,
    /// Where the value came from, as a word: default, file, dotenv, env, flag.
    source: Option<&'static str>,
    secret: bool,
}

#[derive(Debug, Serialize)]
struct Relatorio {
    ok: bool,
    problems: Vec<String>,
    keys: Vec<Linha>,
}

/// The type each key's built-in default has, so a value can be printed as that type.
fn default_types() -> BTreeMap<String, toml::Value> {
    let mut out = BTreeMap::new();
    if let Ok(table) = DEFAULTS_TOML.parse::<toml::Table>() {
        for (section, v) in table {
            if let toml::Value::Table(t) = v {
                for (k, v) in t {
                    out.insert(format!("{section}.{k}"), v);
                }
            }
        }
    }
    out
}

/// `value` as the type of `default`: an integer or boolean when it parses as one, else a string.
fn typed(value: &str, default: Option<&toml::Value>) -> toml::Value {
    match default {
        Some(toml::Value::Integer(_)) => value.trim().parse::<i64>().map(toml::Value::Integer).ok(),
        Some(toml::Value::Boolean(_)) => value.trim().parse::<bool>().map(toml::Value::Boolean).ok(),
        Some(toml::Value::Float(_)) => value.trim().parse::<f64>().map(toml::Value::Float).ok(),
        _ => None,
    }
    .unwrap_or_else(|| toml::Value::String(value.to_string()))
}

fn linhas(layers: &Layers) -> Vec<Linha> {
    let types = default_types();
    let fonte = |origin: &Origin| match origin {
        Origin::Default => "default",
        Origin::File(_) => "file",
        Origin::DotEnv(_) => "dotenv",
        Origin::Env(_) => "env",
        Origin::Flag(_) => "flag",
    };
    KEYS.iter()
        .map(|key| {
            let achado = layers.get(key.name);
            let shown = |value: &str| match key.secret {
                true => toml::Value::String("***".into()),
                false => typed(&mask_password(value), types.get(key.name)),
            };
            Linha {
                key: key.name,
                env: key.env,
                value: achado.map(|(value, _)| shown(value)),
                origin: achado.map(|(_, origin)| origin.to_string()),
                source: achado.map(|(_, origin)| fonte(origin)),
                secret: key.secret,
            }
        })
        .collect()
}

fn texto(linhas: &[Linha]) -> String {
    let mut out = String::new();
    for l in linhas {
        match (&l.value, &l.origin) {
            (Some(v), Some(o)) => out.push_str(&format!("{} = {v}  # {o} ({})\n", l.key, l.env)),
            _ => out.push_str(&format!("# {} unset ({})\n", l.key, l.env)),
        }
    }
    out
}

/// The report as `giro config` prints it (text or JSON), and the problems found.
pub fn config(src: &Sources, modo: Modo) -> Result<(String, Vec<ConfigError>), ConfigError> {
    let layers = Layers::resolve(src)?;
    let problems = if modo.check {
        Config::problems(&layers)
    } else {
        // Validate as the services would, so `giro config` also tells what is wrong.
        Config::from_layers(&layers)?;
        Vec::new()
    };
    let linhas = linhas(&layers);
    let out = if modo.json {
        let r = Relatorio {
            ok: problems.is_empty(),
            problems: problems.iter().map(|p| p.0.clone()).collect(),
            keys: linhas,
        };
        serde_json::to_string_pretty(&r).unwrap_or_default() + "\n"
    } else {
        texto(&linhas)
    };
    Ok((out, problems))
}

/// `giro config`: prints the report; a configuration error exits 2 (with `--check`: every
/// problem on stderr, one a line, after the report).
pub fn main(src: &Sources, modo: Modo) -> std::process::ExitCode {
    match config(src, modo) {
        Ok((text, problems)) => {
            print!("{text}");
            if problems.is_empty() {
                return std::process::ExitCode::SUCCESS;
            }
            for p in &problems {
                eprintln!("giro: configuration error: {}", p.0);
            }
            eprintln!("giro: {} configuration problem(s)", problems.len());
            std::process::ExitCode::from(2)
        }
        Err(e) => giro_infra::telemetry::config_error(&e),
    }
}
