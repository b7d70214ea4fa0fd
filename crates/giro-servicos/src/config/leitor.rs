//! The layers read as typed settings: one key at a time, with errors that say which key, which
//! value and where it came from ([`Reader`]). [`super::Config::from_layers`] is its one user.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use giro_infra::config::{dburl, duration, rede, ConfigError, DbConfig, Secret};

use super::{keys, Layers, Origin, GENERATE};

/// Typed access to the layers, with errors that say which key, which value and where it came from;
/// the second field notes the key a refusal was about, so [`super::Config::problems`] can go on past it.
pub(super) struct Reader<'a>(pub(super) &'a Layers, pub(super) &'a std::cell::Cell<Option<&'static str>>);

impl Reader<'_> {
    pub(super) fn raw(&self, key: &str) -> Result<&(String, Origin), ConfigError> {
        self.0.get(key).ok_or_else(|| ConfigError(format!("configuration key `{key}` has no value")))
    }

    /// Notes that `key` was refused (see [`super::Config::problems`]).
    pub(super) fn note(&self, key: &str) {
        self.1.set(keys::by_name(key).map(|k| k.name));
    }

    pub(super) fn env_of(key: &str) -> &'static str {
        keys::by_name(key).map(|k| k.env).unwrap_or("?")
    }

    pub(super) fn invalid(
        &self,
        key: &str,
        value: &str,
        origin: &Origin,
        why: impl fmt::Display,
    ) -> ConfigError {
        self.note(key);
        let shown = if keys::by_name(key).is_some_and(|k| k.secret) { "***" } else { value };
        ConfigError(format!("invalid {key} ({}) = {shown:?} from {origin}: {why}", Self::env_of(key)))
    }

    /// The one reader every typed key goes through: `key`'s value, trimmed, converted by `ler`;
    /// a refusal becomes an error naming the key, its variable, the value and where it came from.
    pub(super) fn ler<T, E: fmt::Display>(
        &self,
        key: &str,
        ler: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<T, ConfigError> {
        let (v, o) = self.raw(key)?;
        ler(v.trim()).map_err(|e| self.invalid(key, v, o, e))
    }

    /// An optional key: absent or empty → `None`, else `read` (one of the readers below).
    pub(super) fn opt<T>(
        &self,
        key: &str,
        read: impl FnOnce(&Self, &str) -> Result<T, ConfigError>,
    ) -> Result<Option<T>, ConfigError> {
        match self.opt_string(key) {
            None => Ok(None),
            Some(_) => read(self, key).map(Some),
        }
    }

    pub(super) fn parse<T: FromStr>(&self, key: &str) -> Result<T, ConfigError>
    where
        T::Err: fmt::Display,
    {
        self.ler(key, str::parse)
    }

    pub(super) fn positive<T: FromStr + PartialOrd + Default>(&self, key: &str) -> Result<T, ConfigError>
    where
        T::Err: fmt::Display,
    {
        self.ler(key, |v| match v.parse::<T>() {
            Ok(n) if n > T::default() => Ok(n),
            Ok(_) => Err("must be positive".to_string()),
            Err(e) => Err(e.to_string()),
        })
    }

    pub(super) fn duration(&self, key: &str) -> Result<Duration, ConfigError> {
        self.ler(key, duration::parse)
    }

    /// A percentage: 0–100.
    pub(super) fn percent(&self, key: &str) -> Result<u8, ConfigError> {
        self.ler(key, |v| match v.parse::<u8>() {
            Ok(n) if n <= 100 => Ok(n),
            _ => Err("expected a percentage from 0 to 100"),
        })
    }

    /// An IPv6 prefix length: 1–128 (128 = every address its own client).
    pub(super) fn prefixo_ipv6(&self, key: &str) -> Result<u8, ConfigError> {
        self.ler(key, |v| match v.parse::<u8>() {
            Ok(n) if (1..=128).contains(&n) => Ok(n),
            _ => Err("expected a prefix length from 1 to 128"),
        })
    }

    /// One of the `nomes` of a closed set, in any case (what clap's `ValueEnum` accepted, and its
    /// message), read without clap: the core crates build without it.
    pub(super) fn choice<T: Copy>(&self, key: &str, nomes: &[(&str, T)]) -> Result<T, ConfigError> {
        self.ler(key, |v| {
            let achado = nomes.iter().find(|(nome, _)| nome.eq_ignore_ascii_case(v));
            achado.map(|(_, t)| *t).ok_or_else(|| format!("invalid variant: {v}"))
        })
    }

    pub(super) fn url(&self, key: &str) -> Result<String, ConfigError> {
        self.ler(key, |v| {
            let v = v.trim_end_matches('/');
            if v.starts_with("http://") || v.starts_with("https://") {
                Ok(v.to_string())
            } else {
                Err("expected an http:// or https:// URL")
            }
        })
    }

    /// A comma-separated list of IP addresses or CIDR blocks; absent or empty → none.
    pub(super) fn proxies(&self, key: &str) -> Result<Vec<String>, ConfigError> {
        let lista = |v: &str| {
            let lista: Vec<String> =
                v.split(',').map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect();
            match lista.iter().find(|p| !rede::proxy_valido(p)) {
                Some(ruim) => Err(format!("{ruim:?} is not an IP address or a CIDR block")),
                None => Ok(lista),
            }
        };
        Ok(self.opt(key, |r, k| r.ler(k, lista))?.unwrap_or_default())
    }

    pub(super) fn opt_string(&self, key: &str) -> Option<String> {
        self.0.get(key).map(|(v, _)| v.trim().to_string()).filter(|v| !v.is_empty())
    }

    /// A secret: absent or empty → `None`; present but shorter than `min` → error.
    pub(super) fn secret(
        &self,
        key: &str,
        min: usize,
        generate: bool,
    ) -> Result<Option<Secret>, ConfigError> {
        let Some((v, o)) = self.0.get(key) else { return Ok(None) };
        if v.is_empty() {
            return Ok(None);
        }
        let s = Secret::new(v.clone());
        if s.len() < min {
            let hint = if generate { format!("; {GENERATE}") } else { String::new() };
            self.note(key);
            return Err(ConfigError(format!(
                "{} ({key}) from {o} is too short: {} characters, at least {min} required{hint}",
                Self::env_of(key),
                s.len()
            )));
        }
        Ok(Some(s))
    }

    /// A database URL as it is written (`postgres://` or the original's `jdbc:postgresql://`, one
    /// host or several, [`dburl`]), with the application name of `service`.
    pub(super) fn db_url(&self, key: &str, service: &str) -> Result<DbConfig, ConfigError> {
        let (v, o) = self.raw(key)?;
        let url = dburl::to_libpq(v).map_err(|e| self.invalid(key, "<url>", o, e))?;
        let mut pg: tokio_postgres::Config = url.parse().map_err(|e| self.invalid(key, "<url>", o, e))?;
        if pg.get_application_name().is_none() {
            pg.application_name(format!("giro-{service}"));
        }
        Ok(DbConfig { pg })
    }

    /// `service`'s database URL ([`Reader::db_url`]), completed with the `*_DB_USER` /
    /// `*_DB_PASSWORD` credentials when the URL has none.
    pub(super) fn db(&self, service: &str) -> Result<DbConfig, ConfigError> {
        let DbConfig { mut pg } = self.db_url(&format!("{service}.db-url"), service)?;
        if pg.get_user().is_none() {
            if let Some(user) = self.opt_string(&format!("{service}.db-usuario")) {
                pg.user(user);
            }
        }
        if pg.get_password().is_none() {
            if let Some(pw) = self.0.get(&format!("{service}.db-senha")).filter(|(p, _)| !p.is_empty()) {
                pg.password(pw.0.as_bytes());
            }
        }
        Ok(DbConfig { pg })
    }
}
