//! Checkout and the restock trigger against a real PostgreSQL (SPEC §3.4–3.5): the spec's
//! numbers, concurrent buyers of the last units, and the whole-order rollback.

use serde_json::Value;

use crate::mercado::fixtures::*;

#[tokio::test]
async fn selling_6_of_10_with_minimum_5_requests_16_once_and_further_sales_request_nothing() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 5, 20).await;

    comprar_ok(&app, &[(COCA, 6)]).await;
    assert_eq!(prateleira(&app, COCA).await, (4, "DISPONIVEL".into()));
    let s = solicitacoes(&app, COCA).await;
    assert_eq!(s.len(), 1);
    assert_eq!((s[0].qtd, s[0].status.as_str()), (16, "PENDENTE"));
    let eventos = outbox(&app, "ReposicaoSolicitada", COCA).await;
    assert_eq!(eventos.len(), 1);
    let e = &eventos[0];
    assert_eq!(e["qtdFaltante"], 16);
    assert_eq!(e["sku"], COCA);
    assert_eq!(e["eventId"].as_str().unwrap(), s[0].event_id.to_string(), "the request keeps the event id");
    assert!(e["ocorridoEm"].as_str().unwrap().ends_with('Z'));

    // While the request is open, more sales ask for nothing more.
    comprar_ok(&app, &[(COCA, 1)]).await;
    comprar_ok(&app, &[(COCA, 3)]).await;
    assert_eq!(prateleira(&app, COCA).await, (0, "ESGOTADO".into()));
    assert_eq!(solicitacoes(&app, COCA).await.len(), 1);
    assert_eq!(outbox(&app, "ReposicaoSolicitada", COCA).await.len(), 1);
}

#[tokio::test]
async fn at_the_minimum_exactly_nothing_is_requested() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 5, 20).await;

    comprar_ok(&app, &[(COCA, 5)]).await;
    assert_eq!(prateleira(&app, COCA).await, (5, "DISPONIVEL".into()));
    assert!(solicitacoes(&app, COCA).await.is_empty());
    assert!(outbox(&app, "ReposicaoSolicitada", COCA).await.is_empty());

    comprar_ok(&app, &[(COCA, 1)]).await;
    assert_eq!(solicitacoes(&app, COCA).await.iter().map(|s| s.qtd).collect::<Vec<_>>(), vec![16]);
}

#[tokio::test]
async fn ten_concurrent_buyers_of_one_unit_for_five_sell_five_and_request_nine_once() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 5, 2, 10).await;

    let compras = (0..10).map(|_| comprar(&app, &[(COCA, 1)]));
    let respostas = futures_util::future::join_all(compras).await;
    let mut status: Vec<u16> = respostas.iter().map(|r| r.status().as_u16()).collect();
    status.sort();
    assert_eq!(status, [vec![201; 5], vec![409; 5]].concat());
    for r in respostas.into_iter().filter(|r| r.status() == 409) {
        let body: Value = r.json().await.unwrap();
        assert_eq!(body["title"], "Estoque insuficiente");
        assert_eq!(body["sku"], COCA);
        assert_eq!(
            body["detail"],
            format!("Estoque insuficiente para o SKU {COCA}: solicitado 1, disponível 0")
        );
    }

    assert_eq!(prateleira(&app, COCA).await, (0, "ESGOTADO".into()));
    assert_eq!(contar(&app, "pedido").await, 5);
    assert_eq!(contar(&app, "reserva").await, 5);
    let s = solicitacoes(&app, COCA).await;
    assert_eq!(s.iter().map(|s| (s.qtd, s.status.as_str())).collect::<Vec<_>>(), vec![(9, "PENDENTE")]);
    let eventos = outbox(&app, "ReposicaoSolicitada", COCA).await;
    assert_eq!(eventos.iter().map(|e| e["qtdFaltante"].as_i64().unwrap()).collect::<Vec<_>>(), vec![9]);
}

#[tokio::test]
async fn one_short_item_rolls_the_whole_order_back() {
    let app = mercado(&[]).await;
    // BANANA sorts first: its debit (which would also trigger a restock) happens before COCA fails.
    produto(&app, BANANA, "Banana Prata (kg)", "5.49", 6, 5, 20).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 1, 1, 10).await;

    let res = comprar(&app, &[(COCA, 2), (BANANA, 3)]).await;
    assert_eq!(res.status(), 409);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["sku"], COCA);
    assert_eq!(body["title"], "Estoque insuficiente");

    assert_eq!(prateleira(&app, BANANA).await, (6, "DISPONIVEL".into()), "no debit survives");
    assert_eq!(prateleira(&app, COCA).await, (1, "DISPONIVEL".into()));
    for tabela in ["pedido", "item_pedido", "reserva", "solicitacao_reposicao", "outbox_event"] {
        assert_eq!(contar(&app, tabela).await, 0, "{tabela} has rows");
    }
}

#[tokio::test]
async fn a_sku_not_in_the_storefront_refuses_the_order_with_422_and_writes_nothing() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 10).await;

    let res = comprar(&app, &[(COCA, 1), (BANANA, 1)]).await;
    assert_eq!(res.status(), 422);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["detail"], format!("Produto não encontrado na vitrine: {BANANA}"));
    assert_eq!(body["instance"], "/pedidos");
    assert_eq!(prateleira(&app, COCA).await.0, 10);
    assert_eq!(contar(&app, "pedido").await, 0);
}

#[tokio::test]
async fn repeated_skus_are_consolidated_and_every_product_touched_is_evaluated() {
    let app = mercado(&[]).await;
    produto(&app, DETERGENTE, "Detergente Neutro 500ml", "2.79", 12, 10, 40).await;
    produto(&app, LEITE, "Leite Integral 1L", "0.10", 20, 12, 48).await;

    let res = comprar(&app, &[(DETERGENTE, 1), (LEITE, 1), (DETERGENTE, 2)]).await;
    assert_eq!(res.status(), 201);
    let texto = res.text().await.unwrap();
    assert!(texto.contains(r#""total":8.47"#), "3 × 2.79 + 1 × 0.10 = 8.47 exactly: {texto}");

    assert_eq!(prateleira(&app, DETERGENTE).await.0, 9);
    assert_eq!(prateleira(&app, LEITE).await.0, 19);
    assert_eq!(contar(&app, "item_pedido").await, 2, "one line per SKU");
    assert_eq!(solicitacoes(&app, DETERGENTE).await.iter().map(|s| s.qtd).collect::<Vec<_>>(), vec![31]);
    assert!(solicitacoes(&app, LEITE).await.is_empty(), "19 is above the minimum of 12");
}

#[tokio::test]
async fn concurrent_orders_listing_the_same_skus_in_opposite_orders_all_complete() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 50, 5, 60).await;
    produto(&app, BANANA, "Banana Prata (kg)", "5.49", 50, 5, 60).await;

    let compras = (0..12).map(|i| {
        let itens: &[(&str, i32)] =
            if i % 2 == 0 { &[(COCA, 2), (BANANA, 1)] } else { &[(BANANA, 1), (COCA, 2)] };
        comprar(&app, itens)
    });
    let status: Vec<u16> =
        futures_util::future::join_all(compras).await.iter().map(|r| r.status().as_u16()).collect();
    assert_eq!(status, vec![201; 12], "locks in ascending SKU order: no deadlock");
    assert_eq!(prateleira(&app, COCA).await.0, 26);
    assert_eq!(prateleira(&app, BANANA).await.0, 38);
}

/// A checkout pipelines its writes (the order row, then its lines and reservations): on a fresh
/// connection, whose statements are not prepared yet, the order row must still go first. 32
/// concurrent checkouts on a fresh pool of 16 (each connection's first checkouts among them) are
/// all 201; before the statements were prepared ahead of the pipeline, some answered 500 (the
/// order's lines reached the database before the order).
#[tokio::test]
async fn the_first_checkouts_of_fresh_connections_are_all_accepted() {
    let app = mercado(&[("GIRO_DB_POOL_MAX", "16")]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 1000, 1, 1000).await;
    // The pool opens a connection per checkout in flight; none of them has run a checkout yet.
    let compras = (0..32).map(|_| comprar(&app, &[(COCA, 1)]));
    let respostas = futures_util::future::join_all(compras).await;
    let mut falhas = Vec::new();
    for r in respostas {
        if r.status() != 201 {
            falhas.push(format!("{}: {}", r.status(), r.text().await.unwrap_or_default()));
        }
    }
    assert!(falhas.is_empty(), "{falhas:?}");
    assert_eq!(prateleira(&app, COCA).await.0, 1000 - 32);
}
