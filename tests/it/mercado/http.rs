//! mercado's routes as SPEC §6.3 gives them: bodies, statuses, `Location`, problem details, the
//! catalogue's order and filters (`%` and `_` never wildcards), and exact money.

use serde_json::{json, Value};
use uuid::Uuid;

use crate::mercado::fixtures::*;
use crate::support::app::{assert_400, assert_json_quebrado_400, TestApp};

async fn listar(app: &TestApp, query: &str) -> Vec<String> {
    let res = app.http.get(app.url(&format!("/produtos{query}"))).send().await.unwrap();
    assert_eq!(res.status(), 200, "{query}");
    let body: Vec<Value> = res.json().await.unwrap();
    body.iter().map(|p| p["sku"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn the_catalogue_lists_available_products_first_then_by_name_and_filters() {
    let app = mercado(&[]).await;
    produto(&app, "7896005800027", "Café Torrado e Moído 500g", "15.90", 0, 5, 20).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    produto(&app, BANANA, "Banana Prata (kg)", "5.49", 3, 5, 20).await;
    produto(&app, "12345678", "Desconto 50%_off", "1.00", 1, 1, 1).await;
    produto(&app, "87654321", "Desconto 50xxoff", "1.00", 1, 1, 1).await;
    classificar_no_banco(&app, COCA, json!(["refrigerante"]), "bebidas").await;
    classificar_no_banco(&app, "7896005800027", json!(["cafe"]), "bebidas").await;

    assert_eq!(listar(&app, "").await, vec![BANANA, COCA, "12345678", "87654321", "7896005800027"]);
    assert_eq!(listar(&app, "?categoria=bebidas").await, vec![COCA, "7896005800027"]);
    assert_eq!(
        listar(&app, "?categoria=%20bebidas%20").await,
        vec![COCA, "7896005800027"],
        "values are stripped"
    );
    assert_eq!(listar(&app, "?categoria=&busca=%20").await.len(), 5, "blank means absent");
    assert_eq!(listar(&app, "?busca=COCA").await, vec![COCA], "name, case-insensitive");
    assert_eq!(listar(&app, "?busca=prata").await, vec![BANANA]);
    assert_eq!(listar(&app, &format!("?busca={BANANA}")).await, vec![BANANA], "the exact SKU");
    assert!(listar(&app, "?busca=2000000").await.is_empty(), "a SKU only matches whole");
    // Issue 26: the query is words; `%` and `_` separate them and are never wildcards. "50%_off"
    // is the quantity "50off" on both sides (the stored name too), which "50xxoff" is not.
    assert_eq!(listar(&app, "?busca=50%25_off").await, vec!["12345678"], "% and _ are no wildcards");
    assert!(listar(&app, "?busca=%25").await.is_empty(), "% is no wildcard");
    assert!(listar(&app, "?busca=_").await.is_empty(), "_ is no wildcard");
    assert_eq!(listar(&app, "?categoria=bebidas&busca=caf").await, vec!["7896005800027"]);
    assert_eq!(listar(&app, "?desconhecido=1").await.len(), 5, "unknown parameters are ignored");
}

#[tokio::test]
async fn a_product_is_answered_as_produto_resposta_and_an_unknown_one_is_an_empty_404() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    produto(&app, "7891962047205", "Pão de Forma Integral", "7.90", 0, 4, 12).await;
    classificar_no_banco(&app, COCA, json!(["refrigerante", "2l"]), "bebidas").await;

    let res = app.http.get(app.url(&format!("/produtos/{COCA}"))).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["content-type"], "application/json");
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"sku": COCA, "nome": "Coca-Cola 2L PET", "preco": 8.99, "status": "DISPONIVEL", "disponivel": 10,
               "categoria": "bebidas", "tags": ["refrigerante", "2l"], "reposicaoACaminho": false, "listado": true,
               "descricao": null, "imagem": null})
    );
    let texto = app.http.get(app.url("/produtos/7891962047205")).send().await.unwrap().text().await.unwrap();
    assert!(texto.contains(r#""preco":7.90"#), "the column's scale, as the original: {texto}");
    assert!(texto.contains(r#""status":"ESGOTADO""#) && texto.contains(r#""tags":[]"#), "{texto}");

    for sku in [BANANA, "nao-e-sku"] {
        let res = app.http.get(app.url(&format!("/produtos/{sku}"))).send().await.unwrap();
        assert_eq!(res.status(), 404);
        assert!(res.text().await.unwrap().is_empty(), "the original's empty-bodied 404");
    }
}

/// Honest copy (issue 26): "Reposição a caminho" only while a request is in flight (PENDENTE); a
/// request the warehouse could not serve (AGUARDANDO_LOTE), or none, is no restock on its way.
#[tokio::test]
async fn reposicao_a_caminho_is_true_only_while_a_request_is_pending() {
    let app = mercado(&[]).await;
    let pao = "7891962047205";
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 0, 6, 24).await;
    produto(&app, pao, "Pão de Forma Integral", "7.90", 0, 4, 12).await;
    produto(&app, BANANA, "Banana Prata", "5.90", 0, 4, 12).await;
    let c = app.db.client().await;
    for (sku, status) in [(COCA, "PENDENTE"), (pao, "AGUARDANDO_LOTE"), (BANANA, "ATENDIDA")] {
        c.execute(
            "INSERT INTO solicitacao_reposicao (event_id, sku, qtd_solicitada, status, criado_em) \
             VALUES ($1, $2, 12, $3, now())",
            &[&uuid::Uuid::new_v4(), &sku, &status],
        )
        .await
        .unwrap();
    }

    let lista: Value = app.http.get(app.url("/produtos")).send().await.unwrap().json().await.unwrap();
    let mut a_caminho: Vec<(String, bool)> = lista
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["sku"].as_str().unwrap().to_string(), p["reposicaoACaminho"].as_bool().unwrap()))
        .collect();
    a_caminho.sort();
    assert_eq!(
        a_caminho,
        vec![(BANANA.to_string(), false), (pao.to_string(), false), (COCA.to_string(), true)]
    );
    for (sku, esperado) in [(COCA, true), (pao, false), (BANANA, false)] {
        let p: Value =
            app.http.get(app.url(&format!("/produtos/{sku}"))).send().await.unwrap().json().await.unwrap();
        assert_eq!(p["reposicaoACaminho"], esperado, "{sku}");
    }

    // The warehouse answers "no balance": nothing is on its way any more.
    c.execute("UPDATE solicitacao_reposicao SET status = 'AGUARDANDO_LOTE' WHERE sku = $1", &[&COCA])
        .await
        .unwrap();
    let p: Value =
        app.http.get(app.url(&format!("/produtos/{COCA}"))).send().await.unwrap().json().await.unwrap();
    assert_eq!(p["reposicaoACaminho"], false);
}

#[tokio::test]
async fn checkout_answers_201_with_location_and_an_exact_total() {
    let app = mercado(&[]).await;
    produto(&app, DETERGENTE, "Detergente Neutro 500ml", "2.79", 40, 10, 40).await;
    produto(&app, LEITE, "Leite Integral 1L", "0.10", 48, 12, 48).await;

    let res = comprar(&app, &[(DETERGENTE, 3), (LEITE, 1)]).await;
    assert_eq!(res.status(), 201);
    let location = res.headers()["location"].to_str().unwrap().to_string();
    let texto = res.text().await.unwrap();
    assert!(texto.contains(r#""total":8.47"#), "3 × 2.79 + 1 × 0.10 = 8.47 exactly: {texto}");
    let body: Value = serde_json::from_str(&texto).unwrap();
    let id: Uuid = body["pedidoId"].as_str().unwrap().parse().unwrap();
    assert_eq!(location, format!("/pedidos/{id}"));
    let expira: chrono::DateTime<chrono::Utc> = body["reservaExpiraEm"].as_str().unwrap().parse().unwrap();
    let ttl = expira - chrono::Utc::now();
    assert!(
        ttl > chrono::Duration::minutes(14) && ttl <= chrono::Duration::minutes(15),
        "15-minute reservation: {ttl}"
    );

    let res = app.http.get(app.url(&location)).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let texto = res.text().await.unwrap();
    assert!(texto.contains(r#""total":8.47"#) && texto.contains(r#""precoUnitario":2.79"#), "{texto}");
    let d: Value = serde_json::from_str(&texto).unwrap();
    assert_eq!(d["id"], id.to_string());
    assert_eq!(d["status"], "AGUARDANDO_PAGAMENTO");
    assert_eq!(d["reservaExpiraEm"], body["reservaExpiraEm"], "the page shows the same deadline");
    assert!(d["criadoEm"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        d["itens"],
        json!([{"sku": LEITE, "nome": "Leite Integral 1L", "qtd": 1, "precoUnitario": 0.10},
               {"sku": DETERGENTE, "nome": "Detergente Neutro 500ml", "qtd": 3, "precoUnitario": 2.79}])
    );
    assert_eq!(
        d.as_object().unwrap().keys().cloned().collect::<Vec<_>>(),
        vec!["criadoEm", "id", "itens", "numero", "reservaExpiraEm", "status", "total"]
    );
    // Issue 26: the short number and the date, the same in the checkout's answer and the page.
    assert_eq!(d["numero"], body["numero"]);
    assert!(d["numero"].as_i64().unwrap() >= 1001, "numbers start at 1001: {d}");
    assert_eq!(d["criadoEm"], body["criadoEm"]);
}

#[tokio::test]
async fn bad_carts_are_400_naming_the_field_and_write_nothing() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;

    let muitos: Vec<Value> = (0..51).map(|_| json!({"sku": COCA, "qtd": 1})).collect();
    let casos: Vec<(Value, &str)> = vec![
        (json!({"itens": []}), "itens não deve estar vazio"),
        (json!({}), "itens não deve estar vazio"),
        (json!({"itens": null}), "itens não deve estar vazio"),
        (json!({"itens": muitos}), "itens tamanho deve ser entre 0 e 50"),
        (json!({"itens": [{"sku": COCA, "qtd": 0}]}), "itens[0].qtd deve ser maior que 0"),
        (
            json!({"itens": [{"sku": COCA, "qtd": 1}, {"sku": COCA, "qtd": -1}]}),
            "itens[1].qtd deve ser maior que 0",
        ),
        (json!({"itens": [{"sku": "789490001151X", "qtd": 1}]}), "itens[0].sku deve corresponder a"),
        (json!({"itens": [{"qtd": 1}]}), "itens[0].sku não deve ser nulo"),
        (json!({"itens": [{"sku": COCA}]}), "itens[0].qtd não deve ser nulo"),
        (json!({"itens": [{"sku": COCA, "qtd": "um"}]}), "qtd"),
        (json!({"itens": [{"sku": COCA, "qtd": 3_000_000_000_i64}]}), "qtd"),
        (
            json!({"itens": [{"sku": COCA, "qtd": 2_000_000_000}, {"sku": COCA, "qtd": 2_000_000_000}]}),
            "quantidade excede o limite para o SKU",
        ),
    ];
    for (body, esperado) in casos {
        let res = app.http.post(app.url("/pedidos")).json(&body).send().await.unwrap();
        let problema = assert_400(res, &body, esperado).await;
        assert_eq!(problema["status"], 400);
        assert_eq!(problema["instance"], "/pedidos");
    }
    assert_json_quebrado_400(app.http.post(app.url("/pedidos"))).await;
    let res = app.http.post(app.url("/pedidos")).body(r#"{"itens":[]}"#).send().await.unwrap();
    assert_eq!(res.status(), 415, "a body that is not JSON");

    assert_eq!(prateleira(&app, COCA).await.0, 10);
    for tabela in ["pedido", "reserva", "outbox_event"] {
        assert_eq!(contar(&app, tabela).await, 0, "{tabela}");
    }
}

#[tokio::test]
async fn a_short_item_is_409_with_the_title_and_the_sku() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 2, 1, 24).await;
    let res = comprar(&app, &[(COCA, 3)]).await;
    assert_eq!(res.status(), 409);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"type": "about:blank", "title": "Estoque insuficiente", "status": 409,
               "detail": format!("Estoque insuficiente para o SKU {COCA}: solicitado 3, disponível 2"),
               "instance": "/pedidos", "sku": COCA})
    );
}

#[tokio::test]
async fn storefront_routes_are_anonymous_without_csrf_and_unlisted_ones_are_denied() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 24).await;
    // A browser with a CSRF cookie but no header still buys and pays (CSRF is off on these routes).
    let res = app
        .http
        .post(app.url("/pedidos"))
        .header("cookie", "XSRF-MERCADO=abc")
        .json(&json!({"itens": [{"sku": COCA, "qtd": 1}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let id = res.json::<Value>().await.unwrap()["pedidoId"].as_str().unwrap().to_string();
    let res = app
        .http
        .post(app.url(&format!("/pedidos/{id}/pagamento")))
        .header("cookie", "XSRF-MERCADO=abc")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);

    for (metodo, caminho) in [
        ("DELETE", format!("/produtos/{COCA}")),
        ("PUT", "/pedidos".to_string()),
        ("GET", "/actuator/env".to_string()),
    ] {
        let res = app.http.request(metodo.parse().unwrap(), app.url(&caminho)).send().await.unwrap();
        assert_eq!(res.status(), 401, "{metodo} {caminho}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
    }
}

/// Issue 37 §3: `GET /produtos` answered the whole catalogue (50 000 products: 10 MB in 1.6 s).
/// It is now a page of at most 1 000 in the storefront's order — the original's array — with
/// `X-Total-Count`; `pagina` and `tamanho` page on, and a bad one is a 400 naming it.
#[tokio::test]
async fn the_catalogue_answers_a_page_of_at_most_a_thousand_with_the_total_count() {
    let app = mercado(&[]).await;
    app.db
        .client()
        .await
        .execute(
            "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
             SELECT (7890000000000 + i)::text, 'Produto ' || lpad(i::text, 4, '0'), 1.00, 5, 1, 10, 'DISPONIVEL' \
             FROM generate_series(1, 1001) i",
            &[],
        )
        .await
        .unwrap();
    let pagina = |q: &'static str| {
        let app = &app;
        async move {
            let res = app.http.get(app.url(&format!("/produtos{q}"))).send().await.unwrap();
            assert_eq!(res.status(), 200, "{q}");
            let total = res.headers()["x-total-count"].to_str().unwrap().to_string();
            let body: Vec<Value> = res.json().await.unwrap();
            let skus: Vec<String> = body.iter().map(|p| p["sku"].as_str().unwrap().to_string()).collect();
            (skus, total)
        }
    };
    let (primeira, total) = pagina("").await;
    assert_eq!((primeira.len(), total.as_str()), (1000, "1001"));
    assert_eq!(primeira[0], "7890000000001", "in the storefront's order");
    assert_eq!(pagina("?pagina=2").await, (vec!["7890000001001".to_string()], "1001".to_string()));
    let (duas, _) = pagina("?pagina=3&tamanho=2").await;
    assert_eq!(duas, ["7890000000005", "7890000000006"]);
    for (q, nome) in [("?tamanho=0", "tamanho"), ("?tamanho=1001", "tamanho"), ("?pagina=x", "pagina")] {
        let res = app.http.get(app.url(&format!("/produtos{q}"))).send().await.unwrap();
        assert_400(res, &json!(q), &format!("Parâmetro inválido: {nome}")).await;
    }
    // A word shorter than a trigram is answered in the storefront's order, at most 100.
    assert_eq!(listar(&app, "?busca=o").await.len(), 100);
}
