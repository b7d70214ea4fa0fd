//! Passwords masked in text that is shown or logged: `giro config` prints every URL through
//! [`mask_password`], and so does every log line that names a URL (the relay's peer, a failed
//! HTTP request's description), so a password in a database or peer URL never reaches a log.

/// `text` with every password it carries replaced by `***`: the userinfo of a URL
/// (`scheme://user:pw@host`), a `password=` query parameter, a `password=` pair of a key=value
/// connection string (quoted or not). Anything else is kept as it is.
pub fn mask_password(text: &str) -> String {
    let mut s = text.to_string();
    if let Some(i) = s.find("://") {
        let start = i + 3;
        if let Some(at) = fim_da_identificacao(&s[start..]) {
            let at = start + at;
            if let Some(colon) = s[start..at].find(':') {
                s.replace_range(start + colon + 1..at, "***");
            }
        }
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(i) = find_password_key(rest) {
        let value_start = i + "password=".len();
        out.push_str(&rest[..value_start]);
        let value = &rest[value_start..];
        let len = if let Some(quoted) = value.strip_prefix('\'') {
            quoted.find('\'').map_or(value.len(), |j| j + 2)
        } else {
            value.find(|c: char| c == '&' || c == '#' || c.is_whitespace()).unwrap_or(value.len())
        };
        out.push_str("***");
        rest = &value[len..];
    }
    out.push_str(rest);
    out
}

/// The `@` that ends a URL's userinfo in `autoridade` (what follows `://`): the last `@` followed
/// by a host (up to the next `/`, `?`, `#` or the end). Not the first `/` before it: a password
/// the driver accepts may hold an unencoded `/`, `#`, `?` or `@` (base64 passwords hold `/`), and
/// cutting there would print it. When in doubt more is masked, never less.
fn fim_da_identificacao(autoridade: &str) -> Option<usize> {
    // An empty host is one: `postgres://u:pw@/db?host=/run/postgresql` (a Unix socket).
    let host = |h: &str| h.chars().all(|c| c.is_ascii_alphanumeric() || ".-_:,[]%".contains(c));
    let fim = |at: usize| {
        let resto = &autoridade[at + 1..];
        at + 1 + resto.find(['/', '?', '#', ' ', ')', '"', '\'']).unwrap_or(resto.len())
    };
    let mut arrobas = autoridade.rmatch_indices('@').map(|(at, _)| at);
    // No `@` followed by a plain host (a host name outside ASCII, say): the last `@` anyway.
    arrobas.clone().find(|&at| host(&autoridade[at + 1..fim(at)])).or_else(|| arrobas.next())
}

/// Where `password=` starts as a parameter name (at the start, or after `?`, `&` or a space).
fn find_password_key(s: &str) -> Option<usize> {
    let lower = s.to_ascii_lowercase();
    let mut from = 0;
    while let Some(j) = lower[from..].find("password=") {
        let i = from + j;
        if i == 0 || matches!(lower.as_bytes()[i - 1], b'?' | b'&' | b' ' | b'\t') {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::mask_password;

    #[test]
    fn the_password_of_a_url_or_connection_string_is_masked_and_the_rest_kept() {
        for (given, shown) in [
            (
                "postgres://mercado:s3cr3t@127.0.0.1:15432/mercado",
                "postgres://mercado:***@127.0.0.1:15432/mercado",
            ),
            ("postgres://mercado@db/mercado", "postgres://mercado@db/mercado"),
            ("postgres://u:p%40ss@db/x?sslmode=disable", "postgres://u:***@db/x?sslmode=disable"),
            (
                "jdbc:postgresql://db:5432/vitrine?user=app&password=s3cr3t&ssl=true",
                "jdbc:postgresql://db:5432/vitrine?user=app&password=***&ssl=true",
            ),
            ("host=db user=app password=s3cr3t dbname=x", "host=db user=app password=*** dbname=x"),
            ("host=db password='a b c' dbname=x", "host=db password=*** dbname=x"),
            ("http://localhost:18081", "http://localhost:18081"),
            ("http://user:pw@peer:18081/eventos", "http://user:***@peer:18081/eventos"),
            ("nopassword=1", "nopassword=1"),
            // Unencoded `/`, `#`, `?`, `@` in the password (issue 37 §3): masked whole.
            ("postgres://app:ab/c+d=@db:5432/mercado", "postgres://app:***@db:5432/mercado"),
            ("postgres://app:a#b/c@db/x", "postgres://app:***@db/x"),
            ("postgres://app:p@ss?w@db/x?sslmode=disable", "postgres://app:***@db/x?sslmode=disable"),
            ("http://u:s/e#c@peer:18081/eventos", "http://u:***@peer:18081/eventos"),
            (
                "postgresql://app:s3cr3t@/mercado?host=/run/postgresql",
                "postgresql://app:***@/mercado?host=/run/postgresql",
            ),
            ("postgres://app:s3/cr3t@bänco.local/x", "postgres://app:***@bänco.local/x"),
            ("falhou (postgres://app:s3/cr3t@db) ao conectar", "falhou (postgres://app:***@db) ao conectar"),
            (
                "postgres://app:s3cr3t@h1:5432,h2:5432/db?target_session_attrs=read-write",
                "postgres://app:***@h1:5432,h2:5432/db?target_session_attrs=read-write",
            ),
            (
                "jdbc:postgresql://h1:5432,h2:5432/db?targetServerType=primary&password=s3cr3t",
                "jdbc:postgresql://h1:5432,h2:5432/db?targetServerType=primary&password=***",
            ),
            ("host=h1,h2 port=5432,5433 password=s3cr3t", "host=h1,h2 port=5432,5433 password=***"),
        ] {
            assert_eq!(mask_password(given), shown, "{given}");
        }
    }
}
