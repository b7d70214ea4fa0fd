//! OTLP/HTTP trace export (issue 18): with `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at a loopback
//! receiver, the real services export spans, and a restock is one trace from mercado's checkout,
//! through the event written to the outbox and the publisher's HTTP hop, to estoque's receipt of
//! the `ReposicaoSolicitada` and mercado's receipt of the `ReposicaoEnviada` (the shelf credit).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::outbox::trace::{comprar_no_trace, COCA, TRACE};
use crate::support::e2e::Sistema;
use crate::support::wait_until;

/// A loopback OTLP/HTTP (JSON) collector: every span received, with its service's name.
async fn collector() -> (String, Arc<Mutex<Vec<(String, Value)>>>) {
    let spans: Arc<Mutex<Vec<(String, Value)>>> = Arc::default();
    let keep = spans.clone();
    let app = Router::new().route(
        "/v1/traces",
        post(move |Json(body): Json<Value>| {
            let keep = keep.clone();
            async move {
                for rs in body["resourceSpans"].as_array().into_iter().flatten() {
                    let service = rs["resource"]["attributes"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find(|a| a["key"] == "service.name")
                        .and_then(|a| a["value"]["stringValue"].as_str())
                        .unwrap_or("")
                        .to_string();
                    for ss in rs["scopeSpans"].as_array().into_iter().flatten() {
                        for s in ss["spans"].as_array().into_iter().flatten() {
                            keep.lock().unwrap().push((service.clone(), s.clone()));
                        }
                    }
                }
                Json(json!({}))
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, spans)
}

async fn prateleira(http: &reqwest::Client, s: &Sistema) -> i64 {
    let p: Value =
        http.get(format!("{}/produtos/{COCA}", s.mercado_url())).send().await.unwrap().json().await.unwrap();
    p["disponivel"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restock_is_one_exported_trace_from_the_checkout_to_the_shelf_credit() {
    let (url, spans) = collector().await;
    let mut s = Sistema::new("otlp", &[("OTEL_EXPORTER_OTLP_ENDPOINT", &url)]).await;
    s.start_all().await; // both services and a separate publisher per outbox
    s.carregar_demo().await;
    let http = reqwest::Client::new();
    wait_until(Duration::from_secs(30), "the first restock of coca", || async {
        (prateleira(&http, &s).await == 24).then_some(())
    })
    .await;

    // A checkout under a known trace takes the shelf below its minimum (6): a restock of 20.
    assert_eq!(comprar_no_trace(&http, &s.mercado_url()).await, 201);
    wait_until(Duration::from_secs(30), "the shelf restocked", || async {
        (prateleira(&http, &s).await == 24).then_some(())
    })
    .await;

    let find = |service: &str, name: &str| -> Option<Value> {
        spans
            .lock()
            .unwrap()
            .iter()
            .find(|(sv, sp)| sv == service && sp["traceId"] == TRACE && sp["name"] == name)
            .map(|(_, sp)| sp.clone())
    };
    let (checkout, recebida, credito) = wait_until(Duration::from_secs(15), "the trace's spans", || async {
        Some((
            find("giro-mercado", "POST /pedidos")?,
            find("giro-estoque", "receber ReposicaoSolicitada")?,
            find("giro-mercado", "receber ReposicaoEnviada")?,
        ))
    })
    .await;
    assert_eq!(checkout["parentSpanId"], "00f067aa0ba902b7", "the checkout continues the caller's span");
    assert_eq!(checkout["kind"], 2);
    // estoque's receipt is a child of the event mercado wrote under the checkout.
    let all = spans.lock().unwrap().clone();
    let by_id =
        |id: &Value| all.iter().find(|(_, sp)| &sp["spanId"] == id).map(|(sv, sp)| (sv.clone(), sp.clone()));
    let (sv, escrito) = by_id(&recebida["parentSpanId"]).expect("the ReposicaoSolicitada's producer span");
    assert_eq!((sv.as_str(), escrito["name"].as_str()), ("giro-mercado", Some("outbox registrar")));
    let (_, pai) = by_id(&escrito["parentSpanId"]).expect("the producer's parent");
    assert_eq!(pai["spanId"], checkout["spanId"], "written under the checkout: {pai}");
    let (sv, resposta) = by_id(&credito["parentSpanId"]).expect("the ReposicaoEnviada's producer span");
    assert_eq!(sv, "giro-estoque");
    assert_eq!(resposta["traceId"], TRACE);
}
