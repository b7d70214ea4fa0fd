//! The event console API (`/operacao/outbox`, issue 18) on both services: counts, a filtered
//! page, replay of dead letters (one, all; the `inbox.retencao` rule of `giro outbox retry`) and
//! discard, operator-only with CSRF on writes, bad parameters named in a 400.

use giro_servicos::config::Servico;
use serde_json::Value;
use uuid::Uuid;

use crate::support::app::{spawn_app, Operador, TestApp};

async fn insert(app: &TestApp, status: &str, tipo: &str, idade_dias: i32, erro: Option<&str>) -> Uuid {
    let c = app.db.client().await;
    let id = Uuid::new_v4();
    c.execute(
        "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, tentativas, ultimo_erro) \
         VALUES ($1, $2, '{\"sku\":\"7894900011517\"}', $3, now() - make_interval(days => $4), now(), 3, $5)",
        &[&id, &tipo, &status, &idade_dias, &erro],
    )
    .await
    .unwrap();
    id
}

async fn status_of(app: &TestApp, id: Uuid) -> Option<(String, i32)> {
    let c = app.db.client().await;
    c.query_opt("SELECT status, tentativas FROM outbox_event WHERE id = $1", &[&id])
        .await
        .unwrap()
        .map(|r| (r.get(0), r.get(1)))
}

async fn get(app: &TestApp, op: &Operador, path: &str) -> (u16, Value) {
    let res = op.on(app.http.get(app.url(path))).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn send(app: &TestApp, op: &Operador, method: reqwest::Method, path: &str) -> (u16, Value) {
    let res = op.on(app.http.request(method, app.url(path))).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn counts_pages_filters_and_names_a_bad_parameter() {
    let app = spawn_app(Servico::Mercado, &[]).await;
    let anon = app.http.get(app.url("/operacao/outbox")).send().await.unwrap();
    assert_eq!(anon.status(), 401);

    let falho = insert(&app, "FAILED", "ReposicaoSolicitada", 0, Some("HTTP 400: sku inválido")).await;
    insert(&app, "PENDING", "ReposicaoSolicitada", 0, None).await;
    insert(&app, "SENT", "ReposicaoSolicitada", 1, None).await;
    insert(&app, "SENT", "ProdutoClassificado", 2, None).await;
    let op = Operador::login(&app).await;

    let (s, r) = get(&app, &op, "/operacao/outbox").await;
    assert_eq!(s, 200, "{r}");
    assert_eq!(
        (r["pendentes"].as_i64(), r["enviados"].as_i64(), r["falhos"].as_i64()),
        (Some(1), Some(2), Some(1))
    );
    assert!(r["pendenteMaisAntigoSegundos"].as_i64().is_some(), "{r}");
    assert_eq!(r["retencaoInboxSegundos"], 30 * 86_400, "{r}");

    let (s, p) = get(&app, &op, "/operacao/outbox/eventos?status=failed").await;
    assert_eq!(s, 200, "{p}");
    assert_eq!(p["total"], 1);
    let e = &p["eventos"][0];
    assert_eq!(e["id"], falho.to_string());
    assert_eq!(e["ultimoErro"], "HTTP 400: sku inválido");
    assert_eq!(e["tentativas"], 3);
    assert_eq!(e["payload"]["sku"], "7894900011517");
    assert!(e["proximaTentativaEm"].is_string());

    let (_, p) = get(&app, &op, "/operacao/outbox/eventos?status=SENT&tipo=ProdutoClassificado").await;
    assert_eq!((p["total"].as_i64(), p["eventos"].as_array().map(Vec::len)), (Some(1), Some(1)));
    let (_, p) = get(&app, &op, "/operacao/outbox/eventos?tamanho=2&pagina=2").await;
    assert_eq!((p["total"].as_i64(), p["eventos"].as_array().map(Vec::len)), (Some(4), Some(2)));
    assert_eq!((p["pagina"].as_i64(), p["tamanho"].as_i64()), (Some(2), Some(2)));

    for (query, param) in [
        ("status=perdido", "status"),
        ("tipo=Nada", "tipo"),
        ("pagina=0", "pagina"),
        ("tamanho=abc", "tamanho"),
        ("tamanho=100000", "tamanho"),
    ] {
        let (s, b) = get(&app, &op, &format!("/operacao/outbox/eventos?{query}")).await;
        assert_eq!(s, 400, "{query}: {b}");
        let detail = b["detail"].as_str().unwrap();
        assert!(detail.starts_with(&format!("parâmetro inválido: {param} ")), "{query}: {detail}");
    }
}

#[tokio::test]
async fn replay_and_discard_follow_the_cli_rules() {
    let app = spawn_app(Servico::Estoque, &[]).await;
    let op = Operador::login(&app).await;
    let novo = insert(&app, "FAILED", "ReposicaoEnviada", 0, Some("HTTP 422")).await;
    let velho = insert(&app, "FAILED", "ReposicaoEnviada", 40, Some("HTTP 400")).await;
    let pendente = insert(&app, "PENDING", "ReposicaoEnviada", 0, None).await;

    // Writes need CSRF.
    let res = app
        .http
        .post(app.url(&format!("/operacao/outbox/eventos/{novo}/reenvio")))
        .header("cookie", &op.cookie)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);

    let post = reqwest::Method::POST;
    let (s, b) = send(&app, &op, post.clone(), &format!("/operacao/outbox/eventos/{novo}/reenvio")).await;
    assert_eq!((s, &b["reenviados"]), (200, &Value::from(1)), "{b}");
    assert_eq!(status_of(&app, novo).await, Some(("PENDING".into(), 0)));

    // Not a dead letter, unknown, not a UUID.
    let (s, b) = send(&app, &op, post.clone(), &format!("/operacao/outbox/eventos/{pendente}/reenvio")).await;
    assert_eq!(s, 409, "{b}");
    assert!(b["detail"].as_str().unwrap().contains("só eventos FAILED"), "{b}");
    let (s, _) =
        send(&app, &op, post.clone(), &format!("/operacao/outbox/eventos/{}/reenvio", Uuid::new_v4())).await;
    assert_eq!(s, 404);
    let (s, b) = send(&app, &op, post.clone(), "/operacao/outbox/eventos/xyz/reenvio").await;
    assert_eq!(s, 400);
    assert!(b["detail"].as_str().unwrap().starts_with("parâmetro inválido: id "), "{b}");

    // Older than inbox.retencao: refused with the reason, alone and in "all"; forced, it goes.
    let (s, b) = send(&app, &op, post.clone(), &format!("/operacao/outbox/eventos/{velho}/reenvio")).await;
    assert_eq!(s, 409, "{b}");
    let detail = b["detail"].as_str().unwrap();
    assert!(detail.contains("inbox.retencao") && detail.contains("forcar=true"), "{detail}");
    let (s, _) = send(&app, &op, post.clone(), "/operacao/outbox/reenvio").await;
    assert_eq!(s, 409);
    assert_eq!(status_of(&app, velho).await.unwrap().0, "FAILED");
    let (s, _) = send(&app, &op, post.clone(), "/operacao/outbox/reenvio?forcar=talvez").await;
    assert_eq!(s, 400);
    let (s, b) = send(&app, &op, post.clone(), "/operacao/outbox/reenvio?forcar=true").await;
    assert_eq!((s, &b["reenviados"]), (200, &Value::from(1)), "{b}");
    assert_eq!(status_of(&app, velho).await.unwrap().0, "PENDING");

    // Discard: only a dead letter, answered as it was.
    let morto = insert(&app, "FAILED", "ProdutoClassificado", 0, Some("HTTP 400: inválido")).await;
    let del = reqwest::Method::DELETE;
    let (s, _) =
        send(&app, &op, del.clone(), &format!("/operacao/outbox/eventos/{pendente}?motivo=teste")).await;
    assert_eq!(s, 409);
    let (s, b) =
        send(&app, &op, del.clone(), &format!("/operacao/outbox/eventos/{morto}?motivo=teste")).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(
        (&b["id"], &b["ultimoErro"]),
        (&Value::from(morto.to_string()), &Value::from("HTTP 400: inválido"))
    );
    assert_eq!(status_of(&app, morto).await, None);
    let (s, _) = send(&app, &op, del, &format!("/operacao/outbox/eventos/{morto}?motivo=teste")).await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn mercado_operator_reads_products_with_their_open_request_and_looks_a_sku_up_in_estoque() {
    // estoque is not running: the lookup answers 503, as POST /produtos would register unclassified.
    let app = spawn_app(Servico::Mercado, &[("ESTOQUE_URL", "http://127.0.0.1:9")]).await;
    let c = app.db.client().await;
    c.batch_execute(
        "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
           VALUES ('7894900011517', 'Café', 8.99, 0, 2, 10, 'ESGOTADO'), ('7891000100103', 'Arroz', 31.75, 7, 2, 10, 'DISPONIVEL'); \
         INSERT INTO solicitacao_reposicao (event_id, sku, qtd_solicitada, status, criado_em) \
           VALUES (gen_random_uuid(), '7894900011517', 10, 'AGUARDANDO_LOTE', now())",
    )
    .await
    .unwrap();
    assert_eq!(app.http.get(app.url("/operacao/produtos")).send().await.unwrap().status(), 401);
    let op = Operador::login(&app).await;
    let (s, b) = get(&app, &op, "/operacao/produtos").await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b[0]["nome"], "Arroz");
    assert_eq!((&b[0]["prateleira"], &b[0]["reposicaoAberta"]), (&Value::from(7), &Value::Null));
    assert_eq!((&b[1]["preco"], &b[1]["status"]), (&Value::from(8.99), &Value::from("ESGOTADO")));
    assert_eq!(b[1]["reposicaoAberta"]["status"], "AGUARDANDO_LOTE");
    assert_eq!(b[1]["reposicaoAberta"]["qtd"], 10);

    let (s, b) = get(&app, &op, "/operacao/estoque/produtos/123").await;
    assert_eq!(s, 400, "{b}");
    assert!(b["detail"].as_str().unwrap().starts_with("parâmetro inválido: sku "), "{b}");
    let (s, _) = get(&app, &op, "/operacao/estoque/produtos/7894900011517").await;
    assert_eq!(s, 503);
}
