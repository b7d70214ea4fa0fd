//! The business on `/metrics` (issue 27): orders created, paid and expired, units sold,
//! stock-outs and the restock latency — after the flows that move them. Counters are
//! process-wide and other tests run beside this one, so each is read as an increase.

use super::fixtures::{comprar_ok, evento, mercado, produto, reposicao_enviada, solicitacoes, COCA};
use crate::support::metrics::Metricas;

#[tokio::test]
async fn a_sale_a_payment_a_stockout_and_a_restock_show_on_metrics() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L", "8.99", 5, 2, 10).await;
    let antes = Metricas::de(&app.url("")).await;

    // The whole shelf sold: an order, a stock-out, and a restock request.
    let id = comprar_ok(&app, &[(COCA, 5)]).await;
    let res = app.http.post(app.url(&format!("/pedidos/{id}/pagamento"))).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let pedido = solicitacoes(&app, COCA).await;
    assert_eq!(pedido.len(), 1, "{pedido:?}");
    assert_eq!(evento(&app, "ReposicaoEnviada", &reposicao_enviada(pedido[0].event_id, COCA, 10)).await, 204);

    let depois = Metricas::de(&app.url("")).await;
    let subiu = |nome: &str, rotulos: &str| depois.soma(nome, rotulos) - antes.soma(nome, rotulos);
    assert!(subiu("giro_orders_total", "event=\"created\"") >= 1.0, "{}", depois.0);
    assert!(subiu("giro_orders_total", "event=\"paid\"") >= 1.0);
    assert!(subiu("giro_units_sold_total", "") >= 5.0);
    assert!(subiu("giro_stockouts_total", "") >= 1.0);
    assert!(subiu("giro_restock_latency_seconds_count", "") >= 1.0);
    assert!(depois.contains("# TYPE giro_restock_latency_seconds histogram"), "{}", depois.0);
}

/// Issue 37 §3: `giro_stockouts_total` was absent from `/metrics` until the first stock-out, so a
/// dashboard showed "no data" and a rate alert could not fire. A fresh mercado exports every
/// business counter at 0.
#[tokio::test]
async fn a_fresh_mercado_exports_every_business_counter_at_zero() {
    let m = crate::support::real::Real::start(giro_servicos::config::Servico::Mercado, &[]).await;
    let metricas = Metricas::de(&m.url("")).await;
    for serie in [
        "giro_orders_total{event=\"created\"} 0",
        "giro_orders_total{event=\"paid\"} 0",
        "giro_orders_total{event=\"expired\"} 0",
        "giro_units_sold_total 0",
        "giro_stockouts_total 0",
    ] {
        assert!(metricas.amostras().any(|l| l == serie), "{serie} missing:\n{}", metricas.0);
    }
    m.sem_segredos();
}
