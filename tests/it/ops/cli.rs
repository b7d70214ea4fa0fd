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
    for word in ["status", "list", "show", "retry", "discard", "redo"] {
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
