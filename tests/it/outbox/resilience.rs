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
use giro_infra::db::Db;
use giro_servicos::config::Servico;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::outbox::publisher::{solicitada, write};
use crate::support::metrics::Metricas;
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
        Par { url: servir(app).await, r }
    }

    fn set(&self, m: Modo) {
        *self.r.modo.lock().unwrap() = m;
    }

    fn aplicados(&self) -> Vec<String> {
        self.r.aplicados.lock().unwrap().clone()
    }
}

/// Serves `app` on a fresh loopback port (until the test ends): its URL.
async fn servir(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    url
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
    giro_infra::telemetry::init_for_test();
    let db = TestDb::new(Servico::Mercado).await;
    let dbh = Db::new(db.pool(), false);
    Caso { db, dbh, par: Par::start(modo).await }
}

impl Caso {
    fn publisher(&self, env: &[(&str, &str)]) -> giro_outbox::Publisher {
        let mut vars = vec![("ESTOQUE_EVENTOS_URL", self.par.url.as_str())];
        vars.extend_from_slice(env);
        let cfg = crate::support::app::config(Servico::Mercado, &self.db, &vars);
        giro_servicos::server::publisher_de(
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
    let url = servir(app).await;
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
    let run = tokio::spawn(p.clone().run_loop(stop.clone(), giro_infra::supervisor::Vivo::detached("t")));
    wait_until(Duration::from_secs(10), "every event failed once", || async {
        let n: i64 = c
            .db
            .valor("SELECT count(*) FROM outbox_event WHERE tentativas >= 1 AND lease_token IS NULL", &[])
            .await;
        (n == 120).then_some(())
    })
    .await;
    // As after a long outage at the default cap: the next attempts are minutes away. A claim
    // made meanwhile would settle its failure with a short backoff (and, delivered after the
    // peer is back, revive the rest without the probe): repeat until no row is leased or due soon.
    wait_until(Duration::from_secs(30), "every event minutes away, none leased", || async {
        let db = c.db.client().await;
        db.execute(
            "UPDATE outbox_event SET proxima_tentativa_em = now() + interval '5 minutes' WHERE lease_token IS NULL",
            &[],
        )
        .await
        .unwrap();
        let n: i64 = db
            .query_one(
                "SELECT count(*) FROM outbox_event WHERE lease_token IS NULL AND proxima_tentativa_em > now() + interval '4 minutes'",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        (n == 120).then_some(())
    })
    .await;
    // While the peer is down and the events wait minutes away, the probe knocks, not the events:
    // two more probes go out and no event is sent meanwhile.
    let requests = c.par.r.requests.load(Ordering::SeqCst);
    let before = c.par.r.probes.load(Ordering::SeqCst);
    wait_until(Duration::from_secs(15), "two probes while the peer is down", || async {
        (c.par.r.probes.load(Ordering::SeqCst) >= before + 2).then_some(())
    })
    .await;
    assert_eq!(
        c.par.r.requests.load(Ordering::SeqCst),
        requests,
        "no event was sent while the peer was down and the events waited out their backoff"
    );
    let probes = c.par.r.probes.load(Ordering::SeqCst);
    c.par.set(Modo::Aceita);
    let back = Instant::now();
    wait_until(Duration::from_secs(15), "every waiting event delivered", || async {
        (c.par.aplicados().len() >= 120).then_some(())
    })
    .await;
    eprintln!("backlog of 120 delivered {:?} after the peer came back", back.elapsed());
    assert!(c.par.r.probes.load(Ordering::SeqCst) > probes, "the probe noticed the peer");
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
    let app = Router::new().route(
        "/eventos/lote",
        post(|| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            StatusCode::OK
        }),
    );
    let url = servir(app).await;
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
    use crate::mercado::fixtures::*;
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 200, 1, 200).await;
    produto(&app, BANANA, "Banana Prata (kg)", "5.49", 200, 1, 200).await;
    let mut pedidos = Vec::new();
    for i in 0..40 {
        pedidos.push(comprar_ok(&app, &[(COCA, 1 + i % 3), (BANANA, 1)]).await);
    }
    let depois = Utc::now() + chrono::Duration::minutes(16);
    // Two replicas' sweeps at once, each with a small batch so they take many rounds.
    let dbh = &app.dbh;
    let replica = move || async move {
        let mut n = 0;
        loop {
            let k = giro_servicos::mercado::expiracao::expirar_vencidas(dbh, depois, 7).await.unwrap();
            n += k;
            if k == 0 {
                break n;
            }
        }
    };
    let (a, b) = tokio::join!(replica(), replica());
    // A round may end early while the other replica holds the rest: finish them.
    let resto = giro_servicos::mercado::expiracao::expirar_vencidas(&app.dbh, depois, 100).await.unwrap();
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
    use crate::mercado::fixtures::*;
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
    let mut evitados = giro_servicos::mercado::expiracao::evitados();
    let mut expirados = 0;
    for _ in 0..3 {
        expirados +=
            giro_servicos::mercado::expiracao::rodada(&app.dbh, depois, 1, &mut evitados).await.unwrap();
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
    use crate::mercado::fixtures::*;
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
    assert_eq!(giro_servicos::mercado::expiracao::expirar_vencidas(&app.dbh, quase, 50).await.unwrap(), 0);
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
    servir(app).await
}

#[tokio::test]
async fn a_product_the_worker_cannot_classify_does_not_stop_the_skus_after_it() {
    use crate::estoque::fixtures::*;
    let url = worker_exigente().await;
    let app = estoque(&[]).await;
    // By SKU order the unclassifiable one comes first.
    produto(&app, "0000000000017", "PRODUTO ILEGIVEL", None).await;
    produto(&app, BANANA, "BANANA PRATA", None).await;
    produto(&app, COCA, "COCA COLA 2L", None).await;
    let cfg = giro_servicos::config::TagsConfig {
        worker_url: url,
        worker_token: None,
        timeout: Duration::from_secs(2),
        reclassificacao_habilitada: false,
        intervalo_reclassificacao: Duration::from_secs(300),
        lote_reclassificacao: 20,
    };
    let cliente = giro_servicos::estoque::classificacao::ClienteTags::new(&cfg).unwrap();
    let mut pulados = giro_servicos::estoque::reclassificacao::pulados(Duration::from_secs(300));
    let n = giro_servicos::estoque::reclassificacao::rodada_com(&app.dbh, &cliente, 20, &mut pulados)
        .await
        .unwrap();
    assert_eq!(n, 2, "the SKUs after the unclassifiable one were classified");
    assert_eq!(pulados.ativos(), vec!["0000000000017".to_string()], "the skipped product is remembered");
    let sem: i64 = app.db.valor("SELECT count(*) FROM produto_estoque WHERE tags IS NULL", &[]).await;
    assert_eq!(sem, 1);
    // Remembered: the next round does not ask about it again (and finds nothing else).
    assert_eq!(
        giro_servicos::estoque::reclassificacao::rodada_com(&app.dbh, &cliente, 20, &mut pulados)
            .await
            .unwrap(),
        0
    );
}

// ---------------------------------------------------------------------------------------------
// Database trouble is a 503

#[tokio::test]
async fn a_checkout_waiting_on_a_row_locked_elsewhere_answers_503_after_the_lock_timeout() {
    use crate::mercado::fixtures::*;
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
    use crate::estoque::fixtures::*;
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

// ---------------------------------------------------------------------------------------------
// The real binaries: supervised loops, the LISTEN connection, the audit of stale work

/// What `giro mercado serve` needs to run against `db`, sending its events to `peer`.
fn mercado_env(db: &TestDb, peer: &str, extra: &[(&'static str, String)]) -> BTreeMap<&'static str, String> {
    crate::support::process::env_base(
        [
            ("MERCADO_PORTA", "0".to_string()),
            ("MERCADO_DB_URL", db.url()),
            ("ESTOQUE_EVENTOS_URL", peer.to_string()),
            ("ESTOQUE_URL", "http://127.0.0.1:9".to_string()),
        ]
        .into_iter()
        .chain(extra.iter().cloned()),
    )
}

async fn status_de(url: &str) -> u16 {
    match reqwest::get(url).await {
        Ok(r) => r.status().as_u16(),
        Err(_) => 0,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_publisher_loop_is_restarted_readyz_reflects_it_and_the_restart_is_counted() {
    let db = TestDb::new(Servico::Mercado).await;
    let par = Par::start(Modo::Aceita).await;
    let falha = crate::support::process::scratch_dir().join("panico");
    let env = mercado_env(
        &db,
        &par.url,
        &[
            ("GIRO_TEST_PANICO_PUBLICADOR", falha.display().to_string()),
            ("GIRO_OUTBOX_INTERVALO", "100ms".to_string()),
        ],
    );
    let mut giro = crate::support::process::Giro::spawn(&["mercado", "serve"], &env);
    let addr = giro.wait_listening().await;
    let (ready, metrics) = (format!("http://{addr}/readyz"), format!("http://{addr}/metrics"));
    wait_until(Duration::from_secs(15), "readyz 200", || async {
        (status_de(&ready).await == 200).then_some(())
    })
    .await;

    std::fs::write(&falha, "").unwrap();
    wait_until(Duration::from_secs(15), "readyz 503 while the publisher loop is down", || async {
        (status_de(&ready).await == 503).then_some(())
    })
    .await;
    let body: Value = reqwest::get(&ready).await.unwrap().json().await.unwrap();
    assert_eq!(body["loops"], json!(["publisher"]), "{body}");
    // Events committed while the loop is down wait in the outbox.
    let dbh = Db::new(db.pool(), false);
    let eventos: Vec<_> = (1..=5).map(solicitada).collect();
    write(&dbh, &eventos).await;
    let restarts = wait_until(Duration::from_secs(15), "restarts counted on /metrics", || async {
        let text = reqwest::get(&metrics).await.ok()?.text().await.ok()?;
        let n = Metricas(text).soma("giro_supervisor_restarts_total", "loop=\"publisher\"") as u64;
        (n >= 2).then_some(n)
    })
    .await;
    assert!(
        giro.log().contains("background loop failed; restarting"),
        "the failure is logged with its cause"
    );

    std::fs::remove_file(&falha).unwrap();
    wait_until(Duration::from_secs(60), "readyz 200 once the loop runs again", || async {
        (status_de(&ready).await == 200).then_some(())
    })
    .await;
    wait_until(Duration::from_secs(15), "the events still arrive", || async {
        let got = par.aplicados();
        eventos.iter().all(|e| got.contains(&e.event_id().to_string())).then_some(())
    })
    .await;
    eprintln!("{restarts} restarts counted");
    giro.signal("TERM");
    assert!(giro.wait_exit(Duration::from_secs(15)).await.is_some_and(|st| st.success()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_connection_killed_by_the_server_is_re_established_and_a_commit_still_wakes_the_publisher() {
    let db = TestDb::new(Servico::Mercado).await;
    let par = Par::start(Modo::Aceita).await;
    let env: BTreeMap<&'static str, String> = [
        ("MERCADO_DB_URL", db.url()),
        ("ESTOQUE_EVENTOS_URL", par.url.clone()),
        ("ESTOQUE_TOKEN_SERVICO", crate::support::ESTOQUE_TOKEN.to_string()),
        ("GIRO_OUTBOX_INTERVALO", "1h".to_string()),
        ("GIRO_OUTBOX_NOTIFY", "true".to_string()),
    ]
    .into_iter()
    .collect();
    let mut giro = crate::support::process::Giro::spawn(&["publisher", "--db", "mercado"], &env);
    giro.wait_for_line("LISTEN connected", Duration::from_secs(30)).await;
    let admin = crate::support::db::admin().await;
    let killed = wait_until(Duration::from_secs(10), "the LISTEN session terminated", || async {
        let n: i64 = admin
            .query_one(
                "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                  WHERE datname = $1 AND query LIKE 'LISTEN%') t",
                &[&db.name],
            )
            .await
            .unwrap()
            .get(0);
        (n >= 1).then_some(n)
    })
    .await;
    assert_eq!(killed, 1);
    giro.wait_for_line("LISTEN re-established", Duration::from_secs(15)).await;
    // Its wake-up after reconnecting ran an empty round; now it sleeps on the hour-long poll,
    // so only a NOTIFY can wake it for the event below.
    wait_until(Duration::from_secs(30), "the publisher idle", || async {
        let n: i64 = admin
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND state = 'active' AND query NOT LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
                &[&db.name],
            )
            .await
            .unwrap()
            .get(0);
        (n == 0).then_some(())
    })
    .await;
    let writer = Db::new(db.pool(), true);
    let e = solicitada(7);
    let committed = Instant::now();
    write(&writer, std::slice::from_ref(&e)).await;
    wait_until(Duration::from_secs(30), "delivery woken by NOTIFY on the new connection", || async {
        par.aplicados().contains(&e.event_id().to_string()).then_some(())
    })
    .await;
    eprintln!("delivered {:?} after the commit", committed.elapsed());
    giro.signal("TERM");
    assert!(giro.wait_exit(Duration::from_secs(15)).await.is_some_and(|st| st.success()));
}

#[tokio::test]
async fn an_event_left_pending_past_the_threshold_makes_the_audit_exit_1_and_name_it() {
    let m = crate::support::market::Market::start().await;
    let mdb = m.env()["MERCADO_DB_URL"].clone();
    let (c, conn) = tokio_postgres::connect(&mdb, tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(conn);
    let id = Uuid::new_v4();
    let payload = json!({"eventId": id, "sku": "7894900011517", "qtdFaltante": 3, "ocorridoEm": "2026-01-01T00:00:00Z"});
    c.execute(
        "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em, ultimo_erro) \
         VALUES ($1, 'ReposicaoSolicitada', $2, 'PENDING', now() - interval '10 minutes', 3, now() + interval '1 hour', 'HTTP 503 Service Unavailable')",
        &[&id, &payload],
    )
    .await
    .unwrap();
    let out = crate::support::process::command(&["audit", "--json"], &m.env()).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let atrasado = report["divergencias"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["tipo"] == "evento_atrasado")
        .unwrap_or_else(|| panic!("{report:#}"))
        .clone();
    let detalhe = atrasado["detalhe"].as_str().unwrap();
    assert!(detalhe.contains(&id.to_string()) && detalhe.contains("503"), "{detalhe}");
    // With a threshold above its age it is in flight, not delayed.
    let mut env = m.env();
    env.insert("GIRO_AUDIT_ATRASO", "1h".to_string());
    let out = crate::support::process::command(&["audit", "--json"], &env).output().unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        !report["divergencias"].as_array().unwrap().iter().any(|d| d["tipo"] == "evento_atrasado"),
        "{report:#}"
    );
}

// ---------------------------------------------------------------------------------------------
// Chaos against the whole market (the real processes, the real tag-worker, shoppers and an
// operator entering lots): each scenario ends with the pipeline drained, every check of
// `support::e2e::verificar` (nothing lost, nothing applied twice, shelves refilled) and the audit
// clean. One test runs them one after the other (each keeps both cores busy); it is named
// `outbox::resilience::e2e::cenarios` so `scripts/test` runs it in the e2e stage with `tests/it/e2e.rs`;
// `GIRO_E2E=horizonte,…` runs only the scenarios whose name contains one of the words.

mod e2e {
    use std::sync::atomic::Ordering;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use giro_servicos::config::Servico;

    use crate::support::cenarios::{rodar, Cenario};
    use crate::support::e2e::{audit_limpo, verificar, Clientes, Esperado, Papel, Repositor, Sistema, Stats};
    use crate::support::wait_until;

    mod caos;
    mod nemesis;
    mod proxy;

    use proxy::{ModoProxy, Proxy};

    const CENARIOS: &[(&str, Cenario)] = &[
        ("horizonte: estoque down past the old 25-attempt horizon, nothing FAILED, all arrives", || {
            Box::pin(horizonte())
        }),
        ("retorno: a returning estoque gets the backlog at once, not at the next 5-minute backoff", || {
            Box::pin(retorno())
        }),
        ("html-404: 10 s of a proxy answering HTML 404 in front of estoque dead-letters nothing", || {
            Box::pin(html_404())
        }),
        ("somente-leitura: estoque's database read-only for a few seconds, reverted without killing sessions", || {
            Box::pin(somente_leitura())
        }),
        ("reinicio-pg: every mercado session killed for 3 s under load: checkouts 503, never 500", || {
            Box::pin(reinicio_pg())
        }),
        ("kill-servicos: kill -9 of estoque and mercado (embedded publishers) 10 times under load", || {
            Box::pin(caos::kill_servicos())
        }),
        ("particao: 15 s of a partition both ways (requests never answered, then connections reset)", || {
            Box::pin(caos::particao())
        }),
        ("sem-resposta: 15 s of deliveries applied but their answers dropped, both ways", || {
            Box::pin(caos::sem_resposta())
        }),
        ("lento: 15 s of a peer answering 3 s after the delivery timeout, both ways", || {
            Box::pin(caos::lento())
        }),
        ("nemesis: a seeded schedule of kills, pauses, partitions, database faults and clocks under load", || {
            Box::pin(nemesis::nemesis())
        }),
    ];

    /// One after the other in one test (`support::cenarios::rodar`); `GIRO_E2E=word` picks some.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn cenarios() {
        rodar("caos", CENARIOS).await;
    }

    async fn contar(s: &Sistema, servico: Servico, sql: &str) -> i64 {
        let c = match servico {
            Servico::Mercado => s.mercado().await,
            Servico::Estoque => s.estoque().await,
        };
        c.query_one(sql, &[]).await.unwrap().get(0)
    }

    async fn readyz(url: &str) -> u16 {
        match reqwest::get(format!("{url}/readyz")).await {
            Ok(r) => r.status().as_u16(),
            Err(_) => 0,
        }
    }

    /// Answers that say "the database is in trouble, try again" (503) are allowed in a scenario
    /// that breaks the database; they move from the unexpected answers to the ambiguous ones.
    fn aceitar_503(stats: &Stats) -> usize {
        let mut v = stats.inesperadas.lock().unwrap();
        let antes = v.len();
        v.retain(|m| !m.contains("answered 503"));
        let n = antes - v.len();
        stats.ambiguas.fetch_add(n as u64, Ordering::SeqCst);
        n
    }

    /// Everything started, the demo catalogue loaded, the operator entering lots as demand
    /// appears and `n` shoppers checking out (pausing about `pausa`), once 100 checkouts went
    /// through: the load every scenario puts its fault under.
    async fn sob_carga(s: &mut Sistema, n: usize, pausa: Duration) -> (Repositor, Clientes) {
        s.start_all().await;
        s.carregar_demo().await;
        let repositor = Repositor::start(s.estoque_url());
        let clientes = Clientes::start(s.mercado_url(), n, u64::MAX, pausa, 0.5);
        wait_until(Duration::from_secs(60), "some checkouts", || async {
            (clientes.stats.criados() >= 100).then_some(())
        })
        .await;
        (repositor, clientes)
    }

    async fn fim(s: &mut Sistema, repositor: Repositor, stats: Arc<Stats>) {
        fim_tolerando(s, repositor, stats, false).await
    }

    /// `tolerar_503`: the operator's requests to estoque may have answered 503 while its database
    /// was in trouble (nothing written); any other unexpected answer still fails.
    async fn fim_tolerando(s: &mut Sistema, mut repositor: Repositor, stats: Arc<Stats>, tolerar_503: bool) {
        let drenado = s.drenar(Duration::from_secs(90), &[]).await;
        let entradas = repositor.parar().await;
        if tolerar_503 {
            let mut v = entradas.inesperadas.lock().unwrap();
            assert!(!v.iter().any(|m| m.contains("answered 500")), "[{}] never a 500: {v:#?}", s.nome);
            let antes = v.len();
            v.retain(|m| !m.contains("answered 503"));
            eprintln!(
                "[{}] {} operator requests answered 503 while the database was in trouble",
                s.nome,
                antes - v.len()
            );
        }
        eprintln!("[{}] {}; drained in {:.1} s", s.nome, stats.resumo(), drenado.as_secs_f64());
        for srv in [Servico::Mercado, Servico::Estoque] {
            let f = contar(s, srv, "SELECT count(*) FROM outbox_event WHERE status = 'FAILED'").await;
            assert_eq!(f, 0, "[{}] {srv}: no event dead-lettered", s.nome);
        }
        verificar(s, &stats, &entradas, &Esperado::default()).await;
        audit_limpo(s);
    }

    async fn horizonte() {
        // The backoff cap shrunk to milliseconds: the old 25-attempt horizon passes in seconds.
        let mut s = Sistema::new("horizonte", &[("GIRO_OUTBOX_BACKOFF_MAXIMO", "20ms")]).await;
        let (repositor, mut clientes) = sob_carga(&mut s, 4, Duration::from_millis(20)).await;
        s.stop(Papel::Estoque).await;
        let t = Instant::now();
        wait_until(Duration::from_secs(120), "events past 25 failed attempts", || async {
            let n = contar(
                &s,
                Servico::Mercado,
                "SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND tentativas > 26",
            )
            .await;
            (n > 0).then_some(())
        })
        .await;
        eprintln!("[horizonte] 26 attempts passed {:.1} s into the outage", t.elapsed().as_secs_f64());
        let failed =
            contar(&s, Servico::Mercado, "SELECT count(*) FROM outbox_event WHERE status = 'FAILED'").await;
        assert_eq!(failed, 0, "an outage within the deadline dead-letters nothing");
        s.start(Papel::Estoque).await;
        let stats = clientes.parar().await;
        fim(&mut s, repositor, stats).await;
    }

    async fn retorno() {
        // Defaults: backoff capped at 5 minutes.
        let mut s = Sistema::new("retorno", &[]).await;
        let (repositor, mut clientes) = sob_carga(&mut s, 4, Duration::from_millis(20)).await;
        s.stop(Papel::Estoque).await;
        wait_until(Duration::from_secs(60), "restock requests failing", || async {
            let n = contar(&s, Servico::Mercado, "SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND tentativas >= 2 AND lease_token IS NULL").await;
            (n >= 3).then_some(())
        })
        .await;
        let stats = clientes.parar().await;
        // As after an outage longer than the cap: every waiting event's next attempt is minutes away.
        s.mercado()
            .await
            .execute(
                "UPDATE outbox_event SET proxima_tentativa_em = now() + interval '5 minutes', tentativas = 12 \
                  WHERE status = 'PENDING' AND lease_token IS NULL",
                &[],
            )
            .await
            .unwrap();
        let waiting =
            contar(&s, Servico::Mercado, "SELECT count(*) FROM outbox_event WHERE status = 'PENDING'").await;
        s.start(Papel::Estoque).await;
        let back = Instant::now();
        wait_until(Duration::from_secs(20), "the backlog delivered once estoque is back", || async {
            let n =
                contar(&s, Servico::Mercado, "SELECT count(*) FROM outbox_event WHERE status = 'PENDING'")
                    .await;
            (n == 0).then_some(())
        })
        .await;
        eprintln!(
            "[retorno] {waiting} waiting events delivered {:.1} s after estoque came back",
            back.elapsed().as_secs_f64()
        );
        fim(&mut s, repositor, stats).await;
    }

    async fn html_404() {
        let mut s = Sistema::new("html-404", &[]).await;
        // mercado's publisher sends to estoque through the proxy.
        let proxy = Proxy::start(s.estoque_url()).await;
        s.definir("ESTOQUE_EVENTOS_URL", proxy.url.clone());
        let (repositor, mut clientes) = sob_carga(&mut s, 4, Duration::from_millis(20)).await;
        proxy.modo(ModoProxy::Html404);
        let t = Instant::now();
        // 10 s of misrouting under load, observed (not slept): requests keep failing meanwhile.
        wait_until(Duration::from_secs(30), "10 s of HTML 404s", || async {
            (t.elapsed() >= Duration::from_secs(10)).then_some(())
        })
        .await;
        let failing = contar(
            &s,
            Servico::Mercado,
            "SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND tentativas >= 1",
        )
        .await;
        proxy.modo(ModoProxy::Encaminhar);
        let stats = clientes.parar().await;
        eprintln!("[html-404] {failing} events had failed attempts during the misrouting");
        assert!(
            s.log(Papel::PublisherMercado).contains("peer route missing"),
            "the misrouting is logged as such"
        );
        fim(&mut s, repositor, stats).await;
    }

    async fn somente_leitura() {
        // Connections renewed every 2 s, as under churn: sessions opened during the window
        // carry the read-only default (what poisoned the pool in the chaos run).
        let mut s = Sistema::new("somente-leitura", &[("GIRO_DB_VIDA_MAXIMA", "2s")]).await;
        let (repositor, mut clientes) = sob_carga(&mut s, 4, Duration::from_millis(20)).await;
        let admin = crate::support::db::admin().await;
        let nome = s.estoque_db.name.clone();
        admin
            .batch_execute(&format!("ALTER DATABASE {nome} SET default_transaction_read_only = on"))
            .await
            .unwrap();
        let estoque = s.estoque_url();
        wait_until(Duration::from_secs(15), "estoque's readyz 503 while read-only", || async {
            (readyz(&estoque).await == 503).then_some(())
        })
        .await;
        // A few seconds read-only under load, observed: readiness stays 503 meanwhile.
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(4) {
            assert_eq!(readyz(&estoque).await, 503, "readyz stays 503 while writes cannot succeed");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        admin
            .batch_execute(&format!("ALTER DATABASE {nome} RESET default_transaction_read_only"))
            .await
            .unwrap();
        let revert = Instant::now();
        wait_until(Duration::from_secs(15), "estoque ready again", || async {
            (readyz(&estoque).await == 200).then_some(())
        })
        .await;
        eprintln!("[somente-leitura] estoque ready {:.1} s after the revert", revert.elapsed().as_secs_f64());
        let stats = clientes.parar().await;
        // Connections renewed every 2 s on a loaded machine: a connection may take longer than
        // db.timeout to open, which is answered 503 (try again), never 500.
        assert!(!stats.inesperadas.lock().unwrap().iter().any(|m| m.contains("answered 500")), "never a 500");
        aceitar_503(&stats);
        fim_tolerando(&mut s, repositor, stats, true).await;
    }

    async fn reinicio_pg() {
        let mut s = Sistema::new("reinicio-pg", &[]).await;
        let (repositor, mut clientes) = sob_carga(&mut s, 6, Duration::ZERO).await;
        // As a restart does: every session of mercado's database ends (57P01), again and again.
        let admin = crate::support::db::admin().await;
        let nome = s.mercado_db.name.clone();
        let t = Instant::now();
        let mut mortas = 0i64;
        while t.elapsed() < Duration::from_secs(3) {
            let n: i64 = admin
                .query_one(
                    "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1) t",
                    &[&nome],
                )
                .await
                .unwrap()
                .get(0);
            mortas += n;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let antes = clientes.stats.criados();
        wait_until(Duration::from_secs(30), "checkouts served again", || async {
            (clientes.stats.criados() >= antes + 50).then_some(())
        })
        .await;
        let stats = clientes.parar().await;
        let quinhentos: Vec<String> = stats
            .inesperadas
            .lock()
            .unwrap()
            .iter()
            .filter(|m| m.contains("answered 500"))
            .cloned()
            .collect();
        assert!(quinhentos.is_empty(), "database trouble answered 500: {quinhentos:#?}");
        let n503 = aceitar_503(&stats);
        eprintln!("[reinicio-pg] {mortas} sessions terminated; {n503} answers were 503");
        fim(&mut s, repositor, stats).await;
    }
}

#[tokio::test]
async fn outbox_status_names_each_dead_letter_and_what_it_blocks_and_retry_brings_it_back() {
    let c = caso(Modo::Recusa).await;
    let p = c.publisher(&[]);
    let e = solicitada(9);
    write(&c.dbh, std::slice::from_ref(&e)).await;
    assert_eq!(p.round(Utc::now()).await.unwrap().permanent, 1);
    let env: BTreeMap<&str, String> = [("MERCADO_DB_URL", c.db.url())].into_iter().collect();
    let out =
        crate::support::process::command(&["outbox", "status", "--db", "mercado"], &env).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // A dead letter: status says so, and exits 1 for a monitor.
    assert_eq!(out.status.code(), Some(1), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("mercado: 1 FAILED"));
    assert!(
        text.contains(&e.event_id().to_string()) && text.contains("restocks of SKU 7894900011517 wait"),
        "{text}"
    );
    let out = crate::support::process::command(&["outbox", "retry", "--db", "mercado", "--failed"], &env)
        .output()
        .unwrap();
    assert!(out.status.success());
    c.par.set(Modo::Aceita);
    assert_eq!(p.round(Utc::now()).await.unwrap().sent, 1, "retry brings it back and it is delivered");
    assert_eq!(c.status(e.event_id()).await.0, "SENT");
}
