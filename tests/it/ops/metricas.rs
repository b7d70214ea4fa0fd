//! `/metrics` beyond the plumbing (issue 27): the standard `process_*` series, the build, and how
//! full each database pool is — on the real binary, as Prometheus scrapes it.

use giro::config::Servico;

use crate::support::metrics::{nome_de, Metricas};
use crate::support::real::Real;

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
    assert_eq!(valor("giro_db_pool_connections", "pool=\"mercado\",state=\"waiting\""), 0.0);
    // Each series is typed once, as the text format requires.
    for nome in ["process_resident_memory_bytes", "giro_build_info", "giro_db_pool_connections"] {
        let tipos = scrape.0.lines().filter(|l| l.starts_with(&format!("# TYPE {nome} "))).count();
        assert_eq!(tipos, 1, "{nome}");
    }
}
