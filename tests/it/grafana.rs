//! The Grafana dashboard (`config/grafana/giro.json`, issue 18) queries only what a running
//! service exposes: every metric name in its expressions, and every label it groups by (except
//! `job`, which Prometheus adds), is on `/metrics` after some traffic.

use std::collections::BTreeSet;
use std::time::Duration;

use giro::config::Servico;
use giro::outbox::relay::Publisher;
use tokio_util::sync::CancellationToken;

use crate::outbox::{solicitada, write};
use crate::support::app::spawn_app;
use crate::support::peer::{FakePeer, Lote};
use crate::support::wait_until;

fn expressions() -> Vec<String> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("config/grafana/giro.json");
    let d: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for p in d["panels"].as_array().unwrap() {
        for t in p["targets"].as_array().into_iter().flatten() {
            out.push(t["expr"].as_str().unwrap().to_string());
        }
    }
    out
}

fn ident(s: &str) -> String {
    s.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
}

/// `giro_*` names in a PromQL expression.
fn names(expr: &str) -> BTreeSet<String> {
    expr.match_indices("giro_").map(|(i, _)| ident(&expr[i..])).collect()
}

/// The labels of every `by (...)` clause.
fn by_labels(expr: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (i, _) in expr.match_indices("by (") {
        let rest = &expr[i + 4..];
        let inner = &rest[..rest.find(')').unwrap()];
        out.extend(inner.split(',').map(|l| l.trim().to_string()).filter(|l| !l.is_empty()));
    }
    out
}

#[test]
fn the_dashboard_parses_and_queries_the_spec_metrics() {
    let exprs = expressions();
    assert!(exprs.len() >= 10, "{exprs:?}");
    let all: BTreeSet<String> = exprs.iter().flat_map(|e| names(e)).collect();
    for base in [
        "giro_outbox_deliveries_total",
        "giro_outbox_oldest_pending_seconds",
        "giro_outbox_events",
        "giro_outbox_delivery_seconds_bucket",
        "giro_http_requests_total",
        "giro_http_request_seconds_bucket",
    ] {
        assert!(all.contains(base), "the dashboard does not query {base}: {all:?}");
    }
}

#[tokio::test]
async fn every_metric_and_label_the_dashboard_queries_is_on_a_running_service() {
    let peer = FakePeer::start(Lote::Supported).await;
    let app = spawn_app(Servico::Mercado, &[("ESTOQUE_EVENTOS_URL", &peer.url())]).await;
    let p = Publisher::for_service(
        &app.config,
        Servico::Mercado,
        app.dbh.pool.clone(),
        app.dbh.signal.clone(),
        false,
    )
    .unwrap();
    let stop = CancellationToken::new();
    tokio::spawn(p.run(stop.clone()));
    // The process-wide recorder is installed by the first scrape; what is recorded before is lost.
    assert_eq!(reqwest::get(app.url("/metrics")).await.unwrap().status(), 200);
    // Traffic: an event delivered, one received, requests answered.
    write(&app.dbh, &[solicitada(2)]).await;
    wait_until(Duration::from_secs(10), "the event delivered", || async {
        (peer.count() == 1).then_some(())
    })
    .await;
    let negada = r#"{"eventId":"4e8d7c6b-5a49-4382-a1b0-c9d8e7f6a5b4","correlationId":"0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a","sku":"7894900011517","motivo":"SEM_SALDO","ocorridoEm":"2026-09-25T12:00:05Z"}"#;
    let res = app
        .as_servico(app.http.post(app.url("/eventos")))
        .header("content-type", "application/json")
        .header("Evento-Tipo", "ReposicaoNegada")
        .body(negada)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    let text = wait_until(Duration::from_secs(10), "the delivery in /metrics", || async {
        let t = reqwest::get(app.url("/metrics")).await.unwrap().text().await.unwrap();
        t.contains("giro_outbox_delivery_seconds_bucket").then_some(t)
    })
    .await;
    stop.cancel();

    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    for expr in expressions() {
        let ns = names(&expr);
        for n in &ns {
            let found = lines.iter().any(|l| l.starts_with(n.as_str()) && ident(l) == *n);
            assert!(found, "{n} (queried by `{expr}`) is not on /metrics:\n{text}");
        }
        for label in by_labels(&expr).into_iter().filter(|l| l != "job") {
            let found = lines.iter().any(|l| ns.contains(&ident(l)) && l.contains(&format!("{label}=\"")));
            assert!(found, "label {label} (grouped by in `{expr}`) is on none of {ns:?}:\n{text}");
        }
    }
}
