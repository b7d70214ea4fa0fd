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
        assert!(serve.contains("--port") && serve.contains("--no-publisher"), "{serve}");
        // The names used before the flag rule are accepted, not advertised.
        assert!(!serve.contains("--porta") && !serve.contains("--sem-publicador"), "{serve}");
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

/// One rule for flag names (src/cli.rs): the ecosystem's generic words, the spec's domain words,
/// and every name used before it still parsed, as a hidden alias.
#[test]
fn old_flag_names_still_parse_beside_the_new_ones() {
    use clap::Parser;
    use giro::cli::{Cli, Command, ServeCommand};
    for (velho, novo) in [
        (
            &["giro", "mercado", "serve", "--porta", "9000", "--sem-publicador"][..],
            &["giro", "mercado", "serve", "--port", "9000", "--no-publisher"][..],
        ),
        (
            &["giro", "migrate", "--db", "all", "--esperar", "5m"],
            &["giro", "migrate", "--db", "all", "--wait", "5m"],
        ),
        (
            &["giro", "bench", "--saida", "x.json", "checkout", "--clientes", "2", "--segundos", "1"],
            &["giro", "bench", "--output", "x.json", "checkout", "--clients", "2", "--seconds", "1"],
        ),
        (
            &[
                "giro",
                "bench",
                "relay",
                "--publicadores",
                "1",
                "--transportes",
                "lote",
                "--taxa",
                "10",
                "--linhas-antigas",
                "5",
                "--processos",
                "--lote-processos",
                "3",
                "--pares",
                "7",
            ],
            &[
                "giro",
                "bench",
                "relay",
                "--publishers",
                "1",
                "--transports",
                "lote",
                "--rate",
                "10",
                "--old-rows",
                "5",
                "--processes",
                "--processes-lote",
                "3",
                "--peers",
                "7",
            ],
        ),
    ] {
        let a = Cli::try_parse_from(velho).unwrap_or_else(|e| panic!("{velho:?}: {e}"));
        let b = Cli::try_parse_from(novo).unwrap_or_else(|e| panic!("{novo:?}: {e}"));
        assert_eq!(format!("{:?}", a.command), format!("{:?}", b.command), "{velho:?} and {novo:?}");
        assert_eq!(a.flags(), b.flags());
    }
    // The spec's own example, exactly.
    let c = Cli::try_parse_from(["giro", "publisher", "--lote", "100"]).unwrap();
    assert!(matches!(c.command, Command::Publisher(_)));
    assert_eq!(c.flags(), vec![("outbox.lote", "100".to_string(), "--lote")]);
    let c = Cli::try_parse_from(["giro", "estoque", "serve", "--porta", "9000"]).unwrap();
    assert!(matches!(c.command, Command::Estoque { command: ServeCommand::Serve(_) }));
    assert_eq!(c.flags(), vec![("estoque.porta", "9000".to_string(), "--port")]);
}

/// The commands docs/ and README.md give a person to paste (issue 37 §3: runbooks.md's
/// `giro outbox show ID` failed without `--db`). Every `giro …` in a code span or at the start of
/// a code block's line that has a flag or a placeholder is parsed as the executable parses it,
/// placeholders filled in (`ID` a UUID, `PEER` and `%i` a service, `…` a value) and optional
/// `[…]` parts taken. A bare name (`giro outbox retry` in a sentence) is a name, not a command;
/// the spec's grammar is not a command either.
#[test]
fn every_command_the_docs_give_to_paste_parses() {
    use clap::Parser;
    let raiz = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut arquivos = vec![raiz.join("README.md")];
    for dir in ["docs", "docs/operations"] {
        for e in std::fs::read_dir(raiz.join(dir)).unwrap() {
            let p = e.unwrap().path();
            // The spec describes the original's grammar (`discard ID`, "each with `--db`").
            if p.extension().is_some_and(|x| x == "md") && !p.ends_with("spec.md") {
                arquivos.push(p);
            }
        }
    }
    let mut vistos = 0;
    for arquivo in arquivos {
        let texto = std::fs::read_to_string(&arquivo).unwrap();
        let mut comandos: Vec<String> = texto
            .split('`')
            .skip(1)
            .step_by(2)
            .filter(|s| s.starts_with("giro "))
            .map(str::to_string)
            .collect();
        let mut bloco = false;
        for linha in texto.lines() {
            if linha.trim_start().starts_with("```") {
                bloco = !bloco;
            } else if bloco && linha.trim_start().starts_with("giro ") {
                comandos.push(linha.trim().split(" #").next().unwrap().trim().to_string());
            }
        }
        for c in comandos {
            let tem_marcador = c.split_whitespace().any(|w| {
                w.starts_with("--") || ["ID", "PEER", "%i", "T", "N"].contains(&w.trim_matches(['[', ']']))
            });
            // The spec's grammar (`retry ID|--failed`) and the names of a role or a family.
            if !tem_marcador || c.contains('|') || c.contains("giro outbox …") || c.contains("giro replicas")
            {
                continue;
            }
            let mut preenchido = c
                .replace(['[', ']'], "")
                .replace("\"…\"", "motivo")
                .replace("%i", "mercado")
                .replace("PEER", "estoque");
            // `<the private cluster>`: a value described in words.
            while let (Some(i), Some(j)) = (preenchido.find('<'), preenchido.find('>')) {
                if j < i {
                    break;
                }
                preenchido.replace_range(i..=j, "valor");
            }
            let mut args: Vec<String> = vec!["giro".to_string()];
            for w in preenchido.split_whitespace().skip(1) {
                match w {
                    "ID" => args.push("0b8a36a2-47d4-4a8b-9a3e-0d7f7f5e2a11".to_string()),
                    "T" => args.push("ReposicaoSolicitada".to_string()),
                    "N" => args.push("1000".to_string()),
                    // A flag's value left to the reader, or "and other flags".
                    "…" if args.last().is_some_and(|a| a.starts_with("--")) => args.push("1h".to_string()),
                    "…" => {}
                    w => args.push(w.to_string()),
                }
            }
            if let Err(e) = giro::cli::Cli::try_parse_from(&args) {
                panic!("{}: `{c}` does not parse:\n{e}", arquivo.display());
            }
            vistos += 1;
        }
    }
    assert!(vistos >= 10, "only {vistos} commands found: is the extraction still right?");
}
