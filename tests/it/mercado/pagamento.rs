//! Payment (SPEC §3.6) and reservation expiry (SPEC §3.7): the clock decides, units return once,
//! and an order held by a payment is skipped without waiting.

use std::time::Duration;

use chrono::{DateTime, Utc};
use giro_servicos::mercado::expiracao;
use serde_json::Value;
use uuid::Uuid;

use crate::mercado::fixtures::*;
use crate::support::wait_until;

async fn pagar(app: &crate::support::app::TestApp, id: Uuid) -> (u16, Value) {
    let res = app.http.post(app.url(&format!("/pedidos/{id}/pagamento"))).send().await.unwrap();
    (res.status().as_u16(), res.json().await.unwrap())
}

/// Well past a 15-minute deadline, without waiting for it.
/// Runs the background expiry sweep (batch 50, the shipped size; interval an hour) until
/// `expirados` orders are `EXPIRADO` (`o_que`, within `prazo`), then stops it.
async fn varrer_ate(app: &crate::support::app::TestApp, expirados: i64, prazo: Duration, o_que: &str) {
    let stop = tokio_util::sync::CancellationToken::new();
    let sweep = tokio::spawn(expiracao::agendar(
        app.dbh.clone(),
        Duration::from_secs(3600),
        50,
        stop.clone(),
        giro_infra::supervisor::Vivo::detached("expiracao"),
    ));
    wait_until(prazo, o_que, || async {
        let e: i64 = app.db.valor("SELECT count(*) FROM pedido WHERE status = 'EXPIRADO'", &[]).await;
        (e == expirados).then_some(())
    })
    .await;
    stop.cancel();
    sweep.await.unwrap();
}

fn depois_do_prazo() -> DateTime<Utc> {
    Utc::now() + chrono::Duration::minutes(16)
}

#[tokio::test]
async fn payment_in_time_confirms_the_reservations_and_repeating_it_changes_nothing() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    produto(&app, BANANA, "Banana Prata (kg)", "5.49", 10, 1, 20).await;
    let id = comprar_ok(&app, &[(COCA, 2), (BANANA, 1)]).await;
    assert_eq!(reservas(&app, id).await, vec!["ATIVA", "ATIVA"]);

    let (status, body) = pagar(&app, id).await;
    assert_eq!(status, 200);
    assert_eq!(body["status"], "PAGO");
    assert_eq!(body["id"], id.to_string());
    assert_eq!(status_pedido(&app, id).await, "PAGO");
    assert_eq!(reservas(&app, id).await, vec!["CONFIRMADA", "CONFIRMADA"]);

    let (status, again) = pagar(&app, id).await;
    assert_eq!(status, 200, "repeat payment is still 200");
    assert_eq!(again, body, "and answers the same detail");
    assert_eq!(reservas(&app, id).await, vec!["CONFIRMADA", "CONFIRMADA"]);
    assert_eq!(prateleira(&app, COCA).await.0, 8, "checkout's debit is the sale");

    // A paid order is never expired, whatever the clock says.
    assert_eq!(expiracao::expirar_vencidas(&app.dbh, depois_do_prazo(), 50).await.unwrap(), 0);
    assert_eq!(status_pedido(&app, id).await, "PAGO");
    assert_eq!(prateleira(&app, COCA).await.0, 8);
}

#[tokio::test]
async fn a_late_payment_is_refused_with_409_even_before_the_sweep_runs() {
    let app = mercado(&[("GIRO_RESERVA_TTL", "1s")]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    let res = comprar(&app, &[(COCA, 3)]).await;
    assert_eq!(res.status(), 201);
    let body: Value = res.json().await.unwrap();
    let id: Uuid = body["pedidoId"].as_str().unwrap().parse().unwrap();
    let prazo: DateTime<Utc> = body["reservaExpiraEm"].as_str().unwrap().parse().unwrap();

    // Only to let the deadline pass.
    let falta = (prazo - Utc::now()).to_std().unwrap_or_default();
    tokio::time::sleep(falta + Duration::from_millis(50)).await;

    let (status, problema) = pagar(&app, id).await;
    assert_eq!(status, 409);
    assert_eq!(problema["title"], "Pagamento recusado");
    assert_eq!(
        problema["detail"],
        format!("O prazo da reserva do pedido {id} terminou; os itens voltaram para a vitrine")
    );
    assert_eq!(problema["instance"], format!("/pedidos/{id}/pagamento"));
    assert_eq!(
        status_pedido(&app, id).await,
        "AGUARDANDO_PAGAMENTO",
        "the sweep (off here) expires it, not the payment"
    );
    assert_eq!(reservas(&app, id).await, vec!["ATIVA"]);
}

#[tokio::test]
async fn the_deadline_itself_is_already_too_late_for_payment_and_for_the_sweep() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    let res = comprar(&app, &[(COCA, 1)]).await;
    let body: Value = res.json().await.unwrap();
    let id: Uuid = body["pedidoId"].as_str().unwrap().parse().unwrap();
    let prazo: DateTime<Utc> = body["reservaExpiraEm"].as_str().unwrap().parse().unwrap();
    let um_us = chrono::Duration::microseconds(1);

    // The clock is passed in: a microsecond before the deadline the sweep leaves it alone…
    assert_eq!(expiracao::expirar_vencidas(&app.dbh, prazo - um_us, 50).await.unwrap(), 0);
    // …and at the deadline itself (`agora >= expira_em`) payment is refused.
    let e = giro_servicos::mercado::pagamento::pagar(&app.dbh, id, Some(prazo)).await.unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("O prazo da reserva do pedido {id} terminou; os itens voltaram para a vitrine")
    );
    assert_eq!(status_pedido(&app, id).await, "AGUARDANDO_PAGAMENTO", "a refused payment changes nothing");
    assert_eq!(expiracao::expirar_vencidas(&app.dbh, prazo, 50).await.unwrap(), 1);
    assert_eq!(prateleira(&app, COCA).await.0, 10);
}

#[tokio::test]
async fn an_expired_order_returns_its_units_once_even_with_two_sweeps_at_once() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 5, 20).await;
    produto(&app, BANANA, "Banana Prata (kg)", "5.49", 10, 5, 20).await;
    let id = comprar_ok(&app, &[(COCA, 3), (BANANA, 6)]).await;
    assert_eq!(prateleira(&app, BANANA).await.0, 4);
    assert_eq!(solicitacoes(&app, BANANA).await.len(), 1);

    // Before the deadline nothing is due.
    assert_eq!(expiracao::expirar_vencidas(&app.dbh, Utc::now(), 50).await.unwrap(), 0);

    let agora = depois_do_prazo();
    let (a, b) = tokio::join!(
        expiracao::expirar_vencidas(&app.dbh, agora, 50),
        expiracao::expirar_vencidas(&app.dbh, agora, 50)
    );
    assert_eq!(a.unwrap() + b.unwrap(), 1, "exactly one sweep expires the order");
    assert_eq!(expiracao::expirar_vencidas(&app.dbh, agora, 50).await.unwrap(), 0);

    assert_eq!(status_pedido(&app, id).await, "EXPIRADO");
    assert_eq!(reservas(&app, id).await, vec!["EXPIRADA", "EXPIRADA"]);
    assert_eq!(prateleira(&app, COCA).await, (10, "DISPONIVEL".into()));
    assert_eq!(prateleira(&app, BANANA).await, (10, "DISPONIVEL".into()));
    assert_eq!(outbox(&app, "ReposicaoSolicitada", COCA).await.len(), 0, "a return triggers nothing");
    assert_eq!(outbox(&app, "ReposicaoSolicitada", BANANA).await.len(), 1);

    let (status, problema) = pagar(&app, id).await;
    assert_eq!(status, 409);
    assert_eq!(problema["title"], "Pagamento recusado");
}

#[tokio::test]
async fn returned_units_may_push_the_shelf_above_ideal_and_request_nothing() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 4, 2, 4).await;
    let id = comprar_ok(&app, &[(COCA, 4)]).await;
    assert_eq!(prateleira(&app, COCA).await, (0, "ESGOTADO".into()));
    let s = solicitacoes(&app, COCA).await;
    assert_eq!(evento(&app, "ReposicaoEnviada", &reposicao_enviada(s[0].event_id, COCA, 4)).await, 204);
    assert_eq!(expiracao::expirar_vencidas(&app.dbh, depois_do_prazo(), 50).await.unwrap(), 1);
    assert_eq!(status_pedido(&app, id).await, "EXPIRADO");
    assert_eq!(
        prateleira(&app, COCA).await,
        (8, "DISPONIVEL".into()),
        "ideal is 4; the excess is the reservation"
    );
    assert_eq!(outbox(&app, "ReposicaoSolicitada", COCA).await.len(), 1);
}

#[tokio::test]
async fn an_order_locked_by_a_payment_is_left_for_the_next_round_without_blocking() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    let id = comprar_ok(&app, &[(COCA, 3)]).await;
    let agora = depois_do_prazo();

    let mut cliente = app.db.client().await;
    let pagamento = cliente.transaction().await.unwrap();
    pagamento.query("SELECT 1 FROM pedido WHERE id = $1 FOR UPDATE", &[&id]).await.unwrap();

    let rodada =
        tokio::time::timeout(Duration::from_secs(5), expiracao::expirar_vencidas(&app.dbh, agora, 50))
            .await
            .expect("the sweep must not wait for the lock");
    assert_eq!(rodada.unwrap(), 0);
    assert_eq!(status_pedido(&app, id).await, "AGUARDANDO_PAGAMENTO");
    assert_eq!(prateleira(&app, COCA).await.0, 7);

    pagamento.rollback().await.unwrap();
    assert_eq!(expiracao::expirar_vencidas(&app.dbh, agora, 50).await.unwrap(), 1, "the next round takes it");
    assert_eq!(prateleira(&app, COCA).await.0, 10);
}

#[tokio::test]
async fn the_sweep_takes_at_most_its_batch_the_oldest_deadline_first() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    let primeiro = comprar_ok(&app, &[(COCA, 1)]).await;
    let segundo = comprar_ok(&app, &[(COCA, 1)]).await;
    let agora = depois_do_prazo();
    assert_eq!(expiracao::expirar_vencidas(&app.dbh, agora, 1).await.unwrap(), 1);
    assert_eq!(status_pedido(&app, primeiro).await, "EXPIRADO");
    assert_eq!(status_pedido(&app, segundo).await, "AGUARDANDO_PAGAMENTO");
    assert_eq!(expiracao::expirar_vencidas(&app.dbh, agora, 1).await.unwrap(), 1);
    assert_eq!(status_pedido(&app, segundo).await, "EXPIRADO");
}

#[tokio::test]
async fn the_background_sweep_expires_orders_past_their_deadline() {
    let app = mercado(&[
        ("GIRO_RESERVA_EXPIRACAO_HABILITADA", "true"),
        ("GIRO_RESERVA_TTL", "1s"),
        ("GIRO_RESERVA_INTERVALO", "100ms"),
    ])
    .await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    let id = comprar_ok(&app, &[(COCA, 3)]).await;
    assert_eq!(prateleira(&app, COCA).await.0, 7);

    wait_until(Duration::from_secs(10), "the sweep to expire the order", || async {
        let d: Value =
            app.http.get(app.url(&format!("/pedidos/{id}"))).send().await.ok()?.json().await.ok()?;
        (d["status"] == "EXPIRADO").then_some(())
    })
    .await;
    assert_eq!(prateleira(&app, COCA).await, (10, "DISPONIVEL".into()));
    assert_eq!(reservas(&app, id).await, vec!["EXPIRADA"]);
}

#[tokio::test]
async fn unknown_orders_are_404_and_malformed_ids_400() {
    let app = mercado(&[]).await;
    let id = Uuid::new_v4();
    let (status, problema) = pagar(&app, id).await;
    assert_eq!(status, 404);
    assert_eq!(problema["detail"], format!("Pedido não encontrado: {id}"));
    let res = app.http.get(app.url(&format!("/pedidos/{id}"))).send().await.unwrap();
    assert_eq!(res.status(), 404);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let res = app.http.post(app.url("/pedidos/nao-e-uuid/pagamento")).send().await.unwrap();
    assert_eq!(res.status(), 400);
    let problema: Value = res.json().await.unwrap();
    assert!(problema["detail"].as_str().unwrap().contains("nao-e-uuid"), "{problema}");
}

#[tokio::test]
async fn the_sweep_drains_every_due_order_in_one_round_not_one_batch_per_interval() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    // 300 unpaid orders past their deadline (six batches), one unit of COCA each, as checkout
    // leaves them (their units already off the shelf).
    let n: i64 = 300;
    app.db
        .client()
        .await
        .batch_execute(&format!(
            "WITH p AS (INSERT INTO pedido (id, status, total, criado_em, cliente) \
                 SELECT gen_random_uuid(), 'AGUARDANDO_PAGAMENTO', 8.99, now() - interval '20 minutes', NULL \
                   FROM generate_series(1, {n}) RETURNING id) \
             INSERT INTO reserva (id, sku, qtd, pedido_id, expira_em, status) \
                 SELECT gen_random_uuid(), '{COCA}', 1, id, now() - interval '5 minutes', 'ATIVA' FROM p"
        ))
        .await
        .unwrap();
    // One round at the shipped batch size (50); the next interval is an hour away, so every order
    // expired past the first 50 was expired by the same round.
    varrer_ate(&app, n, Duration::from_secs(300), "every due order expired by the first round").await;
    assert_eq!(prateleira(&app, COCA).await.0, 10 + 300, "each order's unit back once");
}

#[tokio::test]
async fn the_sweep_wakes_at_the_next_deadline_not_at_its_interval() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    // One unpaid order due 2 s from now (the database's clock), written before the sweep starts:
    // its first round finds nothing due yet.
    app.db
        .client()
        .await
        .batch_execute(&format!(
            "WITH p AS (INSERT INTO pedido (id, status, total, criado_em, cliente) \
                 VALUES (gen_random_uuid(), 'AGUARDANDO_PAGAMENTO', 8.99, now(), NULL) RETURNING id) \
             INSERT INTO reserva (id, sku, qtd, pedido_id, expira_em, status) \
                 SELECT gen_random_uuid(), '{COCA}', 1, id, now() + interval '2 seconds', 'ATIVA' FROM p"
        ))
        .await
        .unwrap();
    // An interval of an hour: the order can only expire in this test's lifetime if the sweep
    // slept until its deadline instead.
    varrer_ate(&app, 1, Duration::from_secs(120), "the order expired at its deadline").await;
    assert_eq!(prateleira(&app, COCA).await.0, 11, "its unit back on the shelf");
}
