//! The outbox and its publisher against a real PostgreSQL and a real HTTP receiver on loopback.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use giro_contracts::{EventoIntegracao, ReposicaoSolicitada};
use giro_infra::db::Db;
use giro_outbox::Publisher;
use giro_servicos::config::Servico;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::support::app::config;
use crate::support::metrics::mercado_com_trafego;
use crate::support::peer::{FakePeer, Lote};
use crate::support::{wait_progress, wait_until, TestDb};

pub fn solicitada(qtd: i32) -> EventoIntegracao {
    EventoIntegracao::ReposicaoSolicitada(ReposicaoSolicitada {
        event_id: Uuid::new_v4(),
        sku: "7894900011517".into(),
        qtd_faltante: qtd,
        ocorrido_em: Utc::now(),
    })
}

/// Writes `eventos` in one committed transaction.
pub async fn write(db: &Db, eventos: &[EventoIntegracao]) {
    let mut client = db.client().await.unwrap();
    let tx = db.begin(&mut client).await.unwrap();
    for e in eventos {
        giro_outbox::registrar(&tx, e).await.unwrap();
    }
    tx.commit().await.unwrap();
}

pub struct Setup {
    pub db: TestDb,
    pub dbh: Db,
    pub peer: Arc<FakePeer>,
}

pub async fn setup(lote: Lote) -> Setup {
    giro_infra::telemetry::init_for_test();
    let db = TestDb::new(Servico::Mercado).await;
    let dbh = Db::new(db.pool(), false);
    let peer = FakePeer::start(lote).await;
    Setup { db, dbh, peer }
}

impl Setup {
    pub fn publisher(&self, env: &[(&str, &str)]) -> Publisher {
        let url = self.peer.url();
        let mut vars = vec![("ESTOQUE_EVENTOS_URL", url.as_str())];
        vars.extend_from_slice(env);
        let cfg = config(Servico::Mercado, &self.db, &vars);
        giro_servicos::server::publisher_de(
            &cfg,
            Servico::Mercado,
            self.db.pool(),
            self.dbh.signal.clone(),
            false,
        )
        .unwrap()
    }

    pub async fn row(&self, id: Uuid) -> tokio_postgres::Row {
        let c = self.db.client().await;
        c.query_one(
            "SELECT status, tentativas, ultimo_erro, proxima_tentativa_em, enviado_em, lease_token FROM outbox_event WHERE id = $1",
            &[&id],
        )
        .await
        .unwrap()
    }

    pub async fn count(&self, status: &str) -> i64 {
        let c = self.db.client().await;
        c.query_one("SELECT count(*) FROM outbox_event WHERE status = $1", &[&status]).await.unwrap().get(0)
    }
}

#[tokio::test]
async fn an_event_of_a_rolled_back_transaction_is_never_delivered_and_a_committed_one_is_sent() {
    let s = setup(Lote::Supported).await;
    let perdido = solicitada(1);
    {
        let mut client = s.dbh.client().await.unwrap();
        let tx = s.dbh.begin(&mut client).await.unwrap();
        giro_outbox::registrar(&tx, &perdido).await.unwrap();
        tx.rollback().await.unwrap();
    }
    let enviado = solicitada(16);
    write(&s.dbh, std::slice::from_ref(&enviado)).await;

    let r = s.publisher(&[]).round(Utc::now()).await.unwrap();
    assert_eq!((r.claimed, r.sent), (1, 1));
    let got = s.peer.all();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].event_id(), enviado.event_id().to_string());
    assert_eq!(got[0].tipo, "ReposicaoSolicitada");
    assert_eq!(got[0].body, enviado.to_json());
    assert_eq!(
        got[0].authorization.as_deref(),
        Some(format!("Bearer {}", crate::support::ESTOQUE_TOKEN).as_str())
    );
    let row = s.row(enviado.event_id()).await;
    assert_eq!(row.get::<_, &str>(0), "SENT");
    assert!(row.get::<_, Option<chrono::DateTime<Utc>>>(4).is_some(), "enviado_em set");
    let c = s.db.client().await;
    let n: i64 = c
        .query_one("SELECT count(*) FROM outbox_event WHERE id = $1", &[&perdido.event_id()])
        .await
        .unwrap()
        .get(0);
    assert_eq!(n, 0);
}

#[tokio::test]
async fn a_503_keeps_the_event_pending_with_backoff_and_a_round_inside_the_backoff_does_not_call_again() {
    for transporte in ["lote", "single"] {
        let s = setup(Lote::Supported).await;
        s.peer.set_status(503);
        let e = solicitada(3);
        write(&s.dbh, std::slice::from_ref(&e)).await;
        let p = s.publisher(&[("GIRO_OUTBOX_TRANSPORTE", transporte)]);
        let agora = Utc::now();
        let r = p.round(agora).await.unwrap();
        let depois = Utc::now();
        assert_eq!((r.claimed, r.transient), (1, 1), "{transporte}");
        let row = s.row(e.event_id()).await;
        assert_eq!(row.get::<_, &str>(0), "PENDING");
        assert_eq!(row.get::<_, i32>(1), 1);
        let erro: String = row.get(2);
        assert!(erro.contains("503"), "{erro}");
        let proxima: chrono::DateTime<Utc> = row.get(3);
        // Attempt 1 → 1 s times [0.8, 1.0], counted from when the outcome was known (after the
        // claim at `agora`, before `depois`).
        assert!(
            proxima >= agora + chrono::Duration::milliseconds(800)
                && proxima <= depois + chrono::Duration::seconds(1),
            "{proxima:?} vs {agora:?}..{depois:?}"
        );
        let before = s.peer.requests.load(std::sync::atomic::Ordering::SeqCst);
        let r = p.round(agora + chrono::Duration::milliseconds(500)).await.unwrap();
        assert_eq!(r.claimed, 0);
        assert_eq!(
            s.peer.requests.load(std::sync::atomic::Ordering::SeqCst),
            before,
            "no call inside the backoff"
        );
        // After the backoff it is delivered.
        s.peer.set_status(204);
        let r = p.round(agora + chrono::Duration::seconds(2)).await.unwrap();
        assert_eq!(r.sent, 1);
        assert_eq!(s.row(e.event_id()).await.get::<_, i32>(1), 2);
    }
}

#[tokio::test]
async fn a_400_is_a_dead_letter_at_once_and_retry_brings_it_back_to_be_delivered() {
    let s = setup(Lote::Supported).await;
    s.peer.set_status(400);
    let e = solicitada(3);
    write(&s.dbh, std::slice::from_ref(&e)).await;
    let p = s.publisher(&[]);
    let r = p.round(Utc::now()).await.unwrap();
    assert_eq!(r.permanent, 1);
    let row = s.row(e.event_id()).await;
    assert_eq!(row.get::<_, &str>(0), "FAILED");
    assert!(row.get::<_, Option<String>>(2).is_some_and(|m| m.contains("400")));

    // `giro outbox retry` (the real binary) puts it back; then it is delivered.
    let env = [("MERCADO_DB_URL", s.db.url())].into_iter().collect();
    let out = crate::support::process::command(
        &["outbox", "retry", "--db", "mercado", &e.event_id().to_string()],
        &env,
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let row = s.row(e.event_id()).await;
    assert_eq!((row.get::<_, &str>(0), row.get::<_, i32>(1)), ("PENDING", 0));
    s.peer.set_status(204);
    assert_eq!(p.round(Utc::now()).await.unwrap().sent, 1);
    assert_eq!(s.row(e.event_id()).await.get::<_, &str>(0), "SENT");
}

#[tokio::test]
async fn transient_failures_become_failed_after_max_attempts() {
    let s = setup(Lote::Supported).await;
    s.peer.set_status(500);
    let e = solicitada(3);
    write(&s.dbh, std::slice::from_ref(&e)).await;
    let p = s.publisher(&[("GIRO_OUTBOX_MAX_TENTATIVAS", "3")]);
    let mut agora = Utc::now();
    for _ in 0..3 {
        p.round(agora).await.unwrap();
        agora += chrono::Duration::seconds(10);
    }
    let row = s.row(e.event_id()).await;
    assert_eq!((row.get::<_, &str>(0), row.get::<_, i32>(1)), ("FAILED", 3));
}

#[tokio::test]
async fn rows_locked_by_another_publisher_are_skipped_without_waiting() {
    let s = setup(Lote::Supported).await;
    let eventos: Vec<_> = (0..4).map(|_| solicitada(1)).collect();
    write(&s.dbh, &eventos).await;
    // Another publisher's claim in progress: two rows locked in an open transaction.
    let mut other = s.db.client().await;
    let tx = other.transaction().await.unwrap();
    let locked: Vec<Uuid> = vec![eventos[0].event_id(), eventos[1].event_id()];
    tx.query("SELECT id FROM outbox_event WHERE id = ANY($1) FOR UPDATE", &[&locked]).await.unwrap();

    // The locks are held until the test ends: a round that waited for them would never return.
    let r = tokio::time::timeout(Duration::from_secs(60), s.publisher(&[]).round(Utc::now()))
        .await
        .expect("the round waited for locked rows")
        .unwrap();
    assert_eq!((r.claimed, r.sent), (2, 2));
    let delivered: Vec<String> = s.peer.all().iter().map(|d| d.event_id()).collect();
    for id in &locked {
        assert!(!delivered.contains(&id.to_string()));
    }
    tx.rollback().await.unwrap();
}

#[tokio::test]
async fn no_transaction_is_open_while_a_delivery_is_in_flight_and_a_stale_token_changes_nothing() {
    let s = setup(Lote::Supported).await;
    // The peer holds the deliveries until the checks below are done.
    s.peer.hold();
    write(&s.dbh, &[solicitada(1), solicitada(2)]).await;
    let p = s.publisher(&[]);
    let round = tokio::spawn(async move { p.round(Utc::now()).await.map(|r| r.sent) });
    let peer = s.peer.clone();
    wait_until(Duration::from_secs(10), "a delivery in flight", || async {
        (peer.in_flight.load(std::sync::atomic::Ordering::SeqCst) > 0).then_some(())
    })
    .await;
    let c = s.db.client().await;
    let me: i32 = c.query_one("SELECT pg_backend_pid()", &[]).await.unwrap().get(0);
    let idle_in_tx: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> $1 AND state LIKE 'idle in transaction%'",
            &[&me],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(idle_in_tx, 0, "a publisher session is idle in transaction during delivery");
    // The rows are leased: PENDING, with a token, due only after the lease.
    let leased: i64 = c.query_one("SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND lease_token IS NOT NULL AND proxima_tentativa_em > now()", &[]).await.unwrap().get(0);
    assert_eq!(leased, 2);
    // A late publisher with another token cannot settle them.
    let ids: Vec<Uuid> =
        c.query("SELECT id FROM outbox_event", &[]).await.unwrap().iter().map(|r| r.get(0)).collect();
    assert_eq!(giro_outbox::internos::mark_sent(&c, &ids, Uuid::new_v4()).await.unwrap(), 0);
    let failures: Vec<_> = ids
        .iter()
        .map(|id| giro_outbox::internos::Failure { id: *id, erro: "late".into(), espera: None })
        .collect();
    assert_eq!(giro_outbox::internos::mark_failed(&c, &failures, Uuid::new_v4()).await.unwrap(), 0);
    assert_eq!(s.count("PENDING").await, 2);
    s.peer.release();
    assert_eq!(round.await.unwrap().unwrap(), 2);
    assert_eq!(s.count("SENT").await, 2);
}

#[tokio::test]
async fn deliveries_of_one_batch_overlap() {
    for lote in [Lote::Supported, Lote::Missing(404)] {
        let s = setup(lote).await;
        s.peer.set_delay(Duration::from_millis(300));
        // Batch requests carry at least ~64 events each (outbox::delivery::CHUNK_MIN, issue 17):
        // a claim of 16 is one request, so the batch transport needs a claim of 200 (4 requests).
        let n = if lote == Lote::Supported { 200 } else { 16 };
        let eventos: Vec<_> = (0..n).map(|_| solicitada(1)).collect();
        write(&s.dbh, &eventos).await;
        let lote_env = n.to_string();
        let p = s.publisher(&[("GIRO_OUTBOX_CONCORRENCIA", "8"), ("GIRO_OUTBOX_LOTE", &lote_env)]);
        let r = p.round(Utc::now()).await.unwrap();
        assert_eq!(r.sent, n);
        let max = s.peer.max_in_flight.load(std::sync::atomic::Ordering::SeqCst);
        assert!(max >= 2, "{lote:?}: at most {max} request in flight");
    }
}

#[tokio::test]
async fn a_peer_without_the_batch_route_gets_every_event_through_eventos() {
    for status in [404, 403] {
        let s = setup(Lote::Missing(status)).await;
        let eventos: Vec<_> = (0..10).map(|_| solicitada(1)).collect();
        write(&s.dbh, &eventos).await;
        let p = s.publisher(&[]);
        assert_eq!(p.round(Utc::now()).await.unwrap().sent, 10, "peer answering {status}");
        let got = s.peer.all();
        assert_eq!(got.len(), 10);
        assert!(got.iter().all(|d| !d.via_lote));
        let mut ids: Vec<String> = got.iter().map(|d| d.event_id()).collect();
        ids.sort();
        let mut want: Vec<String> = eventos.iter().map(|e| e.event_id().to_string()).collect();
        want.sort();
        assert_eq!(ids, want);
        assert_eq!(s.count("SENT").await, 10);
    }
}

#[tokio::test]
async fn the_embedded_publisher_wakes_in_process_without_notify() {
    let s = setup(Lote::Supported).await;
    // An hour between polls: a delivery within the test can only come from the wake-up.
    let p = s.publisher(&[("GIRO_OUTBOX_INTERVALO", "1h"), ("GIRO_OUTBOX_NOTIFY", "false")]);
    let mut idle = p.signal.idle.subscribe();
    let stop = CancellationToken::new();
    let task = tokio::spawn(p.run(stop.clone()));
    // Its first (empty) round done, it waits for a wake-up.
    tokio::time::timeout(Duration::from_secs(30), idle.wait_for(|i| *i)).await.unwrap().unwrap();
    let e = solicitada(5);
    write(&s.dbh, std::slice::from_ref(&e)).await;
    let peer = s.peer.clone();
    wait_until(Duration::from_secs(30), "delivery after an in-process wake-up", || async {
        (peer.count() == 1).then_some(())
    })
    .await;
    stop.cancel();
    task.await.unwrap();
}

#[tokio::test]
async fn retention_deletes_old_sent_and_inbox_rows_and_keeps_recent_ones() {
    let s = setup(Lote::Supported).await;
    let c = s.db.client().await;
    c.batch_execute(
        "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, enviado_em) VALUES
           (gen_random_uuid(), 'ReposicaoSolicitada', '{}', 'SENT', now() - interval '1 hour', now(), now() - interval '1 hour'),
           (gen_random_uuid(), 'ReposicaoSolicitada', '{}', 'SENT', now(), now(), now()),
           (gen_random_uuid(), 'ReposicaoSolicitada', '{}', 'PENDING', now() - interval '1 hour', now(), NULL),
           (gen_random_uuid(), 'ReposicaoSolicitada', '{}', 'FAILED', now() - interval '1 hour', now(), NULL);
         INSERT INTO inbox_event VALUES (gen_random_uuid(), now() - interval '1 hour'), (gen_random_uuid(), now());",
    )
    .await
    .unwrap();
    let p = s.publisher(&[
        ("GIRO_OUTBOX_RETENCAO", "30s"),
        ("GIRO_INBOX_RETENCAO", "30s"),
        ("GIRO_OUTBOX_PRAZO_ENTREGA", "20s"),
    ]);
    assert_eq!(p.retencao().prune(Utc::now()).await.unwrap(), 1, "the relay prunes its outbox only");
    let inbox = giro_outbox::Retencao::inbox(s.db.pool(), Duration::from_secs(30));
    assert_eq!(inbox.prune(Utc::now()).await.unwrap(), 1, "the inbox has its own sweep");
    let left: Vec<(String, bool)> = c
        .query(
            "SELECT status, enviado_em > now() - interval '1 minute' FROM outbox_event WHERE status = 'SENT'",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    assert_eq!(left, vec![("SENT".to_string(), true)]);
    assert_eq!(s.count("PENDING").await, 1, "pending rows are never pruned");
    assert_eq!(s.count("FAILED").await, 1, "dead letters are never pruned");
    let inbox: i64 = c.query_one("SELECT count(*) FROM inbox_event", &[]).await.unwrap().get(0);
    assert_eq!(inbox, 1);
}

#[tokio::test]
async fn retry_of_an_event_older_than_the_inbox_retention_is_refused_without_force() {
    let s = setup(Lote::Supported).await;
    let c = s.db.client().await;
    let id = Uuid::new_v4();
    c.execute(
        "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, tentativas, ultimo_erro) VALUES ($1, 'ReposicaoSolicitada', '{}', 'FAILED', now() - interval '40 days', now(), 1, 'HTTP 400')",
        &[&id],
    )
    .await
    .unwrap();
    let env = [("MERCADO_DB_URL", s.db.url())].into_iter().collect();
    let out =
        crate::support::process::command(&["outbox", "retry", "--db", "mercado", &id.to_string()], &env)
            .output()
            .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("beyond inbox.retencao") && err.contains("--force"), "{err}");
    assert_eq!(s.row(id).await.get::<_, &str>(0), "FAILED");
    let out = crate::support::process::command(
        &["outbox", "retry", "--db", "mercado", "--force", &id.to_string()],
        &env,
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(s.row(id).await.get::<_, &str>(0), "PENDING");

    // status, list --json and discard.
    c.execute("UPDATE outbox_event SET status = 'FAILED' WHERE id = $1", &[&id]).await.unwrap();
    let out =
        crate::support::process::command(&["outbox", "status", "--db", "mercado"], &env).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAILED  1"), "{text}");
    assert_eq!(out.status.code(), Some(1), "a dead letter makes status exit 1");
    let out = crate::support::process::command(&["outbox", "status", "--db", "mercado", "--json"], &env)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(st["mercado"]["failed"], 1, "{st}");
    assert_eq!(st["mercado"]["ok"], false, "{st}");
    assert_eq!(st["mercado"]["deadLetters"][0]["id"], id.to_string(), "{st}");
    let out = crate::support::process::command(
        &["outbox", "list", "--db", "mercado", "--status", "failed", "--json"],
        &env,
    )
    .output()
    .unwrap();
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(list[0]["id"], id.to_string());
    assert_eq!(list[0]["db"], "mercado");
    let out = crate::support::process::command(
        &["outbox", "discard", "--db", "mercado", &id.to_string(), "--motivo", "teste"],
        &env,
    )
    .output()
    .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed["ultimoErro"], "HTTP 400");
    let n: i64 = c.query_one("SELECT count(*) FROM outbox_event", &[]).await.unwrap().get(0);
    assert_eq!(n, 0);
}

fn publisher_env(
    s: &Setup,
    extra: &[(&'static str, &str)],
) -> std::collections::BTreeMap<&'static str, String> {
    let mut env: std::collections::BTreeMap<&'static str, String> = [
        ("MERCADO_DB_URL", s.db.url()),
        ("ESTOQUE_EVENTOS_URL", s.peer.url()),
        ("ESTOQUE_TOKEN_SERVICO", crate::support::ESTOQUE_TOKEN.to_string()),
    ]
    .into_iter()
    .collect();
    for (k, v) in extra {
        env.insert(k, v.to_string());
    }
    env
}

#[tokio::test]
async fn a_separate_publisher_sleeping_on_an_hour_long_poll_delivers_through_notify() {
    let s = setup(Lote::Supported).await;
    // An hour between polls: a delivery within the test can only come from NOTIFY.
    let mut env = publisher_env(&s, &[("GIRO_OUTBOX_INTERVALO", "1h"), ("GIRO_OUTBOX_NOTIFY", "true")]);
    env.insert("RUST_LOG", "info,giro_outbox=debug".to_string());
    let mut giro = crate::support::process::Giro::spawn(&["publisher", "--db", "mercado"], &env);
    // LISTEN registered, then the loop idle: a commit from now on reaches it only by NOTIFY.
    giro.wait_for_line_after("LISTEN connected", "publisher idle", Duration::from_secs(30)).await;
    let writer = Db::new(s.db.pool(), true);
    write(&writer, &[solicitada(7)]).await;
    let peer = s.peer.clone();
    wait_until(Duration::from_secs(30), "delivery woken by NOTIFY", || async {
        (peer.count() == 1).then_some(())
    })
    .await;
    giro.signal("TERM");
    assert!(giro.wait_exit(Duration::from_secs(10)).await.is_some_and(|st| st.success()));
}

#[tokio::test]
async fn a_publisher_killed_mid_batch_loses_nothing() {
    let s = setup(Lote::Supported).await;
    // The receiver holds every request long enough for the kill to land mid-delivery.
    s.peer.set_delay(Duration::from_secs(30));
    let eventos: Vec<_> = (0..20).map(|_| solicitada(1)).collect();
    write(&s.dbh, &eventos).await;
    // A lease long enough that the kill, the restart and the check below all fit inside it on a
    // loaded machine; the rounds after it pass an instant beyond it instead of waiting.
    let env = publisher_env(&s, &[("GIRO_OUTBOX_VISIBILIDADE", "60s")]);
    let mut giro = crate::support::process::Giro::spawn(&["publisher", "--db", "mercado"], &env);
    let peer = s.peer.clone();
    wait_until(Duration::from_secs(30), "deliveries in flight", || async {
        (peer.in_flight.load(std::sync::atomic::Ordering::SeqCst) > 0).then_some(())
    })
    .await;
    giro.signal("KILL");
    giro.wait_exit(Duration::from_secs(5)).await.expect("killed");
    // Nothing was settled: all 20 are still PENDING and leased.
    assert_eq!(s.count("PENDING").await, 20);
    s.peer.set_delay(Duration::ZERO);
    let p = s.publisher(&[]);
    // Before the lease ends another publisher finds nothing to claim…
    assert_eq!(p.round(Utc::now()).await.unwrap().claimed, 0);
    // …after it, every event is delivered.
    let mut sent = 0;
    let deadline = Instant::now() + Duration::from_secs(30);
    while sent < 20 && Instant::now() < deadline {
        sent += p.round(Utc::now() + chrono::Duration::seconds(61)).await.unwrap().sent;
    }
    assert_eq!(sent, 20);
    assert_eq!(s.count("SENT").await, 20);
    let delivered: std::collections::HashSet<String> = s.peer.all().iter().map(|d| d.event_id()).collect();
    for e in &eventos {
        assert!(delivered.contains(&e.event_id().to_string()));
    }
}

#[tokio::test]
async fn two_publishers_over_20000_events_deliver_all_and_apply_each_exactly_once() {
    use crate::support::receiver::Receiver;
    let s = setup(Lote::Supported).await;
    let receiver = Receiver::start(500).await;
    let c = s.db.client().await;
    c.batch_execute(
        "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em)
         SELECT id, 'ReposicaoSolicitada',
                jsonb_build_object('eventId', id, 'sku', '7894900011517', 'qtdFaltante', 1, 'ocorridoEm', '2026-09-25T12:00:00Z'),
                'PENDING', now(), now()
           FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, 20000)) g",
    )
    .await
    .unwrap();
    let url = receiver.url();
    let mk = || {
        let cfg = config(
            Servico::Mercado,
            &s.db,
            &[
                ("ESTOQUE_EVENTOS_URL", url.as_str()),
                ("GIRO_OUTBOX_LOTE", "200"),
                ("GIRO_OUTBOX_INTERVALO", "100ms"),
            ],
        );
        giro_servicos::server::publisher_de(
            &cfg,
            Servico::Mercado,
            s.db.pool(),
            Arc::new(giro_infra::db::OutboxSignal::default()),
            false,
        )
        .unwrap()
    };
    let stop = CancellationToken::new();
    let a = tokio::spawn(mk().run(stop.clone()));
    let b = tokio::spawn(mk().run(stop.clone()));
    let db = &s;
    wait_progress(Duration::from_secs(60), "20000 events SENT", 20_000, || async { db.count("SENT").await })
        .await;
    stop.cancel();
    let _ = tokio::join!(a, b);
    assert_eq!(receiver.count("SELECT count(*) FROM inbox_event").await, 20_000);
    assert_eq!(receiver.count("SELECT count(*) FROM efeito").await, 20_000);
    assert_eq!(
        receiver
            .count(
                "SELECT count(*) FROM (SELECT event_id FROM efeito GROUP BY event_id HAVING count(*) > 1) d"
            )
            .await,
        0
    );
}

#[tokio::test]
async fn metrics_carry_every_name_and_the_counters_move_as_events_flow() {
    let t = mercado_com_trafego().await;
    let depois = t.quando("SENT in metrics", |m| m.contains("giro_outbox_events{status=\"SENT\"} 1")).await;
    for name in [
        "giro_outbox_events{status=\"PENDING\"}",
        "giro_outbox_events{status=\"FAILED\"}",
        "giro_outbox_oldest_pending_seconds",
        "giro_outbox_deliveries_total{",
        "giro_outbox_delivery_seconds_bucket",
        "giro_inbox_events_total{",
        "giro_http_requests_total{",
        "giro_http_request_seconds_bucket",
    ] {
        assert!(depois.contains(name), "{name} missing from /metrics:\n{}", depois.0);
    }
    let moveu = |nome: &str, rotulos: &str| depois.soma(nome, rotulos) >= t.antes.soma(nome, rotulos) + 1.0;
    let sent = "tipo=\"ReposicaoSolicitada\",result=\"sent\"";
    assert!(moveu("giro_outbox_deliveries_total", sent), "deliveries counter moved");
    let new = "tipo=\"ReposicaoNegada\",result=\"new\"";
    assert!(moveu("giro_inbox_events_total", new), "inbox counter moved");
    assert!(depois.soma("giro_outbox_delivery_seconds_count", "") >= 1.0);
}

/// `giro outbox list` for scripts (issue 27): newest first, filtered by type and period, paged by
/// the last id shown; `status` exits 0 when nothing is failed or late.
#[tokio::test]
async fn outbox_list_is_newest_first_filters_and_pages_and_a_clean_status_exits_0() {
    let s = setup(Lote::Supported).await;
    let eventos: Vec<EventoIntegracao> = (1..=5).map(solicitada).collect();
    for e in &eventos {
        // Each in its own transaction: criado_em (the database's now()) grows with each.
        write(&s.dbh, std::slice::from_ref(e)).await;
    }
    let env = publisher_env(&s, &[]);
    let run = |args: Vec<String>| {
        let env = env.clone();
        async move {
            let mut a =
                vec!["outbox".to_string(), "list".into(), "--db".into(), "mercado".into(), "--json".into()];
            a.extend(args);
            let a: Vec<&str> = a.iter().map(String::as_str).collect();
            let out = crate::support::process::command(&a, &env).output().unwrap();
            assert!(out.status.success(), "{a:?}: {}", String::from_utf8_lossy(&out.stderr));
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            v.as_array().unwrap().iter().map(|l| l["id"].as_str().unwrap().to_string()).collect::<Vec<_>>()
        }
    };
    let ids: Vec<String> = eventos.iter().rev().map(|e| e.event_id().to_string()).collect();
    assert_eq!(run(vec![]).await, ids, "newest first");
    let pagina = run(vec!["--limit".into(), "2".into()]).await;
    assert_eq!(pagina, ids[..2]);
    let seguinte = run(vec!["--limit".into(), "2".into(), "--before".into(), pagina[1].clone()]).await;
    assert_eq!(seguinte, ids[2..4], "the next page starts after the last id shown");
    assert_eq!(run(vec!["--limite".into(), "1".into()]).await, ids[..1], "the old flag name still works");
    assert_eq!(run(vec!["--tipo".into(), "ReposicaoSolicitada".into()]).await.len(), 5);
    assert!(run(vec!["--tipo".into(), "ReposicaoEnviada".into()]).await.is_empty());
    assert_eq!(run(vec!["--since".into(), "1h".into()]).await.len(), 5);
    assert!(run(vec!["--until".into(), "1h".into()]).await.is_empty());
    assert!(run(vec!["--since".into(), "2999-01-01T00:00:00Z".into()]).await.is_empty());

    // Nothing failed, nothing late (audit.atraso is 5 minutes): status exits 0, JSON says ok.
    let out = crate::support::process::command(&["outbox", "status", "--db", "mercado", "--json"], &env)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let st: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (st["mercado"]["pending"].as_i64(), st["mercado"]["ok"].as_bool()),
        (Some(5), Some(true)),
        "{st}"
    );
    // Late: past audit.atraso, status exits 1 naming it.
    let late: std::collections::BTreeMap<&'static str, String> =
        env.iter().map(|(k, v)| (*k, v.clone())).chain([("GIRO_AUDIT_ATRASO", "0s".to_string())]).collect();
    let out =
        crate::support::process::command(&["outbox", "status", "--db", "mercado"], &late).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("mercado: an event pending for"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
