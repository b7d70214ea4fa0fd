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
fn giro_bench_checkout_runs_and_reports_json() {
    let r = bench(&["bench", "checkout", "--clientes", "2", "--segundos", "1"]);
    assert!(r["checkout"]["pedidos"].as_u64().unwrap() > 0);
    assert_eq!(r["checkout"]["falhas"], 0);
    assert!(r["servicos"]["mercado"]["rssOciosoKb"].as_u64().unwrap() > 0);
    assert!(r["servicos"]["estoque"]["prontoMs"].as_f64().is_some());
}

#[test]
fn giro_bench_checkout_puts_haproxy_in_front_of_several_replicas() {
    crate::support::lb::haproxy_bin();
    let r = bench(&["bench", "checkout", "--clientes", "2", "--segundos", "1", "--replicas", "2"]);
    assert_eq!(r["checkout"]["replicas"], 2);
    assert!(r["checkout"]["pedidos"].as_u64().unwrap() > 0);
    assert_eq!(r["checkout"]["falhas"], 0);
}
