//! Issue 26, point 3: the shop owner's orders (`GET /operacao/pedidos`, `GET
//! /operacao/pedidos/{id}`) and product changes (`PATCH /operacao/produtos/{sku}`): their
//! answers, validation (400 problem+json naming the field, nothing written), authorization
//! (anonymous 401, no CSRF 403) and SQL (the restock a raised minimum writes in the same
//! transaction; an unlisted product refused at checkout).

use serde_json::{json, Value};
use uuid::Uuid;

use crate::mercado::fixtures::*;
use crate::support::app::{assert_400, Operador, TestApp};

async fn patch(app: &TestApp, op: &Operador, sku: &str, body: &Value) -> reqwest::Response {
    op.on(app.http.patch(app.url(&format!("/operacao/produtos/{sku}")))).json(body).send().await.unwrap()
}

async fn get(app: &TestApp, op: &Operador, caminho: &str) -> reqwest::Response {
    op.on(app.http.get(app.url(caminho))).send().await.unwrap()
}

/// (preco as text, minimo, ideal, listado, versao) of a product.
async fn cadastro_no_banco(app: &TestApp, sku: &str) -> (String, i32, i32, bool, i64) {
    let r = app
        .db
        .client()
        .await
        .query_one(
            "SELECT preco::text, estoque_minimo, estoque_ideal, listado, versao FROM produto_vitrine WHERE sku = $1",
            &[&sku],
        )
        .await
        .unwrap();
    (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4))
}

#[tokio::test]
async fn patch_changes_price_thresholds_and_listing() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    let op = Operador::login(&app).await;

    let res = patch(&app, &op, COCA, &json!({"preco": 9.49, "estoqueIdeal": 30})).await;
    assert_eq!(res.status(), 200);
    let texto = res.text().await.unwrap();
    assert!(texto.contains(r#""preco":9.49"#), "{texto}");
    let body: Value = serde_json::from_str(&texto).unwrap();
    assert_eq!(
        (&body["sku"], &body["estoqueMinimo"], &body["estoqueIdeal"], &body["listado"], &body["prateleira"]),
        (&json!(COCA), &json!(6), &json!(30), &json!(true), &json!(10))
    );
    assert_eq!(cadastro_no_banco(&app, COCA).await, ("9.49".into(), 6, 30, true, 1));

    // Shelf 10 >= minimum 6: nothing to restock.
    assert!(solicitacoes(&app, COCA).await.is_empty());

    let res = patch(&app, &op, COCA, &json!({"listado": false})).await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["listado"], false);
    assert_eq!(cadastro_no_banco(&app, COCA).await, ("9.49".into(), 6, 30, false, 2));

    // Out of the catalogue: not listed, not bought; the cart is told what to do.
    let lista: Vec<Value> = app.http.get(app.url("/produtos")).send().await.unwrap().json().await.unwrap();
    assert!(lista.is_empty(), "{lista:?}");
    let res = comprar(&app, &[(COCA, 1)]).await;
    assert_eq!(res.status(), 422);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let p: Value = res.json().await.unwrap();
    assert_eq!(
        p["detail"],
        format!(
            "O produto {COCA} saiu do catálogo e não pode ser comprado; retire-o do carrinho para continuar"
        )
    );
    assert_eq!(p["sku"], COCA);
    assert_eq!(prateleira(&app, COCA).await, (10, "DISPONIVEL".into()), "nothing reserved");
    assert_eq!(contar(&app, "pedido").await, 0);

    // Listed again, it sells.
    assert_eq!(patch(&app, &op, COCA, &json!({"listado": true})).await.status(), 200);
    comprar_ok(&app, &[(COCA, 1)]).await;
}

#[tokio::test]
async fn a_minimum_raised_above_the_shelf_requests_a_restock_in_the_same_transaction() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    let op = Operador::login(&app).await;

    let res = patch(&app, &op, COCA, &json!({"estoqueMinimo": 12})).await;
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["reposicaoAberta"]["qtd"], 14, "ideal 24 − shelf 10");
    assert_eq!(body["reposicaoAberta"]["status"], "PENDENTE");

    let s = solicitacoes(&app, COCA).await;
    assert_eq!(s.iter().map(|s| (s.qtd, s.status.as_str())).collect::<Vec<_>>(), vec![(14, "PENDENTE")]);
    let eventos = outbox(&app, "ReposicaoSolicitada", COCA).await;
    assert_eq!(eventos.len(), 1);
    assert_eq!(eventos[0]["qtdFaltante"], 14);
    assert_eq!(eventos[0]["eventId"], s[0].event_id.to_string());

    // One transaction wrote the product's change and the request: the same xmin.
    let c = app.db.client().await;
    let xmin = |t: &'static str| {
        let c = &c;
        async move {
            let r =
                c.query_one(&format!("SELECT xmin::text FROM {t} WHERE sku = $1"), &[&COCA]).await.unwrap();
            r.get::<_, String>(0)
        }
    };
    assert_eq!(xmin("produto_vitrine").await, xmin("solicitacao_reposicao").await);

    // An open request: a second raise asks for nothing more.
    assert_eq!(patch(&app, &op, COCA, &json!({"estoqueMinimo": 20})).await.status(), 200);
    assert_eq!(solicitacoes(&app, COCA).await.len(), 1);
    assert_eq!(outbox(&app, "ReposicaoSolicitada", COCA).await.len(), 1);
}

#[tokio::test]
async fn bad_changes_are_400_naming_the_field_and_write_nothing() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    let op = Operador::login(&app).await;
    let casos: Vec<(Value, &str)> = vec![
        (json!({}), "informe ao menos um de nome, descricao, categoria, preco, estoqueMinimo, estoqueIdeal ou listado"),
        (json!({"preco": 0}), "preco deve ser maior que 0"),
        (json!({"preco": 8.999}), "preco"),
        (json!({"preco": "abc"}), "preco"),
        (json!({"estoqueMinimo": 0}), "estoqueMinimo deve ser maior que 0"),
        (json!({"estoqueMinimo": "dez"}), "estoqueMinimo deve ser um número inteiro"),
        (json!({"estoqueIdeal": 3_000_000_000_i64}), "estoqueIdeal deve ser um número inteiro"),
        (json!({"listado": "sim"}), "listado deve ser true ou false"),
        (
            json!({"estoqueMinimo": 30}),
            "exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min=30 ideal=24",
        ),
        (json!({"estoqueIdeal": 5}), "exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min=6 ideal=5"),
    ];
    for (body, esperado) in casos {
        assert_400(patch(&app, &op, COCA, &body).await, &body, esperado).await;
    }
    let res = patch(&app, &op, "123", &json!({"preco": 1})).await;
    assert_eq!(res.status(), 400);
    assert!(res.json::<Value>().await.unwrap()["detail"]
        .as_str()
        .unwrap()
        .contains("sku deve corresponder a"));
    assert_eq!(cadastro_no_banco(&app, COCA).await, ("8.99".into(), 6, 24, true, 0), "nothing written");
    assert!(solicitacoes(&app, COCA).await.is_empty());

    let res = patch(&app, &op, BANANA, &json!({"preco": 1})).await;
    assert_eq!(res.status(), 404);
    assert_eq!(
        res.json::<Value>().await.unwrap()["detail"],
        format!("Produto não encontrado na vitrine: {BANANA}")
    );
}

#[tokio::test]
async fn the_owner_s_routes_need_a_session_and_patch_needs_csrf() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    let id = comprar_ok(&app, &[(COCA, 1)]).await;
    let csrf = "0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a";
    for caminho in ["/operacao/pedidos".to_string(), format!("/operacao/pedidos/{id}")] {
        let res = app.http.get(app.url(&caminho)).send().await.unwrap();
        assert_eq!(res.status(), 401, "{caminho}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
    }
    let res = app
        .http
        .patch(app.url(&format!("/operacao/produtos/{COCA}")))
        .header("cookie", format!("XSRF-MERCADO={csrf}"))
        .header("x-xsrf-token", csrf)
        .json(&json!({"preco": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);

    let op = Operador::login(&app).await;
    let res = app
        .http
        .patch(app.url(&format!("/operacao/produtos/{COCA}")))
        .header("cookie", &op.cookie)
        .json(&json!({"preco": 1}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403, "the session without the CSRF header");
    // versao 1: the checkout's debit; the refused changes wrote nothing.
    assert_eq!(cadastro_no_banco(&app, COCA).await, ("8.99".into(), 6, 24, true, 1), "nothing written");
}

/// Sets an order's creation instant (the list filters by it).
async fn datar(app: &TestApp, id: Uuid, quando: &str) {
    app.db
        .client()
        .await
        .execute("UPDATE pedido SET criado_em = $2::text::timestamptz WHERE id = $1", &[&id, &quando])
        .await
        .unwrap();
}

#[tokio::test]
async fn orders_are_listed_newest_first_by_page_status_and_period() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 100, 6, 24).await;
    produto(&app, DETERGENTE, "Detergente Neutro 500ml", "2.79", 100, 10, 40).await;
    let a = comprar_ok(&app, &[(COCA, 2), (DETERGENTE, 3)]).await;
    let b = comprar_ok(&app, &[(COCA, 1)]).await;
    let c = comprar_ok(&app, &[(DETERGENTE, 1)]).await;
    datar(&app, a, "2026-12-01T10:00:00Z").await;
    datar(&app, b, "2026-12-02T10:00:00Z").await;
    datar(&app, c, "2026-12-03T10:00:00Z").await;
    let pago = app.http.post(app.url(&format!("/pedidos/{b}/pagamento"))).send().await.unwrap();
    assert_eq!(pago.status(), 200);
    let op = Operador::login(&app).await;

    let res = get(&app, &op, "/operacao/pedidos").await;
    assert_eq!(res.status(), 200);
    let texto = res.text().await.unwrap();
    assert!(texto.contains(r#""total":26.35"#), "2 × 8.99 + 3 × 2.79 = 26.35 exactly: {texto}");
    let pagina: Value = serde_json::from_str(&texto).unwrap();
    assert_eq!(
        (pagina["total"].as_i64(), pagina["pagina"].as_i64(), pagina["tamanho"].as_i64()),
        (Some(3), Some(1), Some(20))
    );
    let itens = pagina["itens"].as_array().unwrap();
    let ids: Vec<&str> = itens.iter().map(|p| p["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec![c.to_string(), b.to_string(), a.to_string()], "newest first");
    let numeros: Vec<i64> = itens.iter().map(|p| p["numero"].as_i64().unwrap()).collect();
    assert_eq!(numeros, vec![1003, 1002, 1001]);
    assert_eq!(
        itens[2],
        json!({"id": a.to_string(), "numero": 1001, "status": "AGUARDANDO_PAGAMENTO", "total": 26.35,
               "criadoEm": "2026-12-01T10:00:00Z", "itens": 2, "unidades": 5})
    );
    assert_eq!(itens[1]["status"], "PAGO");

    let so = |q: &'static str| {
        let (app, op) = (&app, &op);
        async move {
            let res = get(app, op, &format!("/operacao/pedidos?{q}")).await;
            assert_eq!(res.status(), 200, "{q}");
            let v: Value = res.json().await.unwrap();
            let ids: Vec<String> = v["itens"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["id"].as_str().unwrap().to_string())
                .collect();
            (ids, v["total"].as_i64().unwrap())
        }
    };
    assert_eq!(so("status=PAGO").await, (vec![b.to_string()], 1));
    assert_eq!(
        so("de=2026-12-02T00:00:00-03:00&ate=2026-12-03T10:00:00Z").await,
        (vec![b.to_string()], 1),
        "de inclusive, ate exclusive"
    );
    assert_eq!(so("tamanho=2").await, (vec![c.to_string(), b.to_string()], 3));
    assert_eq!(so("tamanho=2&pagina=2").await, (vec![a.to_string()], 3));
    assert_eq!(so("pagina=9").await, (vec![], 3));

    for (q, esperado) in [
        ("status=PERDIDO", "Parâmetro inválido: status deve ser um de AGUARDANDO_PAGAMENTO, PAGO, CANCELADO, EXPIRADO: PERDIDO"),
        ("de=ontem", "Parâmetro inválido: de deve ser um instante ISO-8601"),
        ("ate=2026-12-01", "Parâmetro inválido: ate deve ser um instante ISO-8601"),
        ("de=2026-12-02T00:00:00Z&ate=2026-12-01T00:00:00Z", "Parâmetro inválido: ate deve ser posterior a de."),
        ("pagina=0", "Parâmetro inválido: pagina deve ser um número inteiro de 1 a 1000000: 0"),
        ("tamanho=101", "Parâmetro inválido: tamanho deve ser um número inteiro de 1 a 100: 101"),
    ] {
        let res = get(&app, &op, &format!("/operacao/pedidos?{q}")).await;
        assert_eq!(res.status(), 400, "{q}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let p: Value = res.json().await.unwrap();
        assert!(p["detail"].as_str().unwrap().starts_with(esperado), "{q} → {}", p["detail"]);
    }
}

#[tokio::test]
async fn an_order_s_detail_shows_items_reservations_payment_and_expiry() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 100, 6, 24).await;
    produto(&app, DETERGENTE, "Detergente Neutro 500ml", "2.79", 100, 10, 40).await;
    let id = comprar_ok(&app, &[(COCA, 2), (DETERGENTE, 3)]).await;
    let op = Operador::login(&app).await;

    let d: Value = get(&app, &op, &format!("/operacao/pedidos/{id}")).await.json().await.unwrap();
    assert_eq!(d["id"], id.to_string());
    assert_eq!(d["numero"], 1001);
    assert_eq!(d["status"], "AGUARDANDO_PAGAMENTO");
    assert_eq!(d["total"], 26.35);
    assert_eq!(d["pagamento"], Value::Null);
    let reservas = d["reservas"].as_array().unwrap();
    assert_eq!(
        reservas
            .iter()
            .map(|r| (r["sku"].as_str().unwrap(), r["qtd"].as_i64().unwrap(), r["status"].as_str().unwrap()))
            .collect::<Vec<_>>(),
        vec![(DETERGENTE, 3, "ATIVA"), (COCA, 2, "ATIVA")]
    );
    assert_eq!(reservas[0]["expiraEm"], d["reservaExpiraEm"]);
    assert_eq!(d["itens"].as_array().unwrap().len(), 2);

    let pago = app.http.post(app.url(&format!("/pedidos/{id}/pagamento"))).send().await.unwrap();
    assert_eq!(pago.status(), 200);
    let d: Value = get(&app, &op, &format!("/operacao/pedidos/{id}")).await.json().await.unwrap();
    assert_eq!(d["status"], "PAGO");
    assert!(d["pagamento"]["pagoEm"].as_str().unwrap().ends_with('Z'), "{d}");
    assert!(d["reservas"].as_array().unwrap().iter().all(|r| r["status"] == "CONFIRMADA"));

    let res = get(&app, &op, &format!("/operacao/pedidos/{}", Uuid::nil())).await;
    assert_eq!(res.status(), 404);
    let res = get(&app, &op, "/operacao/pedidos/1001").await;
    assert_eq!(res.status(), 400);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
}
