//! The tag-worker client (SPEC §7.4: plain HTTP/1.1, never fails, `None` for anything unusable)
//! and the re-classification job (SPEC §3.14: untagged products, a few per round, stopping at the
//! first failure; the spawned loop survives failed rounds).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::Request;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use giro_servicos::config::TagsConfig;
use giro_servicos::estoque::classificacao::{Classificacao, ClienteTags};
use giro_servicos::estoque::reclassificacao;
use serde_json::{json, Value};

use crate::estoque::fixtures::*;
use crate::support::app::TestApp;
use crate::support::wait_until;

fn tags_config(url: &str) -> TagsConfig {
    TagsConfig {
        worker_url: url.to_string(),
        worker_token: None,
        timeout: Duration::from_millis(500),
        reclassificacao_habilitada: false,
        intervalo_reclassificacao: Duration::from_secs(300),
        lote_reclassificacao: 20,
    }
}

/// A server that answers every request with `status` and `body`, recording (HTTP version,
/// whether an `Upgrade` header came) of each request.
async fn responder(status: u16, body: &'static str) -> (String, Arc<Mutex<Vec<(String, bool)>>>) {
    let vistos = Arc::new(Mutex::new(Vec::new()));
    let v = vistos.clone();
    let app = axum::Router::new().fallback(move |req: Request| {
        let v = v.clone();
        async move {
            v.lock().unwrap().push((format!("{:?}", req.version()), req.headers().contains_key("upgrade")));
            (StatusCode::from_u16(status).unwrap(), [("content-type", "application/json")], body)
                .into_response()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (url, vistos)
}

#[tokio::test]
async fn the_client_speaks_plain_http_1_1_and_reads_a_good_answer() {
    let (url, vistos) = responder(200, r#"{"tags":["coca","cola"],"categoria":"bebidas","extra":1}"#).await;
    let cliente = ClienteTags::new(&tags_config(&url)).unwrap();

    let c = cliente.classificar(COCA, "COCA COLA").await;

    assert_eq!(
        c,
        Some(Classificacao { tags: vec!["coca".into(), "cola".into()], categoria: "bebidas".into() })
    );
    assert_eq!(vistos.lock().unwrap().clone(), vec![("HTTP/1.1".to_string(), false)], "no h2c upgrade");
}

#[tokio::test]
async fn the_client_never_fails_anything_unusable_is_none() {
    let casos: [(u16, &'static str); 8] = [
        (503, r#"{"detail":"indisponível"}"#),
        (401, r#"{"detail":"token"}"#),
        (422, r#"{"detail":[]}"#),
        (200, "isto não é json"),
        (200, r#"{"tags":null,"categoria":"bebidas"}"#),
        (200, r#"{"tags":[],"categoria":"bebidas"}"#),
        (200, r#"{"tags":["coca"],"categoria":" "}"#),
        (200, r#"{"tags":["a","b","c","d","e","f","g","h","i"],"categoria":"bebidas"}"#),
    ];
    for (status, body) in casos {
        let (url, _) = responder(status, body).await;
        let cliente = ClienteTags::new(&tags_config(&url)).unwrap();
        assert_eq!(cliente.classificar(COCA, "COCA COLA").await, None, "{status} {body}");
    }
    // Nothing listening: refused, None.
    let cliente = ClienteTags::new(&tags_config("http://127.0.0.1:9")).unwrap();
    assert_eq!(cliente.classificar(COCA, "COCA COLA").await, None);
}

#[tokio::test]
async fn the_client_gives_up_after_its_read_timeout() {
    let worker = FakeWorker::start(Modo::Lento).await;
    let cliente = ClienteTags::new(&tags_config(&worker.url)).unwrap();
    // The worker never answers: an answer at all is the client giving up, after its timeout.
    let inicio = Instant::now();
    let r = tokio::time::timeout(Duration::from_secs(60), cliente.classificar(COCA, "COCA COLA")).await;
    assert_eq!(r.expect("the client waited beyond its read timeout"), None);
    assert!(inicio.elapsed() >= Duration::from_millis(450), "gave up before its timeout");
}

async fn tags_de(app: &TestApp, sku: &str) -> Option<Value> {
    app.db
        .client()
        .await
        .query_one("SELECT tags FROM produto_estoque WHERE sku = $1", &[&sku])
        .await
        .unwrap()
        .get(0)
}

const SKUS: [&str; 3] = ["11111111", "22222222", "33333333"];

#[tokio::test]
async fn a_round_stops_at_the_first_failure_and_classifies_everything_when_the_worker_is_back() {
    let worker = FakeWorker::start(Modo::Indisponivel).await;
    let app = estoque(&[("TAG_WORKER_URL", &worker.url)]).await;
    for (i, sku) in SKUS.iter().enumerate() {
        produto(&app, sku, &format!("PRODUTO {i} COCA"), None).await;
    }
    produto(&app, COCA, "COCA COLA 2L PET", Some(&["coca"])).await;
    let cliente = ClienteTags::new(&app.config.tags).unwrap();

    assert_eq!(reclassificacao::rodada(&app.dbh, &cliente, 20).await.unwrap(), 0);
    assert_eq!(worker.chamadas(), 1, "the round stopped at the first failure");
    assert!(outbox(&app).await.is_empty());

    worker.set(Modo::Ok);
    assert_eq!(reclassificacao::rodada(&app.dbh, &cliente, 2).await.unwrap(), 2, "a few per round");
    assert_eq!(reclassificacao::rodada(&app.dbh, &cliente, 2).await.unwrap(), 1);
    assert_eq!(reclassificacao::rodada(&app.dbh, &cliente, 2).await.unwrap(), 0, "nothing left");

    let perguntados: Vec<String> =
        worker.pedidos().iter().map(|p| p.corpo["sku"].as_str().unwrap().to_string()).collect();
    assert_eq!(
        perguntados,
        vec![SKUS[0], SKUS[0], SKUS[1], SKUS[2]],
        "by SKU; the classified product is never asked"
    );
    for (i, sku) in SKUS.iter().enumerate() {
        assert_eq!(tags_de(&app, sku).await, Some(json!(["produto", i.to_string(), "coca"])));
    }
    let eventos = outbox(&app).await;
    assert_eq!(eventos.len(), 3);
    assert!(
        eventos.iter().all(|(t, p)| t == "ProdutoClassificado" && p["categoria"] == "bebidas"),
        "{eventos:?}"
    );
}

#[tokio::test]
async fn the_job_runs_on_its_interval_survives_failed_rounds_and_classifies_when_the_worker_is_back() {
    let worker = FakeWorker::start(Modo::Indisponivel).await;
    let app = estoque(&[
        ("TAG_WORKER_URL", &worker.url),
        ("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "true"),
        ("GIRO_TAGS_INTERVALO", "100ms"),
        ("GIRO_TAGS_TIMEOUT", "500ms"),
    ])
    .await;
    produto(&app, SKUS[0], "BANANA PRATA KG", None).await;
    produto(&app, SKUS[1], "COCA COLA 2L PET", None).await;

    wait_until(Duration::from_secs(10), "two failed rounds", || async {
        (worker.chamadas() >= 2).then_some(())
    })
    .await;
    assert_eq!(tags_de(&app, SKUS[0]).await, None);

    worker.set(Modo::Ok);
    wait_until(Duration::from_secs(10), "both products classified", || async {
        (tags_de(&app, SKUS[0]).await.is_some() && tags_de(&app, SKUS[1]).await.is_some()).then_some(())
    })
    .await;
    assert_eq!(tags_de(&app, SKUS[1]).await, Some(json!(["coca", "cola", "2l", "pet"])));
}
