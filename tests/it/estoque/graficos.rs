//! The dashboard's charts (issue 26): `GET /painel/graficos/latencia-reposicao?horas=` (p50/p99
//! of request → shipment → shelf credit per interval, from the timestamps estoque keeps) and
//! `GET /painel/graficos/demanda-por-idade` (open demand by age band); operator only, a bad
//! window named in a 400.

use chrono::{DateTime, Duration, Utc};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::estoque::fixtures::*;
use crate::support::app::{Operador, TestApp};

async fn get(app: &TestApp, op: &Operador, path: &str) -> (u16, Value) {
    let res = op.on(app.http.get(app.url(path))).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

/// The middle of the 11th 150-second interval of the last hour (far from its edges), read once
/// so every instant a test sets is an exact offset from it.
async fn base(app: &TestApp) -> DateTime<Utc> {
    let c = app.db.client().await;
    c.query_one("SELECT now() - interval '1 hour' + make_interval(secs => 150 * 10 + 75)", &[])
        .await
        .unwrap()
        .get(0)
}

/// Moves a shipment's three instants to `base` + the given seconds.
async fn tempos(
    app: &TestApp,
    base: DateTime<Utc>,
    correlation: Uuid,
    pedido: i64,
    expedido: i64,
    entregue: Option<i64>,
) {
    let c = app.db.client().await;
    let em = |s: i64| base + Duration::seconds(s);
    c.execute(
        "UPDATE reposicao_expedida SET expedido_em = $2, entregue_em = $3 WHERE correlation_id = $1",
        &[&correlation, &em(expedido), &entregue.map(em)],
    )
    .await
    .unwrap();
    c.execute("UPDATE inbox_event SET processado_em = $2 WHERE event_id = $1", &[&correlation, &em(pedido)])
        .await
        .unwrap();
    c.execute(
        "UPDATE demanda_reprimida SET registrado_em = $2 WHERE solicitacao_original = $1",
        &[&correlation, &em(pedido)],
    )
    .await
    .unwrap();
}

#[tokio::test]
async fn latency_gives_p50_and_p99_of_request_to_shipment_and_to_shelf_credit_per_interval() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    produto(&app, BANANA, "BANANA PRATA KG", None).await;
    lote(&app, COCA, "L-COCA", 50, None).await;
    // Served at once (its request instant is its inbox row's) …
    let (a, b, fora, sem_pedido) = (Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4());
    assert_eq!(solicitar(&app, a, COCA, 16).await, 204);
    // … and served later, from a waiting demand (its instant is the demand's).
    assert_eq!(solicitar(&app, b, BANANA, 5).await, 204);
    let op = Operador::login(&app).await;
    let (status, _) =
        registrar_lote(&app, &op, json!({"sku": BANANA, "codigoLote": "L-BANANA", "quantidade": 10})).await;
    assert_eq!(status, 201);
    // Outside the window, and one whose request instant is gone (inbox pruned, no demand).
    assert_eq!(solicitar(&app, fora, COCA, 1).await, 204);
    assert_eq!(solicitar(&app, sem_pedido, COCA, 1).await, 204);

    let t = base(&app).await;
    tempos(&app, t, a, -22, -20, Some(-17)).await; // 2 s to ship, 5 s to the shelf
    tempos(&app, t, b, -40, 20, Some(30)).await; // 60 s to ship, 70 s to the shelf
    tempos(&app, t, fora, -4000, -3990, Some(-3980)).await;
    tempos(&app, t, sem_pedido, -10, -5, None).await;
    let c = app.db.client().await;
    c.execute("DELETE FROM inbox_event WHERE event_id = $1", &[&sem_pedido]).await.unwrap();

    let (status, body) = get(&app, &op, "/painel/graficos/latencia-reposicao?horas=1").await;

    assert_eq!(status, 200, "{body}");
    assert_eq!((body["horas"].as_i64(), body["intervaloSegundos"].as_i64()), (Some(1), Some(150)));
    let pontos = body["pontos"].as_array().unwrap();
    assert_eq!(pontos.len(), 24, "every interval present");
    let com: Vec<(usize, &Value)> = pontos.iter().enumerate().filter(|(_, p)| p["reposicoes"] != 0).collect();
    assert_eq!(com.len(), 1, "{body}");
    let (i, p) = com[0];
    assert_eq!(i, 10);
    assert_eq!(p["reposicoes"], 2);
    let perto = |v: &Value, esperado: f64| (v.as_f64().unwrap() - esperado).abs() < 0.01;
    // percentile_cont: p50 of {2, 60} = 31, p99 = 2 + 0.99 × 58; of {5, 70}: 37.5 and 5 + 0.99 × 65.
    assert!(perto(&p["expedicao"]["p50"], 31.0), "{p}");
    assert!(perto(&p["expedicao"]["p99"], 59.42), "{p}");
    assert!(perto(&p["credito"]["p50"], 37.5), "{p}");
    assert!(perto(&p["credito"]["p99"], 69.35), "{p}");
    assert_eq!(
        pontos[0]["expedicao"],
        json!({"p50": null, "p99": null}),
        "an empty interval has no percentile"
    );
    assert!(pontos.windows(2).all(|w| w[0]["inicio"].as_str() < w[1]["inicio"].as_str()), "in time order");

    // The default window is 24 h, still 24 intervals (one hour each).
    let (_, body) = get(&app, &op, "/painel/graficos/latencia-reposicao").await;
    assert_eq!((body["horas"].as_i64(), body["intervaloSegundos"].as_i64()), (Some(24), Some(3600)));
    assert_eq!(body["pontos"].as_array().unwrap().len(), 24);
    let total: i64 =
        body["pontos"].as_array().unwrap().iter().map(|p| p["reposicoes"].as_i64().unwrap()).sum();
    assert_eq!(
        total, 3,
        "the one outside the last hour counts in the last day; the one without a request does not"
    );
}

#[tokio::test]
async fn waiting_demand_is_counted_by_age_band_every_band_present() {
    let app = estoque(&[]).await;
    produto(&app, BANANA, "BANANA PRATA KG", None).await;
    let op = Operador::login(&app).await;
    let ids = [Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4(), Uuid::new_v4()];
    for (id, qtd) in ids.iter().zip([5, 7, 3, 9]) {
        assert_eq!(solicitar(&app, *id, BANANA, qtd).await, 204);
    }
    let c = app.db.client().await;
    for (id, segundos) in ids.iter().zip([60, 600, 720, 25 * 3600]) {
        c.execute(
            "UPDATE demanda_reprimida SET registrado_em = now() - make_interval(secs => $2) WHERE solicitacao_original = $1",
            &[id, &(segundos as f64)],
        )
        .await
        .unwrap();
    }

    let (status, body) = get(&app, &op, "/painel/graficos/demanda-por-idade").await;

    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!([
            {"faixa": "até 5 min", "desdeSegundos": 0, "demandas": 1, "unidades": 5},
            {"faixa": "5 a 30 min", "desdeSegundos": 300, "demandas": 2, "unidades": 10},
            {"faixa": "30 min a 2 h", "desdeSegundos": 1800, "demandas": 0, "unidades": 0},
            {"faixa": "2 a 12 h", "desdeSegundos": 7200, "demandas": 0, "unidades": 0},
            {"faixa": "12 a 24 h", "desdeSegundos": 43200, "demandas": 0, "unidades": 0},
            {"faixa": "mais de 24 h", "desdeSegundos": 86400, "demandas": 1, "unidades": 9},
        ])
    );

    // A served demand leaves the chart.
    let (status, _) =
        registrar_lote(&app, &op, json!({"sku": BANANA, "codigoLote": "L-1", "quantidade": 5})).await;
    assert_eq!(status, 201);
    let (_, body) = get(&app, &op, "/painel/graficos/demanda-por-idade").await;
    let total: i64 = body.as_array().unwrap().iter().map(|f| f["demandas"].as_i64().unwrap()).sum();
    assert_eq!(total, 3, "{body}");
}

#[tokio::test]
async fn a_bad_window_is_a_400_naming_horas_and_the_charts_want_an_operator() {
    let app = estoque(&[]).await;
    let op = Operador::login(&app).await;
    for ruim in ["0", "49", "um", "-1", "2.5"] {
        let res = op
            .on(app.http.get(app.url(&format!("/painel/graficos/latencia-reposicao?horas={ruim}"))))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 400, "{ruim}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let body: Value = res.json().await.unwrap();
        assert_eq!(
            body["detail"],
            format!("Parâmetro inválido: horas deve ser um número inteiro de 1 a 48: {ruim}"),
            "{ruim}"
        );
    }
    for path in ["/painel/graficos/latencia-reposicao", "/painel/graficos/demanda-por-idade"] {
        let res = app.http.get(app.url(path)).send().await.unwrap();
        assert_eq!(res.status(), 401, "{path}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let res = app.as_servico(app.http.get(app.url(path))).send().await.unwrap();
        assert_eq!(res.status(), 403, "{path}: the service token is not an operator");
    }
}
