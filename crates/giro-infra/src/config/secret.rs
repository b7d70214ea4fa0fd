//! A secret value (service token, operator password) that cannot be printed by accident.
//!
//! `Debug` and `Display` show `***`; the value is reached only through [`Secret::expose`], and
//! comparing with something a client sent goes through [`Secret::matches`], in constant time.

use std::fmt;

use subtle::ConstantTimeEq;

#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    /// The raw value, for the few places that must send it (an `Authorization` header).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Length in characters, for validation messages that must not show the value.
    pub fn len(&self) -> usize {
        self.0.chars().count()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Constant-time comparison of the UTF-8 bytes (the length itself is not hidden).
    pub fn matches(&self, candidate: &[u8]) -> bool {
        self.0.as_bytes().ct_eq(candidate).into()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// A fresh random token: 64 hex digits (256 bits, two v4 UUIDs' random bits and version
/// nibbles) — session ids, CSRF tokens, the passwords and tokens `giro dev` generates.
pub fn random_token() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_never_show_the_value() {
        let s = Secret::new("super-secret-token-value");
        assert_eq!(format!("{s:?}"), "Secret(***)");
        assert_eq!(format!("{s}"), "***");
    }

    #[test]
    fn matches_only_the_exact_bytes() {
        let s = Secret::new("abc");
        assert!(s.matches(b"abc"));
        assert!(!s.matches(b"abd"));
        assert!(!s.matches(b"ab"));
        assert!(!s.matches(b"abcd"));
    }
}
