//! The relay loop keeping the pipe full (issue 17): claims that adapt to the backlog, chunks the
//! receiver applies efficiently, claims that overlap within a bound, each settled under its own
//! token. A receiver in the test counts the requests and their sizes and can hold them open, so
//! every assertion is about what happened, never about how long it took.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::routing::post;
use axum::{Json, Router};
use chrono::Utc;
use giro_outbox::Publisher;
use giro_servicos::config::Servico;
use serde_json::{json, Value};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::support::app::config;
use crate::support::{wait_until, TestDb};

/// A `/eventos/lote` receiver that records each request's size and the ids it applied, and holds
/// requests while its gate is closed.
struct Receiver {
    url: String,
    sizes: Mutex<Vec<usize>>,
    applied: Mutex<Vec<String>>,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
    gate: watch::Sender<bool>,
    /// Requests carrying this SKU are answered at once, whatever the gate.
    livre: Mutex<Option<String>>,
}

impl Receiver {
    async fn start(open: bool) -> Arc<Receiver> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let r = Arc::new(Receiver {
            url: format!("http://{}", listener.local_addr().unwrap()),
            sizes: Mutex::new(Vec::new()),
            applied: Mutex::new(Vec::new()),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            gate: watch::channel(open).0,
            livre: Mutex::new(None),
        });
        let app = Router::new().route("/eventos/lote", post(lote)).with_state(r.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        r
    }

    fn open(&self) {
        self.gate.send_replace(true);
    }

    fn sizes(&self) -> Vec<usize> {
        self.sizes.lock().unwrap().clone()
    }

    fn applied(&self) -> Vec<String> {
        self.applied.lock().unwrap().clone()
    }
}

async fn lote(State(r): State<Arc<Receiver>>, Json(body): Json<Value>) -> Json<Value> {
    let items = body["eventos"].as_array().cloned().unwrap_or_default();
    r.sizes.lock().unwrap().push(items.len());
    let livre = r.livre.lock().unwrap().clone();
    if livre.is_some_and(|sku| items.iter().any(|i| i["evento"]["sku"] == sku.as_str())) {
        let ids: Vec<String> =
            items.iter().map(|i| i["evento"]["eventId"].as_str().unwrap_or_default().to_string()).collect();
        r.applied.lock().unwrap().extend(ids.iter().cloned());
        return Json(
            json!({"resultados": ids.iter().map(|id| json!({"eventId": id, "status": 204})).collect::<Vec<_>>()}),
        );
    }
    let now = r.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    r.max_in_flight.fetch_max(now, Ordering::SeqCst);
    let mut gate = r.gate.subscribe();
    let _ = gate.wait_for(|open| *open).await;
    let ids: Vec<String> =
        items.iter().map(|i| i["evento"]["eventId"].as_str().unwrap_or_default().to_string()).collect();
    r.applied.lock().unwrap().extend(ids.iter().cloned());
    r.in_flight.fetch_sub(1, Ordering::SeqCst);
    Json(
        json!({"resultados": ids.iter().map(|id| json!({"eventId": id, "status": 204})).collect::<Vec<_>>()}),
    )
}

/// A mercado publisher towards `r` at the shipped defaults, except for the HTTP timeout and the
/// lease, long enough for a request held by the test.
fn publisher(db: &TestDb, r: &Receiver, env: &[(&str, &str)]) -> Publisher {
    publisher_with(db, r, env, Arc::new(giro_infra::db::OutboxSignal::default()))
}

/// [`publisher`] woken through `signal`, as a writer's commit wakes the embedded publisher.
fn publisher_with(
    db: &TestDb,
    r: &Receiver,
    env: &[(&str, &str)],
    signal: Arc<giro_infra::db::OutboxSignal>,
) -> Publisher {
    let mut vars = vec![
        ("ESTOQUE_EVENTOS_URL", r.url.as_str()),
        ("GIRO_OUTBOX_TIMEOUT", "120s"),
        ("GIRO_OUTBOX_VISIBILIDADE", "300s"),
    ];
    vars.extend_from_slice(env);
    let cfg = config(Servico::Mercado, db, &vars);
    giro_servicos::server::publisher_de(&cfg, Servico::Mercado, db.pool(), signal, false).unwrap()
}

/// `n` due `ReposicaoSolicitada` rows, written in one statement.
async fn backlog(db: &TestDb, n: i64) {
    db.client()
        .await
        .execute(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em)
             SELECT id, 'ReposicaoSolicitada',
                    jsonb_build_object('eventId', id, 'sku', '7894900011517', 'qtdFaltante', 1, 'ocorridoEm', '2026-09-25T12:00:00Z'),
                    'PENDING', now() - interval '1 second', now() - interval '1 second'
               FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, $1::bigint)) g",
            &[&n],
        )
        .await
        .unwrap();
}

/// A fresh mercado database with `n` due events, and a receiver (its gate open or closed).
async fn setup(n: i64, open: bool) -> (TestDb, Arc<Receiver>) {
    giro_infra::telemetry::init_for_test();
    let db = TestDb::new(Servico::Mercado).await;
    let r = Receiver::start(open).await;
    backlog(&db, n).await;
    (db, r)
}

/// The loop of a shipped-defaults publisher towards `r`, until the returned token is cancelled.
fn run_loop(db: &TestDb, r: &Receiver) -> (CancellationToken, tokio::task::JoinHandle<()>) {
    let p = Arc::new(publisher(db, r, &[]));
    let stop = CancellationToken::new();
    let run = tokio::spawn(p.run_loop(stop.clone(), giro_infra::supervisor::Vivo::detached("t")));
    (stop, run)
}

async fn count(db: &TestDb, sql: &str) -> i64 {
    db.client().await.query_one(sql, &[]).await.unwrap().get(0)
}

#[tokio::test]
async fn a_50_event_backlog_at_the_shipped_defaults_is_one_request_of_50() {
    let (db, r) = setup(50, true).await;
    let p = publisher(&db, &r, &[]);
    assert_eq!(p.alvo(), 50, "the first claim is outbox.lote");
    let round = p.round(Utc::now()).await.unwrap();
    assert_eq!((round.claimed, round.sent), (50, 50));
    assert_eq!(r.sizes(), vec![50], "one receiver transaction for the claim, not 8 of 7");
    assert_eq!(count(&db, "SELECT count(*) FROM outbox_event WHERE status = 'SENT'").await, 50);
}

#[tokio::test]
async fn claims_grow_toward_lote_max_through_a_backlog_and_shrink_back_to_lote_when_it_drains() {
    let (db, r) = setup(1500, true).await;
    let p = publisher(&db, &r, &[]);
    let mut claimed = Vec::new();
    let mut requests = Vec::new();
    loop {
        let before = r.sizes().len();
        let round = p.round(Utc::now()).await.unwrap();
        if round.claimed == 0 {
            break;
        }
        assert_eq!(round.sent, round.claimed);
        claimed.push(round.claimed);
        requests.push(r.sizes()[before..].to_vec());
    }
    // Full claims double (50 → 100 → 200 → 400 → 500, the cap); the last half-full one keeps it.
    assert_eq!(claimed, vec![50, 100, 200, 400, 500, 250]);
    // Requests of at least ~64 events, at most one per slot (8) and never over lote-max (500).
    let per_claim: Vec<usize> = requests.iter().map(Vec::len).collect();
    assert_eq!(per_claim, vec![1, 2, 4, 7, 8, 4]);
    for (n, sizes) in claimed.iter().zip(&requests) {
        assert_eq!(sizes.iter().sum::<usize>(), *n);
        assert!(sizes.iter().all(|&s| s <= 500));
        assert!(sizes.iter().max().unwrap() - sizes.iter().min().unwrap() <= 7, "balanced: {sizes:?}");
    }
    // The outbox is empty: each empty claim halves the next one, never below outbox.lote.
    let mut alvos = vec![p.alvo()];
    for _ in 0..5 {
        assert_eq!(p.round(Utc::now()).await.unwrap().claimed, 0);
        alvos.push(p.alvo());
    }
    assert_eq!(alvos, vec![250, 125, 62, 50, 50, 50]);
    let applied: HashSet<String> = r.applied().into_iter().collect();
    assert_eq!((applied.len(), r.applied().len()), (1500, 1500), "each event once");
    assert_eq!(count(&db, "SELECT count(*) FROM outbox_event WHERE status = 'SENT'").await, 1500);
}

#[tokio::test]
async fn claims_overlap_within_the_bound_and_each_settles_under_its_own_token() {
    let (db, r) = setup(3000, false).await;
    let (stop, run) = run_loop(&db, &r);
    // Held by the receiver, the loop claims again while earlier claims are in flight, until the
    // slots or the bound on leased rows stop it.
    let tokens = wait_until(Duration::from_secs(60), "several claims in flight at once", || async {
        let n = count(&db, "SELECT count(DISTINCT lease_token) FROM outbox_event WHERE status = 'PENDING' AND lease_token IS NOT NULL").await;
        (n >= 3 && r.in_flight.load(Ordering::SeqCst) == 8).then_some(n)
    })
    .await;
    let leased = count(&db, "SELECT count(*) FROM outbox_event WHERE lease_token IS NOT NULL").await;
    assert!(leased <= 2 * 500, "{leased} rows leased: more than 2 × lote-max");
    assert_eq!(count(&db, "SELECT count(*) FROM outbox_event WHERE status = 'SENT'").await, 0);
    eprintln!("{tokens} claims, {leased} rows leased while the receiver held every request");
    r.open();
    wait_until(Duration::from_secs(120), "the whole backlog SENT", || async {
        (count(&db, "SELECT count(*) FROM outbox_event WHERE status = 'SENT'").await == 3000).then_some(())
    })
    .await;
    stop.cancel();
    run.await.unwrap();
    assert!(r.max_in_flight.load(Ordering::SeqCst) <= 8, "never more requests than outbox.concorrencia");
    let applied = r.applied();
    let distinct: HashSet<&String> = applied.iter().collect();
    assert_eq!((distinct.len(), applied.len()), (3000, 3000), "each event delivered once");
    assert_eq!(
        count(&db, "SELECT count(*) FROM outbox_event WHERE lease_token IS NOT NULL OR tentativas <> 1")
            .await,
        0
    );
}

#[tokio::test]
async fn a_lease_lost_mid_flight_settles_nothing() {
    let (db, r) = setup(300, false).await;
    let (stop, run) = run_loop(&db, &r);
    wait_until(Duration::from_secs(60), "every event claimed and in flight", || async {
        let leased = count(&db, "SELECT count(*) FROM outbox_event WHERE lease_token IS NOT NULL").await;
        (leased == 300 && r.sizes().iter().sum::<usize>() == 300).then_some(())
    })
    .await;
    // As when the leases ended and another publisher claimed the rows again: new tokens.
    db.client()
        .await
        .execute("UPDATE outbox_event SET lease_token = gen_random_uuid() WHERE lease_token IS NOT NULL", &[])
        .await
        .unwrap();
    r.open();
    wait_until(Duration::from_secs(60), "the receiver answered every request", || async {
        (r.applied().len() == 300 && r.in_flight.load(Ordering::SeqCst) == 0).then_some(())
    })
    .await;
    // Shutdown drains the claims in flight, so their settles have run when the loop returns.
    stop.cancel();
    run.await.unwrap();
    assert_eq!(count(&db, "SELECT count(*) FROM outbox_event WHERE status <> 'PENDING'").await, 0);
    assert_eq!(
        count(&db, "SELECT count(*) FROM outbox_event WHERE enviado_em IS NULL AND ultimo_erro IS NULL AND lease_token IS NOT NULL AND tentativas = 1").await,
        300,
        "the late publisher changed none of the rows another one holds"
    );
}

#[tokio::test]
async fn on_shutdown_the_loop_stops_claiming_and_settles_the_claims_in_flight() {
    let (db, r) = setup(3000, false).await;
    let (stop, run) = run_loop(&db, &r);
    wait_until(Duration::from_secs(60), "every slot busy", || async {
        (r.in_flight.load(Ordering::SeqCst) == 8).then_some(())
    })
    .await;
    stop.cancel();
    r.open();
    run.await.unwrap();
    let claimed = count(&db, "SELECT count(*) FROM outbox_event WHERE tentativas > 0").await;
    let sent = count(&db, "SELECT count(*) FROM outbox_event WHERE status = 'SENT'").await;
    assert!(claimed > 0 && claimed <= 1000, "{claimed} claimed: the bound is 2 × lote-max");
    assert_eq!(sent, claimed, "every claim in flight was delivered and settled before the loop returned");
    assert_eq!(r.applied().len() as i64, sent);
    assert_eq!(
        count(&db, "SELECT count(*) FROM outbox_event WHERE tentativas = 0 AND status = 'PENDING' AND lease_token IS NULL").await,
        3000 - claimed,
        "nothing claimed after shutdown"
    );
}

/// Issue 29: a live event written while the backlog's claims hold every request slot and the
/// bound on leased rows goes out through the express lane at once — it does not wait for a
/// backlog claim to be delivered. The receiver holds every backlog request until the end.
#[tokio::test]
async fn a_live_event_goes_out_through_the_express_lane_while_the_backlog_holds_every_slot() {
    const LIVE: &str = "7891000100103";
    let (db, r) = setup(3000, false).await;
    // An outage's backlog: first attempts written long ago, no longer fresh.
    db.client()
        .await
        .execute("UPDATE outbox_event SET criado_em = now() - interval '1 hour'", &[])
        .await
        .unwrap();
    *r.livre.lock().unwrap() = Some(LIVE.to_string());
    let signal = Arc::new(giro_infra::db::OutboxSignal::default());
    let p = Arc::new(publisher_with(&db, &r, &[], signal.clone()));
    let stop = CancellationToken::new();
    let run = tokio::spawn(p.run_loop(stop.clone(), giro_infra::supervisor::Vivo::detached("t")));
    wait_until(Duration::from_secs(60), "the backlog holding every slot", || async {
        (r.in_flight.load(Ordering::SeqCst) == 8).then_some(())
    })
    .await;
    let leased = count(&db, "SELECT count(*) FROM outbox_event WHERE lease_token IS NOT NULL").await;
    assert!(leased > 500, "{leased} rows leased: the pipe is not full yet");

    // A shopper's checkout commits a restock request now, and wakes the publisher.
    let live = uuid::Uuid::new_v4();
    db.client()
        .await
        .execute(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em)
             VALUES ($1, 'ReposicaoSolicitada',
                     jsonb_build_object('eventId', $1::uuid, 'sku', $2::text, 'qtdFaltante', 1, 'ocorridoEm', '2026-09-25T12:00:00Z'),
                     'PENDING', now(), now())",
            &[&live, &LIVE],
        )
        .await
        .unwrap();
    signal.wake.notify_one();
    wait_until(Duration::from_secs(60), "the live event SENT", || async {
        let sent: i64 = db
            .client()
            .await
            .query_one("SELECT count(*) FROM outbox_event WHERE id = $1 AND status = 'SENT'", &[&live])
            .await
            .unwrap()
            .get(0);
        (sent == 1).then_some(())
    })
    .await;
    assert_eq!(r.in_flight.load(Ordering::SeqCst), 8, "every backlog request is still held");
    assert_eq!(
        count(&db, "SELECT count(*) FROM outbox_event WHERE status = 'SENT'").await,
        1,
        "only the live event went out: no backlog claim was delivered before it"
    );

    r.open();
    wait_until(Duration::from_secs(120), "the whole backlog SENT", || async {
        (count(&db, "SELECT count(*) FROM outbox_event WHERE status = 'SENT'").await == 3001).then_some(())
    })
    .await;
    stop.cancel();
    run.await.unwrap();
    let applied = r.applied();
    let distinct: HashSet<&String> = applied.iter().collect();
    assert_eq!((distinct.len(), applied.len()), (3001, 3001), "each event delivered once");
    assert!(
        r.max_in_flight.load(Ordering::SeqCst) <= 8,
        "the backlog never took more than outbox.concorrencia"
    );
}

/// A sweep (a claim with no floors, `outbox.varredura`) runs beside the loop's claims: held at
/// its gate, as a held xmin horizon slows it, live events still go out; the row only a sweep can
/// find (written below the floors) goes out once it ends. Taken inline, as before, a slow sweep
/// held every live event behind it.
#[tokio::test]
async fn a_slow_sweep_does_not_hold_the_live_events_back() {
    let (db, r) = setup(10, true).await;
    let signal = Arc::new(giro_infra::db::OutboxSignal::default());
    let mut p = publisher_with(&db, &r, &[("GIRO_OUTBOX_VARREDURA", "1s")], signal.clone());
    let gate = watch::channel(false).0;
    p.hooks.varredura = Some(gate.clone());
    let p = Arc::new(p);
    let stop = CancellationToken::new();
    let run = tokio::spawn(p.run_loop(stop.clone(), giro_infra::supervisor::Vivo::detached("t")));
    let sent = "SELECT count(*) FROM outbox_event WHERE status = 'SENT'";
    wait_until(Duration::from_secs(60), "the first 10 events SENT", || async {
        (count(&db, sent).await == 10).then_some(())
    })
    .await;
    wait_until(Duration::from_secs(60), "a sweep waiting at its gate", || async {
        (gate.receiver_count() > 0).then_some(())
    })
    .await;

    // A writer's transaction that began a minute ago commits now (below both floors: only a
    // sweep finds it), and a shopper's checkout commits 5 live events.
    let straggler = uuid::Uuid::new_v4();
    db.client()
        .await
        .execute(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em)
             VALUES ($1, 'ReposicaoSolicitada',
                     jsonb_build_object('eventId', $1::uuid, 'sku', '7894900011517', 'qtdFaltante', 1, 'ocorridoEm', '2026-09-25T12:00:00Z'),
                     'PENDING', now() - interval '1 minute', now() - interval '1 minute')",
            &[&straggler],
        )
        .await
        .unwrap();
    backlog(&db, 5).await;
    db.client()
        .await
        .execute("UPDATE outbox_event SET criado_em = now(), proxima_tentativa_em = now() WHERE status = 'PENDING' AND id <> $1", &[&straggler])
        .await
        .unwrap();
    signal.wake.notify_one();
    wait_until(Duration::from_secs(60), "the 5 live events SENT while the sweep waits", || async {
        (count(&db, sent).await == 15).then_some(())
    })
    .await;
    let pendente = format!("SELECT count(*) FROM outbox_event WHERE id = '{straggler}' AND status = 'PENDING' AND tentativas = 0");
    assert_eq!(count(&db, &pendente).await, 1, "below the floors: left for the sweep");

    gate.send_replace(true);
    wait_until(Duration::from_secs(60), "the sweep claims the straggler", || async {
        (count(&db, sent).await == 16).then_some(())
    })
    .await;
    stop.cancel();
    run.await.unwrap();
    let applied = r.applied();
    let distinct: HashSet<&String> = applied.iter().collect();
    assert_eq!((distinct.len(), applied.len()), (16, 16), "each event delivered once");
}
