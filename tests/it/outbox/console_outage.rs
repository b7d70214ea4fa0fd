//! The event console and the CLI's console logic while PostgreSQL is down (issue 24): every
//! console route answers 503 "tente novamente" and the CLI's functions fail with an error the one
//! database-error policy calls unavailable — never a 500; and a request held up by a lock past
//! `lock_timeout` is a 503 too: not a 500, and for a discard not a 409 "fora de FAILED".
//!
//! The console runs in-process with its outbox pool behind a TCP proxy the test cuts
//! ([`ChaosProxy`]), while the operator's sessions stay in a database that answers: what is
//! tested is the console's own answer, not the session lookup's.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use giro_contracts::EventoIntegracao;
use giro_http::auth::{self, Seguranca};
use giro_http::pg::{Classe, Politica};
use giro_infra::config::{Operador, PoolLimits, Secret};
use giro_infra::db::AnyDb;
use giro_infra::db::Db;
use giro_outbox::operador::{self, Reparo, SemReparo};
use giro_servicos::config::Servico;
use reqwest::Method;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::support::app;
use crate::support::chaos::{self, ChaosProxy};
use crate::support::{wait_until, TestDb, MERCADO_TOKEN, OPERADOR, SENHA};

const RETENCAO: Duration = Duration::from_secs(30 * 86_400);
const POLITICA: Politica = Politica::sem_restricoes("test");

/// The console of a mercado database, its outbox pool through `proxy`.
struct Console {
    addr: std::net::SocketAddr,
    db: TestDb,
    proxy: Arc<ChaosProxy>,
    /// The database's URL through the proxy.
    url: String,
    /// The console's outbox pool (through the proxy).
    outbox: Db,
    http: reqwest::Client,
    cookie: String,
    csrf: String,
    stop: CancellationToken,
}

impl Drop for Console {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl Console {
    async fn start(limits: PoolLimits) -> Console {
        giro_infra::telemetry::init_for_test();
        let db = TestDb::new(Servico::Mercado).await;
        let (proxy, url) = chaos::in_front_of(&db).await;
        let cfg = giro_infra::config::DbConfig { pg: url.parse().expect("proxy url") };
        let outbox =
            Db::new(giro_infra::db::pool_with(&cfg, 4, Duration::from_secs(2), limits).expect("pool"), false);
        let seg = Seguranca::new(
            Secret::new(MERCADO_TOKEN),
            Operador { usuario: OPERADOR.into(), senha: Secret::new(SENHA) },
            "MERCADO_SESSAO",
            "XSRF-MERCADO",
            db.pool(),
            auth::sessao::SESSION_TTL,
        );
        let router = giro_http::finish(
            giro_outbox::operador::router_console::<EventoIntegracao>(outbox.clone(), seg.clone(), RETENCAO)
                .merge(auth::login::router(seg.clone())),
            seg,
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let stop = CancellationToken::new();
        tokio::spawn(giro_http::serve(listener, router, stop.clone(), Duration::from_secs(1)));
        let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("client");
        let mut c =
            Console { addr, db, proxy, url, outbox, http, cookie: String::new(), csrf: String::new(), stop };
        c.login().await;
        c
    }

    /// Logs the operator in (sessions are in the database that stays up).
    async fn login(&mut self) {
        let sessao =
            app::Operador::entrar(&self.http, &format!("http://{}", self.addr), Servico::Mercado).await;
        (self.cookie, self.csrf) = (sessao.cookie, sessao.csrf);
    }

    /// Status, content type and body of `method path` as the operator.
    async fn call(&self, method: Method, path: &str) -> (u16, String, serde_json::Value) {
        let res = self
            .http
            .request(method, format!("http://{}{path}", self.addr))
            .header("cookie", &self.cookie)
            .header("x-xsrf-token", &self.csrf)
            .send()
            .await
            .expect("request");
        let status = res.status().as_u16();
        let tipo = res.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
        (status, tipo, res.json().await.unwrap_or(serde_json::Value::Null))
    }

    async fn insert(&self, status: &str) -> Uuid {
        let id = Uuid::new_v4();
        self.db
            .client()
            .await
            .execute(
                "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, tentativas, ultimo_erro) \
                 VALUES ($1, 'ReposicaoSolicitada', '{\"sku\":\"7894900011517\"}', $2, now(), now(), 3, 'HTTP 400')",
                &[&id, &status],
            )
            .await
            .expect("insert");
        id
    }

    async fn status_of(&self, id: Uuid) -> Option<String> {
        let c = self.db.client().await;
        c.query_opt("SELECT status FROM outbox_event WHERE id = $1", &[&id])
            .await
            .expect("status")
            .map(|r| r.get(0))
    }
}

/// The console's routes, each with a FAILED event `id` where one is named.
fn rotas(id: Uuid) -> Vec<(Method, String)> {
    vec![
        (Method::GET, "/operacao/outbox".into()),
        (Method::GET, "/operacao/outbox/eventos".into()),
        (Method::GET, "/operacao/outbox/eventos?status=FAILED".into()),
        (Method::POST, "/operacao/outbox/reenvio".into()),
        (Method::POST, format!("/operacao/outbox/eventos/{id}/reenvio")),
        (Method::DELETE, format!("/operacao/outbox/eventos/{id}?motivo=teste")),
    ]
}

#[tokio::test]
async fn every_console_route_answers_503_never_500_while_postgresql_is_down_and_200_once_it_is_back() {
    let c = Console::start(PoolLimits::default()).await;
    let id = c.insert("FAILED").await;
    // The pool holds a connection through the proxy before the outage.
    let (s, _, r) = c.call(Method::GET, "/operacao/outbox").await;
    assert_eq!((s, r["falhos"].as_i64()), (200, Some(1)), "{r}");

    // The outage comes while a request is in flight (it waits on a lock): its session breaks
    // under it, which is what a restart or failover does to the requests of that moment.
    let mut outro = c.db.client().await;
    let tx = outro.transaction().await.expect("begin");
    tx.batch_execute("LOCK TABLE outbox_event IN ACCESS EXCLUSIVE MODE").await.expect("lock table");
    let observador = c.db.client().await;
    let ((s, _, corpo), ()) = tokio::join!(c.call(Method::GET, "/operacao/outbox/eventos"), async {
        wait_until(Duration::from_secs(20), "the console's query to wait on the lock", || async {
            let n: i64 = observador
                .query_one(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'",
                    &[&c.db.name],
                )
                .await
                .ok()?
                .get(0);
            (n > 0).then_some(())
        })
        .await;
        c.proxy.cut();
    });
    assert_eq!(s, 503, "a request whose session broke under it: {corpo}");
    tx.rollback().await.expect("rollback");

    for (method, path) in rotas(id) {
        // The cut reaches a pooled connection within moments: poll, but a 500 fails at once.
        let (tipo, corpo) =
            wait_until(Duration::from_secs(20), &format!("{method} {path} to answer 503"), || {
                let (method, path) = (method.clone(), path.clone());
                let c = &c;
                async move {
                    let (s, tipo, corpo) = c.call(method.clone(), &path).await;
                    assert_ne!(s, 500, "{method} {path} answered 500 while PostgreSQL was down: {corpo}");
                    assert_ne!(s, 409, "{method} {path} answered 409 while PostgreSQL was down: {corpo}");
                    (s == 503).then_some((tipo, corpo))
                }
            })
            .await;
        assert_eq!(tipo, "application/problem+json", "{method} {path}");
        assert!(
            corpo["detail"].as_str().is_some_and(|d| d.contains("tente novamente")),
            "{method} {path}: {corpo}"
        );
    }
    assert_eq!(c.status_of(id).await.as_deref(), Some("FAILED"), "nothing changed during the outage");

    c.proxy.restore();
    wait_until(Duration::from_secs(20), "the console to answer again", || async {
        (c.call(Method::GET, "/operacao/outbox").await.0 == 200).then_some(())
    })
    .await;
    let (s, _, r) = c.call(Method::DELETE, &format!("/operacao/outbox/eventos/{id}?motivo=teste")).await;
    assert_eq!((s, r["id"].as_str()), (200, Some(id.to_string().as_str())), "{r}");
}

#[tokio::test]
async fn a_console_request_held_up_by_a_lock_past_lock_timeout_is_503_and_409_only_when_the_row_left_failed()
{
    let limits = PoolLimits { lock_timeout: Duration::from_millis(200), ..PoolLimits::default() };
    let c = Console::start(limits).await;
    let id = c.insert("FAILED").await;
    let mut outro = c.db.client().await;

    // The whole table locked (a migration, a VACUUM FULL): every query waits past lock_timeout.
    let tx = outro.transaction().await.expect("begin");
    tx.batch_execute("LOCK TABLE outbox_event IN ACCESS EXCLUSIVE MODE").await.expect("lock table");
    for (method, path) in rotas(id) {
        let (s, _, corpo) = c.call(method.clone(), &path).await;
        assert_eq!(s, 503, "{method} {path}: {corpo}");
    }
    tx.rollback().await.expect("rollback");

    // Only the row locked: it reads FAILED, but its DELETE or UPDATE waits past lock_timeout.
    let tx = outro.transaction().await.expect("begin");
    tx.execute("SELECT 1 FROM outbox_event WHERE id = $1 FOR UPDATE", &[&id]).await.expect("lock row");
    for (method, path) in [
        (Method::DELETE, format!("/operacao/outbox/eventos/{id}?motivo=teste")),
        (Method::POST, format!("/operacao/outbox/eventos/{id}/reenvio")),
    ] {
        let (s, _, corpo) = c.call(method.clone(), &path).await;
        assert_eq!(s, 503, "{method} {path}: {corpo}");
    }
    // Replay-all walks its pages with SKIP LOCKED: a row another session holds is left for
    // later, and the answer says it is still there.
    let (s, _, corpo) = c.call(Method::POST, "/operacao/outbox/reenvio").await;
    assert_eq!(
        (s, corpo["reenviados"].as_i64(), corpo["restantes"].as_i64()),
        (200, Some(0), Some(1)),
        "{corpo}"
    );
    tx.rollback().await.expect("rollback");
    assert_eq!(c.status_of(id).await.as_deref(), Some("FAILED"));

    // Once the lock is gone: discarded, then gone (404); a PENDING event is the 409.
    let (s, _, corpo) = c.call(Method::DELETE, &format!("/operacao/outbox/eventos/{id}?motivo=teste")).await;
    assert_eq!(s, 200, "{corpo}");
    assert_eq!(c.call(Method::DELETE, &format!("/operacao/outbox/eventos/{id}?motivo=teste")).await.0, 404);
    let pendente = c.insert("PENDING").await;
    let (s, _, corpo) =
        c.call(Method::DELETE, &format!("/operacao/outbox/eventos/{pendente}?motivo=teste")).await;
    assert_eq!((s, corpo["statusEvento"].as_str()), (409, Some("PENDING")), "{corpo}");
}

/// What the policy answers for `e`, asserting it is a database error at all.
fn classe(e: anyhow::Error, o_que: &str) -> Classe {
    let c = POLITICA.classificar_cadeia(&e);
    assert!(c.is_some(), "{o_que}: not a database error: {e:#}");
    assert_eq!(POLITICA.responder_cadeia(&e).status.as_u16(), 503, "{o_que}: {e:#}");
    c.unwrap_or(Classe::Outro)
}

#[tokio::test]
async fn the_cli_console_logic_fails_as_unavailable_while_postgresql_is_down() {
    let c = Console::start(PoolLimits::default()).await;
    let id = c.insert("FAILED").await;
    let client = c.outbox.pool.get().await.expect("a connection before the outage");
    let cc = &client;
    assert!(operador::status_text::<EventoIntegracao>(cc, Utc::now())
        .await
        .expect("status")
        .contains("FAILED  1"));

    c.proxy.cut();
    // The connection in hand is cut with the proxy: each function fails as the database's fault.
    wait_until(Duration::from_secs(20), "the held connection to see the cut", || async {
        operador::status_text::<EventoIntegracao>(cc, Utc::now()).await.err()
    })
    .await;
    let agora = Utc::now();
    let falhas: Vec<(&str, anyhow::Error)> = vec![
        ("status", operador::status_text::<EventoIntegracao>(cc, agora).await.expect_err("status")),
        ("list", operador::list(cc, &operador::Filtro::default(), 10).await.expect_err("list")),
        ("show", operador::show_text(cc, &SemReparo as &dyn Reparo<AnyDb>, id).await.expect_err("show")),
    ];
    for (o_que, e) in falhas {
        assert_eq!(classe(e, o_que), Classe::Indisponivel, "{o_que}");
    }
    // The actions keep the driver's error in their own type, which the console hands to the policy.
    let r = operador::Registro { por: "teste".into(), motivo: Some("teste".into()) };
    let erros = vec![
        ("retry", operador::reenviar(&c.outbox, id, agora, RETENCAO, false, &r).await.map(|_| ())),
        (
            "retry --failed",
            operador::reenviar_todos(&c.outbox, agora, RETENCAO, false, Duration::from_secs(5), &r)
                .await
                .map(|_| ()),
        ),
        (
            "discard",
            operador::executar(
                &c.outbox,
                &SemReparo as &dyn Reparo<AnyDb>,
                id,
                operador::Acao::Descartar,
                &r,
            )
            .await
            .map(|_| ()),
        ),
    ];
    for (o_que, e) in erros {
        match e {
            Err(operador::SaidaErro::Db(e)) => {
                assert!(e.indisponivel(), "{o_que}: {e}");
                assert_eq!(POLITICA.responder(&e).status.as_u16(), 503, "{o_que}");
            }
            other => panic!("{o_que} while the database is down: {other:?}"),
        }
    }
    // A new connection is refused: what `giro outbox …` meets first.
    let e = c.outbox.pool.get().await.map(|_| ()).expect_err("no connection while cut");
    assert_eq!(classe(e.into(), "pool"), Classe::Indisponivel);

    // The command itself: exit 1, the error saying the database is unavailable, no panic.
    let env =
        [("MERCADO_DB_URL", c.url.clone()), ("GIRO_DB_TIMEOUT", "2s".to_string())].into_iter().collect();
    for args in [
        &["outbox", "status", "--db", "mercado"][..],
        &["outbox", "discard", "--db", "mercado", &id.to_string(), "--motivo", "teste"],
    ] {
        let out = crate::support::process::command(args, &env).output().expect("giro outbox");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        // Said as the console says it, or naming the database that cannot be reached.
        let dito = err.contains("the database is unavailable; try again")
            || err.contains("cannot connect to the mercado database") && err.contains("(MERCADO_DB_URL)");
        assert!(dito && !err.contains("panicked") && err.lines().count() == 1, "{args:?}: {err}");
    }
    assert_eq!(c.status_of(id).await.as_deref(), Some("FAILED"));
}
