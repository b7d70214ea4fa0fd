//! The reads of SPEC §6.2: `GET /produtos/{sku}` (service token or operator) and the dashboard
//! (`/painel/resumo`, `/painel/demandas`, `/painel/reposicoes`), with their exact semantics.

use serde_json::{json, Value};
use uuid::Uuid;

use crate::estoque::fixtures::*;
use crate::support::app::{Operador, TestApp};
use crate::support::{ESTOQUE_TOKEN, MERCADO_TOKEN};

async fn get(app: &TestApp, op: &Operador, path: &str) -> (u16, Value) {
    let res = op.on(app.http.get(app.url(path))).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn resumo_counts_shippable_balance_open_demand_and_lots_expiring_within_30_days() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    lote(&app, COCA, "L+30", 10, Some(30)).await;
    lote(&app, COCA, "L+31", 10, Some(31)).await;
    lote(&app, COCA, "L-1", 10, Some(-1)).await;
    lote(&app, COCA, "L-SEM", 10, None).await;
    produto(&app, BANANA, "BANANA PRATA KG", None).await;
    assert_eq!(solicitar(&app, Uuid::new_v4(), BANANA, 5).await, 204);
    let op = Operador::login(&app).await;

    let (status, body) = get(&app, &op, "/painel/resumo").await;

    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"skusCadastrados": 2, "skusSemSaldo": 1, "demandasAbertas": 1, "lotesVencendo": 1})
    );

    // Today counts as expiring; an emptied lot does not; a product with only expired lots has
    // no shippable balance, though its saldo_disponivel is not zero.
    lote(&app, COCA, "L+0", 10, Some(0)).await;
    let vazio = lote(&app, COCA, "L+5-VAZIO", 10, Some(5)).await;
    let c = app.db.client().await;
    c.execute("UPDATE lote SET quantidade_disponivel = 0 WHERE id = $1", &[&vazio]).await.unwrap();
    c.execute("UPDATE produto_estoque SET saldo_disponivel = saldo_disponivel - 10 WHERE sku = $1", &[&COCA])
        .await
        .unwrap();
    produto(&app, "7891962047205", "PAO DE FORMA INTEGRAL 400G", None).await;
    lote(&app, "7891962047205", "L-PAO-01", 60, Some(-1)).await;

    let (_, body) = get(&app, &op, "/painel/resumo").await;
    assert_eq!(
        body,
        json!({"skusCadastrados": 3, "skusSemSaldo": 2, "demandasAbertas": 1, "lotesVencendo": 2})
    );
}

#[tokio::test]
async fn demandas_lists_open_demands_in_the_order_they_will_be_served() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    produto(&app, BANANA, "BANANA PRATA KG", None).await;
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    assert_eq!(solicitar(&app, a, BANANA, 5).await, 204);
    assert_eq!(solicitar(&app, b, COCA, 16).await, 204);
    let op = Operador::login(&app).await;

    let (status, body) = get(&app, &op, "/painel/demandas").await;

    assert_eq!(status, 200);
    let lista = body.as_array().unwrap();
    assert_eq!(lista.len(), 2);
    let c = app.db.client().await;
    let (id, registrado): (i64, chrono::DateTime<chrono::Utc>) = {
        let r = c
            .query_one(
                "SELECT id, registrado_em FROM demanda_reprimida WHERE solicitacao_original = $1",
                &[&a],
            )
            .await
            .unwrap();
        (r.get(0), r.get(1))
    };
    assert_eq!(
        lista[0],
        json!({"id": id, "sku": BANANA, "descricao": "BANANA PRATA KG", "qtdSolicitada": 5,
               "registradoEm": giro_contracts::instante::formatar(&registrado)})
    );
    assert_eq!(lista[1]["sku"], COCA);
    assert_eq!(lista[1]["qtdSolicitada"], 16);

    // A served demand leaves the list.
    let (status, _) =
        registrar_lote(&app, &op, json!({"sku": BANANA, "codigoLote": "L-1", "quantidade": 10})).await;
    assert_eq!(status, 201);
    let (_, body) = get(&app, &op, "/painel/demandas").await;
    assert_eq!(body.as_array().unwrap().len(), 1);
    assert_eq!(body[0]["sku"], COCA);
}

#[tokio::test]
async fn reposicoes_shows_entregue_em_once_delivered_and_after_the_outbox_row_is_pruned() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    lote(&app, COCA, "L2026-09-A", 50, None).await;
    assert_eq!(solicitar(&app, Uuid::new_v4(), COCA, 16).await, 204);
    assert_eq!(solicitar(&app, Uuid::new_v4(), COCA, 4).await, 204);
    let op = Operador::login(&app).await;
    let eventos = outbox(&app).await;
    let (primeiro, segundo) = (&eventos[0].1, &eventos[1].1);

    let (status, body) = get(&app, &op, "/painel/reposicoes").await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!([
            {"eventId": segundo["eventId"], "sku": COCA, "descricao": "COCA COLA 2L PET", "qtd": 4,
             "codigoLote": "L2026-09-A", "expedidoEm": segundo["ocorridoEm"], "entregueEm": null},
            {"eventId": primeiro["eventId"], "sku": COCA, "descricao": "COCA COLA 2L PET", "qtd": 16,
             "codigoLote": "L2026-09-A", "expedidoEm": primeiro["ocorridoEm"], "entregueEm": null},
        ]),
        "newest first, not delivered yet"
    );

    // The publisher delivers the first one (simulated: it marks the row SENT).
    let c = app.db.client().await;
    let id: Uuid = primeiro["eventId"].as_str().unwrap().parse().unwrap();
    let enviado: chrono::DateTime<chrono::Utc> = c
        .query_one(
            "UPDATE outbox_event SET status = 'SENT', enviado_em = now() WHERE id = $1 RETURNING enviado_em",
            &[&id],
        )
        .await
        .unwrap()
        .get(0);
    let entregue = giro_contracts::instante::formatar(&enviado);
    let (_, body) = get(&app, &op, "/painel/reposicoes").await;
    assert_eq!(body[1]["entregueEm"], entregue);
    assert_eq!(body[0]["entregueEm"], Value::Null);

    // Retention prunes SENT rows; the dashboard still knows when it was delivered.
    let apagadas = c.execute("DELETE FROM outbox_event WHERE status = 'SENT'", &[]).await.unwrap();
    assert_eq!(apagadas, 1);
    let (_, body) = get(&app, &op, "/painel/reposicoes").await;
    assert_eq!(body.as_array().unwrap().len(), 2);
    assert_eq!(body[1]["entregueEm"], entregue);
}

#[tokio::test]
async fn reposicoes_limite_defaults_to_20_and_is_clamped_to_1_100() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    let l = lote(&app, COCA, "L-1", 500, None).await;
    let c = app.db.client().await;
    c.execute(
        "INSERT INTO reposicao_expedida (event_id, correlation_id, sku, lote_id, qtd, expedido_em) \
         SELECT gen_random_uuid(), gen_random_uuid(), $1, $2, n, now() - n * interval '1 minute' FROM generate_series(1, 25) n",
        &[&COCA, &l],
    )
    .await
    .unwrap();
    let op = Operador::login(&app).await;
    let quantos = |body: &Value| body.as_array().map(Vec::len).unwrap_or(0);

    let (status, body) = get(&app, &op, "/painel/reposicoes").await;
    assert_eq!(status, 200);
    assert_eq!(quantos(&body), 20);
    assert_eq!(body[0]["qtd"], 1, "newest first");
    assert_eq!(quantos(&get(&app, &op, "/painel/reposicoes?limite=3").await.1), 3);
    assert_eq!(quantos(&get(&app, &op, "/painel/reposicoes?limite=0").await.1), 1);
    assert_eq!(quantos(&get(&app, &op, "/painel/reposicoes?limite=-7").await.1), 1);
    assert_eq!(quantos(&get(&app, &op, "/painel/reposicoes?limite=1000").await.1), 25);
    assert_eq!(quantos(&get(&app, &op, "/painel/reposicoes?limite=").await.1), 20, "empty = default");

    let (status, problem) = get(&app, &op, "/painel/reposicoes?limite=muitos").await;
    assert_eq!(status, 400);
    assert!(problem["detail"].as_str().unwrap().contains("limite"), "{problem}");
}

#[tokio::test]
async fn the_dashboard_is_for_the_operator_only() {
    let app = estoque(&[]).await;
    for path in ["/painel/resumo", "/painel/demandas", "/painel/reposicoes"] {
        let res = app.http.get(app.url(path)).send().await.unwrap();
        assert_eq!(res.status(), 401, "{path}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let res = app.as_servico(app.http.get(app.url(path))).send().await.unwrap();
        assert_eq!(res.status(), 403, "{path}: the service token is not an operator");
    }
}

#[tokio::test]
// The lot expired yesterday: its 60 units are no balance (issue 26: "saldo 60" was shown for them).
async fn produto_answers_the_service_token_and_the_operator_and_404s_unknown_skus_with_an_empty_body() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    lote(&app, COCA, "L-1", 60, Some(-1)).await;
    let path = format!("/produtos/{COCA}");
    let esperado = json!({"sku": COCA, "descricao": "COCA COLA 2L PET", "ncm": "22021000", "tags": null,
                          "categoria": null, "saldoDisponivel": 0, "saldoVencido": 60});

    let res = app.http.get(app.url(&path)).bearer_auth(ESTOQUE_TOKEN).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap(), esperado);

    let op = Operador::login(&app).await;
    let (status, body) = get(&app, &op, &path).await;
    assert_eq!(status, 200);
    assert_eq!(body, esperado);

    let res = app.http.get(app.url(&path)).send().await.unwrap();
    assert_eq!(res.status(), 401, "anonymous");
    let res = app.http.get(app.url(&path)).bearer_auth(MERCADO_TOKEN).send().await.unwrap();
    assert_eq!(res.status(), 401, "another service's token is no token");

    for desconhecido in ["7891000100103", "abc"] {
        let res =
            app.as_servico(app.http.get(app.url(&format!("/produtos/{desconhecido}")))).send().await.unwrap();
        assert_eq!(res.status(), 404, "{desconhecido}");
        assert_eq!(res.text().await.unwrap(), "", "the original's empty 404");
        // Issue 39, additive: `opcional=true` makes it a 204 the browser does not log.
        let (status, _) = get(&app, &op, &format!("/produtos/{desconhecido}?opcional=true")).await;
        assert_eq!(status, 204, "{desconhecido}");
    }
    let (status, body) = get(&app, &op, &format!("{path}?opcional=true")).await;
    assert_eq!((status, body), (200, esperado), "a known SKU answers as before");
}

#[tokio::test]
async fn sessao_opcional_answers_200_with_no_operator_instead_of_401() {
    // Issue 39, additive: the login page asks `GET /sessao?opcional=true` and logs no 401.
    let app = estoque(&[]).await;
    let res = app.http.get(app.url("/sessao")).send().await.unwrap();
    assert_eq!(res.status(), 401, "the original's answer is unchanged");
    let res = app.http.get(app.url("/sessao?opcional=true")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap(), json!({"usuario": null}));
    let op = Operador::login(&app).await;
    let (status, body) = get(&app, &op, "/sessao?opcional=true").await;
    assert_eq!(status, 200);
    assert!(body["usuario"].is_string(), "{body}");
}

#[tokio::test]
async fn entregue_em_comes_from_the_real_publisher_and_survives_retention_of_the_outbox() {
    use crate::support::peer::{FakePeer, Lote};
    let mercado = FakePeer::start(Lote::Supported).await;
    let app = estoque(&[("MERCADO_EVENTOS_URL", &mercado.url()), ("GIRO_OUTBOX_RETENCAO", "1s")]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    lote(&app, COCA, "L-ENTREGA", 50, Some(60)).await;
    assert_eq!(solicitar(&app, Uuid::new_v4(), COCA, 16).await, 204);
    let op = Operador::login(&app).await;
    let (_, body) = get(&app, &op, "/painel/reposicoes").await;
    assert_eq!(body[0]["entregueEm"], Value::Null, "not delivered yet: \"enviando\"");

    let p = giro_servicos::server::publisher_de(
        &app.config,
        giro_servicos::config::Servico::Estoque,
        app.dbh.pool.clone(),
        app.dbh.signal.clone(),
        false,
    )
    .unwrap();
    let r = p.round(chrono::Utc::now()).await.unwrap();
    assert_eq!(r.sent, 1);
    assert_eq!(mercado.all()[0].tipo, "ReposicaoEnviada");
    let (_, body) = get(&app, &op, "/painel/reposicoes").await;
    let entregue = body[0]["entregueEm"].as_str().expect("entregueEm once delivered").to_string();

    // Retention (1 s) prunes the SENT row; the dashboard keeps the instant.
    let sent = p.retencao().prune(chrono::Utc::now() + chrono::Duration::seconds(5)).await.unwrap();
    assert_eq!(sent, 1);
    let c = app.db.client().await;
    let left: i64 = c
        .query_one("SELECT count(*) FROM outbox_event WHERE tipo = 'ReposicaoEnviada'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
    let (_, body) = get(&app, &op, "/painel/reposicoes").await;
    assert_eq!(body[0]["entregueEm"], entregue);
    assert_eq!(body[0]["qtd"], 16);
}
