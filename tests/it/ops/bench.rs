//! A short smoke run of each `giro bench`: it works and writes its JSON. No timing is asserted.

use std::collections::BTreeMap;

use crate::support::db::admin_url;
use crate::support::process::command;

fn bench(args: &[&str]) -> serde_json::Value {
    let env: BTreeMap<&str, String> = [("GIRO_BENCH_PG_URL", admin_url())].into_iter().collect();
    let out = command(args, &env).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn giro_bench_relay_runs_and_reports_json() {
    let r = bench(&[
        "bench",
        "relay",
        "--eventos",
        "200",
        "--publicadores",
        "1",
        "--transportes",
        "lote,single",
        "--lote",
        "50",
        "--taxa",
        "50",
        "--segundos",
        "1",
    ]);
    assert_eq!(r["relay"].as_array().unwrap().len(), 2);
    assert!(r["relay"][0]["eventosPorSegundo"].as_f64().unwrap() > 0.0);
    assert_eq!(r["latencia"]["eventos"], 50);
    assert!(r["notify"]["comNotifyCommitsPorSegundo"].as_f64().unwrap() > 0.0);
    assert!(r["limiteBanco"]["eventosPorSegundo"].as_f64().unwrap() > 0.0, "{:#}", r["limiteBanco"]);
}

#[test]
fn giro_bench_relay_backlog_reports_live_latency_and_drain_rate_before_and_after() {
    let r = bench(&["bench", "relay", "--backlog", "500", "--live-rate", "20"]);
    for modo in ["antes", "depois"] {
        let b = &r["backlog"][modo];
        assert_eq!(b["eventos"], 500, "{r:#}");
        assert!(b["eventosPorSegundo"].as_f64().unwrap() > 0.0, "{r:#}");
        assert!(b["vivos"]["eventos"].as_u64().unwrap() >= 1, "live events written and delivered: {r:#}");
        assert!(b["vivos"]["p99Ms"].as_f64().is_some(), "{r:#}");
    }
    assert!(r["horizonte"].is_null(), "only the case asked for runs");
}

#[test]
fn giro_bench_relay_hold_horizon_reports_each_phase_before_and_after() {
    let r = bench(&["bench", "relay", "--hold-horizon", "2s", "--seconds", "1", "--writers", "1"]);
    for modo in ["antes", "depois"] {
        let h = &r["horizonte"][modo];
        for fase in ["base", "segurando"] {
            assert!(h[fase]["latencia"]["eventos"].as_u64().unwrap() > 0, "{fase}: {r:#}");
            assert!(h[fase]["eventosPorSegundo"].as_f64().unwrap() > 0.0, "{fase}: {r:#}");
        }
        assert!(!h["fatias"].as_array().unwrap().is_empty(), "{r:#}");
        assert!(h["tuplasMortas"].as_i64().is_some() && h["razaoP99"].as_f64().is_some(), "{r:#}");
    }
}

#[test]
fn giro_bench_checkout_runs_and_reports_json() {
    let r = bench(&["bench", "checkout", "--clientes", "2", "--segundos", "1"]);
    assert!(r["checkout"]["pedidos"].as_u64().unwrap() > 0);
    assert_eq!(r["checkout"]["falhas"], 0);
    // The same load with an Idempotency-Key per order, in the same report.
    assert!(r["checkout"]["comChave"]["pedidos"].as_u64().unwrap() > 0);
    assert_eq!(r["checkout"]["comChave"]["falhas"], 0);
    assert!(r["servicos"]["mercado"]["rssOciosoKb"].as_u64().unwrap() > 0);
    assert!(r["servicos"]["estoque"]["prontoMs"].as_f64().is_some());
    // Where pgbench is installed (CI's PostgreSQL), the reference runs: a checkout statement that
    // changed shape must change the reference's script with it, not silently drop the ratio.
    let pgbench = std::fs::read_dir("/usr/lib/postgresql")
        .map(|d| d.flatten().any(|v| v.path().join("bin/pgbench").is_file()))
        .unwrap_or(false);
    if pgbench {
        let referencia = &r["checkout"]["referencia"];
        assert!(referencia["erro"].is_null(), "pgbench reference failed: {referencia}");
        assert!(referencia["pgbenchTps"].as_f64().is_some_and(|t| t > 0.0), "{referencia}");
    }
}

#[test]
fn giro_bench_restock_runs_the_round_trip_and_reports_json() {
    let r = bench(&["bench", "restock", "--rate", "20", "--seconds", "1"]);
    let x = &r["reposicao"];
    assert_eq!(x["pedidos"], 20, "{x}");
    assert_eq!(x["falhas"], 0, "{x}");
    // Every order asked for one restock, and every request's round trip was read back.
    assert_eq!(x["solicitacoes"], 20, "{x}");
    assert!(x["p99Ms"].as_f64().is_some_and(|p| p > 0.0), "{x}");
    assert!(x["partes"]["pedidoAteEstoque"]["p50Ms"].as_f64().is_some(), "{x}");
}

#[test]
fn giro_bench_audit_times_an_agreeing_audit_of_a_generated_shop() {
    // The bench itself fails unless the real `giro audit` agrees (exit 0) on what it generated.
    let r = bench(&["bench", "audit", "--events", "500", "--products", "50"]);
    assert_eq!(r["auditoria"]["eventosPorLado"], 500, "{r}");
    assert!(r["auditoria"]["segundos"].as_f64().is_some(), "{r}");
}

#[test]
fn giro_bench_soak_samples_the_memory_of_mercado_and_a_separate_publisher() {
    // Minute 0 only: the run starts everything, loads and samples; the minutes are the bench's.
    let r = bench(&["bench", "soak", "--rate", "20", "--minutes", "0"]);
    let amostra = &r["soak"]["amostras"][0];
    assert!(amostra["mercadoKb"].as_u64().is_some_and(|k| k > 0), "{r}");
    assert!(amostra["publisherKb"].as_u64().is_some_and(|k| k > 0), "{r}");
}

#[test]
fn giro_bench_expiry_reports_how_late_abandoned_orders_are_expired() {
    let r = bench(&["bench", "expiry", "--orders", "40", "--ttl", "1s"]);
    let x = &r["expiracao"];
    // A loaded test machine may refuse a checkout (503, the pool's wait); the rest is the point.
    assert_eq!(x["pedidos"].as_u64().unwrap() + x["recusados"].as_u64().unwrap(), 40, "{x}");
    assert!(x["pedidos"].as_u64().unwrap() > 0, "{x}");
    assert_eq!(x["naoExpirados"], 0, "every order expired: {x}");
    assert!(x["atrasoMaxS"].as_f64().is_some(), "{x}");
}

#[test]
fn giro_bench_busca_generates_the_catalogue_and_reports_each_query() {
    let r = bench(&["bench", "busca", "--products", "2000", "--times", "2"]);
    let x = &r["busca"];
    assert_eq!(x["produtos"], 2000, "{x}");
    let consultas = x["consultas"].as_array().unwrap();
    assert_eq!(consultas.len(), 11, "{x}");
    let achados = |q: &str| consultas.iter().find(|c| c["busca"] == q).unwrap()["achados"].as_u64().unwrap();
    // The generator's words are found as a shopper types them; nothing has "xyzzy".
    assert!(achados("cafe") > 0 && achados("CAFÉ moído") > 0, "{x}");
    assert_eq!(achados("xyzzy"), 0, "{x}");
    // A category's word finds its products (a tenth are drinks); no product is a pet's.
    assert_eq!((achados("bebida"), achados("racao")), (100, 0), "{x}");
    // Words shorter than a trigram: one letter most names hold, two letters none does.
    assert_eq!((achados("a"), achados("zq")), (100, 0), "{x}");
    assert!(consultas.iter().all(|c| c["p99Ms"].as_f64().is_some()), "{x}");
}

#[test]
fn giro_bench_checkout_puts_haproxy_in_front_of_several_replicas() {
    crate::support::lb::haproxy_bin();
    let r = bench(&["bench", "checkout", "--clientes", "2", "--segundos", "1", "--replicas", "2"]);
    assert_eq!(r["checkout"]["replicas"], 2);
    assert!(r["checkout"]["pedidos"].as_u64().unwrap() > 0);
    assert_eq!(r["checkout"]["falhas"], 0);
}

#[test]
fn giro_bench_checkout_measures_through_pgbouncer_beside_direct() {
    if !["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].iter().any(|p| std::path::Path::new(p).exists()) {
        eprintln!("SKIPPED: pgbouncer is not installed (scripts/pg-ha setup installs it)");
        return;
    }
    let r = bench(&["bench", "checkout", "--clientes", "2", "--segundos", "1", "--pgbouncer"]);
    let p = &r["checkout"]["pgbouncer"];
    assert!(p["pedidos"].as_u64().unwrap() > 0, "{p:#}");
    assert_eq!(p["falhas"], 0, "{p:#}");
}

#[test]
fn giro_bench_relay_processos_runs_and_reports_json() {
    let r = bench(&[
        "bench",
        "relay",
        "--processos",
        "--eventos",
        "300",
        "--publicadores",
        "1",
        "--transportes",
        "lote",
        "--taxa",
        "20",
        "--segundos",
        "1",
    ]);
    let p = &r["processos"];
    let run = &p["relay"][0];
    assert!(run["eventosPorSegundo"].as_f64().unwrap() > 0.0, "{p:#}");
    // The shipped default (config/giro.toml's outbox.lote), not a bench override.
    let toml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/config/giro.toml")).unwrap();
    let outbox = toml.split("[outbox]").nth(1).unwrap();
    let lote: u64 = outbox
        .lines()
        .find_map(|l| l.strip_prefix("lote = "))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap();
    assert_eq!(run["lote"], lote, "{run:#}");
    assert!(run["perfil"]["claims"].as_i64().is_some(), "{run:#}");
    assert_eq!(p["latencia"]["eventos"], 20);
    assert!(p["latencia"]["p50Ms"].as_f64().is_some());
    assert!(
        p["limiteBancoNoLote"]["eventosPorSegundo"].as_f64().unwrap() > 0.0,
        "{:#}",
        p["limiteBancoNoLote"]
    );
    // Issue 40's floor: the receiver's statements, one transaction per event, and Girô's ratio to it.
    let piso = &r["limiteBanco"]["umaTransacaoPorEventoEventosPorSegundo"];
    assert!(piso.as_f64().unwrap() > 0.0, "{:#}", r["limiteBanco"]);
    assert!(p["razaoPorEvento"].as_f64().unwrap() > 0.0, "{p:#}");
}

/// The peers need node and npm (CI has both; `bench/peers/setup.sh` installs the pinned packages).
#[test]
fn giro_bench_peers_runs_and_reports_json() {
    let node = std::process::Command::new("node").arg("--version").output();
    if !matches!(&node, Ok(o) if o.status.success()) {
        eprintln!("SKIPPED giro_bench_peers_runs_and_reports_json: node is not on PATH (the peers need node ≥ 20 and npm)");
        return;
    }
    let r = bench(&["bench", "peers", "--eventos", "300", "--publicadores", "1", "--jobs", "50"]);
    assert!(r["processos"]["relay"][0]["eventosPorSegundo"].as_f64().unwrap() > 0.0, "{r:#}");
    for k in ["graphileWorker", "pgBoss"] {
        assert!(r["pares"][k]["jobsPorSegundo"].as_f64().unwrap() > 0.0, "{:#}", r["pares"]);
        assert!(r["pares"][k]["razaoGiro"].as_f64().is_some(), "{:#}", r["pares"]);
    }
}
