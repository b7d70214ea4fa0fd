//! `giro config`: the effective configuration, one `key = value  # origin (ENV)` line per key, with
//! secrets masked: secret keys entirely, and the password inside any URL or connection string
//! ([`crate::mascara`]).

use crate::config::{keys::KEYS, ConfigError, Layers, Sources};
use crate::mascara::mask_password;

pub fn config(src: &Sources) -> Result<String, ConfigError> {
    let layers = Layers::resolve(src)?;
    // Validate as the services would, so `giro config` also tells what is wrong.
    crate::config::Config::from_layers(&layers)?;
    let mut out = String::new();
    for key in KEYS {
        match layers.get(key.name) {
            Some((value, origin)) => {
                let shown = if key.secret { "***".to_string() } else { mask_password(value) };
                out.push_str(&format!("{} = {:?}  # {} ({})\n", key.name, shown, origin, key.env));
            }
            None => out.push_str(&format!("# {} unset ({})\n", key.name, key.env)),
        }
    }
    Ok(out)
}

/// `giro config`: prints the report; a configuration error exits 2.
pub fn main(src: &Sources) -> std::process::ExitCode {
    match config(src) {
        Ok(text) => {
            print!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => crate::telemetry::config_error(&e),
    }
}
