//! Product registration (SPEC §3.10) against a real HTTP estoque stand-in on loopback: unknown
//! SKU, estoque down or slow, classification inherited, and the first restock request.

use std::time::Duration;

use serde_json::{json, Value};

use crate::mercado::fixtures::*;
use crate::support::app::{assert_400, assert_json_quebrado_400, Operador, TestApp};
use crate::support::ESTOQUE_TOKEN;

fn coca(minimo: i32, ideal: i32) -> Value {
    json!({"sku": COCA, "nome": "  Coca-Cola 2L PET ", "preco": 8.99, "estoqueMinimo": minimo, "estoqueIdeal": ideal})
}

async fn cadastrar(app: &TestApp, op: &Operador, body: &Value) -> reqwest::Response {
    op.on(app.http.post(app.url("/produtos"))).json(body).send().await.unwrap()
}

async fn nada_escrito(app: &TestApp) {
    for tabela in ["produto_vitrine", "solicitacao_reposicao", "outbox_event"] {
        assert_eq!(contar(app, tabela).await, 0, "{tabela} has rows");
    }
}

#[tokio::test]
async fn a_new_product_starts_sold_out_and_its_first_request_asks_for_ideal() {
    let estoque = FakeEstoque::start(Resposta::Ok(no_estoque(COCA, None, None))).await;
    let app = mercado(&[("ESTOQUE_URL", &estoque.url)]).await;
    let op = Operador::login(&app).await;

    let res = cadastrar(&app, &op, &coca(6, 24)).await;
    assert_eq!(res.status(), 201);
    assert_eq!(res.headers()["location"], format!("/produtos/{COCA}"));
    let texto = res.text().await.unwrap();
    assert!(texto.contains(r#""preco":8.99"#), "the price is a JSON number, exact: {texto}");
    let body: Value = serde_json::from_str(&texto).unwrap();
    assert_eq!(
        body,
        json!({"sku": COCA, "nome": "Coca-Cola 2L PET", "preco": 8.99, "status": "ESGOTADO", "disponivel": 0,
               "categoria": null, "tags": [], "reposicaoACaminho": true, "listado": true,
               "descricao": null, "imagem": null})
    );

    assert_eq!(prateleira(&app, COCA).await, (0, "ESGOTADO".into()));
    let s = solicitacoes(&app, COCA).await;
    assert_eq!(s.iter().map(|s| (s.qtd, s.status.as_str())).collect::<Vec<_>>(), vec![(24, "PENDENTE")]);
    let eventos = outbox(&app, "ReposicaoSolicitada", COCA).await;
    assert_eq!(eventos.len(), 1);
    assert_eq!(eventos[0]["qtdFaltante"], 24);

    let chamadas = estoque.chamadas();
    assert_eq!(chamadas.len(), 1);
    assert_eq!(
        (chamadas[0].metodo.as_str(), chamadas[0].caminho.as_str()),
        ("GET", format!("/produtos/{COCA}").as_str())
    );
    assert_eq!(
        chamadas[0].autorizacao.as_deref(),
        Some(format!("Bearer {ESTOQUE_TOKEN}").as_str()),
        "estoque's token"
    );
    assert_eq!(chamadas[0].versao, "HTTP/1.1");
}

#[tokio::test]
async fn a_sku_unknown_to_estoque_is_refused_with_422_and_nothing_is_written() {
    let estoque = FakeEstoque::start(Resposta::NaoEncontrado).await;
    let app = mercado(&[("ESTOQUE_URL", &estoque.url)]).await;
    let op = Operador::login(&app).await;

    let res = cadastrar(&app, &op, &coca(6, 24)).await;
    assert_eq!(res.status(), 422);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["detail"], format!("SKU desconhecido no estoque: {COCA}"));
    assert_eq!(body["instance"], "/produtos");
    nada_escrito(&app).await;
}

async fn registra_sem_classificacao(resposta: Resposta) {
    let estoque = FakeEstoque::start(resposta).await;
    let app = mercado(&[("ESTOQUE_URL", &estoque.url)]).await;
    let op = Operador::login(&app).await;

    // A generous outer bound: a slow estoque never answers, so an answer at all means the
    // catalogue client gave up on its own timeout (the speed itself is for `giro bench`).
    let res = tokio::time::timeout(Duration::from_secs(60), cadastrar(&app, &op, &coca(6, 24)))
        .await
        .expect("the registration waited for estoque beyond its timeout");
    assert_eq!(res.status(), 201);
    let body: Value = res.json().await.unwrap();
    assert_eq!((body["tags"].clone(), body["categoria"].clone()), (json!([]), Value::Null));
    assert_eq!(solicitacoes(&app, COCA).await.iter().map(|s| s.qtd).collect::<Vec<_>>(), vec![24]);
    assert_eq!(estoque.chamadas().len(), 1);
}

#[tokio::test]
async fn estoque_answering_503_still_registers_without_classification() {
    registra_sem_classificacao(Resposta::Indisponivel).await;
}

#[tokio::test]
async fn estoque_never_answering_still_registers_without_classification_after_the_timeout() {
    registra_sem_classificacao(Resposta::Lenta).await;
}

#[tokio::test]
async fn estoque_down_still_registers_without_classification() {
    // Nothing listens on the default test address.
    let app = mercado(&[]).await;
    let op = Operador::login(&app).await;
    assert_eq!(cadastrar(&app, &op, &coca(6, 24)).await.status(), 201);
    assert_eq!(prateleira(&app, COCA).await, (0, "ESGOTADO".into()));
}

#[tokio::test]
async fn a_product_classified_in_estoque_inherits_tags_and_categoria_and_an_older_event_does_not_overwrite_them(
) {
    let estoque = FakeEstoque::start(Resposta::Ok(no_estoque(
        COCA,
        Some(&["refrigerante", "coca cola"]),
        Some("bebidas"),
    )))
    .await;
    let app = mercado(&[("ESTOQUE_URL", &estoque.url)]).await;
    let op = Operador::login(&app).await;

    let res = cadastrar(&app, &op, &coca(6, 24)).await;
    assert_eq!(res.status(), 201);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["tags"], json!(["refrigerante", "coca cola"]));
    assert_eq!(body["categoria"], "bebidas");
    assert_eq!(body["status"], "ESGOTADO", "classification never touches the shelf");

    // A classification from before the registration arrives late: ignored.
    let velho = produto_classificado(COCA, &["velho"], "outros", "2026-01-01T00:00:00Z");
    assert_eq!(evento(&app, "ProdutoClassificado", &velho).await, 204);
    let p: Value =
        app.http.get(app.url(&format!("/produtos/{COCA}"))).send().await.unwrap().json().await.unwrap();
    assert_eq!(
        (p["tags"].clone(), p["categoria"].clone()),
        (json!(["refrigerante", "coca cola"]), json!("bebidas"))
    );
}

#[tokio::test]
async fn a_blank_classification_in_estoque_registers_unclassified() {
    let estoque = FakeEstoque::start(Resposta::Ok(no_estoque(COCA, Some(&[]), Some("bebidas")))).await;
    let app = mercado(&[("ESTOQUE_URL", &estoque.url)]).await;
    let op = Operador::login(&app).await;
    let body: Value = cadastrar(&app, &op, &coca(6, 24)).await.json().await.unwrap();
    assert_eq!((body["tags"].clone(), body["categoria"].clone()), (json!([]), Value::Null));
}

#[tokio::test]
async fn a_sku_already_in_the_storefront_is_409_without_asking_estoque() {
    let estoque = FakeEstoque::start(Resposta::Ok(no_estoque(COCA, None, None))).await;
    let app = mercado(&[("ESTOQUE_URL", &estoque.url)]).await;
    let op = Operador::login(&app).await;
    assert_eq!(cadastrar(&app, &op, &coca(6, 24)).await.status(), 201);

    let res = cadastrar(&app, &op, &coca(6, 24)).await;
    assert_eq!(res.status(), 409);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["detail"], format!("Produto já cadastrado na vitrine: {COCA}"));
    assert_eq!(estoque.chamadas().len(), 1, "the second registration never called estoque");
    assert_eq!(solicitacoes(&app, COCA).await.len(), 1);
}

#[tokio::test]
async fn bad_registrations_are_400_naming_the_field_and_write_nothing() {
    let estoque = FakeEstoque::start(Resposta::Ok(no_estoque(COCA, None, None))).await;
    let app = mercado(&[("ESTOQUE_URL", &estoque.url)]).await;
    let op = Operador::login(&app).await;

    let casos: Vec<(Value, &str)> = vec![
        (
            json!({"sku": "123", "nome": "x", "preco": 1, "estoqueMinimo": 1, "estoqueIdeal": 1}),
            "sku deve corresponder a",
        ),
        (json!({"nome": "x", "preco": 1, "estoqueMinimo": 1, "estoqueIdeal": 1}), "sku não deve ser nulo"),
        (
            json!({"sku": COCA, "nome": "  ", "preco": 1, "estoqueMinimo": 1, "estoqueIdeal": 1}),
            "nome não deve estar em branco",
        ),
        (
            json!({"sku": COCA, "nome": "x".repeat(256), "preco": 1, "estoqueMinimo": 1, "estoqueIdeal": 1}),
            "nome tamanho deve ser entre 0 e 255",
        ),
        (json!({"sku": COCA, "nome": "x", "estoqueMinimo": 1, "estoqueIdeal": 1}), "preco não deve ser nulo"),
        (
            json!({"sku": COCA, "nome": "x", "preco": 0, "estoqueMinimo": 1, "estoqueIdeal": 1}),
            "preco deve ser maior que 0.00",
        ),
        (
            json!({"sku": COCA, "nome": "x", "preco": -3.5, "estoqueMinimo": 1, "estoqueIdeal": 1}),
            "preco deve ser maior que 0.00",
        ),
        (
            json!({"sku": COCA, "nome": "x", "preco": 8.999, "estoqueMinimo": 1, "estoqueIdeal": 1}),
            "preco valor numérico fora do limite",
        ),
        (
            json!({"sku": COCA, "nome": "x", "preco": 123456789.5, "estoqueMinimo": 1, "estoqueIdeal": 1}),
            "preco valor numérico fora do limite",
        ),
        (
            json!({"sku": COCA, "nome": "x", "preco": true, "estoqueMinimo": 1, "estoqueIdeal": 1}),
            "preco deve ser um número",
        ),
        (
            json!({"sku": COCA, "nome": "x", "preco": 1, "estoqueMinimo": 0, "estoqueIdeal": 1}),
            "estoqueMinimo deve ser maior que 0",
        ),
        (json!({"sku": COCA, "nome": "x", "preco": 1, "estoqueMinimo": 1}), "estoqueIdeal não deve ser nulo"),
        (
            json!({"sku": COCA, "nome": "x", "preco": 1, "estoqueMinimo": 1, "estoqueIdeal": "dez"}),
            "estoqueIdeal",
        ),
        (
            json!({"sku": COCA, "nome": "x", "preco": 1, "estoqueMinimo": 6, "estoqueIdeal": 5}),
            "exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min=6 ideal=5",
        ),
    ];
    for (body, esperado) in casos {
        assert_400(cadastrar(&app, &op, &body).await, &body, esperado).await;
    }
    assert_json_quebrado_400(op.on(app.http.post(app.url("/produtos")))).await;

    nada_escrito(&app).await;
    assert!(estoque.chamadas().is_empty(), "bad input never reaches estoque");
}

#[tokio::test]
async fn registration_needs_an_operator_session_and_csrf() {
    let estoque = FakeEstoque::start(Resposta::Ok(no_estoque(COCA, None, None))).await;
    let app = mercado(&[("ESTOQUE_URL", &estoque.url)]).await;

    // With CSRF but without a session: 401, no WWW-Authenticate.
    let csrf = "0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a";
    // A registration with a valid double-submit CSRF pair and whatever else `rb` carries.
    let com_csrf = |rb: reqwest::RequestBuilder| {
        rb.header("cookie", format!("XSRF-MERCADO={csrf}")).header("x-xsrf-token", csrf).json(&coca(6, 24))
    };
    let res = com_csrf(app.http.post(app.url("/produtos"))).send().await.unwrap();
    assert_eq!(res.status(), 401);
    assert!(res.headers().get("www-authenticate").is_none());
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["detail"], "autenticação necessária");

    // With the session but without the CSRF header: 403.
    let op = Operador::login(&app).await;
    let res = app
        .http
        .post(app.url("/produtos"))
        .header("cookie", &op.cookie)
        .json(&coca(6, 24))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);

    // The service token is not an operator.
    let res = com_csrf(app.as_servico(app.http.post(app.url("/produtos")))).send().await.unwrap();
    assert_eq!(res.status(), 403);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["detail"], "acesso negado");
    nada_escrito(&app).await;

    // Session and CSRF: created.
    assert_eq!(cadastrar(&app, &op, &coca(6, 24)).await.status(), 201);

    // After logout the session no longer counts.
    let res = op.on(app.http.delete(app.url("/sessao"))).send().await.unwrap();
    assert_eq!(res.status(), 204);
    let res = cadastrar(
        &app,
        &op,
        &json!({"sku": BANANA, "nome": "Banana", "preco": 5.49, "estoqueMinimo": 5, "estoqueIdeal": 20}),
    )
    .await;
    assert_eq!(res.status(), 401);
}
