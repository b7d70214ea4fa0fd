//! Door 6 (issue 13): no log line carries a configured secret — service tokens, the operator
//! password, the tag-worker token, or a password inside a peer URL (the publisher's start line
//! and its delivery errors print the URL through the one masking function).

use std::time::Duration;

use giro_servicos::config::Servico;
use serde_json::json;

use crate::support::process::Giro;
use crate::support::real::{env, Real, SEGREDOS};
use crate::support::TestDb;

const SENHA_NA_URL: &str = "senha-na-url-0123456789";
const TOKEN_TAGS: &str = "token-do-tag-worker-0123456789";

fn sem(log: &str, extras: &[&str]) {
    for s in SEGREDOS.iter().chain(extras) {
        assert!(!log.contains(s), "secret {s:?} in the log:\n{log}");
    }
}

#[tokio::test]
async fn no_log_line_carries_a_configured_secret() {
    let peer = format!("http://giro:{SENHA_NA_URL}@127.0.0.1:9");
    // A separate publisher relaying to a peer URL with a password: its start line and failures.
    let db = TestDb::new(Servico::Mercado).await;
    let mut e =
        env(Servico::Mercado, &db, &[("ESTOQUE_EVENTOS_URL", &peer), ("GIRO_OUTBOX_INTERVALO", "100ms")]);
    e.insert("RUST_LOG", "debug".into());
    let mut publisher = Giro::spawn(&["publisher", "--db", "mercado"], &e);
    publisher.wait_for_line("publisher started", Duration::from_secs(30)).await;

    // mercado with its embedded publisher sending there too, and hostile logins and tokens.
    let m = Real::start(
        Servico::Mercado,
        &[
            ("ESTOQUE_EVENTOS_URL", &peer),
            ("GIRO_OUTBOX_PUBLICADOR_EMBUTIDO", "true"),
            ("GIRO_OUTBOX_INTERVALO", "100ms"),
        ],
    )
    .await;
    m.db.client()
        .await
        .batch_execute(
            "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
             VALUES ('7894900011517', 'Coca', 8.99, 5, 4, 10, 'DISPONIVEL')",
        )
        .await
        .unwrap();
    // A checkout below the minimum: a restock event the publisher fails to deliver.
    let res = m
        .http
        .post(m.url("/pedidos"))
        .json(&json!({"itens": [{"sku": "7894900011517", "qtd": 2}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    // Wrong tokens, the operator's password as a user name, a token in a wrong place.
    let _ = m.http.post(m.url("/eventos")).bearer_auth(crate::support::ESTOQUE_TOKEN).send().await;
    let _ = m
        .http
        .post(m.url("/sessao"))
        .form(&[("usuario", crate::support::SENHA), ("senha", crate::support::SENHA)])
        .send()
        .await;
    assert!(m.entrar("errada-123", None).await.status().is_client_error());

    // estoque calling a tag-worker with its token (nobody listens: the failure is logged).
    let est = Real::start(Servico::Estoque, &[("TAG_WORKER_TOKEN", TOKEN_TAGS)]).await;
    let (cookie, csrf) = est.operador().await;
    let res = est
        .http
        .post(est.url("/lotes"))
        .header("cookie", &cookie)
        .header("x-xsrf-token", &csrf)
        .json(&json!({"sku": "7894900011517", "descricao": "COCA", "ncm": "22021000", "codigoLote": "L1", "quantidade": 5}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);

    // The delivery failed at least once in each publisher before looking.
    let c = m.db.client().await;
    crate::support::wait_until(Duration::from_secs(30), "a failed delivery", || async {
        let n: i32 =
            c.query_one("SELECT COALESCE(max(tentativas), 0) FROM outbox_event", &[]).await.ok()?.get(0);
        (n > 0).then_some(())
    })
    .await;
    let start = publisher.wait_for_line("publisher started", Duration::from_secs(1)).await;
    assert!(start.contains("giro:***@127.0.0.1:9"), "{start}");
    for log in [publisher.log(), m.giro.log(), est.giro.log()] {
        sem(&log, &[SENHA_NA_URL, TOKEN_TAGS]);
    }
}
