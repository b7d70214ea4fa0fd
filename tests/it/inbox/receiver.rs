//! `POST /eventos` and `POST /eventos/lote`: every status and message of SPEC §4.5 and §9.2, and
//! the contract fixtures.

use serde_json::{json, Value};

use giro_contracts::EventoIntegracao;

use crate::support::receiver::Receiver;
use crate::support::{ESTOQUE_TOKEN, MERCADO_TOKEN};

const SOLICITADA: &str = r#"{"eventId": "0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a", "sku": "7894900011517", "qtdFaltante": 16, "ocorridoEm": "2026-09-25T12:00:00Z"}"#;

async fn post(
    r: &Receiver,
    tipo: Option<&str>,
    token: Option<&str>,
    body: &str,
) -> (u16, Value, Option<String>) {
    let mut rb = reqwest::Client::new()
        .post(format!("{}/eventos", r.url()))
        .header("content-type", "application/json")
        .body(body.to_string());
    if let Some(t) = tipo {
        rb = rb.header("Evento-Tipo", t);
    }
    if let Some(t) = token {
        rb = rb.bearer_auth(t);
    }
    let res = rb.send().await.unwrap();
    let status = res.status().as_u16();
    let ct = res.headers().get("content-type").map(|v| v.to_str().unwrap().to_string());
    let text = res.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null), ct)
}

#[tokio::test]
async fn a_new_event_and_its_duplicate_both_answer_204_and_apply_once() {
    let r = Receiver::start(500).await;
    for _ in 0..3 {
        let (s, _, _) = post(&r, Some("ReposicaoSolicitada"), Some(ESTOQUE_TOKEN), SOLICITADA).await;
        assert_eq!(s, 204);
    }
    assert_eq!(r.count("SELECT count(*) FROM efeito").await, 1);
    assert_eq!(r.count("SELECT count(*) FROM inbox_event").await, 1);
}

#[tokio::test]
async fn concurrent_deliveries_of_one_event_apply_it_exactly_once() {
    let r = Receiver::start(500).await;
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let url = r.url();
        tasks.push(tokio::spawn(async move {
            // A 503 (no connection free within the pool's wait, on a loaded machine) is "try
            // again", as the publisher takes it: each sender retries until it gets its answer.
            let fim = std::time::Instant::now() + std::time::Duration::from_secs(120);
            loop {
                let status = reqwest::Client::new()
                    .post(format!("{url}/eventos"))
                    .header("content-type", "application/json")
                    .header("Evento-Tipo", "ReposicaoSolicitada")
                    .bearer_auth(ESTOQUE_TOKEN)
                    .body(SOLICITADA)
                    .send()
                    .await
                    .unwrap()
                    .status()
                    .as_u16();
                if status != 503 || std::time::Instant::now() > fim {
                    break status;
                }
            }
        }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), 204);
    }
    assert_eq!(r.count("SELECT count(*) FROM efeito").await, 1);
}

#[tokio::test]
async fn bad_requests_get_400_problems_that_say_what_is_wrong_and_write_nothing() {
    let r = Receiver::start(500).await;
    let (s, b, ct) = post(&r, None, Some(ESTOQUE_TOKEN), SOLICITADA).await;
    assert_eq!(s, 400);
    assert_eq!(ct.as_deref(), Some("application/problem+json"));
    assert_eq!(b["detail"], "cabeçalho Evento-Tipo ausente");
    assert_eq!(b["instance"], "/eventos");

    let (s, b, _) = post(&r, Some("PedidoCriado"), Some(ESTOQUE_TOKEN), SOLICITADA).await;
    assert_eq!((s, b["detail"].as_str().unwrap()), (400, "tipo de evento não aceito: PedidoCriado"));

    let (s, b, _) = post(&r, Some("ReposicaoSolicitada"), Some(ESTOQUE_TOKEN), "{not json").await;
    assert_eq!(s, 400);
    assert!(b["detail"].as_str().unwrap().starts_with("payload ilegível para ReposicaoSolicitada: "), "{b}");

    let bad = SOLICITADA.replace("16", "0");
    let (s, b, _) = post(&r, Some("ReposicaoSolicitada"), Some(ESTOQUE_TOKEN), &bad).await;
    assert_eq!(
        (s, b["detail"].as_str().unwrap()),
        (400, "ReposicaoSolicitada inválido: qtdFaltante deve ser maior que 0")
    );

    let enviada = r#"{"eventId":"5f1d2c3b-4a59-4e68-8b7a-6c5d4e3f2a1b","correlationId":"0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a","sku":"7894900011517","qtd":-2,"lote":" ","ocorridoEm":"2026-09-25T12:00:05Z"}"#;
    let (s, b, _) = post(&r, Some("ReposicaoEnviada"), Some(ESTOQUE_TOKEN), enviada).await;
    assert_eq!(
        (s, b["detail"].as_str().unwrap()),
        (400, "ReposicaoEnviada inválido: lote não deve estar em branco; qtd deve ser maior que 0")
    );

    let sem_qtd = r#"{"eventId": "0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a", "sku": "7894900011517", "ocorridoEm": "2026-09-25T12:00:00Z"}"#;
    let (s, b, _) = post(&r, Some("ReposicaoSolicitada"), Some(ESTOQUE_TOKEN), sem_qtd).await;
    assert_eq!(s, 400);
    assert!(b["detail"].as_str().unwrap().contains("qtdFaltante"), "{b}");

    assert_eq!(r.count("SELECT count(*) FROM inbox_event").await, 0);
    assert_eq!(r.count("SELECT count(*) FROM efeito").await, 0);
}

#[tokio::test]
async fn without_or_with_a_wrong_token_the_answer_is_401_and_nothing_is_written() {
    let r = Receiver::start(500).await;
    for token in [None, Some(MERCADO_TOKEN), Some("x")] {
        let (s, b, ct) = post(&r, Some("ReposicaoSolicitada"), token, SOLICITADA).await;
        assert_eq!(s, 401, "{token:?}");
        assert_eq!(ct.as_deref(), Some("application/problem+json"));
        assert_eq!(b["detail"], "autenticação necessária");
    }
    let res =
        reqwest::Client::new().post(format!("{}/eventos", r.url())).body(SOLICITADA).send().await.unwrap();
    assert!(res.headers().get("www-authenticate").is_none());
    assert_eq!(r.count("SELECT count(*) FROM inbox_event").await, 0);
}

/// `POST /eventos/lote` with estoque's token.
async fn post_lote(r: &Receiver, body: &Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(format!("{}/eventos/lote", r.url()))
        .bearer_auth(ESTOQUE_TOKEN)
        .json(body)
        .send()
        .await
        .unwrap()
}

/// The status of each item of a batch's answer, in order.
fn statuses(b: &Value) -> Vec<u64> {
    b["resultados"].as_array().unwrap().iter().map(|x| x["status"].as_u64().unwrap()).collect()
}

#[tokio::test]
async fn an_oversize_body_is_refused_with_413() {
    let r = Receiver::start(500).await;
    let big = format!(
        r#"{{"eventId": "0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a", "pad": "{}"}}"#,
        "x".repeat(70 * 1024)
    );
    let (s, _, ct) = post(&r, Some("ReposicaoSolicitada"), Some(ESTOQUE_TOKEN), &big).await;
    assert_eq!(s, 413);
    assert_eq!(ct.as_deref(), Some("application/problem+json"));
    // A batch over outbox.lote-max items is 413 for the request.
    let r = Receiver::start(2).await;
    let item =
        json!({"tipo": "ReposicaoSolicitada", "evento": serde_json::from_str::<Value>(SOLICITADA).unwrap()});
    let res = post_lote(&r, &json!({"eventos": [item.clone(), item.clone(), item]})).await;
    assert_eq!(res.status(), 413);
    assert_eq!(r.count("SELECT count(*) FROM inbox_event").await, 0);
}

#[tokio::test]
async fn a_batch_mixing_valid_and_invalid_items_answers_each_in_order() {
    let r = Receiver::start(500).await;
    let ok: Value = serde_json::from_str(SOLICITADA).unwrap();
    let mut invalid = ok.clone();
    invalid["eventId"] = json!("9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a5b4");
    invalid["qtdFaltante"] = json!(0);
    let mut other = ok.clone();
    other["eventId"] = json!("3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f");
    let body = json!({"eventos": [
        {"tipo": "ReposicaoSolicitada", "evento": ok},
        {"tipo": "ReposicaoSolicitada", "evento": invalid},
        {"tipo": "Desconhecido", "evento": {"eventId": "5f1d2c3b-4a59-4e68-8b7a-6c5d4e3f2a1b"}},
        {"tipo": "ReposicaoSolicitada", "evento": ok},
        {"tipo": "ReposicaoSolicitada", "evento": other, "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
    ]});
    let res = post_lote(&r, &body).await;
    assert_eq!(res.status(), 200);
    let b: Value = res.json().await.unwrap();
    assert_eq!(statuses(&b), vec![204, 400, 400, 204, 204]);
    assert_eq!(b["resultados"][0]["eventId"], "0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a");
    assert_eq!(
        b["resultados"][1]["detalhe"],
        "ReposicaoSolicitada inválido: qtdFaltante deve ser maior que 0"
    );
    assert_eq!(b["resultados"][2]["detalhe"], "tipo de evento não aceito: Desconhecido");
    assert_eq!(b["resultados"][2]["eventId"], "5f1d2c3b-4a59-4e68-8b7a-6c5d4e3f2a1b");
    assert_eq!(r.count("SELECT count(*) FROM efeito").await, 2, "the duplicate (4th) applied nothing");
}

#[test]
fn the_contract_fixtures_round_trip_and_unknown_fields_are_ignored() {
    for tipo in giro_contracts::TIPOS {
        let path = format!("{}/contracts/{tipo}.json", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).unwrap();
        let evento = EventoIntegracao::ler(tipo, text.as_bytes()).unwrap_or_else(|e| panic!("{tipo}: {e}"));
        assert_eq!(evento.tipo(), tipo);
        assert!(evento.violacoes().is_empty());
        let fixture: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(evento.to_json(), fixture, "{tipo} re-serialises to the fixture");

        let mut extra = fixture.clone();
        extra["campoNovo"] = json!({"qualquer": [1, 2]});
        let tolerant = EventoIntegracao::ler(tipo, extra.to_string().as_bytes()).unwrap();
        assert_eq!(tolerant, evento, "{tipo}: an unknown field is ignored");
    }
}

#[tokio::test]
async fn a_failing_effect_in_a_batch_fails_only_that_item_and_leaves_no_inbox_row() {
    let r = Receiver::start(500).await;
    let mk = |id: &str, qtd: i32| json!({"tipo": "ReposicaoSolicitada", "evento": {"eventId": id, "sku": "7894900011517", "qtdFaltante": qtd, "ocorridoEm": "2026-09-25T12:00:00Z"}});
    let body = json!({"eventos": [
        mk("0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a", 1),
        mk("9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a5b4", 13),
        mk("3c2b1a09-8f7e-4d6c-9b5a-4e3d2c1b0a9f", 2),
    ]});
    let b: Value = post_lote(&r, &body).await.json().await.unwrap();
    assert_eq!(statuses(&b), vec![204, 500, 204]);
    assert_eq!(r.count("SELECT count(*) FROM efeito").await, 2);
    assert_eq!(
        r.count("SELECT count(*) FROM inbox_event WHERE event_id = '9e8d7c6b-5a49-4382-a1b0-c9d8e7f6a5b4'")
            .await,
        0,
        "retried later, not forgotten"
    );
    assert_eq!(r.count("SELECT count(*) FROM inbox_event").await, 2);
}
