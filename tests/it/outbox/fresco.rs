//! Fresh first (issue 29): a claim takes half its rows among the events due for the first time
//! and younger than `store::FRESCOR`, newest first, and fills the rest with the backlog in the
//! order of `proxima_tentativa_em`. Each test builds the outbox's state in SQL and asserts on what
//! one claim took.

use std::collections::HashSet;
use std::time::Duration;

use giro_outbox::internos as store;
use giro_servicos::config::Servico;
use uuid::Uuid;

use crate::support::TestDb;

/// `n` due events written `idade_s` seconds ago with `tentativas` attempts made; their ids.
async fn eventos(db: &TestDb, n: i64, idade_s: f64, tentativas: i32) -> HashSet<Uuid> {
    db.client()
        .await
        .query(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em)
             SELECT id, 'ReposicaoSolicitada',
                    jsonb_build_object('eventId', id, 'sku', '7894900011517', 'qtdFaltante', 1, 'ocorridoEm', '2026-09-25T12:00:00Z'),
                    'PENDING', now() - make_interval(secs => $2), $3, now() - make_interval(secs => $2)
               FROM (SELECT gen_random_uuid() AS id FROM generate_series(1, $1::bigint)) g
             RETURNING id",
            &[&n, &idade_s, &tentativas],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

async fn claim(db: &TestDb, limite: i64) -> Vec<store::Claimed> {
    store::claim(&db.client().await, None, limite, Duration::from_secs(30), Uuid::new_v4()).await.unwrap()
}

fn ids(claimed: &[store::Claimed]) -> HashSet<Uuid> {
    claimed.iter().map(|e| e.id).collect()
}

#[tokio::test]
async fn live_events_are_claimed_ahead_of_a_backlog_of_retries_and_of_old_first_attempts() {
    let db = TestDb::new(Servico::Mercado).await;
    // An outage's backlog: 2 000 retries made due again, 2 000 never attempted, 10 minutes old.
    let retries = eventos(&db, 2_000, 600.0, 3).await;
    let antigos = eventos(&db, 2_000, 600.0, 0).await;
    let vivos = eventos(&db, 10, 0.0, 0).await;
    let c = claim(&db, 50).await;
    assert_eq!(c.len(), 50);
    let tomados = ids(&c);
    assert!(vivos.is_subset(&tomados), "every one of the 10 live events is in the first claim");
    assert_eq!(tomados.difference(&vivos).count(), 40, "the rest of the claim is backlog");
    assert!(tomados.difference(&vivos).all(|id| retries.contains(id) || antigos.contains(id)));
    let primeiros: HashSet<Uuid> = c[..10].iter().map(|e| e.id).collect();
    assert_eq!(primeiros, vivos, "the live events go out first, in the claim's first chunk");
}

#[tokio::test]
async fn the_backlog_keeps_at_least_half_of_every_claim_whatever_the_live_traffic() {
    let db = TestDb::new(Servico::Mercado).await;
    let backlog = eventos(&db, 1_000, 600.0, 2).await;
    let vivos = eventos(&db, 1_000, 1.0, 0).await;
    for _ in 0..3 {
        let c = ids(&claim(&db, 50).await);
        assert_eq!(c.intersection(&vivos).count(), 25, "the fresh share: half of 50");
        assert_eq!(c.intersection(&backlog).count(), 25, "the backlog's share: the other half");
    }
    // With no live traffic, the backlog takes the whole claim.
    let db = TestDb::new(Servico::Mercado).await;
    eventos(&db, 1_000, 600.0, 2).await;
    assert_eq!(claim(&db, 500).await.len(), 500);
}

#[tokio::test]
async fn inside_the_window_the_newest_go_first_and_past_it_an_event_is_backlog() {
    let db = TestDb::new(Servico::Mercado).await;
    let janela = store::FRESCOR.as_secs_f64();
    // The tail of an outage, written just before the peer came back, and a shopper's request now.
    let cauda = eventos(&db, 100, janela / 2.0, 0).await;
    let agora = eventos(&db, 5, 0.0, 0).await;
    // Older than the window: backlog, ordered by when it was due.
    let velhos = eventos(&db, 100, janela * 4.0, 0).await;
    let c = ids(&claim(&db, 20).await);
    assert!(agora.is_subset(&c), "the 5 newest are in the fresh share");
    assert_eq!(c.intersection(&cauda).count(), 5, "the fresh share (10) is filled newest first");
    assert_eq!(c.intersection(&velhos).count(), 10, "the other half is the oldest due rows");
}

#[tokio::test]
async fn a_leased_or_retried_event_is_never_fresh_again() {
    let db = TestDb::new(Servico::Mercado).await;
    let vivos = eventos(&db, 10, 0.0, 0).await;
    assert_eq!(ids(&claim(&db, 50).await), vivos);
    // Leased: neither share takes them again while the lease holds.
    assert!(claim(&db, 50).await.is_empty());
    let n: i64 = db
        .client()
        .await
        .query_one("SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND tentativas = 0", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(n, 0, "a claimed row has left the fresh index (tentativas = 1)");
}
