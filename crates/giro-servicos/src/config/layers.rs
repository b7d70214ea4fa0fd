//! The raw layers of configuration and their precedence.
//!
//! Each source writes dotted keys with string values into one map, later sources over earlier ones:
//! built-in defaults (the embedded `config/giro.toml`) < a TOML file < `.env` < environment <
//! flags. Typing and validation happen once, afterwards, in [`super::Config::from_layers`], so an
//! error can name where the bad value came from.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::keys::{self, KEYS};
use giro_infra::config::ConfigError;

/// The defaults: the configuration reference itself, embedded in the binary.
pub const DEFAULTS_TOML: &str = include_str!("../../../../config/giro.toml");

/// Where a value came from, for error messages and `giro config`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Default,
    File(PathBuf),
    DotEnv(String),
    Env(String),
    Flag(String),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File(p) => write!(f, "file {}", p.display()),
            Origin::DotEnv(v) => write!(f, ".env {v}"),
            Origin::Env(v) => write!(f, "env {v}"),
            Origin::Flag(v) => write!(f, "flag {v}"),
        }
    }
}

/// Everything configuration is read from. [`Sources::from_process`] fills it from the real
/// process; tests build one by hand, so no test ever calls `set_var`.
#[derive(Clone, Debug, Default)]
pub struct Sources {
    /// A TOML file named by `--config` or `GIRO_CONFIG` (must exist).
    pub file: Option<PathBuf>,
    /// The working directory: `config/giro.toml` and `.env` are looked for there.
    pub cwd: PathBuf,
    /// The environment.
    pub env: BTreeMap<String, String>,
    /// Command-line flags as (key, value, flag spelling).
    pub flags: Vec<(&'static str, String, &'static str)>,
}

impl Sources {
    pub fn from_process(file: Option<PathBuf>, flags: Vec<(&'static str, String, &'static str)>) -> Self {
        Sources {
            file,
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            env: std::env::vars().collect(),
            flags,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Layers {
    values: BTreeMap<&'static str, (String, Origin)>,
}

impl Layers {
    pub fn resolve(src: &Sources) -> Result<Layers, ConfigError> {
        let mut layers = Layers::default();
        layers.apply_toml(DEFAULTS_TOML, &Origin::Default)?;

        let file = src
            .file
            .clone()
            .or_else(|| src.env.get("GIRO_CONFIG").filter(|v| !v.is_empty()).map(PathBuf::from));
        match file {
            Some(path) => layers.apply_file(&path, true)?,
            None => layers.apply_file(&src.cwd.join("config/giro.toml"), false)?,
        }

        let dotenv = src.cwd.join(".env");
        if dotenv.is_file() {
            let iter = dotenvy::from_path_iter(&dotenv)
                .map_err(|e| ConfigError(format!("cannot read {}: {e}", dotenv.display())))?;
            let mut vars = BTreeMap::new();
            for item in iter {
                let (var, value) =
                    item.map_err(|e| ConfigError(format!("cannot parse {}: {e}", dotenv.display())))?;
                // Variables already set in the environment win over `.env`, as in the original.
                if !src.env.contains_key(&var) {
                    vars.insert(var, value);
                }
            }
            layers.apply_env(&vars, Origin::DotEnv);
        }
        layers.apply_env(&src.env, Origin::Env);
        for (key, value, flag) in &src.flags {
            layers.values.insert(key, (value.clone(), Origin::Flag((*flag).to_string())));
        }
        Ok(layers)
    }

    /// Sets `key` back to its built-in default (or unset, for a key without one).
    pub fn reset_to_default(&mut self, key: &'static str) {
        let mut defaults = Layers::default();
        if defaults.apply_toml(DEFAULTS_TOML, &Origin::Default).is_ok() {
            match defaults.values.remove(key) {
                Some(v) => self.values.insert(key, v),
                None => self.values.remove(key),
            };
        }
    }

    pub fn get(&self, key: &str) -> Option<&(String, Origin)> {
        self.values.get(key)
    }

    /// Each key from the first of its variables (documented, derived, old name) set in `vars`.
    fn apply_env(&mut self, vars: &BTreeMap<String, String>, origin: fn(String) -> Origin) {
        for key in KEYS {
            if let Some((var, value)) = key.variables().into_iter().find_map(|v| vars.get(&v).map(|x| (v, x)))
            {
                self.values.insert(key.name, (value.clone(), origin(var)));
            }
        }
    }

    fn apply_file(&mut self, path: &Path, required: bool) -> Result<(), ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => self.apply_toml(&text, &Origin::File(path.to_path_buf())),
            Err(e) if !required && e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(ConfigError(format!("cannot read configuration file {}: {e}", path.display()))),
        }
    }

    fn apply_toml(&mut self, text: &str, origin: &Origin) -> Result<(), ConfigError> {
        let table: toml::Table =
            text.parse().map_err(|e| ConfigError(format!("invalid TOML in {origin}: {e}")))?;
        let mut flat = Vec::new();
        flatten("", &table, &mut flat);
        for (name, value) in flat {
            let key = keys::by_name(&name)
                .ok_or_else(|| ConfigError(format!("unknown configuration key `{name}` in {origin}")))?;
            // A file that repeats a built-in default (the reference itself, in the checkout) does
            // not make the value the file's: its origin stays "default".
            if matches!(self.values.get(key.name), Some((v, Origin::Default)) if *v == value) {
                continue;
            }
            self.values.insert(key.name, (value, origin.clone()));
        }
        Ok(())
    }
}

fn flatten(prefix: &str, table: &toml::Table, out: &mut Vec<(String, String)>) {
    for (k, v) in table {
        let name = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            toml::Value::Table(t) => flatten(&name, t, out),
            toml::Value::String(s) => out.push((name, s.clone())),
            other => out.push((name, other.to_string())),
        }
    }
}
