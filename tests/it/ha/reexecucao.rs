//! The re-run of a request whose database session was lost before its COMMIT (issue 28, point 5),
//! with the real `giro` binary on the real PostgreSQL:
//! - a checkout whose backend is terminated (`pg_terminate_backend`, SQLSTATE 57P01) between two
//!   of its statements — held on a row lock the test owns — answers 201 once: the service ran it
//!   again on a fresh connection, and there is one order, its units taken off the shelf once;
//! - a checkout whose COMMIT reached the database but whose answer was cut (a proxy drops the
//!   connection right after relaying COMMIT) answers 503 with `Retry-After`: its outcome is
//!   unknown to the service, which does not run it again; the client's retry with the same
//!   `Idempotency-Key` answers 201 with the same order, and there is one;
//! - a checkout whose throttle counter's backend is terminated is run again too, and an operator's
//!   request whose session lookup lost its backend looks the session up again.

use std::collections::BTreeMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use giro_servicos::config::Servico;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_postgres::Transaction;

use crate::support::app::Operador;
use crate::support::metrics::Metricas;
use crate::support::process::{env_base, Giro};
use crate::support::{wait_until, TestDb};

const SKU: &str = "78900011";

fn env(mercado_db_url: String) -> BTreeMap<&'static str, String> {
    env_base([
        ("MERCADO_PORTA", "0".to_string()),
        ("GIRO_OUTBOX_PUBLICADOR_EMBUTIDO", "false".to_string()),
        ("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "false".to_string()),
        // No other transaction of the service commits while the test cuts one: no per-minute
        // counter, no expiry sweep after the first.
        ("GIRO_CHECKOUT_MAX_POR_MINUTO", "0".to_string()),
        ("GIRO_RESERVA_INTERVALO_EXPIRACAO", "1h".to_string()),
        // The checkout waits on the test's row lock longer than the default 5 s would allow.
        ("GIRO_DB_TIMEOUT_LOCK", "60s".to_string()),
        ("MERCADO_DB_URL", mercado_db_url),
    ])
}

async fn com_produto(db: &TestDb) {
    db.client()
        .await
        .execute(
            "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
             VALUES ($1, 'Produto', 5.00, 100, 1, 200, 'DISPONIVEL')",
            &[&SKU],
        )
        .await
        .expect("product");
}

async fn checkout(base: &str, chave: Option<&str>) -> (u16, Option<String>, Value) {
    let mut rb = reqwest::Client::new()
        .post(format!("{base}/pedidos"))
        .json(&json!({"itens": [{"sku": SKU, "qtd": 2}]}))
        .timeout(Duration::from_secs(60));
    if let Some(k) = chave {
        rb = rb.header("idempotency-key", k);
    }
    let res = rb.send().await.expect("POST /pedidos");
    let status = res.status().as_u16();
    let retry = res.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
    (status, retry, res.json().await.unwrap_or(Value::Null))
}

async fn pedidos_e_prateleira(db: &TestDb) -> (i64, i32) {
    let c = db.client().await;
    let n: i64 = c.query_one("SELECT count(*) FROM pedido", &[]).await.expect("orders").get(0);
    let p: i32 = c
        .query_one("SELECT estoque_prateleira FROM produto_vitrine WHERE sku = $1", &[&SKU])
        .await
        .expect("shelf")
        .get(0);
    (n, p)
}

/// Sends `pedido` while the test's transaction `trava` holds a lock it needs; waits until a
/// backend of `db` other than the test's waits on a lock (`primeiro`), terminates every client
/// backend of `db` but the test's (57P01, the waiting one among them), then waits until another
/// backend waits on the same lock (`segundo`): the request's second attempt, on a fresh
/// connection. Then releases the lock and returns what `pedido` answered.
async fn cortar_quem_espera<T: Send + 'static>(
    db: &TestDb,
    trava: Transaction<'_>,
    pedido: impl Future<Output = T> + Send + 'static,
    primeiro: &str,
    segundo: &str,
) -> T {
    let meu_pid: i32 = trava.query_one("SELECT pg_backend_pid()", &[]).await.expect("pid").get(0);
    let pedido = tokio::spawn(pedido);
    let admin = crate::support::db::admin().await;
    let esperando =
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> $2 AND wait_event_type = 'Lock'";
    let alvo: i32 = wait_until(Duration::from_secs(30), primeiro, || async {
        admin.query_opt(esperando, &[&db.name, &meu_pid]).await.ok()?.map(|r| r.get(0))
    })
    .await;
    let mortos: i64 = admin
        .query_one(
            "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
              WHERE datname = $1 AND pid <> $2 AND backend_type = 'client backend') t",
            &[&db.name, &meu_pid],
        )
        .await
        .expect("terminate")
        .get(0);
    assert!(mortos >= 1, "backend {alvo} terminated");
    wait_until(Duration::from_secs(30), segundo, || async {
        let r = admin.query_opt(esperando, &[&db.name, &meu_pid]).await.ok()??;
        (r.get::<_, i32>(0) != alvo).then_some(())
    })
    .await;
    trava.rollback().await.expect("release");
    pedido.await.expect("request task")
}

/// A checkout cut as [`cortar_quem_espera`] does answered 201 on its second attempt, leaving
/// `esperado` (orders, shelf), and the service counted one successful re-run since `antes`.
async fn reexecutado_uma_vez(
    db: &TestDb,
    base: &str,
    antes: &Metricas,
    (status, _, corpo): (u16, Option<String>, Value),
    esperado: (i64, i32),
    o_que: &str,
) {
    assert_eq!(status, 201, "the checkout succeeded on its second attempt: {corpo}");
    assert_eq!(pedidos_e_prateleira(db).await, esperado, "{o_que}");
    let depois = Metricas::de(base).await;
    let rerun = |m: &Metricas| m.soma("giro_http_reexecucoes_total", "resultado=\"sucesso\"");
    assert_eq!(rerun(&depois) - rerun(antes), 1.0, "one re-run, successful");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkout_whose_backend_is_terminated_mid_transaction_is_run_again_and_answers_201_once() {
    let db = TestDb::new(Servico::Mercado).await;
    com_produto(&db).await;
    let mut g = Giro::spawn(&["mercado", "serve"], &env(db.url()));
    let base = format!("http://{}", g.wait_listening().await);
    let antes = Metricas::de(&base).await;

    // The test holds the product's row: the checkout's transaction waits on it midway.
    let mut trava = db.client().await;
    let tx = trava.transaction().await.expect("begin");
    tx.execute("SELECT 1 FROM produto_vitrine WHERE sku = $1 FOR UPDATE", &[&SKU]).await.expect("lock");
    let b = base.clone();
    let resposta = cortar_quem_espera(
        &db,
        tx,
        async move { checkout(&b, None).await },
        "the checkout waiting on the lock",
        "the second attempt waiting on the lock",
    )
    .await;
    reexecutado_uma_vez(&db, &base, &antes, resposta, (1, 98), "one order, two units taken once").await;
    // The log is read by another thread: wait for the line rather than read it once.
    g.wait_for_line("running the request again on a fresh connection", Duration::from_secs(10)).await;
}

/// The throttle's counter (`checkout.max-por-minuto`) is the first statement a checkout runs: a
/// session lost there is as lost as in the checkout's own transaction. Seen in the Patroni
/// switchover scenario: the counter's failure answered 503 unmarked, so it was never run again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkout_whose_throttle_counter_loses_its_session_is_run_again_and_answers_201() {
    let db = TestDb::new(Servico::Mercado).await;
    com_produto(&db).await;
    let mut vars = env(db.url());
    vars.insert("GIRO_CHECKOUT_MAX_POR_MINUTO", "100".to_string());
    let mut g = Giro::spawn(&["mercado", "serve"], &vars);
    let base = format!("http://{}", g.wait_listening().await);
    assert_eq!(checkout(&base, None).await.0, 201, "the first checkout writes the counter's row");
    let antes = Metricas::de(&base).await;

    // The test holds the counter's row: the next checkout's increment waits on it.
    let mut trava = db.client().await;
    let tx = trava.transaction().await.expect("begin");
    let linhas = tx
        .execute("SELECT 1 FROM contador_limite WHERE chave = 'checkout:127.0.0.1' FOR UPDATE", &[])
        .await
        .expect("lock");
    assert_eq!(linhas, 1, "the checkout's counter row");
    let b = base.clone();
    let resposta = cortar_quem_espera(
        &db,
        tx,
        async move { checkout(&b, None).await },
        "the counter's increment waiting on the lock",
        "the second attempt waiting on the lock",
    )
    .await;
    reexecutado_uma_vez(&db, &base, &antes, resposta, (2, 96), "two orders, each taking two units once")
        .await;
}

/// The operator's session is looked up before the re-run layer (`auth::identify`, on every
/// request): a lookup that lost its backend marked no attempt, and the operator's read answered
/// 503 for good (seen in the Patroni switchover scenario). A route that needs the operator now
/// looks the session up again inside the layer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_request_whose_session_lookup_loses_its_backend_looks_it_up_again_and_answers_200() {
    let db = TestDb::new(Servico::Mercado).await;
    let mut g = Giro::spawn(&["mercado", "serve"], &env(db.url()));
    let base = format!("http://{}", g.wait_listening().await);
    let http = reqwest::Client::builder().timeout(Duration::from_secs(60)).build().expect("client");
    let sessao = Operador::entrar(&http, &base, Servico::Mercado).await.cookie;

    // The test holds the sessions' table: the next lookup waits on it.
    let mut trava = db.client().await;
    let tx = trava.transaction().await.expect("begin");
    tx.batch_execute("LOCK TABLE sessao_operador IN ACCESS EXCLUSIVE MODE").await.expect("lock");
    let (h, b, c) = (http.clone(), base.clone(), sessao.clone());
    let (status, corpo) = cortar_quem_espera(
        &db,
        tx,
        async move {
            let res = h.get(format!("{b}/operacao/pedidos")).header("cookie", c).send().await.expect("GET");
            (res.status().as_u16(), res.text().await.unwrap_or_default())
        },
        "the session lookup waiting on the lock",
        "the session looked up again, waiting on the lock",
    )
    .await;
    assert_eq!(status, 200, "the operator's read answered once the session was found: {corpo}");
    g.wait_for_line("session lookup failed", Duration::from_secs(10)).await;
}

/// A proxy in front of PostgreSQL that, once armed, relays the next `COMMIT` a client sends, then
/// drops the server's answer and closes the connection: the commit happened, the client cannot
/// know.
struct CorteNoCommit {
    addr: SocketAddr,
    armado: Arc<AtomicBool>,
    cortes: Arc<std::sync::atomic::AtomicU32>,
}

/// The simple-query message tokio-postgres sends to commit: 'Q', length 11, "COMMIT\0".
const COMMIT: &[u8] = b"Q\0\0\0\x0bCOMMIT\0";
/// The server's answer to it: CommandComplete 'C', length 11, "COMMIT\0".
const COMMITADO: &[u8] = b"C\0\0\0\x0bCOMMIT\0";

impl CorteNoCommit {
    async fn start(alvo: SocketAddr) -> CorteNoCommit {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let armado = Arc::new(AtomicBool::new(false));
        let cortes = Arc::new(std::sync::atomic::AtomicU32::new(0));
        let (a, c) = (armado.clone(), cortes.clone());
        tokio::spawn(async move {
            while let Ok((cliente, _)) = listener.accept().await {
                let Ok(servidor) = TcpStream::connect(alvo).await else { continue };
                let (a, c) = (a.clone(), c.clone());
                tokio::spawn(async move {
                    let (mut cr, mut cw) = cliente.into_split();
                    let (mut sr, mut sw) = servidor.into_split();
                    let cortar = Arc::new(AtomicBool::new(false));
                    let k = cortar.clone();
                    let ida = async move {
                        let mut buf = vec![0u8; 64 * 1024];
                        loop {
                            let n = match cr.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => n,
                            };
                            let chunk = &buf[..n];
                            if chunk.windows(COMMIT.len()).any(|w| w == COMMIT)
                                && a.swap(false, Ordering::SeqCst)
                            {
                                k.store(true, Ordering::SeqCst);
                            }
                            if sw.write_all(chunk).await.is_err() {
                                return;
                            }
                        }
                    };
                    let volta = async move {
                        let mut buf = vec![0u8; 64 * 1024];
                        loop {
                            let n = match sr.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => n,
                            };
                            // The COMMIT's answer (the checkout sends it in one go with its
                            // last writes, whose answers may come first): dropped, and the
                            // connection with it.
                            if cortar.load(Ordering::SeqCst)
                                && buf[..n].windows(COMMITADO.len()).any(|w| w == COMMITADO)
                            {
                                c.fetch_add(1, Ordering::SeqCst);
                                return;
                            }
                            if cw.write_all(&buf[..n]).await.is_err() {
                                return;
                            }
                        }
                    };
                    tokio::select! {
                        _ = ida => {}
                        _ = volta => {}
                    }
                });
            }
        });
        CorteNoCommit { addr, armado, cortes }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkout_whose_commit_answer_is_lost_answers_503_and_its_retry_with_the_same_key_gives_the_same_order(
) {
    let db = TestDb::new(Servico::Mercado).await;
    com_produto(&db).await;
    let port = db.pg.get_ports().first().copied().unwrap_or(5432);
    let proxy = CorteNoCommit::start(SocketAddr::from(([127, 0, 0, 1], port))).await;
    let url = db.url().replace(&format!(":{port}/"), &format!(":{}/", proxy.addr.port()));
    let mut g = Giro::spawn(&["mercado", "serve"], &env(url));
    let base = format!("http://{}", g.wait_listening().await);
    wait_until(Duration::from_secs(30), "mercado ready", || async {
        (reqwest::get(format!("{base}/readyz")).await.ok()?.status() == 200).then_some(())
    })
    .await;
    // A first checkout, whole, so the next one is the only transaction in flight.
    assert_eq!(checkout(&base, None).await.0, 201);
    let antes = Metricas::de(&base).await;

    let chave = uuid::Uuid::new_v4().to_string();
    proxy.armado.store(true, Ordering::SeqCst);
    let (status, retry, corpo) = checkout(&base, Some(&chave)).await;
    assert_eq!(proxy.cortes.load(Ordering::SeqCst), 1, "the COMMIT's answer was cut");
    assert_eq!(status, 503, "an unknown outcome is a 503: {corpo}");
    assert!(retry.is_some(), "with Retry-After");
    assert_eq!(pedidos_e_prateleira(&db).await, (2, 96), "the commit happened: two orders");
    let depois = Metricas::de(&base).await;
    assert_eq!(
        depois.soma("giro_http_reexecucoes_total", "") - antes.soma("giro_http_reexecucoes_total", ""),
        0.0,
        "a COMMIT sent is never run again by the service"
    );

    // The storefront's retry, same key: the same order, not a second one.
    let id: String = db
        .client()
        .await
        .query_one("SELECT id::text FROM pedido ORDER BY criado_em DESC LIMIT 1", &[])
        .await
        .expect("last order")
        .get(0);
    let (status, _, corpo) = checkout(&base, Some(&chave)).await;
    assert_eq!(status, 201, "{corpo}");
    assert_eq!(corpo["pedidoId"].as_str(), Some(id.as_str()), "the same order");
    assert_eq!(pedidos_e_prateleira(&db).await, (2, 96), "still two orders");
    drop(g);
}
