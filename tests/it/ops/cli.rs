//! `giro --help` and each subcommand's `--help` describe the roles and flags.

use std::collections::BTreeMap;

use crate::support::process::command;

fn help(args: &[&str]) -> String {
    let out = command(args, &BTreeMap::new()).output().unwrap();
    assert!(out.status.success(), "{args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn help_describes_every_role_and_flag() {
    let top = help(&["--help"]);
    for word in [
        "migrate",
        "mercado",
        "estoque",
        "publisher",
        "--config",
        "--log-format",
        "outbox",
        "dev",
        "audit",
        "bench",
        "config",
    ] {
        assert!(top.contains(word), "giro --help lacks {word}:\n{top}");
    }
    let migrate = help(&["migrate", "--help"]);
    assert!(
        migrate.contains("--db")
            && migrate.contains("mercado")
            && migrate.contains("estoque")
            && migrate.contains("all"),
        "{migrate}"
    );
    for role in ["mercado", "estoque"] {
        let serve = help(&[role, "serve", "--help"]);
        assert!(serve.contains("--porta") && serve.contains("--sem-publicador"), "{serve}");
    }
    let outbox = help(&["outbox", "--help"]);
    for word in ["status", "list", "retry", "discard"] {
        assert!(outbox.contains(word), "{outbox}");
    }
    let bench = help(&["bench", "--help"]);
    assert!(bench.contains("relay") && bench.contains("checkout"), "{bench}");
    let publisher = help(&["publisher", "--help"]);
    assert!(publisher.contains("--db") && publisher.contains("--lote"), "{publisher}");
}

#[test]
fn a_usage_error_exits_2() {
    let out = command(&["migrate", "--db", "nenhum"], &BTreeMap::new()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A database that cannot be reached is named once — which service's, where, as which role, and
/// the variable that says so — with the cause, and never the password.
#[test]
fn a_database_that_is_down_is_named_once_with_its_variable_and_host() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("postgres://mercado:segredo-do-banco@127.0.0.1:{port}/mercado");
    let env: BTreeMap<&str, String> = [("MERCADO_DB_URL", url.clone()), ("ESTOQUE_DB_URL", url)].into();
    for args in [&["migrate", "--db", "mercado"][..], &["audit"][..]] {
        let out = command(args, &env).output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?} says it once:\n{stderr}");
        let want = format!("cannot connect to the mercado database mercado on 127.0.0.1:{port} as role mercado (MERCADO_DB_URL): ");
        assert!(lines[0].contains(&want), "{args:?}:\n{stderr}");
        assert!(lines[0].contains("refused"), "{args:?} gives the cause:\n{stderr}");
        assert!(
            !stderr.contains("segredo-do-banco") && !stderr.contains("error connecting to server"),
            "{stderr}"
        );
    }
}
