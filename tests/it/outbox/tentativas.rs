//! The attempt history (`outbox_tentativa`, issue 26): the real publisher against a peer that
//! answers 503 and then 400 (or 204) records each settled attempt in the settle's statement —
//! numbers 1..n, outcomes, errors, the peer's status — at most `TENTATIVAS_GUARDADAS` per event,
//! nothing under a stale lease token, and nothing for an event delivered at its first attempt;
//! the rows go with their event (retention, archive), and the console's event detail returns
//! them newest first.

use std::time::Duration;

use chrono::{DateTime, Utc};
use giro_outbox::internos::{self as store, Failure, TENTATIVAS_GUARDADAS};
use giro_outbox::Publisher;
use giro_servicos::config::Servico;
use serde_json::Value;
use uuid::Uuid;

use super::publisher::{solicitada, write};
use crate::support::app::{config, spawn_app, Operador, TestApp};
use crate::support::peer::{FakePeer, Lote};

/// The publisher of `app`'s mercado outbox, delivering to `peer`.
fn publisher(app: &TestApp, peer: &FakePeer) -> Publisher {
    let url = peer.url();
    let cfg = config(Servico::Mercado, &app.db, &[("ESTOQUE_EVENTOS_URL", url.as_str())]);
    giro_servicos::server::publisher_de(&cfg, Servico::Mercado, app.db.pool(), app.dbh.signal.clone(), false)
        .unwrap()
}

/// The event's attempts on record, oldest first: (numero, resultado, erro, status_http).
async fn rows(app: &TestApp, id: Uuid) -> Vec<(i32, String, Option<String>, Option<i16>)> {
    let c = app.db.client().await;
    c.query(
        "SELECT numero, resultado, erro, status_http FROM outbox_tentativa WHERE event_id = $1 ORDER BY id",
        &[&id],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
    .collect()
}

async fn total_rows(app: &TestApp) -> i64 {
    app.db.client().await.query_one("SELECT count(*) FROM outbox_tentativa", &[]).await.unwrap().get(0)
}

async fn detalhe(app: &TestApp, op: &Operador, id: Uuid) -> Value {
    let res = op.on(app.http.get(app.url(&format!("/operacao/outbox/eventos/{id}")))).send().await.unwrap();
    assert_eq!(res.status(), 200);
    res.json().await.unwrap()
}

/// A round at `agora`, after every backoff so far (the attempts' backoffs stay under 10 s).
async fn round(p: &Publisher, agora: &mut DateTime<Utc>) -> giro_outbox::Round {
    *agora += chrono::Duration::seconds(10);
    p.round(*agora).await.unwrap()
}

#[tokio::test]
async fn each_failed_attempt_is_recorded_by_the_settle_and_the_console_shows_them_newest_first() {
    let app = spawn_app(Servico::Mercado, &[]).await;
    let peer = FakePeer::start(Lote::Supported).await;
    let p = publisher(&app, &peer);
    let mut agora = Utc::now();

    // An event delivered at its first attempt has no history: the hot path writes none.
    let facil = solicitada(1);
    write(&app.dbh, std::slice::from_ref(&facil)).await;
    assert_eq!(round(&p, &mut agora).await.sent, 1);
    assert_eq!(total_rows(&app).await, 0);

    // 503 three times, then 400: three transient failures and the permanent one.
    peer.set_status(503);
    let e = solicitada(3);
    write(&app.dbh, std::slice::from_ref(&e)).await;
    for _ in 0..3 {
        assert_eq!(round(&p, &mut agora).await.transient, 1);
    }
    peer.set_status(400);
    assert_eq!(round(&p, &mut agora).await.permanent, 1);
    let h = rows(&app, e.event_id()).await;
    assert_eq!(
        h.iter().map(|(n, r, _, s)| (*n, r.as_str(), *s)).collect::<Vec<_>>(),
        vec![
            (1, "falha_transitoria", Some(503)),
            (2, "falha_transitoria", Some(503)),
            (3, "falha_transitoria", Some(503)),
            (4, "falha_permanente", Some(400)),
        ]
    );
    for (_, _, erro, s) in &h {
        let erro = erro.as_deref().unwrap();
        assert!(erro.starts_with("envio de ") && erro.contains(&format!(" {}", s.unwrap())), "{erro}");
    }

    // The console's detail: the same rows, newest first, with their instants.
    let op = Operador::login(&app).await;
    let d = detalhe(&app, &op, e.event_id()).await;
    let t = d["tentativas"].as_array().unwrap();
    assert_eq!(
        t.iter()
            .map(|x| (x["numero"].as_i64().unwrap(), x["resultado"].as_str().unwrap()))
            .collect::<Vec<_>>(),
        vec![
            (4, "falha_permanente"),
            (3, "falha_transitoria"),
            (2, "falha_transitoria"),
            (1, "falha_transitoria")
        ]
    );
    assert_eq!((&t[0]["status"], &t[3]["status"]), (&Value::from(400), &Value::from(503)));
    assert_eq!(t[0]["erro"], d["evento"]["ultimoErro"], "the newest is the last error");
    let instantes: Vec<DateTime<Utc>> =
        t.iter().map(|x| x["em"].as_str().unwrap().parse().unwrap()).collect();
    assert!(instantes.windows(2).all(|w| w[0] >= w[1]), "{instantes:?}");
    // The event delivered at once: an empty history.
    assert_eq!(detalhe(&app, &op, facil.event_id()).await["tentativas"], Value::Array(vec![]));

    // Archived (the console's discard), its history goes with it.
    let res = op
        .on(app.http.delete(app.url(&format!("/operacao/outbox/eventos/{}?motivo=teste", e.event_id()))))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    assert!(rows(&app, e.event_id()).await.is_empty());
}

#[tokio::test]
async fn a_delivery_after_failures_is_recorded_and_retention_deletes_the_history_with_its_event() {
    let app = spawn_app(Servico::Mercado, &[]).await;
    let peer = FakePeer::start(Lote::Supported).await;
    let p = publisher(&app, &peer);
    let mut agora = Utc::now();
    peer.set_status(503);
    let e = solicitada(2);
    write(&app.dbh, std::slice::from_ref(&e)).await;
    for _ in 0..2 {
        assert_eq!(round(&p, &mut agora).await.transient, 1);
    }
    peer.set_status(204);
    assert_eq!(round(&p, &mut agora).await.sent, 1);
    assert_eq!(
        rows(&app, e.event_id())
            .await
            .iter()
            .map(|(n, r, erro, s)| (*n, r.as_str(), erro.is_some(), *s))
            .collect::<Vec<_>>(),
        vec![
            (1, "falha_transitoria", true, Some(503)),
            (2, "falha_transitoria", true, Some(503)),
            (3, "enviado", false, None)
        ]
    );

    // Retention prunes the SENT event and its attempts in one statement.
    let c = app.db.client().await;
    let pruned =
        store::prune_sent(&c, Some(Utc::now() + chrono::Duration::hours(1)), Duration::from_secs(60), 100)
            .await
            .unwrap();
    assert_eq!(pruned, 1);
    assert_eq!(total_rows(&app).await, 0);
}

#[tokio::test]
async fn at_most_the_newest_attempts_are_kept_and_a_stale_token_records_nothing() {
    let app = spawn_app(Servico::Mercado, &[]).await;
    let e = solicitada(1);
    write(&app.dbh, std::slice::from_ref(&e)).await;
    let c = app.db.client().await;
    let lease = Duration::from_secs(60);
    let n = TENTATIVAS_GUARDADAS as i32 + 5;
    for i in 1..=n {
        let token = Uuid::new_v4();
        // Due again at once (no backoff): each claim is the next attempt.
        assert_eq!(store::claim(&c, None, 10, lease, token).await.unwrap().len(), 1, "attempt {i}");
        if i == n {
            // A publisher that lost the lease settles with its old token: nothing changes.
            let stale = Uuid::new_v4();
            let f =
                [Failure { id: e.event_id(), erro: "HTTP 503: tarde".into(), espera: Some(Duration::ZERO) }];
            assert_eq!(store::mark_failed(&c, &f, stale).await.unwrap(), 0);
            assert_eq!(store::mark_sent(&c, &[e.event_id()], stale).await.unwrap(), 0);
            assert_eq!(rows(&app, e.event_id()).await.len(), TENTATIVAS_GUARDADAS as usize);
        }
        let f = [Failure {
            id: e.event_id(),
            erro: format!("HTTP 503: tentativa {i}"),
            espera: Some(Duration::ZERO),
        }];
        assert_eq!(store::mark_failed(&c, &f, token).await.unwrap(), 1);
    }
    let h = rows(&app, e.event_id()).await;
    let numeros: Vec<i32> = h.iter().map(|(n, ..)| *n).collect();
    let esperados: Vec<i32> = (n - TENTATIVAS_GUARDADAS as i32 + 1..=n).collect();
    assert_eq!(numeros, esperados, "the newest {TENTATIVAS_GUARDADAS}");
    assert_eq!(h.last().unwrap().2.as_deref(), Some(format!("HTTP 503: tentativa {n}").as_str()));

    // The success that follows keeps the bound too.
    let token = Uuid::new_v4();
    store::claim(&c, None, 10, lease, token).await.unwrap();
    assert_eq!(store::mark_sent(&c, &[e.event_id()], token).await.unwrap(), 1);
    let h = rows(&app, e.event_id()).await;
    assert_eq!(h.len(), TENTATIVAS_GUARDADAS as usize);
    assert_eq!((h.last().unwrap().0, h.last().unwrap().1.as_str()), (n + 1, "enviado"));
    assert_eq!(h[0].0, n + 1 - TENTATIVAS_GUARDADAS as i32 + 1);
}
