//! The Grafana dashboard (`config/grafana/giro.json`, issue 18) queries only what a running
//! service exposes: every metric name in its expressions, and every label it groups by (except
//! `job`, which Prometheus adds), is on `/metrics` after some traffic.

use std::collections::BTreeSet;

use giro_servicos::config::Servico;

use crate::mercado::fixtures::{comprar_ok, evento, produto, reposicao_enviada, solicitacoes, COCA};
use crate::support::metrics::{mercado_com_trafego, nome_de, Metricas};
use crate::support::real::Real;

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
        // What operations.md tells people to watch (issue 37 §3): pools, loops, clocks, the read
        // copy, re-runs.
        "giro_db_pool_connections",
        "giro_supervisor_loop_up",
        "giro_supervisor_restarts_total",
        "giro_supervisor_round_failures_total",
        "giro_peer_clock_skew_seconds",
        "giro_db_atraso_leitura_segundos",
        "giro_db_leituras_total",
        "giro_http_reexecucoes_total",
    ] {
        assert!(all.contains(base), "the dashboard does not query {base}: {all:?}");
    }
    for processo in ["process_resident_memory_bytes", "process_cpu_seconds_total"] {
        assert!(exprs.iter().any(|e| e.contains(processo)), "the dashboard does not query {processo}");
    }
}

#[tokio::test]
async fn every_metric_and_label_the_dashboard_queries_is_on_a_running_service() {
    let t = mercado_com_trafego().await;
    // The business row: a sale that empties a shelf, its payment, and the restock it asked for.
    produto(&t.app, COCA, "Coca-Cola 2L", "8.99", 3, 2, 10).await;
    let id = comprar_ok(&t.app, &[(COCA, 3)]).await;
    let pago = t.app.http.post(t.app.url(&format!("/pedidos/{id}/pagamento"))).send().await.unwrap();
    assert_eq!(pago.status(), 200);
    let pedido = solicitacoes(&t.app, COCA).await;
    assert_eq!(
        evento(&t.app, "ReposicaoEnviada", &reposicao_enviada(pedido[0].event_id, COCA, 10)).await,
        204
    );
    let m = t.quando("the delivery in /metrics", |m| m.contains("giro_outbox_delivery_seconds_bucket")).await;
    // estoque's own series (open demand) come from a real estoque, with a read copy (its own
    // database) so the read copy's lag is measured.
    let mut e = Real::start(Servico::Estoque, &[]).await;
    let url = e.db.url();
    e.reiniciar(&[("GIRO_ESTOQUE_DB_URL_LEITURA", &url)]).await;
    let base = format!("http://{}", e.addr);
    let me = crate::support::wait_until(
        std::time::Duration::from_secs(60),
        "the read copy's lag measured",
        || async {
            let m = Metricas::de(&base).await;
            m.0.contains("giro_db_atraso_leitura_segundos ").then_some(m)
        },
    )
    .await;

    let text = format!("{}\n{}", m.0, me.0);
    let amostras = || m.amostras().chain(me.amostras());
    for expr in expressions() {
        let ns = names(&expr);
        for n in &ns {
            // A histogram is queried by its series (`_bucket`); the sample names carry the suffix.
            let found = amostras().any(|l| nome_de(l) == n);
            assert!(found, "{n} (queried by `{expr}`) is not on /metrics:\n{text}");
        }
        for label in by_labels(&expr).into_iter().filter(|l| l != "job") {
            let found = amostras().any(|l| ns.contains(nome_de(l)) && l.contains(&format!("{label}=\"")));
            assert!(found, "label {label} (grouped by in `{expr}`) is on none of {ns:?}:\n{text}");
        }
    }
}
