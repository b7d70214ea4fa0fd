//! `giro config`: the effective configuration, one `key = value  # origin` line per key, with
//! secrets masked.

use crate::config::{keys::KEYS, ConfigError, Layers, Sources};

pub fn config(src: &Sources) -> Result<String, ConfigError> {
    let layers = Layers::resolve(src)?;
    // Validate as the services would, so `giro config` also tells what is wrong.
    crate::config::Config::from_layers(&layers)?;
    let mut out = String::new();
    for key in KEYS {
        match layers.get(key.name) {
            Some((value, origin)) => {
                let shown = if key.secret { "***".to_string() } else { value.clone() };
                out.push_str(&format!("{} = {:?}  # {} ({})\n", key.name, shown, origin, key.env));
            }
            None => out.push_str(&format!("# {} unset ({})\n", key.name, key.env)),
        }
    }
    Ok(out)
}
