//! Instants on the wire and in the admin output, as the original's `ISO_INSTANT`: seconds always,
//! the fraction (3, 6 or 9 digits) only when non-zero, UTC with `Z`. A serde helper
//! (`#[serde(with = "instante")]`) for event types and for [`Linha`](crate::store::Linha).

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Deserializer, Serializer};

pub fn formatar(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&formatar(t))
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    let text = String::deserialize(d)?;
    DateTime::parse_from_rfc3339(&text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| serde::de::Error::custom(format!("instante inválido {text:?}: {e}")))
}

pub mod opcional {
    use super::*;

    pub fn serialize<S: Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
        match t {
            Some(t) => s.serialize_str(&formatar(t)),
            None => s.serialize_none(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn instants_print_0_3_6_or_9_fraction_digits_only_when_non_zero() {
        let base = Utc.with_ymd_and_hms(2026, 9, 25, 12, 0, 5).single().unwrap_or_default();
        let at = |ns: u32| base + chrono::Duration::nanoseconds(i64::from(ns));
        assert_eq!(formatar(&at(0)), "2026-09-25T12:00:05Z");
        assert_eq!(formatar(&at(123_000_000)), "2026-09-25T12:00:05.123Z");
        assert_eq!(formatar(&at(120_000_000)), "2026-09-25T12:00:05.120Z");
        assert_eq!(formatar(&at(123_456_000)), "2026-09-25T12:00:05.123456Z");
        assert_eq!(formatar(&at(123_456_789)), "2026-09-25T12:00:05.123456789Z");
        assert_eq!(formatar(&at(1)), "2026-09-25T12:00:05.000000001Z");
    }
}
