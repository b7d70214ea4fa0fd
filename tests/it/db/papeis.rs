//! A DDL role for `giro migrate` apart from the services' runtime role (issue 27): the schema
//! owner migrates and grants; the runtime role reads and writes, and can change no schema.

use std::collections::BTreeMap;
use std::time::Duration;

use giro_servicos::config::Servico;

use crate::support::db::admin;
use crate::support::process::{command, Giro};
use crate::support::{real, wait_until, TestDb};

fn url_de(db: &TestDb, papel: &str) -> String {
    let base = db.url();
    let (_, resto) = base.split_once('@').expect("a URL with credentials");
    format!("postgres://{papel}:{papel}-senha@{resto}")
}

#[tokio::test]
async fn migrate_runs_as_the_schema_owner_and_the_service_as_a_role_that_cannot_change_the_schema() {
    let db = TestDb::empty().await;
    let sufixo = db.url().rsplit('/').next().unwrap().to_string();
    let (ddl, app) = (format!("ddl_{sufixo}"), format!("app_{sufixo}"));
    let adm = admin().await;
    adm.batch_execute(&format!(
        "CREATE ROLE {ddl} LOGIN PASSWORD '{ddl}-senha'; CREATE ROLE {app} LOGIN PASSWORD '{app}-senha';
         ALTER DATABASE {sufixo} OWNER TO {ddl};"
    ))
    .await
    .unwrap();

    let env: BTreeMap<&str, String> =
        [("MERCADO_DB_URL", url_de(&db, &app)), ("GIRO_MERCADO_DB_URL_DDL", url_de(&db, &ddl))].into();
    let out = command(&["migrate", "--db", "mercado"], &env).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // The runtime role serves: ready, and an operator login writes its session and counters.
    let mut e = real::env(Servico::Mercado, &db, &[]);
    e.insert("MERCADO_DB_URL", url_de(&db, &app));
    let mut giro = Giro::spawn(&["mercado", "serve"], &e);
    let addr = giro.wait_listening().await;
    let http = reqwest::Client::new();
    wait_until(Duration::from_secs(20), "readyz 200", || async {
        (http.get(format!("http://{addr}/readyz")).send().await.ok()?.status() == 200).then_some(())
    })
    .await;
    let csrf = "c".repeat(32);
    let res = http
        .post(format!("http://{addr}/sessao"))
        .header("cookie", format!("XSRF-MERCADO={csrf}"))
        .header("x-xsrf-token", &csrf)
        .form(&[("usuario", crate::support::OPERADOR), ("senha", crate::support::SENHA)])
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 204, "{:?}", res.text().await);

    // …and can change no schema, nor the migration history.
    let mut cfg: tokio_postgres::Config = url_de(&db, &app).parse().unwrap();
    cfg.application_name("teste-papeis");
    let c = crate::support::db::connect(&cfg).await;
    c.query_one("SELECT count(*) FROM pedido", &[]).await.expect("reads");
    for sql in [
        "CREATE TABLE intrusa (id int)",
        "DROP TABLE pedido",
        "ALTER TABLE pedido ADD COLUMN x int",
        "DELETE FROM refinery_schema_history",
    ] {
        let err = c.batch_execute(sql).await.expect_err(sql);
        assert_eq!(err.code().map(|c| c.code()), Some("42501"), "{sql}: {err}");
    }
    giro.signal("TERM");
    let _ = giro.wait_exit(Duration::from_secs(15)).await;
    drop(c);
    drop(db);
}
