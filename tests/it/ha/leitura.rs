//! Reads from a standby (issue 28, point 3): with `GIRO_MERCADO_DB_URL_LEITURA` naming the
//! standby of `scripts/pg-standby`, the catalogue (`GET /produtos`, `/produtos/{sku}`) is served
//! by the standby while its replay lag is within `db.atraso-maximo-leitura` (the default, 5 s);
//! once its replay is paused and the lag passes 5 s, the primary serves it (fresh data); once
//! replay resumes, the standby again; and a read URL where no standby answers sends every read to
//! the primary. Which pool served is read from `giro_db_leituras_total{pool}` and, for the
//! standby, from its own `pg_stat_activity`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use super::failover::Par;
use crate::support::metrics::Metricas;
use crate::support::process::{env_base, Giro};
use crate::support::{free_port, wait_until};

fn env(mercado_db_url: String, leitura: String) -> BTreeMap<&'static str, String> {
    env_base([
        ("MERCADO_PORTA", "0".to_string()),
        ("GIRO_OUTBOX_PUBLICADOR_EMBUTIDO", "false".to_string()),
        ("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "false".to_string()),
        ("MERCADO_DB_URL", mercado_db_url),
        ("GIRO_MERCADO_DB_URL_LEITURA", leitura),
    ])
}

async fn produto(c: &tokio_postgres::Client, sku: &str) {
    c.execute(
        "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
         VALUES ($1::text, 'Produto ' || $1::text, 5.00, 10, 1, 20, 'DISPONIVEL')",
        &[&sku],
    )
    .await
    .expect("product");
}

/// `GET /produtos`: the SKUs answered, and how many reads each pool served meanwhile
/// (`(leitura, primario)` increments of `giro_db_leituras_total`).
async fn catalogo(base: &str) -> (Vec<String>, f64, f64) {
    let antes = Metricas::de(base).await;
    let res = reqwest::get(format!("{base}/produtos")).await.expect("GET /produtos");
    assert_eq!(res.status(), 200, "GET /produtos");
    let ps: Vec<Value> = res.json().await.expect("json");
    let depois = Metricas::de(base).await;
    let d = |pool: &str| {
        let r = format!("pool=\"{pool}\"");
        depois.soma("giro_db_leituras_total", &r) - antes.soma("giro_db_leituras_total", &r)
    };
    let skus = ps.iter().filter_map(|p| p["sku"].as_str().map(str::to_string)).collect();
    (skus, d("leitura"), d("primario"))
}

fn atraso(m: &Metricas) -> f64 {
    m.soma("giro_db_atraso_leitura_segundos", "")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_catalogue_is_read_from_the_standby_within_the_bound_and_from_the_primary_past_it_or_without_one()
{
    let par = Par::with_databases().await;
    let primario = par.client("mercado").await;
    let standby_url = format!("postgres://postgres:postgres@127.0.0.1:{}/mercado", par.standby);
    let standby = crate::support::db::connect(&standby_url.parse().expect("url")).await;
    produto(&primario, "78900001").await;

    let mut g = Giro::spawn(&["mercado", "serve"], &env(par.url("mercado"), standby_url.clone()));
    let base = format!("http://{}", g.wait_listening().await);

    // Within the bound: the standby serves the catalogue — the read counter says so, and the
    // standby's own sessions include the service's (application_name giro-mercado).
    wait_until(Duration::from_secs(30), "the catalogue read from the standby", || async {
        let (skus, leitura, primario) = catalogo(&base).await;
        (skus == ["78900001"] && leitura >= 1.0 && primario == 0.0).then_some(())
    })
    .await;
    let sessoes: i64 = standby
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = 'mercado' AND application_name = 'giro-mercado'",
            &[],
        )
        .await
        .expect("pg_stat_activity")
        .get(0);
    assert!(sessoes >= 1, "the service holds sessions on the standby");
    let res = reqwest::get(format!("{base}/produtos/78900001")).await.expect("GET /produtos/{sku}");
    assert_eq!(res.status(), 200);

    // Replay paused, a product written on the primary: once the measured lag passes 5 s, the
    // primary serves the catalogue, with the new product.
    standby.execute("SELECT pg_wal_replay_pause()", &[]).await.expect("pause");
    produto(&primario, "78900002").await;
    let m = wait_until(Duration::from_secs(60), "the standby's lag measured past 5 s", || async {
        let m = Metricas::de(&base).await;
        (atraso(&m) > 5.0).then_some(m)
    })
    .await;
    eprintln!("lag measured: {:.1} s", atraso(&m));
    let (skus, leitura, primario_n) = catalogo(&base).await;
    assert_eq!(skus, ["78900001", "78900002"], "fresh data from the primary");
    assert_eq!((leitura, primario_n), (0.0, 1.0), "served by the primary, not the paused standby");
    let na_copia: i64 = standby
        .query_one("SELECT count(*) FROM produto_vitrine", &[])
        .await
        .expect("count on the standby")
        .get(0);
    assert_eq!(na_copia, 1, "the paused standby still lacks the new product");
    let res = reqwest::get(format!("{base}/produtos/78900002")).await.expect("GET /produtos/{sku}");
    assert_eq!(res.status(), 200, "a product only the primary has yet");

    // Replay resumed: the standby catches up and serves again.
    standby.execute("SELECT pg_wal_replay_resume()", &[]).await.expect("resume");
    wait_until(Duration::from_secs(30), "the standby serving again once caught up", || async {
        let (skus, leitura, _) = catalogo(&base).await;
        (skus.len() == 2 && leitura >= 1.0).then_some(())
    })
    .await;

    // A read URL where nothing answers: every read on the primary, lag reported unknown (-1).
    let mut h = Giro::spawn(
        &["mercado", "serve"],
        &env(par.url("mercado"), format!("postgres://postgres:postgres@127.0.0.1:{}/mercado", free_port())),
    );
    let base = format!("http://{}", h.wait_listening().await);
    for _ in 0..3 {
        let (skus, leitura, primario_n) = catalogo(&base).await;
        assert_eq!(skus.len(), 2);
        assert_eq!((leitura, primario_n), (0.0, 1.0), "no standby: the primary serves");
    }
    wait_until(Duration::from_secs(30), "the lag reported unknown", || async {
        (atraso(&Metricas::de(&base).await) == -1.0).then_some(())
    })
    .await;
}
