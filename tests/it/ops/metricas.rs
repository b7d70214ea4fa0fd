//! `/metrics` beyond the plumbing (issue 27): the standard `process_*` series, the build, and how
//! full each database pool is — on the real binary, as Prometheus scrapes it.

use std::time::Duration;

use giro_servicos::config::Servico;

use crate::support::metrics::{nome_de, Metricas};
use crate::support::real::Real;
use crate::support::wait_until;

#[tokio::test]
async fn metrics_carry_the_process_the_build_and_the_pools() {
    let m = Real::start(Servico::Mercado, &[]).await;
    let scrape = Metricas::de(&format!("http://{}", m.addr)).await;
    let valor = |nome: &str, rotulos: &str| {
        assert!(
            scrape.amostras().any(|l| nome_de(l) == nome && l.contains(rotulos)),
            "{nome}{{{rotulos}}} missing:\n{}",
            scrape.0
        );
        scrape.soma(nome, rotulos)
    };
    assert!(valor("process_resident_memory_bytes", "") > 1_000_000.0);
    assert!(valor("process_cpu_seconds_total", "") > 0.0);
    assert!(valor("process_open_fds", "") >= 3.0);
    assert!(valor("process_max_fds", "") >= valor("process_open_fds", ""));
    assert!(valor("process_threads", "") >= 1.0);
    let agora = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    let inicio = valor("process_start_time_seconds", "");
    assert!(inicio <= agora + 1.0 && inicio > agora - 3600.0, "start {inicio} vs now {agora}");
    assert_eq!(valor("giro_build_info", &format!("version=\"{}\"", env!("CARGO_PKG_VERSION"))), 1.0);
    // GIRO_DB_POOL_MAX=4 in these processes.
    assert_eq!(valor("giro_db_pool_connections", "pool=\"mercado\",state=\"max\""), 4.0);
    assert!(valor("giro_db_pool_connections", "pool=\"mercado\",state=\"size\"") >= 1.0);
    // The series is there from the first scrape (`valor` asserts it: a missing one would sum to
    // 0 below). Start-up's background work (the relay's claim and sweep, the reservation expiry)
    // may briefly queue on a pool of 4; once it is done the gauge must read 0 again.
    valor("giro_db_pool_connections", "pool=\"mercado\",state=\"waiting\"");
    let base = format!("http://{}", m.addr);
    wait_until(Duration::from_secs(30), "no request waiting on the mercado pool", || async {
        let s = Metricas::de(&base).await;
        (s.soma("giro_db_pool_connections", "pool=\"mercado\",state=\"waiting\"") == 0.0).then_some(())
    })
    .await;
    // Each series is typed once, as the text format requires.
    for nome in ["process_resident_memory_bytes", "giro_build_info", "giro_db_pool_connections"] {
        let tipos = scrape.0.lines().filter(|l| l.starts_with(&format!("# TYPE {nome} "))).count();
        assert_eq!(tipos, 1, "{nome}");
    }
}

#[tokio::test]
async fn estoque_metrics_carry_its_open_demand_by_age() {
    let e = Real::start(Servico::Estoque, &[]).await;
    let c = e.db.client().await;
    c.batch_execute(
        "INSERT INTO produto_estoque (sku, descricao, ncm) VALUES ('7891962047205', 'PAO DE FORMA', '19059090');
         INSERT INTO demanda_reprimida (sku, qtd_solicitada, solicitacao_original, registrado_em) VALUES
           ('7891962047205', 4, gen_random_uuid(), now() - interval '5 minutes'),
           ('7891962047205', 6, gen_random_uuid(), now() - interval '3 hours'),
           ('7891962047205', 8, gen_random_uuid(), now() - interval '2 days');
         INSERT INTO demanda_reprimida (sku, qtd_solicitada, solicitacao_original, registrado_em, atendida)
           VALUES ('7891962047205', 9, gen_random_uuid(), now() - interval '2 days', true);",
    )
    .await
    .unwrap();
    let m = Metricas::de(&format!("http://{}", e.addr)).await;
    for (idade, n) in [("lt_1h", 1.0), ("1h_1d", 1.0), ("gt_1d", 1.0)] {
        assert_eq!(m.soma("giro_open_demand", &format!("age=\"{idade}\"")), n, "{idade}:\n{}", m.0);
    }
    assert_eq!(m.soma("giro_open_demand_units", ""), 18.0);
}
