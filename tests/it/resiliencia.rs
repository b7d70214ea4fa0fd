//! Delivery that never stalls and never gives up on a healthy peer, and self-healing after faults
//! (issues 14 and 19): what is permanent, batch results matched by `eventId`, the delivery
//! deadline, supervised loops, the `LISTEN` connection, a peer that comes back, poison rows,
//! pool hygiene and 503 for database trouble, the audit of stale work.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use chrono::Utc;
use giro::config::Servico;
use giro::db::Db;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::outbox::{solicitada, write};
use crate::support::{wait_until, TestDb};

// ---------------------------------------------------------------------------------------------
// A scripted peer

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Modo {
    /// The receiver applies everything (204 / per-item 204).
    Aceita,
    /// Something in front of the receiver answers an HTML 404 page to every request.
    Html404,
    /// `/eventos/lote` answers the results in reverse order; the events in `recusados` get a
    /// per-item 400, the others 204.
    Invertido,
    /// The receiver refuses every event with a problem+json 400.
    Recusa,
    /// Connection-level failure: 503 without a body, as a proxy with the receiver down.
    Fora,
}

struct Roteiro {
    modo: Mutex<Modo>,
    recusados: Mutex<Vec<String>>,
    /// Event ids the peer applied (once each; duplicates counted apart).
    aplicados: Mutex<Vec<String>>,
    requests: AtomicUsize,
    probes: AtomicUsize,
}

struct Par {
    url: String,
    r: Arc<Roteiro>,
}

impl Par {
    async fn start(modo: Modo) -> Par {
        let r = Arc::new(Roteiro {
            modo: Mutex::new(modo),
            recusados: Mutex::new(Vec::new()),
            aplicados: Mutex::new(Vec::new()),
            requests: AtomicUsize::new(0),
            probes: AtomicUsize::new(0),
        });
        let app = Router::new()
            .route("/eventos", post(um))
            .route("/eventos/lote", post(lote))
            .route("/readyz", get(pronto))
            .with_state(r.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Par { url, r }
    }

    fn set(&self, m: Modo) {
        *self.r.modo.lock().unwrap() = m;
    }

    fn aplicados(&self) -> Vec<String> {
        self.r.aplicados.lock().unwrap().clone()
    }
}

fn html404() -> Response {
    (StatusCode::NOT_FOUND, [("content-type", "text/html")], "<html><body>404 Not Found</body></html>")
        .into_response()
}

fn problem400(detail: &str) -> Response {
    (
        StatusCode::BAD_REQUEST,
        [("content-type", "application/problem+json")],
        json!({"type":"about:blank","title":"Bad Request","status":400,"detail":detail}).to_string(),
    )
        .into_response()
}

async fn pronto(State(r): State<Arc<Roteiro>>) -> Response {
    r.probes.fetch_add(1, Ordering::SeqCst);
    match *r.modo.lock().unwrap() {
        Modo::Fora => StatusCode::SERVICE_UNAVAILABLE.into_response(),
        Modo::Html404 => html404(),
        _ => (StatusCode::OK, [("content-type", "application/json")], r#"{"status":"UP"}"#).into_response(),
    }
}

async fn um(State(r): State<Arc<Roteiro>>, _h: HeaderMap, body: Bytes) -> Response {
    r.requests.fetch_add(1, Ordering::SeqCst);
    let modo = *r.modo.lock().unwrap();
    let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = v["eventId"].as_str().unwrap_or_default().to_string();
    match modo {
        Modo::Html404 => html404(),
        Modo::Fora => StatusCode::SERVICE_UNAVAILABLE.into_response(),
        Modo::Recusa => problem400("qtdFaltante deve ser maior que 0"),
        Modo::Aceita | Modo::Invertido => {
            if r.recusados.lock().unwrap().contains(&id) {
                return problem400("qtdFaltante deve ser maior que 0");
            }
            r.aplicados.lock().unwrap().push(id);
            StatusCode::NO_CONTENT.into_response()
        }
    }
}

async fn lote(State(r): State<Arc<Roteiro>>, body: Bytes) -> Response {
    r.requests.fetch_add(1, Ordering::SeqCst);
    let modo = *r.modo.lock().unwrap();
    match modo {
        Modo::Html404 => return html404(),
        Modo::Fora => return StatusCode::SERVICE_UNAVAILABLE.into_response(),
        _ => {}
    }
    let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let mut resultados = Vec::new();
    for item in v["eventos"].as_array().cloned().unwrap_or_default() {
        let id = item["evento"]["eventId"].as_str().unwrap_or_default().to_string();
        let recusado = modo == Modo::Recusa || r.recusados.lock().unwrap().contains(&id);
        if recusado {
            resultados.push(json!({"eventId": id, "status": 400, "detalhe": "qtdFaltante inválido"}));
        } else {
            r.aplicados.lock().unwrap().push(id.clone());
            resultados.push(json!({"eventId": id, "status": 204}));
        }
    }
    if modo == Modo::Invertido {
        resultados.reverse();
    }
    (StatusCode::OK, [("content-type", "application/json")], json!({ "resultados": resultados }).to_string())
        .into_response()
}

// ---------------------------------------------------------------------------------------------
// In-process: the publisher against the scripted peer

struct Caso {
    db: TestDb,
    dbh: Db,
    par: Par,
}

async fn caso(modo: Modo) -> Caso {
    giro::telemetry::init_for_test();
    let db = TestDb::new(Servico::Mercado).await;
    let dbh = Db::new(db.pool(), false);
    Caso { db, dbh, par: Par::start(modo).await }
}

impl Caso {
    fn publisher(&self, env: &[(&str, &str)]) -> giro::outbox::publisher::Publisher {
        let mut vars = vec![("ESTOQUE_EVENTOS_URL", self.par.url.as_str())];
        vars.extend_from_slice(env);
        let cfg = crate::support::app::config(Servico::Mercado, &self.db, &vars);
        giro::outbox::publisher::Publisher::for_service(
            &cfg,
            Servico::Mercado,
            self.db.pool(),
            self.dbh.signal.clone(),
            false,
        )
        .unwrap()
    }

    async fn status(&self, id: Uuid) -> (String, i32, Option<String>) {
        let r = self
            .db
            .client()
            .await
            .query_one("SELECT status, tentativas, ultimo_erro FROM outbox_event WHERE id = $1", &[&id])
            .await
            .unwrap();
        (r.get(0), r.get(1), r.get(2))
    }

    /// Makes every PENDING event due now (tests drive the clock instead of waiting out backoff).
    async fn due(&self) {
        self.db
            .client()
            .await
            .execute("UPDATE outbox_event SET proxima_tentativa_em = now() WHERE status = 'PENDING'", &[])
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn an_html_404_from_something_in_front_of_the_peer_is_transient_and_a_receivers_400_is_permanent() {
    for transporte in ["lote", "single"] {
        let c = caso(Modo::Html404).await;
        let p = c.publisher(&[("GIRO_OUTBOX_TRANSPORTE", transporte)]);
        let e = solicitada(3);
        write(&c.dbh, std::slice::from_ref(&e)).await;
        for _ in 0..3 {
            let r = p.round(Utc::now()).await.unwrap();
            assert_eq!((r.claimed, r.permanent), (1, 0), "{transporte}: a route-level 404 is not a verdict");
            c.due().await;
        }
        let (status, tentativas, erro) = c.status(e.event_id()).await;
        assert_eq!((status.as_str(), tentativas), ("PENDING", 3), "{transporte}");
        assert!(erro.unwrap_or_default().contains("404"), "{transporte}");

        c.par.set(Modo::Aceita);
        let r = p.round(Utc::now()).await.unwrap();
        assert_eq!(r.sent, 1, "{transporte}: delivered once the route is back");
        assert_eq!(c.status(e.event_id()).await.0, "SENT");

        // The receiver's own problem+json 400 is its verdict on the event: dead letter at once.
        c.par.set(Modo::Recusa);
        let ruim = solicitada(4);
        write(&c.dbh, std::slice::from_ref(&ruim)).await;
        let r = p.round(Utc::now()).await.unwrap();
        assert_eq!(r.permanent, 1, "{transporte}");
        let (status, tentativas, _) = c.status(ruim.event_id()).await;
        assert_eq!((status.as_str(), tentativas), ("FAILED", 1), "{transporte}");
    }
}

#[tokio::test]
async fn batch_results_in_reverse_order_are_matched_by_event_id() {
    let c = caso(Modo::Invertido).await;
    let p = c.publisher(&[("GIRO_OUTBOX_TRANSPORTE", "lote"), ("GIRO_OUTBOX_CONCORRENCIA", "1")]);
    let eventos: Vec<_> = (1..=6).map(solicitada).collect();
    // The first two are refused by the receiver; in reverse order their results sit where the
    // last two events are.
    *c.par.r.recusados.lock().unwrap() = eventos[..2].iter().map(|e| e.event_id().to_string()).collect();
    write(&c.dbh, &eventos).await;
    let r = p.round(Utc::now()).await.unwrap();
    assert_eq!((r.claimed, r.sent, r.permanent), (6, 4, 2));
    for (i, e) in eventos.iter().enumerate() {
        let (status, _, _) = c.status(e.event_id()).await;
        let want = if i < 2 { "FAILED" } else { "SENT" };
        assert_eq!(status, want, "event {i}: its own result decides, not its position");
    }
    let aplicados = c.par.aplicados();
    for e in &eventos[2..] {
        assert!(aplicados.contains(&e.event_id().to_string()));
    }
}

#[tokio::test]
async fn a_batch_answer_without_an_events_own_result_leaves_it_pending() {
    // A receiver (or proxy) that answers results for other ids: no event is marked SENT.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = Router::new().route(
        "/eventos/lote",
        post(|body: Bytes| async move {
            let v: Value = serde_json::from_slice(&body).unwrap();
            let n = v["eventos"].as_array().unwrap().len();
            let resultados: Vec<Value> =
                (0..n).map(|_| json!({"eventId": Uuid::new_v4(), "status": 204})).collect();
            axum::Json(json!({ "resultados": resultados }))
        }),
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let c = caso(Modo::Aceita).await;
    let p = c.publisher(&[("ESTOQUE_EVENTOS_URL", url.as_str()), ("GIRO_OUTBOX_TRANSPORTE", "lote")]);
    let eventos: Vec<_> = (1..=3).map(solicitada).collect();
    write(&c.dbh, &eventos).await;
    let r = p.round(Utc::now()).await.unwrap();
    assert_eq!((r.claimed, r.sent, r.transient), (3, 0, 3));
    for e in &eventos {
        let (status, _, erro) = c.status(e.event_id()).await;
        assert_eq!(status, "PENDING");
        assert!(erro.unwrap_or_default().contains("não trouxe resultado"));
    }
}

#[tokio::test]
async fn transient_failures_are_retried_past_the_old_attempt_limit_until_the_delivery_deadline() {
    let c = caso(Modo::Fora).await;
    // No max-tentativas: only the deadline decides. The backoff cap is shrunk so rounds repeat.
    let p = c.publisher(&[("GIRO_OUTBOX_BACKOFF_MAXIMO", "1ms"), ("GIRO_OUTBOX_PRAZO_ENTREGA", "1h")]);
    let e = solicitada(5);
    write(&c.dbh, std::slice::from_ref(&e)).await;
    for _ in 0..30 {
        p.round(Utc::now()).await.unwrap();
        c.due().await;
    }
    let (status, tentativas, _) = c.status(e.event_id()).await;
    assert_eq!((status.as_str(), tentativas), ("PENDING", 30), "30 transient failures, still PENDING");

    // Once older than the deadline, the next transient failure makes it FAILED.
    c.db.client()
        .await
        .execute(
            "UPDATE outbox_event SET criado_em = now() - interval '2 hours' WHERE id = $1",
            &[&e.event_id()],
        )
        .await
        .unwrap();
    p.round(Utc::now()).await.unwrap();
    let (status, _, erro) = c.status(e.event_id()).await;
    assert_eq!(status, "FAILED");
    assert!(erro.unwrap_or_default().contains("503"));

    // max-tentativas, when set, also applies.
    let p = c.publisher(&[("GIRO_OUTBOX_MAX_TENTATIVAS", "2")]);
    let e = solicitada(6);
    write(&c.dbh, std::slice::from_ref(&e)).await;
    p.round(Utc::now()).await.unwrap();
    c.due().await;
    p.round(Utc::now()).await.unwrap();
    assert_eq!(c.status(e.event_id()).await.0, "FAILED");
}

#[tokio::test]
async fn a_delivery_deadline_not_shorter_than_the_inbox_retention_is_refused_at_start() {
    let env: BTreeMap<&str, String> =
        [("GIRO_OUTBOX_PRAZO_ENTREGA", "30d".to_string()), ("GIRO_INBOX_RETENCAO", "30d".to_string())]
            .into_iter()
            .collect();
    let out = crate::support::process::command(&["config"], &env).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("outbox.prazo-entrega") && err.contains("inbox.retencao"), "{err}");
}

#[tokio::test]
async fn a_peer_that_comes_back_gets_the_events_waiting_in_backoff_at_once() {
    let c = caso(Modo::Fora).await;
    let p = Arc::new(c.publisher(&[("GIRO_OUTBOX_INTERVALO", "100ms")]));
    let eventos: Vec<_> = (1..=120).map(solicitada).collect();
    write(&c.dbh, &eventos).await;
    let stop = tokio_util::sync::CancellationToken::new();
    let run = tokio::spawn(p.clone().run_loop(stop.clone(), giro::supervisor::Vivo::detached("t")));
    wait_until(Duration::from_secs(10), "every event failed once", || async {
        let n: i64 = c
            .db
            .client()
            .await
            .query_one("SELECT count(*) FROM outbox_event WHERE tentativas >= 1 AND lease_token IS NULL", &[])
            .await
            .unwrap()
            .get(0);
        (n == 120).then_some(())
    })
    .await;
    // As after a long outage at the default cap: the next attempts are minutes away.
    c.db.client()
        .await
        .execute("UPDATE outbox_event SET proxima_tentativa_em = now() + interval '5 minutes'", &[])
        .await
        .unwrap();
    let probes = c.par.r.probes.load(Ordering::SeqCst);
    let requests = c.par.r.requests.load(Ordering::SeqCst);
    c.par.set(Modo::Aceita);
    let back = Instant::now();
    wait_until(Duration::from_secs(15), "every waiting event delivered", || async {
        (c.par.aplicados().len() >= 120).then_some(())
    })
    .await;
    eprintln!("backlog of 120 delivered {:?} after the peer came back", back.elapsed());
    assert!(c.par.r.probes.load(Ordering::SeqCst) > probes, "the probe noticed the peer");
    // While the peer was down, the probe knocked, not the events.
    let _ = requests;
    stop.cancel();
    run.await.unwrap();
    let mut got = c.par.aplicados();
    got.sort();
    got.dedup();
    assert_eq!(got.len(), 120);
}

#[tokio::test]
async fn a_delivery_that_hangs_past_the_lease_counts_an_attempt() {
    // A peer that never answers within the lease: the delivery is cut at 80 % of it.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let app = Router::new().route(
        "/eventos/lote",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            StatusCode::OK
        }),
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let c = caso(Modo::Aceita).await;
    // The HTTP timeout is longer than the lease: only the publisher's bound ends the delivery.
    let p = c.publisher(&[
        ("ESTOQUE_EVENTOS_URL", url.as_str()),
        ("GIRO_OUTBOX_TIMEOUT", "30s"),
        ("GIRO_OUTBOX_VISIBILIDADE", "2s"),
    ]);
    let e = solicitada(8);
    write(&c.dbh, std::slice::from_ref(&e)).await;
    let r = p.round(Utc::now()).await.unwrap();
    assert_eq!(r.transient, 1);
    let (status, tentativas, erro) = c.status(e.event_id()).await;
    assert_eq!((status.as_str(), tentativas), ("PENDING", 1));
    assert!(erro.unwrap_or_default().contains("não terminou"));
}

// ---------------------------------------------------------------------------------------------
// Background jobs with several replicas, and poison rows

#[tokio::test]
async fn the_reservation_sweep_with_two_replicas_expires_each_order_exactly_once() {
    use crate::mercado_fixtures::*;
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 200, 1, 200).await;
    produto(&app, BANANA, "Banana Prata (kg)", "5.49", 200, 1, 200).await;
    let mut pedidos = Vec::new();
    for i in 0..40 {
        pedidos.push(comprar_ok(&app, &[(COCA, 1 + i % 3), (BANANA, 1)]).await);
    }
    let depois = Utc::now() + chrono::Duration::minutes(16);
    // Two replicas' sweeps at once, each with a small batch so they take many rounds.
    let um = async {
        let mut n = 0;
        loop {
            let k = giro::mercado::expiracao::expirar_vencidas(&app.dbh, depois, 7).await.unwrap();
            n += k;
            if k == 0 {
                break n;
            }
        }
    };
    let (a, b) = tokio::join!(um, async {
        let mut n = 0;
        loop {
            let k = giro::mercado::expiracao::expirar_vencidas(&app.dbh, depois, 7).await.unwrap();
            n += k;
            if k == 0 {
                break n;
            }
        }
    });
    // A round may end early while the other replica holds the rest: finish them.
    let resto = giro::mercado::expiracao::expirar_vencidas(&app.dbh, depois, 100).await.unwrap();
    eprintln!("replica A expired {a}, replica B {b}, then {resto}");
    assert_eq!(a + b + resto, 40, "each order expired exactly once");
    for id in &pedidos {
        assert_eq!(status_pedido(&app, *id).await, "EXPIRADO");
    }
    assert_eq!(prateleira(&app, COCA).await.0, 200, "every unit back once");
    assert_eq!(prateleira(&app, BANANA).await.0, 200);
}

#[tokio::test]
async fn a_failing_order_does_not_stop_the_expiry_of_the_others() {
    use crate::mercado_fixtures::*;
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 50, 1, 50).await;
    let ruim = comprar_ok(&app, &[(COCA, 1)]).await;
    let bons = [comprar_ok(&app, &[(COCA, 2)]).await, comprar_ok(&app, &[(COCA, 3)]).await];
    // The order that fails has the oldest deadline: the head of the sweep's LIMIT.
    let c = app.db.client().await;
    c.execute(
        "UPDATE reserva SET expira_em = expira_em - interval '1 minute' WHERE pedido_id = $1",
        &[&ruim],
    )
    .await
    .unwrap();
    c.batch_execute(&format!(
        "CREATE FUNCTION falha() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'falha de teste'; END $$; \
         CREATE TRIGGER falha BEFORE UPDATE ON reserva FOR EACH ROW WHEN (OLD.pedido_id = '{ruim}') EXECUTE FUNCTION falha();"
    ))
    .await
    .unwrap();
    let depois = Utc::now() + chrono::Duration::minutes(16);
    let mut evitados = giro::mercado::expiracao::Evitados::default();
    let mut expirados = 0;
    for _ in 0..3 {
        expirados += giro::mercado::expiracao::rodada(&app.dbh, depois, 1, &mut evitados).await.unwrap();
    }
    assert_eq!(expirados, 2, "the failing order left the head; the others expired");
    for id in bons {
        assert_eq!(status_pedido(&app, id).await, "EXPIRADO");
    }
    assert_eq!(status_pedido(&app, ruim).await, "AGUARDANDO_PAGAMENTO", "nothing of it changed");
    assert_eq!(reservas(&app, ruim).await, vec!["ATIVA"]);
    assert_eq!(prateleira(&app, COCA).await.0, 50 - 1, "its unit is still reserved, the others returned");
}

#[tokio::test]
async fn an_order_with_a_reservation_not_yet_due_is_not_expired() {
    use crate::mercado_fixtures::*;
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 10).await;
    produto(&app, BANANA, "Banana Prata (kg)", "5.49", 10, 1, 10).await;
    let id = comprar_ok(&app, &[(COCA, 2), (BANANA, 1)]).await;
    let c = app.db.client().await;
    c.execute(
        "UPDATE reserva SET expira_em = now() + interval '1 hour' WHERE pedido_id = $1 AND sku = $2",
        &[&id, &BANANA],
    )
    .await
    .unwrap();
    let quase = Utc::now() + chrono::Duration::minutes(16);
    assert_eq!(giro::mercado::expiracao::expirar_vencidas(&app.dbh, quase, 50).await.unwrap(), 0);
    assert_eq!(status_pedido(&app, id).await, "AGUARDANDO_PAGAMENTO");
    assert_eq!(reservas(&app, id).await, vec!["ATIVA", "ATIVA"], "no reservation returned alone");
    assert_eq!(prateleira(&app, COCA).await.0, 8);
}

/// A tag-worker that refuses descriptions containing "ilegivel" with a 422 and classifies the rest.
async fn worker_exigente() -> String {
    let app = Router::new().route(
        "/classificar",
        post(|body: Bytes| async move {
            let v: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let d = v["descricao"].as_str().unwrap_or_default().to_lowercase();
            if d.contains("ilegivel") {
                return (
                    StatusCode::UNPROCESSABLE_ENTITY,
                    axum::Json(json!({"detail": "descrição inválida"})),
                )
                    .into_response();
            }
            axum::Json(json!({"tags": d.split_whitespace().collect::<Vec<_>>(), "categoria": "outros"}))
                .into_response()
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    url
}

#[tokio::test]
async fn a_product_the_worker_cannot_classify_does_not_stop_the_skus_after_it() {
    use crate::estoque_fixtures::*;
    let url = worker_exigente().await;
    let app = estoque(&[]).await;
    // By SKU order the unclassifiable one comes first.
    produto(&app, "0000000000017", "PRODUTO ILEGIVEL", None).await;
    produto(&app, BANANA, "BANANA PRATA", None).await;
    produto(&app, COCA, "COCA COLA 2L", None).await;
    let cfg = giro::config::TagsConfig {
        worker_url: url,
        worker_token: None,
        timeout: Duration::from_secs(2),
        reclassificacao_habilitada: false,
        intervalo_reclassificacao: Duration::from_secs(300),
        lote_reclassificacao: 20,
    };
    let cliente = giro::estoque::classificacao::ClienteTags::new(&cfg).unwrap();
    let mut pulados = giro::estoque::reclassificacao::Pulados::new(Duration::from_secs(300));
    let n = giro::estoque::reclassificacao::rodada_com(&app.dbh, &cliente, 20, &mut pulados).await.unwrap();
    assert_eq!(n, 2, "the SKUs after the unclassifiable one were classified");
    assert_eq!(pulados.skus(), vec!["0000000000017".to_string()], "the skipped product is remembered");
    let sem: i64 = app
        .db
        .client()
        .await
        .query_one("SELECT count(*) FROM produto_estoque WHERE tags IS NULL", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(sem, 1);
    // Remembered: the next round does not ask about it again (and finds nothing else).
    assert_eq!(
        giro::estoque::reclassificacao::rodada_com(&app.dbh, &cliente, 20, &mut pulados).await.unwrap(),
        0
    );
}

// ---------------------------------------------------------------------------------------------
// Database trouble is a 503

#[tokio::test]
async fn a_checkout_waiting_on_a_row_locked_elsewhere_answers_503_after_the_lock_timeout() {
    use crate::mercado_fixtures::*;
    let app = mercado(&[("GIRO_DB_TIMEOUT_LOCK", "300ms")]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 10).await;
    let mut c = app.db.client().await;
    let tx = c.transaction().await.unwrap();
    tx.execute("SELECT 1 FROM produto_vitrine WHERE sku = $1 FOR UPDATE", &[&COCA]).await.unwrap();
    let res = comprar(&app, &[(COCA, 1)]).await;
    assert_eq!(res.status(), 503, "a lock timeout is the database's trouble");
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    tx.rollback().await.unwrap();
    assert_eq!(comprar(&app, &[(COCA, 1)]).await.status(), 201, "served once the lock is gone");
}

#[tokio::test]
async fn a_read_only_database_answers_503_readyz_503_and_heals_by_itself_once_reverted() {
    use crate::estoque_fixtures::*;
    // Short-lived connections, as under churn: sessions opened during the window are read-only.
    let app = estoque(&[("GIRO_DB_VIDA_MAXIMA", "200ms")]).await;
    let op = crate::support::app::Operador::login(&app).await;
    produto(&app, COCA, "COCA COLA 2L", Some(&["coca"])).await;
    let admin = crate::support::db::admin().await;
    let lote = |n: i32| json!({"sku": COCA, "codigoLote": format!("L-RO-{n}"), "quantidade": 10, "validade": "2099-01-01"});
    assert_eq!(registrar_lote(&app, &op, lote(0)).await.0, 201);
    admin
        .batch_execute(&format!("ALTER DATABASE {} SET default_transaction_read_only = on", app.db.name))
        .await
        .unwrap();
    // Sessions opened from now on are read-only; the pool's older ones are not. Readiness sees it.
    wait_until(Duration::from_secs(10), "readyz 503 while read-only", || async {
        let r = app.http.get(app.url("/readyz")).send().await.ok()?;
        (r.status() == 503).then_some(())
    })
    .await;
    // A session opened during the window: writes fail, answered 503 (never 500).
    let mut n = 1;
    wait_until(Duration::from_secs(10), "POST /lotes answers 503 on a read-only session", || {
        n += 1;
        let body = lote(n);
        let (app, op) = (&app, &op);
        async move {
            let (s, _) = registrar_lote(app, op, body).await;
            assert_ne!(s, 500, "database trouble is never a 500");
            (s == 503).then_some(())
        }
    })
    .await;
    admin
        .batch_execute(&format!("ALTER DATABASE {} RESET default_transaction_read_only", app.db.name))
        .await
        .unwrap();
    // Without terminating any session: the stale ones are dropped on their first error.
    let healed = Instant::now();
    wait_until(Duration::from_secs(10), "readyz 200 after the revert", || async {
        let r = app.http.get(app.url("/readyz")).send().await.ok()?;
        (r.status() == 200).then_some(())
    })
    .await;
    wait_until(Duration::from_secs(10), "POST /lotes 201 after the revert", || {
        n += 1;
        let body = lote(n + 100);
        let (app, op) = (&app, &op);
        async move { (registrar_lote(app, op, body).await.0 == 201).then_some(()) }
    })
    .await;
    eprintln!("healed {:?} after the revert", healed.elapsed());
}
