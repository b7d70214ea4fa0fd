//! Lot intake, `POST /lotes` (SPEC §3.13, §6.2): pent-up demand served oldest first, the
//! tag-worker asked before the transaction and never blocking, the 400/409 answers, and the
//! operator + CSRF rule of §6.1.

use std::time::Duration;

use serde_json::{json, Value};
use uuid::Uuid;

use crate::estoque::fixtures::*;
use crate::support::app::{assert_400, assert_json_quebrado_400, Operador};
use crate::support::ESTOQUE_TOKEN;

#[tokio::test]
async fn a_lot_of_50_serves_a_pent_up_demand_of_16_answering_the_original_request() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", Some(&["coca"])).await;
    let pedido = Uuid::new_v4();
    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204);
    let op = Operador::login(&app).await;

    let (status, body) = registrar_lote(
        &app,
        &op,
        json!({"sku": COCA, "codigoLote": "L-50", "quantidade": 50, "validade": hoje_mais(&app, 120).await}),
    )
    .await;

    assert_eq!(status, 201, "{body}");
    assert!(body["loteId"].as_i64().is_some(), "{body}");
    assert_eq!(
        body,
        json!({"loteId": body["loteId"], "sku": COCA, "saldoDisponivel": 34, "classificado": true, "demandasAtendidas": 1})
    );
    let eventos = outbox(&app).await;
    assert_eq!(eventos.len(), 2, "the SEM_SALDO denial, then the shipment: {eventos:?}");
    let (tipo, p) = &eventos[1];
    assert_eq!(tipo, "ReposicaoEnviada");
    assert_eq!(p["correlationId"], pedido.to_string(), "the shipment answers the original request");
    assert_eq!(p["qtd"], 16);
    assert_eq!(p["lote"], "L-50");
    assert!(demandas_abertas(&app, COCA).await.is_empty());
    assert_eq!(saldo(&app, COCA).await, 34);
}

#[tokio::test]
async fn a_lot_of_6_ships_6_and_closes_the_demand_of_16() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", Some(&["coca"])).await;
    let pedido = Uuid::new_v4();
    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204);
    let op = Operador::login(&app).await;

    let (status, body) =
        registrar_lote(&app, &op, json!({"sku": COCA, "codigoLote": "L-6", "quantidade": 6})).await;

    assert_eq!(status, 201, "{body}");
    assert_eq!(body["demandasAtendidas"], 1);
    assert_eq!(body["saldoDisponivel"], 0);
    let eventos = outbox(&app).await;
    assert_eq!(eventos[1].1["qtd"], 6);
    assert_eq!(eventos[1].1["correlationId"], pedido.to_string());
    assert!(demandas_abertas(&app, COCA).await.is_empty(), "a partial shipment closes the demand");
}

#[tokio::test]
async fn an_expired_lot_posted_as_the_originals_clients_post_it_is_recorded_and_never_ships() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", Some(&["coca"])).await;
    let pedido = Uuid::new_v4();
    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204);
    let op = Operador::login(&app).await;
    let ontem = hoje_mais(&app, -1).await;

    // The original's body: no `confirmarVencido` (SPEC §3.13, §6.2.1).
    let (status, body) = registrar_lote(
        &app,
        &op,
        json!({"sku": COCA, "codigoLote": "L-VENCIDO", "quantidade": 30, "validade": ontem}),
    )
    .await;

    assert_eq!(status, 201, "{body}");
    assert!(body["loteId"].as_i64().is_some(), "{body}");
    assert_eq!(
        body,
        json!({"loteId": body["loteId"], "sku": COCA, "saldoDisponivel": 0, "classificado": true, "demandasAtendidas": 0})
    );
    // Recorded, as expired: no valid unit more than before, 30 expired ones.
    let res = app.as_servico(app.http.get(app.url(&format!("/produtos/{COCA}")))).send().await.unwrap();
    let produto: Value = res.json().await.unwrap();
    assert_eq!((produto["saldoDisponivel"].clone(), produto["saldoVencido"].clone()), (json!(0), json!(30)));
    // Nothing shipped, and the demand still waits for a valid lot.
    let tipos: Vec<String> = outbox(&app).await.into_iter().map(|(t, _)| t).collect();
    assert_eq!(tipos, vec!["ReposicaoNegada"], "only the earlier denial: no ReposicaoEnviada");
    let c = app.db.client().await;
    let expedidas: i64 = c.query_one("SELECT count(*) FROM reposicao_expedida", &[]).await.unwrap().get(0);
    assert_eq!(expedidas, 0);
    assert_eq!(demandas_abertas(&app, COCA).await, vec![(16, pedido)]);

    // A later request is denied as before: the expired lot never ships.
    let depois = Uuid::new_v4();
    assert_eq!(solicitar(&app, depois, COCA, 5).await, 204);
    let eventos = outbox(&app).await;
    assert_eq!(eventos.len(), 2, "{eventos:?}");
    assert_eq!((eventos[1].0.as_str(), &eventos[1].1["motivo"]), ("ReposicaoNegada", &json!("SEM_SALDO")));
    assert_eq!(demandas_abertas(&app, COCA).await, vec![(16, pedido), (5, depois)]);

    // It shows up for write-off: the SKU is "so-vencido", and the lot can be written off.
    let res = op.on(app.http.get(app.url(&format!("/painel/estoque/{COCA}")))).send().await.unwrap();
    let pagina: Value = res.json().await.unwrap();
    assert_eq!(pagina["estado"], "so-vencido", "{pagina}");
    assert_eq!(pagina["lotes"][0]["codigoLote"], "L-VENCIDO");
    assert_eq!(pagina["lotes"][0]["vencido"], true);
    let res = op
        .on(app.http.post(app.url(&format!("/painel/estoque/{COCA}/lotes/L-VENCIDO/baixa"))))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["qtd"], 30);
}

#[tokio::test]
async fn an_expired_lot_is_taken_in_with_or_without_confirmation_serving_nothing_while_one_due_today_ships() {
    let worker = FakeWorker::start(Modo::Ok).await;
    let app = estoque(&[("TAG_WORKER_URL", &worker.url)]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    let pedido = Uuid::new_v4();
    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204);
    let op = Operador::login(&app).await;

    let ontem = hoje_mais(&app, -1).await;
    let (status, body) = registrar_lote(
        &app,
        &op,
        json!({"sku": COCA, "codigoLote": "L-VENCIDO", "quantidade": 30, "validade": ontem}),
    )
    .await;

    assert_eq!(status, 201, "{body}");
    assert_eq!(body["demandasAtendidas"], 0);
    assert_eq!(body["saldoDisponivel"], 0);
    assert_eq!(body["classificado"], true, "an untagged product is classified as with any lot");
    assert_eq!(saldo(&app, COCA).await, 30, "the bookkeeping balance holds it until it is written off");
    let n: i64 = app.db.client().await.query_one("SELECT count(*) FROM lote", &[]).await.unwrap().get(0);
    assert_eq!(n, 1);
    assert_eq!(worker.chamadas(), 1, "the tag-worker is asked, as for any lot of an untagged product");
    let tipos: Vec<String> = outbox(&app).await.into_iter().map(|(t, _)| t).collect();
    assert_eq!(
        tipos,
        vec!["ReposicaoNegada", "ProdutoClassificado"],
        "the earlier denial, the tags: no shipment"
    );
    assert_eq!(demandas_abertas(&app, COCA).await, vec![(16, pedido)]);

    // `confirmarVencido` is still accepted (the dashboard sends it once the operator confirms).
    let (status, body) = registrar_lote(
        &app,
        &op,
        json!({"sku": COCA, "codigoLote": "L-VENCIDO-2", "quantidade": 10, "validade": ontem, "confirmarVencido": true}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["demandasAtendidas"], 0);
    assert_eq!(body["saldoDisponivel"], 0);
    assert_eq!(saldo(&app, COCA).await, 40);
    assert_eq!(demandas_abertas(&app, COCA).await, vec![(16, pedido)]);

    // A lot whose validade is today still ships: it is taken in and serves the demand.
    let hoje = hoje_mais(&app, 0).await;
    let (status, body) = registrar_lote(
        &app,
        &op,
        json!({"sku": COCA, "codigoLote": "L-HOJE", "quantidade": 30, "validade": hoje}),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    assert_eq!(body["demandasAtendidas"], 1);
    assert_eq!(body["saldoDisponivel"], 14);
    let enviada = outbox(&app).await.pop().unwrap();
    assert_eq!((enviada.0.as_str(), &enviada.1["lote"]), ("ReposicaoEnviada", &json!("L-HOJE")));
}

#[tokio::test]
async fn the_balance_answered_counts_valid_units_only() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", Some(&["coca"])).await;
    lote(&app, COCA, "L-VELHO", 60, Some(-1)).await;
    let op = Operador::login(&app).await;

    let (status, body) =
        registrar_lote(&app, &op, json!({"sku": COCA, "codigoLote": "L-NOVO", "quantidade": 5})).await;

    assert_eq!(status, 201, "{body}");
    assert_eq!(body["saldoDisponivel"], 5, "the 60 expired units are not balance");
    let res = app.as_servico(app.http.get(app.url(&format!("/produtos/{COCA}")))).send().await.unwrap();
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["saldoDisponivel"], 5);
    assert_eq!(body["saldoVencido"], 60);
}

#[tokio::test]
async fn open_demands_are_served_oldest_first_until_no_lot_can_ship() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", Some(&["coca"])).await;
    let (a, b, c) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    for (id, qtd) in [(a, 16), (b, 10), (c, 5)] {
        assert_eq!(solicitar(&app, id, COCA, qtd).await, 204);
    }
    let op = Operador::login(&app).await;

    let (status, body) =
        registrar_lote(&app, &op, json!({"sku": COCA, "codigoLote": "L-20", "quantidade": 20})).await;

    assert_eq!(status, 201, "{body}");
    assert_eq!(body["demandasAtendidas"], 2);
    assert_eq!(body["saldoDisponivel"], 0);
    // Served oldest first: the first demand got all 16, the second what was left (4).
    let mut enviadas: Vec<(String, i64)> = outbox(&app)
        .await
        .into_iter()
        .filter(|(t, _)| t == "ReposicaoEnviada")
        .map(|(_, p)| (p["correlationId"].as_str().unwrap().to_string(), p["qtd"].as_i64().unwrap()))
        .collect();
    enviadas.sort_by_key(|(_, qtd)| -qtd);
    assert_eq!(enviadas, vec![(a.to_string(), 16), (b.to_string(), 4)]);
    assert_eq!(demandas_abertas(&app, COCA).await, vec![(5, c)], "the newest waits for the next lot");
}

#[tokio::test]
async fn a_new_sku_without_descricao_and_ncm_is_400_without_calling_the_worker() {
    let worker = FakeWorker::start(Modo::Ok).await;
    let app = estoque(&[("TAG_WORKER_URL", &worker.url)]).await;
    let op = Operador::login(&app).await;

    for body in [
        json!({"sku": COCA, "codigoLote": "L-1", "quantidade": 10}),
        json!({"sku": COCA, "codigoLote": "L-1", "quantidade": 10, "descricao": "COCA COLA 2L PET"}),
        json!({"sku": COCA, "codigoLote": "L-1", "quantidade": 10, "descricao": "  ", "ncm": "22021000"}),
    ] {
        let (status, problem) = registrar_lote(&app, &op, body).await;
        assert_eq!(status, 400);
        assert_eq!(problem["detail"], format!("SKU novo exige descricao e ncm: {COCA}"));
        assert_eq!(problem["instance"], "/lotes");
    }
    assert_eq!(worker.chamadas(), 0);
    let n: i64 =
        app.db.client().await.query_one("SELECT count(*) FROM produto_estoque", &[]).await.unwrap().get(0);
    assert_eq!(n, 0);
}

#[tokio::test]
async fn a_new_sku_is_classified_and_its_produto_classificado_commits_with_the_lot() {
    let worker = FakeWorker::start(Modo::Ok).await;
    let app = estoque(&[("TAG_WORKER_URL", &worker.url)]).await;
    let op = Operador::login(&app).await;

    let (status, body) = registrar_lote(
        &app,
        &op,
        json!({"sku": COCA, "descricao": "COCA COLA 2L PET", "ncm": "22021000", "codigoLote": "L-1", "quantidade": 60}),
    )
    .await;

    assert_eq!(status, 201, "{body}");
    assert_eq!(body["classificado"], true);
    assert_eq!(body["saldoDisponivel"], 60);
    assert_eq!(body["demandasAtendidas"], 0);
    let pedidos = worker.pedidos();
    assert_eq!(pedidos.len(), 1);
    let pedido = &pedidos[0];
    assert_eq!(pedido.corpo, json!({"sku": COCA, "descricao": "COCA COLA 2L PET"}));
    assert_eq!(pedido.content_type.as_deref(), Some("application/json"));
    assert_eq!(pedido.authorization, None, "no token configured, none sent");

    let eventos = outbox(&app).await;
    assert_eq!(eventos.len(), 1);
    assert_eq!(eventos[0].0, "ProdutoClassificado");
    assert_eq!(eventos[0].1["sku"], COCA);
    assert_eq!(eventos[0].1["tags"], json!(["coca", "cola", "2l", "pet"]));
    assert_eq!(eventos[0].1["categoria"], "bebidas");

    let res = app.as_servico(app.http.get(app.url(&format!("/produtos/{COCA}")))).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(
        res.json::<Value>().await.unwrap(),
        json!({"sku": COCA, "descricao": "COCA COLA 2L PET", "ncm": "22021000", "tags": ["coca", "cola", "2l", "pet"],
               "categoria": "bebidas", "saldoDisponivel": 60, "saldoVencido": 0})
    );
}

#[tokio::test]
async fn the_worker_token_is_sent_when_configured() {
    let worker = FakeWorker::start(Modo::Ok).await;
    let token = "token-do-tag-worker-0123456789";
    let app = estoque(&[("TAG_WORKER_URL", &worker.url), ("TAG_WORKER_TOKEN", token)]).await;
    let op = Operador::login(&app).await;
    let (status, _) = registrar_lote(
        &app,
        &op,
        json!({"sku": COCA, "descricao": "COCA COLA 2L PET", "ncm": "22021000", "codigoLote": "L-1", "quantidade": 1}),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(worker.pedidos()[0].authorization.as_deref(), Some(format!("Bearer {token}").as_str()));
}

async fn intake_with_worker(modo: Modo) {
    let worker = FakeWorker::start(modo).await;
    // The default tags.timeout (2 s): the 3 s worker must be given up on, not waited for.
    let app = estoque(&[("TAG_WORKER_URL", &worker.url)]).await;
    let op = Operador::login(&app).await;

    // A generous outer bound: a slow worker never answers, so an answer at all means the
    // intake gave up on the tag-worker's timeout (the speed itself is for `giro bench`).
    let (status, body) = tokio::time::timeout(
        Duration::from_secs(60),
        registrar_lote(
            &app,
            &op,
            json!({"sku": COCA, "descricao": "COCA COLA 2L PET", "ncm": "22021000", "codigoLote": "L-1", "quantidade": 60}),
        ),
    )
    .await
    .unwrap_or_else(|_| panic!("{modo:?}: the intake waited for the worker beyond its timeout"));

    assert_eq!(status, 201, "{body}");
    assert_eq!(body["classificado"], false);
    assert_eq!(body["saldoDisponivel"], 60);
    assert_eq!(worker.chamadas(), 1);
    let c = app.db.client().await;
    let tags: Option<Value> =
        c.query_one("SELECT tags FROM produto_estoque WHERE sku = $1", &[&COCA]).await.unwrap().get(0);
    assert_eq!(tags, None, "stored without tags, re-classified later");
    assert!(outbox(&app).await.is_empty(), "no ProdutoClassificado");
}

#[tokio::test]
async fn a_worker_answering_503_does_not_block_the_intake() {
    intake_with_worker(Modo::Indisponivel).await;
}

#[tokio::test]
async fn a_worker_that_never_answers_does_not_block_the_intake_beyond_its_timeout() {
    intake_with_worker(Modo::Lento).await;
}

#[tokio::test]
async fn an_already_classified_product_does_not_call_the_worker_and_an_untagged_one_does() {
    let worker = FakeWorker::start(Modo::Ok).await;
    let app = estoque(&[("TAG_WORKER_URL", &worker.url)]).await;
    produto(&app, COCA, "COCA COLA 2L PET", Some(&["coca"])).await;
    produto(&app, BANANA, "BANANA PRATA KG", None).await;
    let op = Operador::login(&app).await;

    let (status, body) =
        registrar_lote(&app, &op, json!({"sku": COCA, "codigoLote": "L-1", "quantidade": 5})).await;
    assert_eq!(status, 201);
    assert_eq!(body["classificado"], true);
    assert_eq!(worker.chamadas(), 0);

    // Existing but untagged: asked with the stored description, not the request's.
    let (status, body) = registrar_lote(
        &app,
        &op,
        json!({"sku": BANANA, "codigoLote": "L-1", "quantidade": 5, "descricao": "OUTRA COISA"}),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(body["classificado"], true);
    assert_eq!(worker.chamadas(), 1);
    assert_eq!(worker.pedidos()[0].corpo["descricao"], "BANANA PRATA KG");
}

#[tokio::test]
async fn a_repeated_lot_code_is_409_and_changes_nothing() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", Some(&["coca"])).await;
    let op = Operador::login(&app).await;
    let body = json!({"sku": COCA, "codigoLote": "L-1", "quantidade": 10});
    assert_eq!(registrar_lote(&app, &op, body.clone()).await.0, 201);

    let (status, problem) = registrar_lote(&app, &op, body).await;

    assert_eq!(status, 409);
    assert_eq!(
        problem["detail"],
        format!(
            "O lote L-1 já foi registrado para o SKU {COCA}. Confira se esta entrada já foi feita; se é outro lote, \
             use um código novo."
        )
    );
    assert_eq!(problem["status"], 409);
    assert_eq!(saldo(&app, COCA).await, 10);
    // The same code for another SKU is another lot.
    produto(&app, BANANA, "BANANA PRATA KG", Some(&["banana"])).await;
    assert_eq!(
        registrar_lote(&app, &op, json!({"sku": BANANA, "codigoLote": "L-1", "quantidade": 3})).await.0,
        201
    );
}

#[tokio::test]
async fn bean_validation_400s_name_the_field_and_write_nothing() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", Some(&["coca"])).await;
    let op = Operador::login(&app).await;
    let casos = [
        (json!({"sku": COCA, "codigoLote": "L-1", "quantidade": 0}), "quantidade deve ser maior que 0"),
        (json!({"sku": COCA, "codigoLote": "L-1"}), "quantidade deve ser maior que 0"),
        (json!({"sku": COCA, "codigoLote": " ", "quantidade": 1}), "codigoLote não deve estar em branco"),
        (
            json!({"sku": COCA, "codigoLote": "x".repeat(51), "quantidade": 1}),
            "codigoLote tamanho deve ser entre 0 e 50",
        ),
        (json!({"sku": "123", "codigoLote": "L-1", "quantidade": 1}), "sku deve corresponder a"),
        (json!({"codigoLote": "L-1", "quantidade": 1}), "sku não deve ser nulo"),
        (
            json!({"sku": COCA, "codigoLote": "L-1", "quantidade": 1, "ncm": "1234"}),
            "ncm deve corresponder a",
        ),
        (json!({"sku": COCA, "codigoLote": "L-1", "quantidade": 1, "validade": "2026-13-01"}), "validade"),
        (json!({"sku": COCA, "codigoLote": "L-1", "quantidade": "dez"}), "quantidade"),
    ];
    for (body, esperado) in casos {
        let res = op.on(app.http.post(app.url("/lotes"))).json(&body).send().await.unwrap();
        assert_400(res, &body, esperado).await;
    }
    assert_json_quebrado_400(op.on(app.http.post(app.url("/lotes")))).await;
    assert_eq!(saldo(&app, COCA).await, 0);
}

#[tokio::test]
async fn post_lotes_needs_an_operator_session_and_csrf() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", Some(&["coca"])).await;
    let body = json!({"sku": COCA, "codigoLote": "L-1", "quantidade": 10});
    let csrf = Uuid::new_v4().to_string();
    let post = || app.http.post(app.url("/lotes")).json(&body);

    // With CSRF but no session: 401, the problem of §6.1 without WWW-Authenticate.
    let res = post()
        .header("cookie", format!("XSRF-ESTOQUE={csrf}"))
        .header("x-xsrf-token", &csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    assert!(res.headers().get("www-authenticate").is_none());
    assert_eq!(res.json::<Value>().await.unwrap()["detail"], "autenticação necessária");

    // Nothing at all: CSRF is checked first → 403.
    assert_eq!(post().send().await.unwrap().status(), 403);

    // A session without the CSRF header, or with a wrong one: 403.
    let op = Operador::login(&app).await;
    let res = post().header("cookie", &op.cookie).send().await.unwrap();
    assert_eq!(res.status(), 403);
    let res = post().header("cookie", &op.cookie).header("x-xsrf-token", "outro").send().await.unwrap();
    assert_eq!(res.status(), 403);

    // The service token is not an operator.
    let res = post()
        .bearer_auth(ESTOQUE_TOKEN)
        .header("cookie", format!("XSRF-ESTOQUE={csrf}"))
        .header("x-xsrf-token", &csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    assert_eq!(saldo(&app, COCA).await, 0);

    assert_eq!(registrar_lote(&app, &op, body.clone()).await.0, 201);
}

#[tokio::test]
async fn the_same_new_sku_created_in_parallel_is_409() {
    let app = estoque(&[]).await;
    let op = Operador::login(&app).await;
    // Another intake creates the SKU and has not committed yet.
    let mut client = app.dbh.client().await.unwrap();
    let outra = giro_servicos::estoque::Tx::begin(&app.dbh, &mut client).await.unwrap();
    giro_servicos::estoque::produto::criar(&outra, COCA, "COCA COLA 2L PET", "22021000").await.unwrap();

    let body = json!({"sku": COCA, "descricao": "COCA COLA 2L PET", "ncm": "22021000", "codigoLote": "L-1", "quantidade": 5});
    let pedido = tokio::spawn({
        let (http, url, cookie, csrf) =
            (app.http.clone(), app.url("/lotes"), op.cookie.clone(), op.csrf.clone());
        async move {
            let res = http
                .post(url)
                .header("cookie", cookie)
                .header("x-xsrf-token", csrf)
                .json(&body)
                .send()
                .await
                .unwrap();
            (res.status().as_u16(), res.json::<Value>().await.unwrap())
        }
    });
    let c = app.db.client().await;
    crate::support::wait_until(Duration::from_secs(10), "the intake waiting on the new row", || async {
        let n: i64 = c
            .query_one("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'", &[])
            .await
            .unwrap()
            .get(0);
        (n > 0).then_some(())
    })
    .await;
    outra.commit().await.unwrap();

    let (status, problem) = pedido.await.unwrap();
    assert_eq!(status, 409);
    assert_eq!(problem["detail"], giro_servicos::estoque::erro::CONFLITO);
    let n: i64 = c.query_one("SELECT count(*) FROM lote", &[]).await.unwrap().get(0);
    assert_eq!(n, 0);
}
