//! Money as exact decimals (`rust_decimal` ↔ `NUMERIC`), never floating point: 3 × 2.79 is 8.37.
//!
//! On the wire a price is a JSON **number** written exactly as the decimal (`8.99`, `31.75`; the
//! database's scale of 2 is kept, as the original's BigDecimal did: `7.90`). serde_json without
//! `arbitrary_precision` would round-trip through `f64`, so prices are read from the number's
//! text ([`ler_preco`]) and written as raw JSON ([`numero`]).

use rust_decimal::Decimal;
use serde::Serializer;
use serde_json::value::RawValue;

/// `serialize_with` for a decimal: the JSON number with exactly its digits.
pub fn numero<S: Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    let raw = RawValue::from_string(d.to_string()).map_err(serde::ser::Error::custom)?;
    serde::Serialize::serialize(&raw, s)
}

giro_infra::nomes! {
    /// Why a `preco` is refused; the text follows the original's Bean Validation messages.
    pub enum PrecoInvalido {
        NaoNumerico = "deve ser um número",
        ForaDoLimite = "valor numérico fora do limite (<8 dígitos>.<2 dígitos> esperado)",
        NaoPositivo = "deve ser maior que 0.00",
    }
}

/// Parses `preco` from the JSON text of the value (a number, or a string holding one, which the
/// original's Jackson also accepted), exactly, and checks `@Digits(integer=8, fraction=2)` and
/// `> 0.00`. Trailing zeros do not count as fraction digits (`8.990` is `8.99`), as Hibernate's
/// validator strips them.
pub fn ler_preco(raw: &RawValue) -> Result<Decimal, PrecoInvalido> {
    let text = raw.get().trim();
    let text = match serde_json::from_str::<String>(text) {
        Ok(s) => s.trim().to_string(),
        Err(_) => text.to_string(),
    };
    if !numero_json(&text) {
        return Err(PrecoInvalido::NaoNumerico);
    }
    let valor = if text.contains(['e', 'E']) {
        Decimal::from_scientific(&text)
    } else {
        Decimal::from_str_exact(&text)
    };
    // A number too long for a 96-bit mantissa is certainly beyond 8 integer digits or 2 decimals.
    let valor = valor.map_err(|_| PrecoInvalido::ForaDoLimite)?.normalize();
    let digitos = valor.mantissa().unsigned_abs().to_string().len() as i64;
    let escala = i64::from(valor.scale());
    let inteiros = if valor.is_zero() { 0 } else { digitos - escala };
    if inteiros > 8 || escala > 2 {
        return Err(PrecoInvalido::ForaDoLimite);
    }
    if valor <= Decimal::ZERO {
        return Err(PrecoInvalido::NaoPositivo);
    }
    // Stored as NUMERIC(10,2): keep two places, as the column will.
    let mut valor = valor;
    valor.rescale(2);
    Ok(valor)
}

/// The JSON number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` (leading zeros and a
/// leading `+` tolerated, as in a string Jackson would coerce).
fn numero_json(s: &str) -> bool {
    let digitos = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let s = s.strip_prefix(['-', '+']).unwrap_or(s);
    let (mantissa, expoente) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (inteira, fracao) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    digitos(inteira)
        && fracao.is_none_or(digitos)
        && expoente.is_none_or(|e| digitos(e.strip_prefix(['-', '+']).unwrap_or(e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::str::FromStr;

    fn preco(json: &str) -> Result<String, PrecoInvalido> {
        let raw = RawValue::from_string(json.to_string()).map_err(|_| PrecoInvalido::NaoNumerico)?;
        ler_preco(&raw).map(|d| d.to_string())
    }

    #[test]
    fn prices_are_read_exactly_from_the_number_text() {
        assert_eq!(preco("8.99"), Ok("8.99".into()));
        assert_eq!(preco("2.79"), Ok("2.79".into()));
        assert_eq!(preco("7.9"), Ok("7.90".into()));
        assert_eq!(preco("8.990"), Ok("8.99".into()));
        assert_eq!(preco("15"), Ok("15.00".into()));
        assert_eq!(preco("99999999.99"), Ok("99999999.99".into()));
        assert_eq!(preco("1e2"), Ok("100.00".into()));
        assert_eq!(preco("\"4.59\""), Ok("4.59".into()));
        assert_eq!(preco("0.01"), Ok("0.01".into()));
    }

    #[test]
    fn digits_and_sign_follow_the_validation_rules() {
        assert_eq!(preco("8.999"), Err(PrecoInvalido::ForaDoLimite));
        assert_eq!(preco("100000000"), Err(PrecoInvalido::ForaDoLimite));
        assert_eq!(preco("123456789012345678901234567890.5"), Err(PrecoInvalido::ForaDoLimite));
        assert_eq!(preco("0"), Err(PrecoInvalido::NaoPositivo));
        assert_eq!(preco("0.00"), Err(PrecoInvalido::NaoPositivo));
        assert_eq!(preco("-1.50"), Err(PrecoInvalido::NaoPositivo));
        assert_eq!(preco("true"), Err(PrecoInvalido::NaoNumerico));
        assert_eq!(preco("\"abc\""), Err(PrecoInvalido::NaoNumerico));
        assert_eq!(preco("[1]"), Err(PrecoInvalido::NaoNumerico));
        // Extremes are refused, never a panic.
        assert_eq!(preco("1e999999"), Err(PrecoInvalido::ForaDoLimite));
        assert!(preco("1e-999999").is_err());
        assert!(preco("0.0000000000000000000000000000001").is_err());
        assert_eq!(preco("-0"), Err(PrecoInvalido::NaoPositivo));
        assert_eq!(preco("1E+2"), Ok("100.00".into()));
        for ruim in ["\"1-2\"", "\"1.\"", "\".5\"", "\"1e\"", "\"--1\"", "\"\"", "null"] {
            assert_eq!(preco(ruim), Err(PrecoInvalido::NaoNumerico), "{ruim}");
        }
    }

    #[test]
    fn totals_are_exact_and_serialise_as_json_numbers() {
        let p = |s: &str| Decimal::from_str(s).unwrap_or_default();
        let total = p("2.79") * Decimal::from(3) + p("0.10") * Decimal::from(1);
        #[derive(serde::Serialize)]
        struct T {
            #[serde(serialize_with = "numero")]
            total: Decimal,
        }
        assert_eq!(serde_json::to_string(&T { total }).unwrap_or_default(), r#"{"total":8.47}"#);
        assert_eq!(p("2.79") * Decimal::from(3), p("8.37"));
    }
}
