//! Time from the peer is information, not a verdict (issue 30, SPEC §4.7): an event whose
//! `ocorridoEm` is days ahead of the receiver's clock, or days behind it, is applied like any
//! other; a classification from a clock ahead is stored clamped to the receiver's clock, so the
//! next one, from a fixed clock, still wins "newer wins".

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use giro::config::Servico;
use giro::outbox::instante::formatar;

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
    let c = m.db.client().await;
    c.batch_execute(&format!(
        "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
         VALUES ('{SKU}', 'Coca', 8.99, 10, 1, 20, 'DISPONIVEL')"
    ))
    .await
    .unwrap();
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
