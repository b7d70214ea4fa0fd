//! The trace context travels with the events: one trace id from the checkout that triggered a
//! restock to the warehouse's answer (SPEC §9.2).

use serde_json::json;

use crate::support::market::Market;

pub(crate) const COCA: &str = "7894900011517";
pub(crate) const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";

/// A checkout of 20 [`COCA`] sent with `http` to the mercado at `base` under the trace [`TRACE`]
/// (parent span `00f067aa0ba902b7`): its status.
pub(crate) async fn comprar_no_trace(http: &reqwest::Client, base: &str) -> u16 {
    let res = http
        .post(format!("{base}/pedidos"))
        .header("traceparent", format!("00-{TRACE}-00f067aa0ba902b7-01"))
        .json(&json!({"itens": [{"sku": COCA, "qtd": 20}]}))
        .send()
        .await
        .unwrap();
    res.status().as_u16()
}

async fn traceparent(c: &tokio_postgres::Client, tipo: &str) -> Vec<String> {
    c.query("SELECT traceparent FROM outbox_event WHERE tipo = $1 ORDER BY criado_em", &[&tipo])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get::<_, Option<String>>(0).unwrap_or_default())
        .collect()
}

#[tokio::test]
async fn a_restock_carries_the_checkouts_trace_id_to_the_warehouses_answer() {
    let m = Market::start().await;
    m.lote(COCA, "COCA COLA 2L PET", "L-COCA-01", 60, None).await;
    m.produto(COCA, "Coca-Cola 2L PET", 8.99, 6, 24).await;
    m.pump().await;

    assert_eq!(comprar_no_trace(&m.mercado.http, &m.mercado.url("")).await, 201);
    m.pump().await;

    let pedidos = traceparent(&m.mercado.db.client().await, "ReposicaoSolicitada").await;
    assert_eq!(pedidos.len(), 2);
    let ultima = &pedidos[1];
    assert!(ultima.starts_with(&format!("00-{TRACE}-")), "{ultima}");
    assert_ne!(ultima, &format!("00-{TRACE}-00f067aa0ba902b7-01"), "the event is a child span");
    assert!(!pedidos[0].contains(TRACE), "the first request had a trace of its own");

    let respostas = traceparent(&m.estoque.db.client().await, "ReposicaoEnviada").await;
    assert_eq!(respostas.len(), 2);
    assert!(
        respostas[1].starts_with(&format!("00-{TRACE}-")),
        "the answer continues the trace: {respostas:?}"
    );
}
