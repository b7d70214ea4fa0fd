//! The effects of estoque's events on the storefront (SPEC §3.8–3.9), delivered through
//! `POST /eventos` with the service token, as estoque's publisher does.

use serde_json::{json, Value};
use uuid::Uuid;

use crate::mercado::fixtures::*;
use crate::support::app::{Operador, TestApp};

/// A product (10, min 5, ideal 20) with `vendidos` sold: returns the open request's event id.
async fn com_solicitacao(app: &TestApp, vendidos: i32) -> Uuid {
    produto(app, COCA, "Coca-Cola 2L PET", "8.99", 10, 5, 20).await;
    comprar_ok(app, &[(COCA, vendidos)]).await;
    let s = solicitacoes(app, COCA).await;
    assert_eq!(s.len(), 1);
    s[0].event_id
}

async fn inbox_tem(app: &TestApp, event_id: &Value) -> bool {
    let id: Uuid = event_id.as_str().unwrap().parse().unwrap();
    app.db
        .client()
        .await
        .query_opt("SELECT 1 FROM inbox_event WHERE event_id = $1", &[&id])
        .await
        .unwrap()
        .is_some()
}

#[tokio::test]
async fn a_reposicao_enviada_credits_once_however_often_it_is_delivered() {
    let app = mercado(&[]).await;
    let pedido = com_solicitacao(&app, 6).await;
    assert_eq!(prateleira(&app, COCA).await.0, 4);

    let e = reposicao_enviada(pedido, COCA, 16);
    assert_eq!(evento(&app, "ReposicaoEnviada", &e).await, 204);
    assert_eq!(evento(&app, "ReposicaoEnviada", &e).await, 204, "a duplicate is also 204");
    assert_eq!(evento(&app, "ReposicaoEnviada", &e).await, 204);

    assert_eq!(prateleira(&app, COCA).await, (20, "DISPONIVEL".into()));
    let s = solicitacoes(&app, COCA).await;
    assert_eq!(s.iter().map(|s| s.status.as_str()).collect::<Vec<_>>(), vec!["ATENDIDA"]);
    assert_eq!(outbox(&app, "ReposicaoSolicitada", COCA).await.len(), 1, "20 is not below 5: nothing new");
    assert_eq!(contar(&app, "inbox_event").await, 1);
}

#[tokio::test]
async fn a_partial_lot_below_the_minimum_closes_the_request_and_opens_one_for_the_rest() {
    let app = mercado(&[]).await;
    let primeira = com_solicitacao(&app, 8).await;
    assert_eq!(solicitacoes(&app, COCA).await[0].qtd, 18);

    assert_eq!(evento(&app, "ReposicaoEnviada", &reposicao_enviada(primeira, COCA, 2)).await, 204);

    assert_eq!(prateleira(&app, COCA).await, (4, "DISPONIVEL".into()));
    let s = solicitacoes(&app, COCA).await;
    assert_eq!(
        s.iter().map(|s| (s.qtd, s.status.as_str())).collect::<Vec<_>>(),
        vec![(18, "ATENDIDA"), (16, "PENDENTE")]
    );
    let eventos = outbox(&app, "ReposicaoSolicitada", COCA).await;
    assert_eq!(eventos.iter().map(|e| e["qtdFaltante"].as_i64().unwrap()).collect::<Vec<_>>(), vec![18, 16]);
    assert_eq!(eventos[1]["eventId"].as_str().unwrap(), s[1].event_id.to_string());
}

#[tokio::test]
async fn units_arriving_for_a_closed_or_unknown_request_are_credited_anyway() {
    let app = mercado(&[]).await;
    let pedido = com_solicitacao(&app, 6).await;
    assert_eq!(evento(&app, "ReposicaoEnviada", &reposicao_enviada(pedido, COCA, 16)).await, 204);
    // A second lot for the same (now closed) request, and one for a request nobody made.
    assert_eq!(
        evento(&app, "ReposicaoEnviada", &reposicao_enviada_do_lote(pedido, COCA, 3, "L-TESTE-02")).await,
        204
    );
    assert_eq!(evento(&app, "ReposicaoEnviada", &reposicao_enviada(Uuid::new_v4(), COCA, 2)).await, 204);
    assert_eq!(prateleira(&app, COCA).await.0, 25, "goods arrived: the shelf may exceed ideal");
    assert_eq!(solicitacoes(&app, COCA).await.len(), 1);
}

/// Issue 37 §1: a shipment is its request and its lot, not its event id — the same shipment
/// carried by another event (estoque's "Reemitir") is acknowledged and credits nothing.
#[tokio::test]
async fn the_same_shipment_under_a_new_event_id_is_credited_once() {
    let app = mercado(&[]).await;
    let pedido = com_solicitacao(&app, 6).await;
    let primeira = reposicao_enviada(pedido, COCA, 16);
    assert_eq!(evento(&app, "ReposicaoEnviada", &primeira).await, 204);
    let mut reemitida = primeira.clone();
    reemitida["eventId"] = json!(Uuid::new_v4());
    reemitida["ocorridoEm"] = json!("2026-09-25T12:10:00Z");
    assert_eq!(evento(&app, "ReposicaoEnviada", &reemitida).await, 204, "acknowledged");
    assert_eq!(prateleira(&app, COCA).await.0, 20, "4 + 16, once");
    let inbox: i64 = app.db.valor("SELECT count(*) FROM inbox_event", &[]).await;
    assert_eq!(inbox, 2, "both events are in the inbox: neither is asked for again");
}

#[tokio::test]
async fn sem_saldo_waits_for_a_lot_blocks_new_requests_and_sells_out_only_at_zero() {
    let app = mercado(&[]).await;
    let pedido = com_solicitacao(&app, 6).await;

    assert_eq!(evento(&app, "ReposicaoNegada", &reposicao_negada(pedido, COCA, "SEM_SALDO")).await, 204);
    let s = solicitacoes(&app, COCA).await;
    assert_eq!(s.iter().map(|s| s.status.as_str()).collect::<Vec<_>>(), vec!["AGUARDANDO_LOTE"]);
    assert_eq!(prateleira(&app, COCA).await, (4, "DISPONIVEL".into()), "units keep selling until 0");
    assert_eq!(outbox(&app, "ReposicaoSolicitada", COCA).await.len(), 1, "a denial triggers nothing");

    // Still open: selling the rest requests nothing more; the empty shelf is ESGOTADO.
    comprar_ok(&app, &[(COCA, 4)]).await;
    assert_eq!(prateleira(&app, COCA).await, (0, "ESGOTADO".into()));
    assert_eq!(solicitacoes(&app, COCA).await.len(), 1);

    // A second denial of a request no longer PENDENTE changes nothing.
    assert_eq!(
        evento(&app, "ReposicaoNegada", &reposicao_negada(pedido, COCA, "SKU_DESCONHECIDO")).await,
        204
    );
    assert_eq!(solicitacoes(&app, COCA).await[0].status, "AGUARDANDO_LOTE");
    assert_eq!(prateleira(&app, COCA).await, (0, "ESGOTADO".into()));

    // The lot arrives later under the same correlationId: served.
    assert_eq!(evento(&app, "ReposicaoEnviada", &reposicao_enviada(pedido, COCA, 16)).await, 204);
    assert_eq!(prateleira(&app, COCA).await, (16, "DISPONIVEL".into()));
    assert_eq!(solicitacoes(&app, COCA).await[0].status, "ATENDIDA");
}

#[tokio::test]
async fn sku_desconhecido_cancels_the_request_and_requests_nothing_new() {
    let app = mercado(&[]).await;
    let pedido = com_solicitacao(&app, 10).await;
    assert_eq!(prateleira(&app, COCA).await, (0, "ESGOTADO".into()));

    assert_eq!(
        evento(&app, "ReposicaoNegada", &reposicao_negada(pedido, COCA, "SKU_DESCONHECIDO")).await,
        204
    );
    assert_eq!(
        solicitacoes(&app, COCA).await.iter().map(|s| s.status.as_str()).collect::<Vec<_>>(),
        vec!["CANCELADA"]
    );
    assert_eq!(prateleira(&app, COCA).await, (0, "ESGOTADO".into()));
    assert_eq!(outbox(&app, "ReposicaoSolicitada", COCA).await.len(), 1);
}

#[tokio::test]
async fn an_older_produto_classificado_never_overwrites_a_newer_one() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 5, 20).await;
    let ler = || async {
        let p: Value =
            app.http.get(app.url(&format!("/produtos/{COCA}"))).send().await.unwrap().json().await.unwrap();
        (p["tags"].clone(), p["categoria"].clone())
    };
    assert_eq!(ler().await, (serde_json::json!([]), Value::Null), "unclassified: tags [] and categoria null");

    let novo = produto_classificado(COCA, &["refrigerante", "2l"], "bebidas", "2026-09-25T12:00:05Z");
    assert_eq!(evento(&app, "ProdutoClassificado", &novo).await, 204);
    let velho = produto_classificado(COCA, &["velho"], "outros", "2026-09-25T12:00:04Z");
    assert_eq!(evento(&app, "ProdutoClassificado", &velho).await, 204);
    let igual = produto_classificado(COCA, &["igual"], "outros", "2026-09-25T12:00:05Z");
    assert_eq!(evento(&app, "ProdutoClassificado", &igual).await, 204);
    assert_eq!(ler().await, (serde_json::json!(["refrigerante", "2l"]), Value::from("bebidas")));

    let mais_novo = produto_classificado(COCA, &["coca cola"], "mercearia", "2026-09-25T12:00:05.5Z");
    assert_eq!(evento(&app, "ProdutoClassificado", &mais_novo).await, 204);
    assert_eq!(ler().await, (serde_json::json!(["coca cola"]), Value::from("mercearia")));
    assert_eq!(
        prateleira(&app, COCA).await,
        (10, "DISPONIVEL".into()),
        "classification leaves the shelf alone"
    );
    assert!(solicitacoes(&app, COCA).await.is_empty());
}

#[tokio::test]
async fn events_for_skus_not_in_the_storefront_are_ignored_but_their_inbox_rows_kept() {
    let app = mercado(&[]).await;
    let enviada = reposicao_enviada(Uuid::new_v4(), BANANA, 5);
    let negada = reposicao_negada(Uuid::new_v4(), BANANA, "SEM_SALDO");
    let classificado = produto_classificado(BANANA, &["banana"], "hortifruti", "2026-09-25T12:00:05Z");
    assert_eq!(evento(&app, "ReposicaoEnviada", &enviada).await, 204);
    assert_eq!(evento(&app, "ReposicaoNegada", &negada).await, 204);
    assert_eq!(evento(&app, "ProdutoClassificado", &classificado).await, 204);

    for e in [&enviada, &negada, &classificado] {
        assert!(inbox_tem(&app, &e["eventId"]).await, "inbox row of {e}");
    }
    assert_eq!(contar(&app, "produto_vitrine").await, 0);
    assert_eq!(contar(&app, "outbox_event").await, 0);
}

#[tokio::test]
async fn only_estoque_s_token_may_deliver_events_and_an_operator_session_gets_403() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 5, 20).await;
    let body = reposicao_enviada(Uuid::new_v4(), COCA, 5);

    let anonimo = app
        .http
        .post(app.url("/eventos"))
        .header("evento-tipo", "ReposicaoEnviada")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(anonimo.status(), 401);
    assert!(anonimo.headers().get("www-authenticate").is_none());

    let op = Operador::login(&app).await;
    let sessao = op
        .on(app.http.post(app.url("/eventos")))
        .header("evento-tipo", "ReposicaoEnviada")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(sessao.status(), 403);
    let problema: Value = sessao.json().await.unwrap();
    assert_eq!(problema["detail"], "acesso negado");

    // mercado does not accept its own request type.
    let proprio = serde_json::json!({"eventId": Uuid::new_v4(), "sku": COCA, "qtdFaltante": 3, "ocorridoEm": "2026-09-25T12:00:00Z"});
    assert_eq!(evento(&app, "ReposicaoSolicitada", &proprio).await, 400);
    assert_eq!(prateleira(&app, COCA).await.0, 10, "nothing applied");
    assert_eq!(contar(&app, "inbox_event").await, 0);
}
