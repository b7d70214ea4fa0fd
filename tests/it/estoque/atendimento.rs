//! Serving a `ReposicaoSolicitada` through `/eventos` (SPEC §3.11–3.12): FEFO, one lot per
//! shipment, the `reposicao_expedida` row, pent-up demand and the two denials, idempotency.

use chrono::{TimeZone, Utc};
use giro_contracts::ReposicaoSolicitada;
use giro_servicos::estoque::atendimento::{self, Resposta};
use giro_servicos::estoque::lote;
use uuid::Uuid;

use crate::estoque::fixtures::*;

#[tokio::test]
async fn a_lot_of_50_serves_a_request_of_16_leaving_34_and_one_shipment_row() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    let l = lote(&app, COCA, "L2026-09-A", 50, Some(120)).await;
    let pedido = Uuid::new_v4();

    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204);

    let eventos = outbox(&app).await;
    assert_eq!(eventos.len(), 1, "{eventos:?}");
    let (tipo, p) = &eventos[0];
    assert_eq!(tipo, "ReposicaoEnviada");
    assert_eq!(p["correlationId"], pedido.to_string());
    assert_eq!(p["sku"], COCA);
    assert_eq!(p["qtd"], 16);
    assert_eq!(p["lote"], "L2026-09-A");
    assert_eq!(saldo(&app, COCA).await, 34);
    assert_eq!(disponivel(&app, l).await, 34);

    let c = app.db.client().await;
    let rows = c
        .query("SELECT event_id, correlation_id, sku, lote_id, qtd, expedido_em, entregue_em FROM reposicao_expedida", &[])
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r.get::<_, Uuid>(0).to_string(), p["eventId"].as_str().unwrap(), "the ReposicaoEnviada's id");
    assert_eq!(r.get::<_, Uuid>(1), pedido, "the request's id");
    assert_eq!(r.get::<_, String>(2), COCA);
    assert_eq!(r.get::<_, i64>(3), l);
    assert_eq!(r.get::<_, i32>(4), 16);
    let expedido: chrono::DateTime<Utc> = r.get(5);
    assert_eq!(
        giro_contracts::instante::formatar(&expedido),
        p["ocorridoEm"].as_str().unwrap(),
        "expedido_em = ocorridoEm"
    );
    assert_eq!(r.get::<_, Option<chrono::DateTime<Utc>>>(6), None, "not delivered yet");
    // The inbox row committed with the effect.
    let inbox: i64 =
        c.query_one("SELECT count(*) FROM inbox_event WHERE event_id = $1", &[&pedido]).await.unwrap().get(0);
    assert_eq!(inbox, 1);
}

#[tokio::test]
async fn fefo_ships_the_lot_expiring_first_and_lots_without_expiry_last() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    let l60 = lote(&app, COCA, "L-60D", 20, Some(60)).await;
    let sem = lote(&app, COCA, "L-SEM", 20, None).await;
    let l10 = lote(&app, COCA, "L-10D", 20, Some(10)).await;

    assert_eq!(solicitar(&app, Uuid::new_v4(), COCA, 5).await, 204);

    let eventos = outbox(&app).await;
    assert_eq!(eventos[0].1["lote"], "L-10D");
    assert_eq!(disponivel(&app, l10).await, 15);
    assert_eq!(disponivel(&app, l60).await, 20);
    assert_eq!(disponivel(&app, sem).await, 20);

    // Once the dated lots are gone, the one without expiry ships.
    let c = app.db.client().await;
    c.execute("UPDATE lote SET quantidade_disponivel = 0 WHERE id IN ($1, $2)", &[&l10, &l60]).await.unwrap();
    c.execute("UPDATE produto_estoque SET saldo_disponivel = 20 WHERE sku = $1", &[&COCA]).await.unwrap();
    assert_eq!(solicitar(&app, Uuid::new_v4(), COCA, 5).await, 204);
    assert_eq!(outbox(&app).await[1].1["lote"], "L-SEM");
}

#[tokio::test]
async fn equal_expiry_ships_the_lot_received_first() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    lote(&app, COCA, "L-PRIMEIRO", 10, Some(30)).await;
    lote(&app, COCA, "L-SEGUNDO", 10, Some(30)).await;
    assert_eq!(solicitar(&app, Uuid::new_v4(), COCA, 3).await, 204);
    assert_eq!(outbox(&app).await[0].1["lote"], "L-PRIMEIRO");
}

#[tokio::test]
async fn only_an_expired_lot_means_sem_saldo_and_the_lot_is_untouched() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    let vencido = lote(&app, COCA, "L-VENCIDO", 30, Some(-1)).await;
    let pedido = Uuid::new_v4();

    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204);

    let eventos = outbox(&app).await;
    assert_eq!(eventos.len(), 1);
    assert_eq!(eventos[0].0, "ReposicaoNegada");
    assert_eq!(eventos[0].1["motivo"], "SEM_SALDO");
    assert_eq!(eventos[0].1["correlationId"], pedido.to_string());
    assert_eq!(disponivel(&app, vencido).await, 30);
    assert_eq!(saldo(&app, COCA).await, 30, "expired units still count in the balance");
    assert_eq!(demandas_abertas(&app, COCA).await, vec![(16, pedido)]);
}

#[tokio::test]
async fn lots_of_6_and_50_ship_6_from_the_first_for_a_request_of_16() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    let seis = lote(&app, COCA, "L-SEIS", 6, Some(5)).await;
    let cinquenta = lote(&app, COCA, "L-CINQUENTA", 50, Some(90)).await;

    assert_eq!(solicitar(&app, Uuid::new_v4(), COCA, 16).await, 204);

    let eventos = outbox(&app).await;
    assert_eq!(eventos.len(), 1, "one shipment, from one lot");
    assert_eq!(eventos[0].0, "ReposicaoEnviada");
    assert_eq!(eventos[0].1["qtd"], 6);
    assert_eq!(eventos[0].1["lote"], "L-SEIS");
    assert_eq!(disponivel(&app, seis).await, 0);
    assert_eq!(disponivel(&app, cinquenta).await, 50);
    assert_eq!(saldo(&app, COCA).await, 50);
    assert!(demandas_abertas(&app, COCA).await.is_empty(), "a partial shipment records no demand");
}

#[tokio::test]
async fn an_unknown_sku_is_denied_sku_desconhecido_without_a_demand() {
    let app = estoque(&[]).await;
    let pedido = Uuid::new_v4();

    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204);

    let eventos = outbox(&app).await;
    assert_eq!(eventos.len(), 1);
    assert_eq!(eventos[0].0, "ReposicaoNegada");
    assert_eq!(eventos[0].1["motivo"], "SKU_DESCONHECIDO");
    assert_eq!(eventos[0].1["correlationId"], pedido.to_string());
    assert_eq!(eventos[0].1["sku"], COCA);
    let c = app.db.client().await;
    let n: i64 = c.query_one("SELECT count(*) FROM demanda_reprimida", &[]).await.unwrap().get(0);
    assert_eq!(n, 0);
}

#[tokio::test]
async fn zero_balance_records_a_demand_with_the_requests_event_id() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    let pedido = Uuid::new_v4();

    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204);

    assert_eq!(demandas_abertas(&app, COCA).await, vec![(16, pedido)]);
    let eventos = outbox(&app).await;
    assert_eq!(eventos.len(), 1);
    assert_eq!(eventos[0].1["motivo"], "SEM_SALDO");
    assert_eq!(eventos[0].1["correlationId"], pedido.to_string());
}

#[tokio::test]
async fn the_same_request_twice_gets_one_answer_and_ships_once() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    lote(&app, COCA, "L-1", 50, None).await;
    let pedido = Uuid::new_v4();

    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204);
    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204, "a duplicate is accepted too");

    assert_eq!(outbox(&app).await.len(), 1);
    assert_eq!(saldo(&app, COCA).await, 34);

    // The same holds for a denial: one demand, one answer.
    produto(&app, BANANA, "BANANA PRATA KG", None).await;
    let outro = Uuid::new_v4();
    for _ in 0..2 {
        assert_eq!(solicitar(&app, outro, BANANA, 5).await, 204);
    }
    assert_eq!(outbox(&app).await.len(), 2);
    assert_eq!(demandas_abertas(&app, BANANA).await.len(), 1);
}

/// Issue 37 (a review of §1): a request applied again after the inbox forgot it — an
/// operator's forced replay past `inbox.retencao` — ships nothing a second time: its shipment
/// stands. (Mercado credits a shipment once, so a second shipment from the same lot would leave
/// units that left the warehouse and never reached the shelf.)
#[tokio::test]
async fn a_request_applied_again_after_its_inbox_row_was_pruned_ships_nothing_twice() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    lote(&app, COCA, "L-1", 50, None).await;
    let pedido = Uuid::new_v4();
    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204);
    let c = app.db.client().await;
    c.execute("DELETE FROM inbox_event WHERE event_id = $1", &[&pedido]).await.unwrap();

    assert_eq!(solicitar(&app, pedido, COCA, 16).await, 204, "applied again");
    assert_eq!(saldo(&app, COCA).await, 34, "nothing shipped a second time");
    assert_eq!(outbox(&app).await.len(), 1, "no second answer");
    let expedidas: i64 = c.query_one("SELECT count(*) FROM reposicao_expedida", &[]).await.unwrap().get(0);
    assert_eq!(expedidas, 1);
}

#[tokio::test]
async fn invalid_requests_are_400_and_change_nothing() {
    let app = estoque(&[]).await;
    let res = app
        .as_servico(app.http.post(app.url("/eventos")))
        .header("Evento-Tipo", "ReposicaoSolicitada")
        .json(&serde_json::json!({"eventId": Uuid::new_v4(), "sku": COCA, "qtdFaltante": 0, "ocorridoEm": "2026-09-25T12:00:00Z"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400);
    assert!(res.text().await.unwrap().contains("qtdFaltante"));
    let res = app
        .as_servico(app.http.post(app.url("/eventos")))
        .header("Evento-Tipo", "ReposicaoEnviada")
        .json(&serde_json::json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 400, "estoque accepts only ReposicaoSolicitada");
    assert!(outbox(&app).await.is_empty());
}

/// "Today" is the civil date in São Paulo: at 02:00 UTC it is still yesterday there (UTC−3), so a
/// lot expiring on the UTC date is not yet expired — and a day later it is.
#[tokio::test]
async fn expiry_follows_the_sao_paulo_calendar_of_the_instant_passed() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    let c = app.db.client().await;
    c.execute(
        "INSERT INTO lote (sku, codigo_lote, quantidade, validade, recebido_em, quantidade_disponivel) \
         VALUES ($1, 'L-BORDA', 10, DATE '2026-09-25', now(), 10)",
        &[&COCA],
    )
    .await
    .unwrap();
    c.execute("UPDATE produto_estoque SET saldo_disponivel = 10", &[]).await.unwrap();

    let dia_25_23h_sp = Utc.with_ymd_and_hms(2026, 9, 26, 2, 0, 0).unwrap();
    let dia_26_sp = Utc.with_ymd_and_hms(2026, 9, 26, 12, 0, 0).unwrap();
    let mut client = app.dbh.client().await.unwrap();
    let tx = giro_servicos::estoque::Tx::begin(&app.dbh, &mut client).await.unwrap();
    let l = lote::proximo_para_expedir(&tx, COCA, dia_25_23h_sp).await.unwrap();
    assert_eq!(l.map(|l| l.codigo_lote).as_deref(), Some("L-BORDA"), "validade == today still ships");
    assert_eq!(
        lote::proximo_para_expedir(&tx, COCA, dia_26_sp).await.unwrap(),
        None,
        "validade < today never ships"
    );

    // And the whole rule at those instants: the lot ships the evening before, not the next day.
    let pedido = |em| ReposicaoSolicitada {
        event_id: Uuid::new_v4(),
        sku: COCA.into(),
        qtd_faltante: 4,
        ocorrido_em: em,
    };
    let antes = pedido(dia_25_23h_sp);
    let resposta = atendimento::atender(&tx, &antes, dia_25_23h_sp).await.unwrap();
    assert!(
        matches!(resposta, Resposta::Enviada(ref e) if e.lote == "L-BORDA" && e.qtd == 4),
        "{resposta:?}"
    );
    let depois = pedido(dia_26_sp);
    let resposta = atendimento::atender(&tx, &depois, dia_26_sp).await.unwrap();
    assert!(
        matches!(resposta, Resposta::Negada(ref n) if n.correlation_id == depois.event_id),
        "{resposta:?}"
    );
    tx.rollback().await.unwrap();
}

#[tokio::test]
async fn concurrent_requests_never_ship_more_than_the_lot_holds() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    let l = lote(&app, COCA, "L-20", 20, None).await;

    let pedidos: Vec<_> = (0..4).map(|_| Uuid::new_v4()).collect();
    let envios =
        futures_util::future::join_all(pedidos.iter().map(|id| solicitar(&app, *id, COCA, 16))).await;
    assert!(envios.iter().all(|s| *s == 204), "{envios:?}");

    let eventos = outbox(&app).await;
    assert_eq!(eventos.len(), 4, "one answer per request");
    let enviado: i64 = eventos
        .iter()
        .filter(|(t, _)| t == "ReposicaoEnviada")
        .map(|(_, p)| p["qtd"].as_i64().unwrap())
        .sum();
    assert_eq!(enviado, 20, "16 + 4, then nothing: {eventos:?}");
    assert_eq!(eventos.iter().filter(|(t, _)| t == "ReposicaoNegada").count(), 2);
    assert_eq!(disponivel(&app, l).await, 0);
    assert_eq!(saldo(&app, COCA).await, 0);
    assert_eq!(demandas_abertas(&app, COCA).await.len(), 2);
}

#[tokio::test]
async fn eventos_lote_serves_each_request_with_the_same_rules() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    lote(&app, COCA, "L-50", 50, None).await;
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    let item = |id: Uuid, sku: &str| {
        serde_json::json!({"tipo": "ReposicaoSolicitada",
                           "evento": {"eventId": id, "sku": sku, "qtdFaltante": 16, "ocorridoEm": "2026-09-25T12:00:00Z"}})
    };
    let res = app
        .as_servico(app.http.post(app.url("/eventos/lote")))
        .json(&serde_json::json!({"eventos": [item(a, COCA), item(b, BANANA), item(a, COCA)]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.unwrap();
    let status: Vec<i64> =
        body["resultados"].as_array().unwrap().iter().map(|r| r["status"].as_i64().unwrap()).collect();
    assert_eq!(status, vec![204, 204, 204]);
    // A batch is applied in SKU order (one lock order for concurrent batches), so the answers'
    // order is not the items' order.
    let mut tipos: Vec<String> = outbox(&app).await.into_iter().map(|(t, _)| t).collect();
    tipos.sort();
    assert_eq!(tipos, vec!["ReposicaoEnviada", "ReposicaoNegada"], "the duplicate changed nothing");
    assert_eq!(saldo(&app, COCA).await, 34);
}

#[tokio::test]
async fn eventos_needs_the_service_token_and_refuses_the_operator() {
    let app = estoque(&[]).await;
    let body = serde_json::json!({"eventId": Uuid::new_v4(), "sku": COCA, "qtdFaltante": 1, "ocorridoEm": "2026-09-25T12:00:00Z"});
    let res = app
        .http
        .post(app.url("/eventos"))
        .header("Evento-Tipo", "ReposicaoSolicitada")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
    let op = crate::support::app::Operador::login(&app).await;
    let res = op
        .on(app.http.post(app.url("/eventos")))
        .header("Evento-Tipo", "ReposicaoSolicitada")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 403);
    assert!(outbox(&app).await.is_empty());
}

/// Issue 40: a batch's products are locked in one statement, in SKU order, before its effects run
/// (an unknown SKU costs no lock of its own), and a batch naming a SKU three times and an unknown
/// SKU twice ends exactly as the same requests sent one by one in the batch's order: a second
/// request for a SKU sees what the first left.
#[tokio::test]
async fn a_batch_locks_its_products_in_one_statement_and_ends_as_its_requests_one_by_one() {
    const DESCONHECIDO: &str = "7890000000019";
    let (em_lote, um_a_um) = (estoque(&[]).await, estoque(&[]).await);
    for app in [&em_lote, &um_a_um] {
        produto(app, COCA, "COCA COLA 2L PET", None).await;
        lote(app, COCA, "L-20", 20, None).await;
        produto(app, BANANA, "BANANA PRATA KG", None).await;
    }
    let pedidos: Vec<(Uuid, &str, i32)> =
        [(COCA, 16), (DESCONHECIDO, 1), (COCA, 16), (BANANA, 5), (DESCONHECIDO, 2), (COCA, 16)]
            .into_iter()
            .map(|(sku, qtd)| (Uuid::new_v4(), sku, qtd))
            .collect();
    let itens: Vec<serde_json::Value> = pedidos
        .iter()
        .map(|(id, sku, qtd)| {
            serde_json::json!({"tipo": "ReposicaoSolicitada",
            "evento": {"eventId": id, "sku": sku, "qtdFaltante": qtd, "ocorridoEm": "2026-09-25T12:00:00Z"}})
        })
        .collect();

    // BANANA held by another transaction: the batch waits in its one lock statement.
    let tranca = em_lote.db.client().await;
    tranca
        .batch_execute(&format!("BEGIN; SELECT 1 FROM produto_estoque WHERE sku = '{BANANA}' FOR UPDATE"))
        .await
        .unwrap();
    let envio = tokio::spawn(
        em_lote
            .as_servico(em_lote.http.post(em_lote.url("/eventos/lote")))
            .json(&serde_json::json!({"eventos": itens}))
            .send(),
    );
    // Polled from another connection: a transaction sees pg_stat_activity as it first read it.
    let c = em_lote.db.client().await;
    crate::support::wait_until(std::time::Duration::from_secs(60), "the batch waiting in its lock statement", || async {
        let n: i64 = c
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' \
                    AND query LIKE '%FROM produto_estoque WHERE sku = ANY($1) ORDER BY sku%FOR UPDATE'",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        (n == 1).then_some(())
    })
    .await;
    tranca.batch_execute("ROLLBACK").await.unwrap();
    let res = envio.await.unwrap().unwrap();
    assert_eq!(res.status(), 200);
    let body: serde_json::Value = res.json().await.unwrap();
    assert!(body["resultados"].as_array().unwrap().iter().all(|r| r["status"] == 204), "{body}");

    // The batch applies in SKU order (stable): the same order, one request at a time.
    let mut ordem = pedidos.clone();
    ordem.sort_by_key(|(_, sku, _)| *sku);
    for (id, sku, qtd) in ordem {
        assert_eq!(solicitar(&um_a_um, id, sku, qtd).await, 204);
    }
    let estado = |app| async move {
        let mut respostas: Vec<String> = outbox(app)
            .await
            .into_iter()
            .map(|(t, p)| format!("{t} {} {} {} {}", p["correlationId"], p["sku"], p["qtd"], p["motivo"]))
            .collect();
        respostas.sort();
        (
            respostas,
            saldo(app, COCA).await,
            demandas_abertas(app, COCA).await,
            demandas_abertas(app, BANANA).await,
        )
    };
    let (lote, um) = (estado(&em_lote).await, estado(&um_a_um).await);
    assert_eq!(lote, um);
    assert_eq!(lote.1, 0, "16 + 4 shipped, then nothing");
    assert_eq!((lote.2.len(), lote.3.len()), (1, 1), "one demand for COCA's third request, one for BANANA");
    assert_eq!(lote.0.iter().filter(|r| r.contains("SKU_DESCONHECIDO")).count(), 2);
}
