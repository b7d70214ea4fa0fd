//! A service running in-process on a loopback port, with a database of its own: the fast way to
//! test routes and consumers (the real binary is tested in `service.rs` and the end-to-end tests).

use std::collections::BTreeMap;
use std::net::SocketAddr;

use giro_infra::db::Db;
use giro_servicos::config::{Config, Servico, Sources};
use giro_servicos::server::{self, Contexto};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::{TestDb, ESTOQUE_TOKEN, MERCADO_TOKEN, OPERADOR, SENHA};

/// A configuration for tests: valid secrets, the given database for `servico`, background jobs
/// and the embedded publisher off unless `env` turns them on.
pub fn config(servico: Servico, db: &TestDb, env: &[(&str, &str)]) -> Config {
    let db_var = match servico {
        Servico::Mercado => "MERCADO_DB_URL",
        Servico::Estoque => "ESTOQUE_DB_URL",
    };
    let mut vars: BTreeMap<String, String> = [
        ("MERCADO_TOKEN_SERVICO", MERCADO_TOKEN),
        ("ESTOQUE_TOKEN_SERVICO", ESTOQUE_TOKEN),
        ("OPERADOR_USUARIO", OPERADOR),
        ("OPERADOR_SENHA", SENHA),
        ("GIRO_OUTBOX_PUBLICADOR_EMBUTIDO", "false"),
        ("GIRO_RESERVA_EXPIRACAO_HABILITADA", "false"),
        ("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "false"),
        ("GIRO_DB_POOL_MAX", "8"),
        // Every test client is 127.0.0.1: the per-address checkout bounds are off here
        // (tests/it/seguranca_checkout.rs sets its own).
        ("GIRO_CHECKOUT_MAX_POR_MINUTO", "0"),
        ("GIRO_CHECKOUT_MAX_UNIDADES_RESERVADAS", "0"),
        ("GIRO_CHECKOUT_MAX_UNIDADES_POR_PRODUTO", "0"),
        ("GIRO_HTTP_PRAZO_DESLIGAMENTO", "2s"),
        // The test machine may be loaded far beyond production: lock waits get a generous bound
        // (tests/it/resiliencia.rs sets a short one where it tests the lock timeout).
        ("GIRO_DB_TIMEOUT_LOCK", "60s"),
        ("GIRO_DB_TIMEOUT_COMANDO", "120s"),
        // Likewise a pool slot or a new connection, and a delivery's answer: outcomes are
        // asserted, not speed (the tests of these timeouts set short ones).
        ("GIRO_DB_TIMEOUT", "30s"),
        ("GIRO_OUTBOX_TIMEOUT", "30s"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    vars.insert(db_var.to_string(), db.url());
    for (k, v) in env {
        vars.insert(k.to_string(), v.to_string());
    }
    let src = Sources { file: None, cwd: super::process::scratch_dir(), env: vars, flags: vec![] };
    Config::load(&src).expect("test configuration")
}

pub struct TestApp {
    pub addr: SocketAddr,
    pub db: TestDb,
    pub dbh: Db,
    pub config: Config,
    pub http: reqwest::Client,
    shutdown: CancellationToken,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// A request with the service token of this service (what its peer sends).
    pub fn as_servico(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let token = self.config.token_servico(self.servico()).expect("token").expose().to_string();
        rb.bearer_auth(token)
    }

    pub fn servico(&self) -> Servico {
        if self.config.mercado.db.as_ref().and_then(|d| d.pg.get_dbname()) == self.db.pg.get_dbname() {
            Servico::Mercado
        } else {
            Servico::Estoque
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

/// Starts `servico` in-process on 127.0.0.1 with a fresh database.
pub async fn spawn_app(servico: Servico, env: &[(&str, &str)]) -> TestApp {
    giro_infra::telemetry::init_for_test();
    let db = TestDb::new(servico).await;
    let config = config(servico, &db, env);
    let pool = giro_infra::db::pool_with(
        config.db(servico).expect("the test's database"),
        config.db_pool_max,
        config.db_timeout,
        config.db_limites,
    )
    .expect("pool");
    let dbh = Db::new(pool, config.outbox.notify);
    let shutdown = CancellationToken::new();
    let addr = servir(servico, config.clone(), dbh.clone(), &shutdown).await;
    let http =
        reqwest::Client::builder().timeout(std::time::Duration::from_secs(30)).build().expect("client");
    TestApp { addr, db, dbh, config, http, shutdown }
}

/// Another replica of `app`'s service, in-process on its own port, on the same database, with
/// `env` over the test defaults (e.g. another `OPERADOR_SENHA`). Stops when dropped.
pub struct Replica {
    pub addr: SocketAddr,
    shutdown: CancellationToken,
}

impl Replica {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

pub async fn spawn_replica(app: &TestApp, env: &[(&str, &str)]) -> Replica {
    let servico = app.servico();
    let config = config(servico, &app.db, env);
    let pool = giro_infra::db::pool(
        config.db(servico).expect("the test's database"),
        config.db_pool_max,
        config.db_timeout,
    )
    .expect("pool");
    let dbh = Db::new(pool, config.outbox.notify);
    let shutdown = CancellationToken::new();
    let addr = servir(servico, config, dbh, &shutdown).await;
    Replica { addr, shutdown }
}

/// Serves `servico`'s routes over `dbh` on a fresh loopback port until `shutdown`; the address.
async fn servir(servico: Servico, config: Config, dbh: Db, shutdown: &CancellationToken) -> SocketAddr {
    let ctx = Contexto {
        seguranca: server::seguranca(&config, servico, &dbh.pool).expect("security"),
        config,
        db: dbh,
        tasks: TaskTracker::new(),
        shutdown: shutdown.clone(),
        supervisor: giro_infra::supervisor::Supervisor::new(),
        drenagem: Default::default(),
    };
    // Each role's type says its database (`Role<Mercado>`, `Role<Estoque>`): one arm each.
    let router = match servico {
        Servico::Mercado => server::app(&ctx, giro_servicos::mercado::build(&ctx).expect("build role")),
        Servico::Estoque => server::app(&ctx, giro_servicos::estoque::build(&ctx).expect("build role")),
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let _ = giro_http::serve(listener, router, stop, std::time::Duration::from_secs(2)).await;
    });
    addr
}

/// Asserts `res` is the 400 problem (`application/problem+json`) answering the input `caso`, its
/// detail naming what is wrong (`esperado` is a part of it); the problem, for further checks.
pub async fn assert_400(
    res: reqwest::Response,
    caso: &serde_json::Value,
    esperado: &str,
) -> serde_json::Value {
    assert_eq!(res.status(), 400, "{caso}");
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let problema: serde_json::Value = res.json().await.expect("problem");
    let detail = problema["detail"].as_str().unwrap_or_default();
    assert!(detail.contains(esperado), "{caso} → {detail}");
    problema
}

/// Sends with `rb` a body declared JSON that does not parse (`{nope`): a 400 problem.
pub async fn assert_json_quebrado_400(rb: reqwest::RequestBuilder) {
    let res = rb.header("content-type", "application/json").body("{nope").send().await.expect("request");
    assert_eq!(res.status(), 400);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
}

/// An operator session: logs in through `/sessao` and keeps the cookies for the next requests.
pub struct Operador {
    pub cookie: String,
    pub csrf: String,
}

impl Operador {
    /// Logs in on `app`.
    pub async fn login(app: &TestApp) -> Operador {
        Operador::entrar(&app.http, &app.url(""), app.servico()).await
    }

    /// Logs in with `http` on `servico` served at `base` (`http://host:port`), which need not be
    /// a [`TestApp`]: its own CSRF token in the double-submit cookie, then `POST /sessao`.
    pub async fn entrar(http: &reqwest::Client, base: &str, servico: Servico) -> Operador {
        let csrf_name = match servico {
            Servico::Mercado => "XSRF-MERCADO",
            Servico::Estoque => "XSRF-ESTOQUE",
        };
        let csrf = uuid::Uuid::new_v4().to_string();
        let res = http
            .post(format!("{base}/sessao"))
            .header("cookie", format!("{csrf_name}={csrf}"))
            .header("x-xsrf-token", &csrf)
            .form(&[("usuario", OPERADOR), ("senha", SENHA)])
            .send()
            .await
            .expect("login");
        assert_eq!(res.status(), 204, "operator login");
        let mut cookies = Vec::new();
        let mut new_csrf = csrf.clone();
        for v in res.headers().get_all("set-cookie") {
            let v = v.to_str().expect("cookie");
            let kv = v.split(';').next().unwrap_or("").to_string();
            if let Some(t) = kv.strip_prefix(&format!("{csrf_name}=")) {
                new_csrf = t.to_string();
            } else {
                cookies.push(kv);
            }
        }
        cookies.push(format!("{csrf_name}={new_csrf}"));
        Operador { cookie: cookies.join("; "), csrf: new_csrf }
    }

    /// Adds the session cookie and the CSRF header to a request.
    pub fn on(&self, rb: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        rb.header("cookie", &self.cookie).header("x-xsrf-token", &self.csrf)
    }
}
