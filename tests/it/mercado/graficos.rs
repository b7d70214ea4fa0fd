//! The operator home's charts (issue 26) and the event console's new reads, on mercado:
//! `GET /operacao/graficos/vendas|esgotados|prateleira` (one aggregated series each, a bounded
//! window) and `GET /operacao/outbox/eventos?busca=` (SKU column, what a dead letter blocks),
//! `GET /operacao/outbox` (the peer's silence), `GET /operacao/outbox/serie?minutos=`;
//! operator only, a bad parameter named in a 400.

use serde_json::{json, Value};
use uuid::Uuid;

use crate::mercado::fixtures::*;
use crate::support::app::{Operador, TestApp};

async fn get(app: &TestApp, op: &Operador, path: &str) -> (u16, Value) {
    let res = op.on(app.http.get(app.url(path))).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn sql(app: &TestApp, q: &str, p: &[&(dyn tokio_postgres::types::ToSql + Sync)]) {
    app.db.client().await.execute(q, p).await.unwrap();
}

/// One failed delivery attempt of `evento`, `seg` seconds ago, answered with `status` (or not).
async fn tentativa(app: &TestApp, evento: Uuid, numero: i32, seg: i32, status: Option<i16>) {
    sql(
        app,
        "INSERT INTO outbox_tentativa (event_id, numero, em, resultado, erro, status_http) \
         VALUES ($1, $2, now() - make_interval(secs => $3), 'falha_transitoria', 'envio falhou', $4)",
        &[&evento, &numero, &(seg as f64), &status],
    )
    .await;
}

/// An order created `horas_atras` hours ago (in the middle of that hour), `status`, `total`.
async fn pedido(app: &TestApp, horas_atras: i32, status: &str, total: &str) {
    let id = comprar_ok(app, &[(COCA, 1)]).await;
    sql(
        app,
        "UPDATE pedido SET status = $2, total = $3::text::numeric, \
                criado_em = date_trunc('hour', now()) - make_interval(hours => $4) + interval '30 minutes' \
          WHERE id = $1",
        &[&id, &status, &total, &horas_atras],
    )
    .await;
}

#[tokio::test]
async fn sales_per_hour_count_orders_paid_ones_and_their_revenue_every_hour_present() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L", "9.90", 500, 1, 600).await;
    pedido(&app, 1, "PAGO", "19.80").await;
    pedido(&app, 1, "PAGO", "9.90").await;
    pedido(&app, 1, "CANCELADO", "9.90").await;
    pedido(&app, 3, "AGUARDANDO_PAGAMENTO", "29.70").await;
    pedido(&app, 30, "PAGO", "99.00").await; // outside a 4-hour window
    let op = Operador::login(&app).await;

    let (status, body) = get(&app, &op, "/operacao/graficos/vendas?horas=4").await;

    assert_eq!(status, 200, "{body}");
    assert_eq!(body["horas"], 4);
    let pontos = body["pontos"].as_array().unwrap();
    assert_eq!(pontos.len(), 4, "the current hour and the three before it");
    let serie: Vec<(i64, i64, f64)> = pontos
        .iter()
        .map(|p| {
            (p["pedidos"].as_i64().unwrap(), p["pagos"].as_i64().unwrap(), p["receita"].as_f64().unwrap())
        })
        .collect();
    // Oldest first: 3 h ago one unpaid order, 1 h ago three orders of which two paid (R$ 29,70).
    // (Should the hour turn between the orders and the read, everything is an hour older.)
    assert!(
        serie == vec![(1, 0, 0.0), (0, 0, 0.0), (3, 2, 29.7), (0, 0, 0.0)]
            || serie == vec![(0, 0, 0.0), (3, 2, 29.7), (0, 0, 0.0), (0, 0, 0.0)],
        "{serie:?}"
    );

    let (_, body) = get(&app, &op, "/operacao/graficos/vendas?horas=48").await;
    let pagos: i64 = body["pontos"].as_array().unwrap().iter().map(|p| p["pagos"].as_i64().unwrap()).sum();
    assert_eq!((body["pontos"].as_array().unwrap().len(), pagos), (48, 3));
}

#[tokio::test]
async fn the_products_that_ran_out_most_are_ranked_by_restock_requests_in_the_window() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L", "9.90", 0, 5, 20).await;
    produto(&app, LEITE, "Leite Integral 1L", "5.49", 8, 5, 20).await;
    produto(&app, BANANA, "Banana Prata kg", "6.90", 30, 5, 20).await;
    for (sku, horas_atras) in [(COCA, 1), (COCA, 2), (COCA, 5), (LEITE, 3), (BANANA, 30)] {
        sql(
            &app,
            "INSERT INTO solicitacao_reposicao (event_id, sku, qtd_solicitada, status, criado_em) \
             VALUES ($1, $2, 10, 'ATENDIDA', now() - make_interval(hours => $3))",
            &[&Uuid::new_v4(), &sku, &horas_atras],
        )
        .await;
    }
    let op = Operador::login(&app).await;

    let (status, body) = get(&app, &op, "/operacao/graficos/esgotados?horas=24").await;

    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"horas": 24, "produtos": [
            {"sku": COCA, "nome": "Coca-Cola 2L", "status": "ESGOTADO", "reposicoes": 3},
            {"sku": LEITE, "nome": "Leite Integral 1L", "status": "DISPONIVEL", "reposicoes": 1},
        ]})
    );
    let (_, body) = get(&app, &op, "/operacao/graficos/esgotados?horas=48&limite=1").await;
    assert_eq!(body["produtos"].as_array().unwrap().len(), 1);
    assert_eq!(body["produtos"][0]["sku"], COCA);
}

#[tokio::test]
async fn shelf_against_minimum_and_ideal_lists_the_emptiest_first() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L", "9.90", 2, 5, 20).await; // 10 %
    produto(&app, LEITE, "Leite Integral 1L", "5.49", 18, 5, 20).await; // 90 %
    produto(&app, BANANA, "Banana Prata kg", "6.90", 0, 3, 10).await; // 0 %
    let op = Operador::login(&app).await;

    let (status, body) = get(&app, &op, "/operacao/graficos/prateleira?limite=2").await;

    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!([
            {"sku": BANANA, "nome": "Banana Prata kg", "prateleira": 0, "estoqueMinimo": 3, "estoqueIdeal": 10},
            {"sku": COCA, "nome": "Coca-Cola 2L", "prateleira": 2, "estoqueMinimo": 5, "estoqueIdeal": 20},
        ])
    );
}

#[tokio::test]
async fn bad_chart_parameters_are_400_naming_them_and_the_charts_want_an_operator() {
    let app = mercado(&[]).await;
    let op = Operador::login(&app).await;
    for (path, campo, ruim, max) in [
        ("/operacao/graficos/vendas", "horas", "0", 48),
        ("/operacao/graficos/vendas", "horas", "49", 48),
        ("/operacao/graficos/esgotados", "horas", "dia", 48),
        ("/operacao/graficos/esgotados", "limite", "21", 20),
        ("/operacao/graficos/prateleira", "limite", "0", 50),
    ] {
        let res = op.on(app.http.get(app.url(&format!("{path}?{campo}={ruim}")))).send().await.unwrap();
        assert_eq!(res.status(), 400, "{path} {campo}={ruim}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let body: Value = res.json().await.unwrap();
        assert_eq!(
            body["detail"],
            format!("Parâmetro inválido: {campo} deve ser um número inteiro de 1 a {max}: {ruim}")
        );
    }
    let (status, body) = get(&app, &op, "/operacao/outbox/serie?minutos=4").await;
    assert_eq!(status, 400);
    assert!(
        body["detail"].as_str().unwrap().contains("minutos deve ser um número inteiro entre 5 e 240"),
        "{body}"
    );
    let (status, body) = get(&app, &op, &format!("/operacao/outbox/eventos?busca={}", "7".repeat(101))).await;
    assert_eq!(status, 400);
    assert!(body["detail"].as_str().unwrap().contains("busca deve ter no máximo 100 caracteres"), "{body}");

    for path in [
        "/operacao/graficos/vendas",
        "/operacao/graficos/esgotados",
        "/operacao/graficos/prateleira",
        "/operacao/outbox/serie",
    ] {
        let res = app.http.get(app.url(path)).send().await.unwrap();
        assert_eq!(res.status(), 401, "{path}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let res = app.as_servico(app.http.get(app.url(path))).send().await.unwrap();
        assert_eq!(res.status(), 403, "{path}: the service token is not an operator");
    }
}

/// An outbox row: `status`, created `criado_seg` seconds ago, `tentativas`, about `sku`.
async fn evento(app: &TestApp, status: &str, sku: &str, criado_seg: i32, tentativas: i32) -> Uuid {
    let id = Uuid::new_v4();
    sql(
        app,
        "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, tentativas, enviado_em) \
         VALUES ($1, 'ReposicaoSolicitada', jsonb_build_object('eventId', $1::uuid, 'sku', $2::text, 'qtdFaltante', 5), \
                 $3::text, now() - make_interval(secs => $4), now() - make_interval(secs => $4), $5, \
                 CASE WHEN $3::text = 'SENT' THEN now() - make_interval(secs => $4) END)",
        &[&id, &sku, &status, &(criado_seg as f64), &tentativas],
    )
    .await;
    id
}

#[tokio::test]
async fn the_console_finds_by_id_or_sku_shows_the_sku_and_what_a_dead_letter_blocks() {
    let app = mercado(&[]).await;
    let morto = evento(&app, "FAILED", COCA, 60, 5).await;
    let enviado = evento(&app, "SENT", COCA, 120, 1).await;
    let outro = evento(&app, "FAILED", LEITE, 30, 5).await;
    let op = Operador::login(&app).await;

    let (status, p) = get(&app, &op, &format!("/operacao/outbox/eventos?busca={COCA}")).await;
    assert_eq!(status, 200, "{p}");
    assert_eq!(p["total"], 2);
    let ids: Vec<&str> = p["eventos"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, vec![morto.to_string(), enviado.to_string()], "newest first");
    assert_eq!(p["eventos"][0]["chave"], COCA);
    assert_eq!(
        p["eventos"][0]["bloqueia"],
        format!(
            "As reposições do SKU {COCA} esperam: o mercado não pede outra enquanto este pedido não for \
             reenviado, refeito ou descartado."
        )
    );
    assert_eq!(p["eventos"][1]["bloqueia"], Value::Null, "a delivered event blocks nothing");

    let (_, p) = get(&app, &op, &format!("/operacao/outbox/eventos?busca=%20{outro}%20")).await;
    assert_eq!(p["total"], 1);
    assert_eq!(
        (p["eventos"][0]["id"].as_str(), p["eventos"][0]["chave"].as_str()),
        (Some(&*outro.to_string()), Some(LEITE))
    );
    let (_, p) = get(&app, &op, &format!("/operacao/outbox/eventos?busca={COCA}&status=FAILED")).await;
    assert_eq!(p["total"], 1);
    let (_, p) = get(&app, &op, "/operacao/outbox/eventos?busca=7890000000000").await;
    assert_eq!((p["total"].as_i64(), p["eventos"].as_array().map(Vec::len)), (Some(0), Some(0)));
}

#[tokio::test]
async fn the_summary_says_since_when_the_peer_has_not_answered() {
    let app = mercado(&[]).await;
    let op = Operador::login(&app).await;
    evento(&app, "SENT", COCA, 600, 1).await;
    let (_, r) = get(&app, &op, "/operacao/outbox").await;
    assert_eq!(
        (r["esperandoNovaTentativa"].as_i64(), r["semRespostaDesde"].as_str()),
        (Some(0), None),
        "{r}"
    );
    assert!(r["ultimoEnvioEm"].is_string(), "{r}");

    // Two events retrying, none of their attempts answered since the first (300 s ago).
    let leite = evento(&app, "PENDING", LEITE, 310, 2).await;
    tentativa(&app, leite, 1, 300, None).await;
    tentativa(&app, leite, 2, 120, Some(504)).await; // a gateway's: the peer is not behind it
    let banana = evento(&app, "PENDING", BANANA, 100, 1).await;
    tentativa(&app, banana, 1, 90, None).await;
    evento(&app, "PENDING", DETERGENTE, 10, 0).await; // not tried yet: says nothing of the peer
    let (_, r) = get(&app, &op, "/operacao/outbox").await;
    assert_eq!(r["esperandoNovaTentativa"], 2, "{r}");
    assert!(r["semRespostaDesde"].is_string(), "{r}");
    let s = r["semRespostaSegundos"].as_i64().unwrap();
    assert!((300..400).contains(&s), "{r}");

    // A delivery after it: the peer answers (one event of its own is failing).
    evento(&app, "SENT", COCA, 5, 1).await;
    let (_, r) = get(&app, &op, "/operacao/outbox").await;
    assert_eq!((r["semRespostaDesde"].as_str(), r["semRespostaSegundos"].as_i64()), (None, None), "{r}");
}

#[tokio::test]
async fn the_series_counts_sent_and_dead_lettered_events_per_minute() {
    let app = mercado(&[]).await;
    let op = Operador::login(&app).await;
    let c = app.db.client().await;
    // Sent 2 and 1 minutes before the current minute (whole minutes: the middle of each).
    for (status, minutos_atras, n) in [("SENT", 2, 3), ("SENT", 1, 1), ("FAILED", 1, 2), ("SENT", 30, 4)] {
        for _ in 0..n {
            c.execute(
                "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, tentativas, enviado_em) \
                 SELECT $1, 'ReposicaoSolicitada', '{}', $2::text, t, t, 1, CASE WHEN $2::text = 'SENT' THEN t END \
                   FROM (SELECT date_trunc('minute', now()) - make_interval(mins => $3) + interval '30 seconds' AS t) x",
                &[&Uuid::new_v4(), &status, &minutos_atras],
            )
            .await
            .unwrap();
        }
    }

    let (status, s) = get(&app, &op, "/operacao/outbox/serie?minutos=5").await;

    assert_eq!(status, 200, "{s}");
    assert_eq!(s["minutos"], 5);
    let pontos: Vec<(i64, i64)> = s["pontos"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["enviados"].as_i64().unwrap(), p["falhos"].as_i64().unwrap()))
        .collect();
    // A minute may turn between the inserts and the read: then everything is one minute older.
    assert!(
        pontos == vec![(0, 0), (0, 0), (3, 0), (1, 2), (0, 0)]
            || pontos == vec![(0, 0), (3, 0), (1, 2), (0, 0), (0, 0)],
        "{pontos:?}"
    );
    let (_, s) = get(&app, &op, "/operacao/outbox/serie").await;
    let enviados: i64 = s["pontos"].as_array().unwrap().iter().map(|p| p["enviados"].as_i64().unwrap()).sum();
    assert_eq!((s["pontos"].as_array().unwrap().len(), enviados), (60, 8));
}

#[tokio::test]
async fn a_peer_that_answered_the_event_waiting_for_its_retry_is_not_silent() {
    // Issue 39: one event waits for its retry after the peer answered it with a 500; nothing else
    // was delivered since. The peer is up: no "não responde".
    let app = mercado(&[]).await;
    let op = Operador::login(&app).await;
    let e = evento(&app, "PENDING", LEITE, 200, 2).await;
    tentativa(&app, e, 1, 180, None).await; // refused once, during a restart
    tentativa(&app, e, 2, 120, Some(500)).await; // then answered: its own trouble
    let (_, r) = get(&app, &op, "/operacao/outbox").await;
    assert_eq!(r["esperandoNovaTentativa"], 1, "{r}");
    assert_eq!((r["semRespostaDesde"].as_str(), r["semRespostaSegundos"].as_i64()), (None, None), "{r}");

    // Unanswered again after that answer: silent since then.
    tentativa(&app, e, 3, 40, None).await;
    let (_, r) = get(&app, &op, "/operacao/outbox").await;
    let s = r["semRespostaSegundos"].as_i64().unwrap();
    assert!((40..100).contains(&s), "{r}");
}

#[tokio::test]
async fn the_console_finds_by_id_prefix_sku_fragment_and_product_name() {
    // Issue 39: an id prefix copied from a log, a part of the SKU, or words of the product's name.
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "9.90", 5, 1, 10).await;
    produto(&app, LEITE, "Leite Integral Pão", "4.90", 5, 1, 10).await;
    let coca = evento(&app, "FAILED", COCA, 60, 5).await;
    let leite = evento(&app, "SENT", LEITE, 30, 1).await;
    let op = Operador::login(&app).await;
    let ids = |p: &Value| -> Vec<String> {
        p["eventos"].as_array().unwrap().iter().map(|e| e["id"].as_str().unwrap().to_string()).collect()
    };

    let prefixo = &coca.to_string()[..8];
    let (status, p) = get(&app, &op, &format!("/operacao/outbox/eventos?busca={prefixo}")).await;
    assert_eq!(status, 200, "{p}");
    assert_eq!(ids(&p), vec![coca.to_string()], "{p}");

    let (_, p) = get(&app, &op, &format!("/operacao/outbox/eventos?busca={}", &COCA[5..10])).await;
    assert!(ids(&p).contains(&coca.to_string()), "{p}");

    let (_, p) = get(&app, &op, "/operacao/outbox/eventos?busca=coca").await;
    assert_eq!(ids(&p), vec![coca.to_string()], "{p}");
    let (_, p) = get(&app, &op, "/operacao/outbox/eventos?busca=COCA%202l").await;
    assert_eq!(ids(&p), vec![coca.to_string()], "{p}");
    let (_, p) = get(&app, &op, "/operacao/outbox/eventos?busca=pao%20integral").await;
    assert_eq!(ids(&p), vec![leite.to_string()], "accents and case aside: {p}");
    let (_, p) = get(&app, &op, "/operacao/outbox/eventos?busca=coca%20leite").await;
    assert_eq!(p["total"], 0, "every word must match: {p}");
    let (_, p) = get(&app, &op, "/operacao/outbox/eventos?busca=%25%25_%25").await;
    assert_eq!(p["total"], 0, "wildcards are not patterns: {p}");
}
