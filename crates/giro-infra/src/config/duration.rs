//! Durations as the configuration writes them: `500ms`, `2s`, `5m`, `1h`, `7d`.

use std::time::Duration;

/// Parses `<integer><unit>` with unit `ms`, `s`, `m`, `h` or `d`.
pub fn parse(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let n: u64 =
        digits.parse().map_err(|_| format!("invalid duration {text:?}: expected e.g. 500ms, 2s, 5m, 7d"))?;
    let ms = match unit {
        "ms" => Some(n),
        "s" => n.checked_mul(1_000),
        "m" => n.checked_mul(60_000),
        "h" => n.checked_mul(3_600_000),
        "d" => n.checked_mul(86_400_000),
        _ => return Err(format!("invalid duration {text:?}: unit must be ms, s, m, h or d")),
    }
    .ok_or_else(|| format!("duration {text:?} is too large"))?;
    Ok(Duration::from_millis(ms))
}

/// The shortest exact spelling of a duration in the same syntax (for `giro config`).
pub fn format(d: Duration) -> String {
    let ms = d.as_millis();
    for (unit, size) in [("d", 86_400_000u128), ("h", 3_600_000), ("m", 60_000), ("s", 1_000)] {
        if ms != 0 && ms % size == 0 {
            return format!("{}{unit}", ms / size);
        }
    }
    format!("{ms}ms")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_unit() {
        assert_eq!(parse("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse("5m"), Ok(Duration::from_secs(300)));
        assert_eq!(parse("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse("7d"), Ok(Duration::from_secs(7 * 86_400)));
    }

    #[test]
    fn rejects_what_is_not_a_duration() {
        assert!(parse("2").is_err());
        assert!(parse("s").is_err());
        assert!(parse("1.5s").is_err());
        assert!(parse("3w").is_err());
    }

    #[test]
    fn formats_back_to_the_same_syntax() {
        for t in ["500ms", "2s", "5m", "1h", "7d", "30d", "1500ms"] {
            assert_eq!(format(parse(t).unwrap_or_default()), t);
        }
    }
}
