//! A started service: health, graceful shutdown on SIGTERM, readiness that follows the database,
//! and a log with no secret in it.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use giro_servicos::config::Servico;

use crate::support::process::{env_base, Giro};
use crate::support::{wait_until, TestDb, ESTOQUE_TOKEN, MERCADO_TOKEN, SENHA};

fn env(db_url: String) -> BTreeMap<&'static str, String> {
    env_base([
        ("MERCADO_DB_URL", db_url),
        ("MERCADO_PORTA", "0".to_string()),
        // Nothing listens there: the embedded publisher's failures must not leak secrets either.
        ("ESTOQUE_EVENTOS_URL", "http://127.0.0.1:9".to_string()),
        ("ESTOQUE_URL", "http://127.0.0.1:9".to_string()),
    ])
}

async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let client = reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap();
    let res = client.get(format!("http://{addr}{path}")).send().await.unwrap();
    (res.status().as_u16(), res.text().await.unwrap())
}

#[tokio::test]
async fn mercado_answers_health_and_stops_within_5s_of_sigterm_with_exit_0() {
    let db = TestDb::new(Servico::Mercado).await;
    let mut giro = Giro::spawn(&["mercado", "serve"], &env(db.url()));
    let addr = giro.wait_listening().await;
    // Ready within a deadline: its probe gives the database 2 s, which start-up's own work on a
    // loaded machine may take from the first one.
    wait_until(Duration::from_secs(30), "readyz 200", || async {
        (get(addr, "/readyz").await.0 == 200).then_some(())
    })
    .await;

    let (status, body) = get(addr, "/actuator/health").await;
    assert_eq!(status, 200);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&body).unwrap(),
        serde_json::json!({"status": "UP"})
    );
    assert_eq!(get(addr, "/healthz").await.0, 200);

    // A route nobody listed is denied, with a problem body.
    let (status, body) = get(addr, "/actuator/env").await;
    assert_eq!(status, 401);
    assert!(body.contains("autenticação necessária"), "{body}");

    // A generous bound for a loaded machine: the outcome is a clean exit after SIGTERM.
    giro.signal("TERM");
    let status = giro.wait_exit(Duration::from_secs(30)).await.expect("giro did not stop after SIGTERM");
    assert!(status.success(), "exit status {status}");

    let log = giro.log();
    for secret in [MERCADO_TOKEN, ESTOQUE_TOKEN, SENHA] {
        assert!(!log.contains(secret), "secret in the log:\n{log}");
    }
}

#[tokio::test]
async fn readyz_answers_503_while_the_database_is_unreachable_and_200_once_it_is_back() {
    let db = TestDb::new(Servico::Mercado).await;
    let (proxy, url) = crate::support::chaos::in_front_of(&db).await;
    let mut env = env(url);
    env.insert("GIRO_DB_TIMEOUT", "1s".into());
    let mut giro = Giro::spawn(&["mercado", "serve"], &env);
    let addr = giro.wait_listening().await;

    wait_until(Duration::from_secs(10), "readyz 200", || async {
        (get(addr, "/readyz").await.0 == 200).then_some(())
    })
    .await;
    proxy.cut();
    wait_until(Duration::from_secs(15), "readyz 503 with the database cut", || async {
        (get(addr, "/readyz").await.0 == 503).then_some(())
    })
    .await;
    // The probe reports the outage as it is: never re-run as a request whose session was lost
    // (that would first wait out `db.espera-reexecucao`, longer than a balancer's check).
    let log = giro.log();
    assert!(!log.contains("running the request again"), "/readyz was re-run:\n{log}");
    // The process is still up and healthy.
    assert_eq!(get(addr, "/healthz").await.0, 200);
    proxy.restore();
    wait_until(Duration::from_secs(15), "readyz 200 again once the database is back", || async {
        (get(addr, "/readyz").await.0 == 200).then_some(())
    })
    .await;
}

/// Issue 37 §3: with the database cut, a sweep every 300 ms logged "reservation expiry round
/// failed" 193 times a minute. A run of failures of one loop is now said once (then summed up
/// once a minute), counted in `giro_supervisor_round_failures_total{loop}`, and its end said with
/// how many there were.
#[tokio::test]
async fn a_database_outage_is_logged_once_per_loop_and_counted_not_once_per_round() {
    let db = TestDb::new(Servico::Mercado).await;
    let (proxy, url) = crate::support::chaos::in_front_of(&db).await;
    let mut env = env(url);
    env.insert("GIRO_DB_TIMEOUT", "1s".into());
    env.insert("GIRO_RESERVA_INTERVALO_EXPIRACAO", "100ms".into());
    let mut giro = Giro::spawn(&["mercado", "serve"], &env);
    let base = format!("http://{}", giro.wait_listening().await);
    giro.wait_for_line("reservation expiry sweep started", Duration::from_secs(30)).await;

    proxy.cut();
    let falhas = |m: &crate::support::metrics::Metricas| {
        m.soma("giro_supervisor_round_failures_total", "loop=\"expiracao-reservas\"")
    };
    wait_until(Duration::from_secs(120), "ten failed expiry rounds", || async {
        (falhas(&crate::support::metrics::Metricas::de(&base).await) >= 10.0).then_some(())
    })
    .await;
    let log = giro.log();
    let ditas = log.matches("reservation expiry round failed").count();
    // The first failure, and at most one summary if the ten rounds took over a minute.
    assert!((1..=2).contains(&ditas), "said {ditas} times for 10+ failed rounds:\n{log}");

    proxy.restore();
    let fim = giro.wait_for_line("reservation expiry round failed no longer", Duration::from_secs(60)).await;
    assert!(fim.contains("falhas"), "the end of the run says how many: {fim}");
    giro.signal("TERM");
    giro.wait_exit(Duration::from_secs(30)).await;
}

/// The address in a "… on http://ADDR" line of `giro`'s log.
fn endereco_na_linha(line: &str) -> SocketAddr {
    let start = line.find("http://").map(|i| i + "http://".len()).expect("an http:// address");
    let addr: String = line[start..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | ':' | '[' | ']'))
        .collect();
    addr.parse().unwrap_or_else(|e| panic!("bad address {addr:?} in {line:?}: {e}"))
}

/// Issue 37 §3: with `http.endereco` left alone, every listener giro opens — a service's API
/// (with `/metrics` and `/openapi.json`), its web front, a separate publisher's `/metrics` —
/// binds the loopback address, not every interface.
#[tokio::test]
async fn every_listener_binds_loopback_when_the_address_is_not_set() {
    let db = TestDb::new(Servico::Mercado).await;
    let front = crate::support::process::scratch_dir();
    std::fs::write(front.join("index.html"), "<!doctype html><title>vitrine</title>").unwrap();
    let mut env = env(db.url());
    // What the tests' base environment sets: left unset here, the built-in default decides.
    env.remove("GIRO_HTTP_ENDERECO");
    env.insert("GIRO_WEB_DIR_VITRINE", front.display().to_string());
    env.insert("GIRO_WEB_PORTA_VITRINE", "0".into());
    env.insert("GIRO_PUBLISHER_PORTA_METRICAS", "0".into());

    let mut servico = Giro::spawn(&["mercado", "serve"], &env);
    let api = servico.wait_listening().await;
    let web = endereco_na_linha(
        &servico.wait_for_line("serves the storefront on http://", Duration::from_secs(30)).await,
    );
    let mut publisher = Giro::spawn(&["publisher", "--db", "mercado"], &env);
    let metricas = publisher.wait_listening().await;
    for (listener, addr) in [("mercado API", api), ("storefront", web), ("publisher /metrics", metricas)] {
        assert!(addr.ip().is_loopback(), "{listener} listens on {addr}");
    }
}

/// Issue 37 §3: the schema owner's URL is `giro migrate`'s alone. A service whose environment
/// still holds it (settings from before `/etc/giro/migrate-<db>.env`) does not use it — it serves
/// on its own URL — and says at start where the variable belongs.
#[tokio::test]
async fn a_service_ignores_the_schema_owners_url_and_says_where_it_belongs() {
    let db = TestDb::new(Servico::Mercado).await;
    let mut env = env(db.url());
    // Nothing answers there: a service that used it would never become ready.
    env.insert("GIRO_MERCADO_DB_URL_DDL", "postgres://dono:senha-do-dono@127.0.0.1:9/mercado".into());
    let mut giro = Giro::spawn(&["mercado", "serve"], &env);
    let aviso = giro
        .wait_for_line(
            "GIRO_MERCADO_DB_URL_DDL is set, but only `giro migrate` uses it",
            Duration::from_secs(30),
        )
        .await;
    assert!(aviso.contains("/etc/giro/migrate-mercado.env"), "{aviso}");
    assert!(!aviso.contains("senha-do-dono"), "{aviso}");
    let addr = giro.wait_listening().await;
    wait_until(Duration::from_secs(30), "readyz 200 on its own URL", || async {
        (get(addr, "/readyz").await.0 == 200).then_some(())
    })
    .await;
}
