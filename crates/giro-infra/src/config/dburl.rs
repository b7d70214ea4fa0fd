//! Database URLs: the libpq form (`postgres://…`, `postgresql://…`) is handed to tokio-postgres as it
//! is, one host or several (`postgres://h1:5432,h2:5432/db?target_session_attrs=read-write`: the
//! hosts are tried in order and, with `read-write`, a standby is skipped, so after a failover new
//! connections reach whichever host is primary now). The original's JDBC form
//! (`jdbc:postgresql://h1:5432,h2:5432/db?targetServerType=primary`) has the same host list; its
//! pgjdbc parameters are translated to their libpq names, since tokio-postgres knows only those:
//!
//! | pgjdbc | libpq / tokio-postgres |
//! |---|---|
//! | `targetServerType=primary` (or `master`) | `target_session_attrs=read-write` |
//! | `targetServerType=secondary` (or `standby`) | `target_session_attrs=read-only` |
//! | `targetServerType=any` | `target_session_attrs=any` |
//! | `loadBalanceHosts=true` / `false` | `load_balance_hosts=random` / `disable` |
//! | `connectTimeout=N` (seconds) | `connect_timeout=N` |
//! | `ApplicationName=X` | `application_name=X` |
//! | `user`, `password`, `sslmode`, `options` | the same |
//!
//! Any other parameter (`preferPrimary`, …) is refused with its name, rather than silently
//! connecting somewhere else than the URL asks.

/// The libpq URL to give tokio-postgres for `url` (`postgres://` kept as it is, `jdbc:` translated).
pub fn to_libpq(url: &str) -> Result<String, String> {
    let url = url.trim();
    let Some(rest) = url.strip_prefix("jdbc:") else { return Ok(url.to_string()) };
    let (base, query) = match rest.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (rest, None),
    };
    let Some(query) = query else { return Ok(base.to_string()) };
    let mut params = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        let translated = match k {
            "targetServerType" => {
                let attrs = match v {
                    "primary" | "master" => "read-write",
                    "secondary" | "standby" | "slave" => "read-only",
                    "any" => "any",
                    other => {
                        return Err(format!(
                            "targetServerType={other} is not supported (use primary, secondary or any)"
                        ))
                    }
                };
                format!("target_session_attrs={attrs}")
            }
            "loadBalanceHosts" => match v {
                "true" => "load_balance_hosts=random".to_string(),
                "false" => "load_balance_hosts=disable".to_string(),
                other => return Err(format!("loadBalanceHosts={other}: expected true or false")),
            },
            "connectTimeout" => format!("connect_timeout={v}"),
            "ApplicationName" | "applicationName" => format!("application_name={v}"),
            "user"
            | "password"
            | "sslmode"
            | "options"
            | "application_name"
            | "target_session_attrs"
            | "connect_timeout"
            | "load_balance_hosts" => pair.to_string(),
            other => return Err(format!("the JDBC parameter `{other}` is not supported")),
        };
        params.push(translated);
    }
    if params.is_empty() {
        return Ok(base.to_string());
    }
    Ok(format!("{base}?{}", params.join("&")))
}

#[cfg(test)]
mod tests {
    use super::to_libpq;
    use tokio_postgres::config::{Host, TargetSessionAttrs};

    fn parse(url: &str) -> tokio_postgres::Config {
        to_libpq(url).unwrap().parse().unwrap()
    }

    fn hosts(c: &tokio_postgres::Config) -> Vec<String> {
        c.get_hosts()
            .iter()
            .map(|h| match h {
                Host::Tcp(s) => s.clone(),
                Host::Unix(p) => p.display().to_string(),
            })
            .collect()
    }

    #[test]
    fn a_libpq_url_with_several_hosts_is_taken_as_it_is() {
        let url = "postgres://app:pw@h1:5432,h2:5433/loja?target_session_attrs=read-write";
        assert_eq!(to_libpq(url).unwrap(), url);
        let c = parse(url);
        assert_eq!(hosts(&c), ["h1", "h2"]);
        assert_eq!(c.get_ports(), &[5432, 5433]);
        assert_eq!(c.get_dbname(), Some("loja"));
        assert_eq!(c.get_target_session_attrs(), TargetSessionAttrs::ReadWrite);
    }

    #[test]
    fn the_jdbc_form_with_several_hosts_becomes_the_libpq_one() {
        let c = parse("jdbc:postgresql://h1:5432,h2:5433/loja?targetServerType=primary&user=app&password=pw");
        assert_eq!(hosts(&c), ["h1", "h2"]);
        assert_eq!(c.get_ports(), &[5432, 5433]);
        assert_eq!(c.get_target_session_attrs(), TargetSessionAttrs::ReadWrite);
        assert_eq!(c.get_user(), Some("app"));
        assert_eq!(c.get_password(), Some(&b"pw"[..]));
        for (given, want) in [
            ("master", TargetSessionAttrs::ReadWrite),
            ("secondary", TargetSessionAttrs::ReadOnly),
            ("any", TargetSessionAttrs::Any),
        ] {
            let c = parse(&format!("jdbc:postgresql://a,b/x?targetServerType={given}"));
            assert_eq!(c.get_target_session_attrs(), want, "{given}");
        }
        let c =
            parse("jdbc:postgresql://a:1,b:2/x?connectTimeout=3&ApplicationName=loja&loadBalanceHosts=true");
        assert_eq!(c.get_connect_timeout(), Some(&std::time::Duration::from_secs(3)));
        assert_eq!(c.get_application_name(), Some("loja"));
        assert_eq!(to_libpq("jdbc:postgresql://db:5432/x").unwrap(), "postgresql://db:5432/x");
    }

    #[test]
    fn unknown_or_unsupported_jdbc_parameters_are_refused_by_name() {
        let e = to_libpq("jdbc:postgresql://a,b/x?targetServerType=preferPrimary").unwrap_err();
        assert!(e.contains("preferPrimary"), "{e}");
        let e = to_libpq("jdbc:postgresql://a/x?prepareThreshold=0").unwrap_err();
        assert!(e.contains("prepareThreshold"), "{e}");
    }
}
