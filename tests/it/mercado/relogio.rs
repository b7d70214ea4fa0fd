//! Time from the peer is information, not a verdict (issue 30, SPEC §4.7): an event whose
//! `ocorridoEm` is days ahead of the receiver's clock, or days behind it, is applied like any
//! other; a classification from a clock ahead is stored clamped to the receiver's clock, so the
//! next one, from a fixed clock, still wins "newer wins".

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use giro_outbox::instante::formatar;
use giro_servicos::config::Servico;

use crate::support::real::Real;

const SKU: &str = "7894900011517";

async fn enviar(m: &Real, tipo: &str, corpo: serde_json::Value) -> u16 {
    m.http
        .post(m.url("/eventos"))
        .bearer_auth(m.token())
        .header("evento-tipo", tipo)
        .json(&corpo)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

fn classificado(tags: &[&str], ocorrido_em: DateTime<Utc>) -> serde_json::Value {
    json!({"eventId": uuid::Uuid::new_v4(), "sku": SKU, "tags": tags, "categoria": "bebidas", "ocorridoEm": formatar(&ocorrido_em)})
}

#[tokio::test]
async fn events_from_a_clock_days_ahead_or_behind_are_applied_and_a_future_classification_cannot_freeze_the_next(
) {
    let m = Real::start(Servico::Mercado, &[]).await;
    m.com_produto(SKU, 10, 1, 20).await;
    let c = m.db.client().await;
    let agora = Utc::now();

    // A sender two days ahead: accepted, stored no later than the receiver's clock.
    assert_eq!(
        enviar(&m, "ProdutoClassificado", classificado(&["futuro"], agora + Duration::days(2))).await,
        204
    );
    let (tags, em, banco): (serde_json::Value, DateTime<Utc>, DateTime<Utc>) = {
        let r = c.query_one("SELECT tags, classificado_em, now() FROM produto_vitrine", &[]).await.unwrap();
        (r.get(0), r.get(1), r.get(2))
    };
    assert_eq!(tags, json!(["futuro"]));
    assert!(em <= banco, "classificado_em {em} clamped to the receiver's clock {banco}");

    // The clock is fixed: the next classification, stamped now, wins.
    assert_eq!(enviar(&m, "ProdutoClassificado", classificado(&["agora"], Utc::now())).await, 204);
    let tags: serde_json::Value = c.query_one("SELECT tags FROM produto_vitrine", &[]).await.unwrap().get(0);
    assert_eq!(tags, json!(["agora"]));

    // A sender two days behind, and one whose clock reset to 1970: shipped units are credited.
    for quando in [agora - Duration::days(2), DateTime::<Utc>::UNIX_EPOCH] {
        let enviada = json!({"eventId": uuid::Uuid::new_v4(), "correlationId": uuid::Uuid::new_v4(), "sku": SKU,
                             "qtd": 5, "lote": "L1", "ocorridoEm": formatar(&quando)});
        assert_eq!(enviar(&m, "ReposicaoEnviada", enviada).await, 204, "{quando}");
    }
    let prateleira: i32 =
        c.query_one("SELECT estoque_prateleira FROM produto_vitrine", &[]).await.unwrap().get(0);
    assert_eq!(prateleira, 20);

    // The same through /eventos/lote.
    let itens = json!({"eventos": [
        {"tipo": "ProdutoClassificado", "evento": classificado(&["lote"], agora + Duration::days(400))},
        {"tipo": "ReposicaoEnviada", "evento": {"eventId": uuid::Uuid::new_v4(), "correlationId": uuid::Uuid::new_v4(),
            "sku": SKU, "qtd": 1, "lote": "L2", "ocorridoEm": formatar(&(agora - Duration::days(400)))}},
    ]});
    let res = m.http.post(m.url("/eventos/lote")).bearer_auth(m.token()).json(&itens).send().await.unwrap();
    let r: serde_json::Value = res.json().await.unwrap();
    let st: Vec<u64> =
        r["resultados"].as_array().unwrap().iter().map(|x| x["status"].as_u64().unwrap()).collect();
    assert_eq!(st, vec![204, 204], "{r}");
    m.sem_segredos();
}

/// A checkout on `m` that takes the shelf below its minimum: one `ReposicaoSolicitada` written by
/// that process. Returns the order's id.
async fn comprar(http: &reqwest::Client, base: &str, qtd: i32) -> String {
    let res = http
        .post(format!("{base}/pedidos"))
        .json(&json!({"itens": [{"sku": SKU, "qtd": qtd}]}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 201);
    let body: serde_json::Value = res.json().await.unwrap();
    body["pedidoId"].as_str().unwrap().to_string()
}

/// Issue 30: mercado 2 minutes ahead, its outbox relayed by a separate `giro publisher` on true
/// time. The writer's clock stamped `proxima_tentativa_em` and the relay compared it with its own:
/// every event waited out the skew. Now both are the database's: delivered at once.
#[tokio::test]
async fn a_writer_two_minutes_ahead_of_a_separate_publisher_delays_nothing() {
    let adiantado = crate::support::relogio::fora_de_hora("+2m");
    let extra: Vec<(&str, &str)> = adiantado.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let m = Real::start(Servico::Mercado, &extra).await;
    m.com_produto(SKU, 100, 95, 100).await;
    let peer = crate::support::peer::FakePeer::start(crate::support::peer::Lote::Supported).await;
    let e = crate::support::real::env(
        Servico::Mercado,
        &m.db,
        &[("ESTOQUE_EVENTOS_URL", &peer.url()), ("GIRO_OUTBOX_INTERVALO", "100ms")],
    );
    let mut publisher = crate::support::process::Giro::spawn(&["publisher", "--db", "mercado"], &e);
    publisher.wait_for_line("publisher started", std::time::Duration::from_secs(30)).await;

    comprar(&m.http, &m.url(""), 10).await;
    let c = m.db.client().await;
    let (ocorrido, banco): (String, DateTime<Utc>) = {
        let r = c.query_one("SELECT payload->>'ocorridoEm', now() FROM outbox_event", &[]).await.unwrap();
        (r.get(0), r.get(1))
    };
    let ocorrido: DateTime<Utc> = ocorrido.parse().unwrap();
    assert!(
        ocorrido - banco > Duration::seconds(90),
        "the writer runs ahead: ocorridoEm {ocorrido}, database {banco}"
    );
    // Far less than the 2 minutes the event used to wait (a loaded machine: generous).
    crate::support::wait_until(std::time::Duration::from_secs(30), "the event delivered", || async {
        (peer.count() == 1).then_some(())
    })
    .await;
    crate::support::wait_until(std::time::Duration::from_secs(10), "the event SENT", || async {
        let s: String = c.query_one("SELECT status FROM outbox_event", &[]).await.ok()?.get(0);
        (s == "SENT").then_some(())
    })
    .await;
    publisher.signal("TERM");
    publisher.wait_exit(std::time::Duration::from_secs(15)).await;
    m.sem_segredos();
}

/// Issue 30: two mercado replicas on one database, one 2 minutes ahead, reservations of 60 s. The
/// replica ahead expired the other's fresh reservations (150 of 150 payments refused). Now the
/// sweep and the payment compare with the database's clock: payments 10 s after checkout, on
/// either replica, are accepted.
#[tokio::test]
async fn two_replicas_one_two_minutes_ahead_accept_payments_ten_seconds_after_checkout() {
    let reservas = [
        ("GIRO_RESERVA_TTL", "60s"),
        ("GIRO_RESERVA_EXPIRACAO_HABILITADA", "true"),
        ("GIRO_RESERVA_INTERVALO", "500ms"),
        ("GIRO_CHECKOUT_MAX_POR_MINUTO", "0"),
        ("GIRO_CHECKOUT_MAX_UNIDADES_RESERVADAS", "0"),
    ];
    let a = Real::start(Servico::Mercado, &reservas).await;
    a.com_produto(SKU, 1000, 1, 1000).await;
    let adiantado = crate::support::relogio::fora_de_hora("+2m");
    let mut extra: Vec<(&str, &str)> = reservas.to_vec();
    extra.extend(adiantado.iter().map(|(k, v)| (*k, v.as_str())));
    let mut b = crate::support::process::Giro::spawn(
        &["mercado", "serve"],
        &crate::support::real::env(Servico::Mercado, &a.db, &extra),
    );
    let b_url = format!("http://{}", b.wait_listening().await);
    let a_url = a.url("");

    let mut pedidos = Vec::new();
    for i in 0..20 {
        let base = if i % 2 == 0 { &a_url } else { &b_url };
        pedidos.push(comprar(&a.http, base, 1).await);
    }
    // Twenty sweep rounds of the replica ahead, which saw every reservation as past due before.
    tokio::time::sleep(std::time::Duration::from_secs(10)).await;
    for (i, id) in pedidos.iter().enumerate() {
        let base = if i % 2 == 0 { &b_url } else { &a_url };
        let res = a.http.post(format!("{base}/pedidos/{id}/pagamento")).send().await.unwrap();
        let status = res.status().as_u16();
        assert_eq!(status, 200, "order {id} paid on {base}: {}", res.text().await.unwrap_or_default());
    }
    let expirados: i64 =
        a.db.client()
            .await
            .query_one("SELECT count(*) FROM reserva WHERE status = 'EXPIRADA'", &[])
            .await
            .unwrap()
            .get(0);
    assert_eq!(expirados, 0);
    b.signal("TERM");
    b.wait_exit(std::time::Duration::from_secs(15)).await;
    a.sem_segredos();
}

/// Issue 37 §3: a mercado two days ahead dated its orders and restock requests two days ahead
/// (the process's clock), while every other row took the database's. Now both are the database's;
/// the restock event still carries the writer's instant (`ocorridoEm`: information, §4.7).
#[tokio::test]
async fn a_process_two_days_ahead_dates_its_orders_and_restock_requests_by_the_database() {
    let base = Real::start(Servico::Mercado, &[]).await;
    base.com_produto(SKU, 100, 95, 100).await;
    let adiantado = crate::support::relogio::fora_de_hora("+2d");
    let extra: Vec<(&str, &str)> = adiantado.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut m = crate::support::process::Giro::spawn(
        &["mercado", "serve"],
        &crate::support::real::env(Servico::Mercado, &base.db, &extra),
    );
    let url = format!("http://{}", m.wait_listening().await);

    let pedido = comprar(&base.http, &url, 10).await;
    let c = base.db.client().await;
    let r = c
        .query_one(
            "SELECT p.criado_em, s.criado_em, o.payload->>'ocorridoEm', now() \
             FROM pedido p, solicitacao_reposicao s, outbox_event o WHERE p.id = $1::text::uuid",
            &[&pedido],
        )
        .await
        .unwrap();
    let (pedido_em, solicitacao_em, ocorrido, banco): (DateTime<Utc>, DateTime<Utc>, String, DateTime<Utc>) =
        (r.get(0), r.get(1), r.get(2), r.get(3));
    let ocorrido: DateTime<Utc> = ocorrido.parse().unwrap();
    assert!(
        ocorrido - banco > Duration::days(1),
        "the process runs ahead: ocorridoEm {ocorrido}, database {banco}"
    );
    for (nome, em) in [("pedido.criado_em", pedido_em), ("solicitacao_reposicao.criado_em", solicitacao_em)] {
        assert!(
            em <= banco && banco - em < Duration::minutes(5),
            "{nome} {em} is the database's clock ({banco})"
        );
    }
    let res = base.http.get(format!("{url}/pedidos/{pedido}")).send().await.unwrap();
    let corpo: serde_json::Value = res.json().await.unwrap();
    let answered: DateTime<Utc> = corpo["criadoEm"].as_str().unwrap().parse().unwrap();
    assert_eq!(answered, pedido_em, "the order's page shows the stored instant: {corpo}");
    m.signal("TERM");
    m.wait_exit(std::time::Duration::from_secs(15)).await;
    base.sem_segredos();
}
