//! Database failover (issue 16): URLs with several hosts reach whichever one is the primary, in
//! the libpq and the JDBC form, and their passwords never show in `giro config` or the logs.

use std::collections::BTreeMap;
use std::time::Duration;

use giro::config::Servico;

use crate::support::e2e::{blocking, free_port};
use crate::support::process::{command, Giro};
use crate::support::{wait_until, TestDb, ESTOQUE_TOKEN, MERCADO_TOKEN, OPERADOR, SENHA};

fn env(extra: &[(&'static str, String)]) -> BTreeMap<&'static str, String> {
    let mut env: BTreeMap<&'static str, String> = [
        ("MERCADO_TOKEN_SERVICO", MERCADO_TOKEN.to_string()),
        ("ESTOQUE_TOKEN_SERVICO", ESTOQUE_TOKEN.to_string()),
        ("OPERADOR_USUARIO", OPERADOR.to_string()),
        ("OPERADOR_SENHA", SENHA.to_string()),
        ("GIRO_HTTP_ENDERECO", "127.0.0.1".to_string()),
        ("MERCADO_PORTA", "0".to_string()),
        ("ESTOQUE_PORTA", "0".to_string()),
        ("GIRO_OUTBOX_PUBLICADOR_EMBUTIDO", "false".to_string()),
        ("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "false".to_string()),
    ]
    .into_iter()
    .collect();
    for (k, v) in extra {
        env.insert(k, v.clone());
    }
    env
}

/// `host:port` of the test cluster.
fn cluster() -> String {
    let c = crate::support::db::admin_config();
    let host = match &c.get_hosts()[0] {
        tokio_postgres::config::Host::Tcp(h) => h.clone(),
        tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
    };
    format!("{host}:{}", c.get_ports()[0])
}

#[test]
fn giro_config_masks_the_password_of_multi_host_urls_in_both_forms() {
    let e = env(&[
        (
            "MERCADO_DB_URL",
            "postgres://app:senha-multi-host-1@h1:5432,h2:5432/mercado?target_session_attrs=read-write".into(),
        ),
        (
            "ESTOQUE_DB_URL",
            "jdbc:postgresql://h1:5432,h2:5432/estoque?targetServerType=primary&user=app&password=senha-multi-host-2"
                .into(),
        ),
    ]);
    let out = command(&["config"], &e).output().expect("giro config");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        text.contains(
            "mercado.db-url = \"postgres://app:***@h1:5432,h2:5432/mercado?target_session_attrs=read-write\""
        ),
        "{text}"
    );
    assert!(
        text.contains("estoque.db-url = \"jdbc:postgresql://h1:5432,h2:5432/estoque?targetServerType=primary&user=app&password=***\""),
        "{text}"
    );
    assert!(!text.contains("senha-multi-host"), "{text}");

    // A JDBC parameter Girô cannot honour is a configuration error naming it (exit 2).
    let e =
        env(&[("ESTOQUE_DB_URL", "jdbc:postgresql://h1,h2/estoque?targetServerType=preferPrimary".into())]);
    let out = command(&["config"], &e).output().expect("giro config");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ESTOQUE_DB_URL") && err.contains("preferPrimary"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_with_several_hosts_connects_to_the_one_that_answers_in_both_url_forms() {
    let (m, e) = (TestDb::new(Servico::Mercado).await, TestDb::new(Servico::Estoque).await);
    // The first host refuses connections (nothing listens there); the second is the cluster.
    let morto = format!("127.0.0.1:{}", free_port());
    let vivo = cluster();
    let admin = crate::support::db::admin_config();
    let senha = String::from_utf8_lossy(admin.get_password().expect("admin password")).into_owned();
    let usuario = admin.get_user().expect("admin user").to_string();
    for (servico, url) in [
        (
            "mercado",
            format!("postgres://{usuario}:{senha}@{morto},{vivo}/{}?target_session_attrs=read-write", m.name),
        ),
        (
            "estoque",
            format!(
                "jdbc:postgresql://{morto},{vivo}/{}?targetServerType=primary&user={usuario}&password={senha}",
                e.name
            ),
        ),
    ] {
        let var = if servico == "mercado" { "MERCADO_DB_URL" } else { "ESTOQUE_DB_URL" };
        let mut g = Giro::spawn(&[servico, "serve"], &env(&[(var, url)]));
        let addr = blocking(|| g.wait_listening());
        let ready = format!("http://{addr}/readyz");
        wait_until(Duration::from_secs(20), &format!("{servico} ready through the second host"), || async {
            (reqwest::get(&ready).await.ok()?.status() == 200).then_some(())
        })
        .await;
        // Proof it wrote there: an operator session row in that database.
        let csrf = uuid::Uuid::new_v4().to_string();
        let cookie = if servico == "mercado" { "XSRF-MERCADO" } else { "XSRF-ESTOQUE" };
        let res = reqwest::Client::new()
            .post(format!("http://{addr}/sessao"))
            .header("cookie", format!("{cookie}={csrf}"))
            .header("x-xsrf-token", &csrf)
            .form(&[("usuario", OPERADOR), ("senha", SENHA)])
            .send()
            .await
            .expect("login");
        assert_eq!(res.status(), 204);
        let db = if servico == "mercado" { &m } else { &e };
        let n: i64 =
            db.client().await.query_one("SELECT count(*) FROM sessao_operador", &[]).await.expect("n").get(0);
        assert_eq!(n, 1);
        let log = g.log();
        assert!(!log.contains(&format!(":{senha}@")) && !log.contains(&format!("password={senha}")), "{log}");
    }
}
