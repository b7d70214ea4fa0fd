//! A hot path dead tuples cannot slow (issue 29): while another session holds the xmin horizon
//! back, a claim's index scans start at their floors (`store::Pisos`) and so step over none of
//! the dead entries the earlier claims and settles left behind. Asserted by what PostgreSQL
//! counts (index entries read by the claim, in its own transaction), never by time.

use std::time::Duration;

use chrono::{DateTime, Utc};
use giro_outbox::internos::{self as store, Pisos};
use giro_servicos::config::Servico;
use tokio_postgres::Client;
use uuid::Uuid;

use crate::support::TestDb;

/// `n` due events created `idade_s` seconds ago (never attempted).
async fn eventos(c: &Client, n: i64, idade_s: f64) {
    c.execute(
        "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em)
         SELECT gen_random_uuid(), 'ReposicaoSolicitada', '{\"sku\": \"7894900011517\", \"qtdFaltante\": 1}',
                'PENDING', now() - make_interval(secs => $2), 0, now() - make_interval(secs => $2)
           FROM generate_series(1, $1::bigint)",
        &[&n, &idade_s],
    )
    .await
    .unwrap();
}

/// One claim of up to `limite` rows under `pisos`, settled `SENT`; the rows it took.
async fn claim_e_envio(c: &Client, limite: i64, pisos: Pisos) -> store::Reclamados {
    let token = Uuid::new_v4();
    let claimed =
        store::claim_desde(c, None, limite, Duration::from_secs(30), token, store::PARTE_FRESCA, pisos)
            .await
            .unwrap();
    let ids: Vec<Uuid> = claimed.eventos.iter().map(|e| e.id).collect();
    store::mark_sent(c, &ids, token).await.unwrap();
    claimed
}

/// Index entries read so far by this session on the claim's two indexes (counts not yet flushed
/// to the statistics, so only a difference within one transaction means anything). An entry
/// whose row is dead to every snapshot is marked so and skipped; one a held horizon keeps is read.
async fn entradas_lidas(c: &impl tokio_postgres::GenericClient) -> i64 {
    c.query_one(
        "SELECT (pg_stat_get_xact_tuples_returned('ix_outbox_event_pendente'::regclass)
               + pg_stat_get_xact_tuples_returned('ix_outbox_event_novo'::regclass))::bigint",
        &[],
    )
    .await
    .unwrap()
    .get(0)
}

/// One claim under `pisos`, settled: how many rows it took and how many index entries it read.
async fn claim_medida(c: &mut Client, limite: i64, pisos: Pisos) -> (usize, i64) {
    let tx = c.transaction().await.unwrap();
    let antes = entradas_lidas(&tx).await;
    let token = Uuid::new_v4();
    let claimed =
        store::claim_desde(&tx, None, limite, Duration::from_secs(30), token, store::PARTE_FRESCA, pisos)
            .await
            .unwrap();
    let lidas = entradas_lidas(&tx).await - antes;
    let ids: Vec<Uuid> = claimed.eventos.iter().map(|e| e.id).collect();
    store::mark_sent(&tx, &ids, token).await.unwrap();
    tx.commit().await.unwrap();
    (claimed.eventos.len(), lidas)
}

#[tokio::test]
async fn with_the_horizon_held_a_floored_claim_reads_none_of_the_dead_entries_and_a_sweep_misses_nothing() {
    let db = TestDb::new(Servico::Mercado).await;
    let mut c = db.client().await;
    // A report holding its snapshot: nothing deleted or updated from here on can be vacuumed.
    let mut relatorio = db.client().await;
    let rr = relatorio
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .start()
        .await
        .unwrap();
    rr.query_one("SELECT count(*) FROM outbox_event", &[]).await.unwrap();

    // 2 000 events, claimed and settled 500 at a time: 4 000 dead versions behind the scans.
    eventos(&c, 2_000, 600.0).await;
    let mut pisos = Pisos::default();
    loop {
        let claimed = claim_e_envio(&c, 500, pisos).await;
        pisos = pisos.depois(&claimed);
        if claimed.eventos.len() < 500 {
            break;
        }
    }
    let agora: DateTime<Utc> = c.query_one("SELECT now()", &[]).await.unwrap().get(0);
    assert!(pisos.resto.is_some_and(|p| p <= agora) && pisos.novos.is_some_and(|p| p <= agora), "{pisos:?}");

    // Ten live events: the floored claim takes them reading a handful of index entries; the same
    // claim with no floor (a sweep) steps over the 2 000 dead entries.
    eventos(&c, 10, 0.0).await;
    let (n, com_pisos) = claim_medida(&mut c, 50, pisos).await;
    assert_eq!(n, 10);
    eventos(&c, 10, 0.0).await;
    let (n, sem_pisos) = claim_medida(&mut c, 50, Pisos::default()).await;
    assert_eq!(n, 10);
    assert!(
        com_pisos < 100 && sem_pisos > 2_000,
        "index entries read: {com_pisos} with floors, {sem_pisos} without (2 000 dead entries)"
    );

    // A writer's transaction that began before the floors commits now: below them, only a sweep
    // (no floor) finds it.
    eventos(&c, 1, 60.0).await;
    assert!(claim_e_envio(&c, 50, pisos).await.eventos.is_empty(), "below both floors: left for the sweep");
    assert_eq!(
        claim_e_envio(&c, 50, Pisos::default()).await.eventos.len(),
        1,
        "the sweep claims the straggler"
    );
    rr.commit().await.unwrap();
}

/// The settles probe the primary key for their ids whatever the table holds: written with
/// `status = 'PENDING'`, the planner scanned the whole partial `ix_outbox_event_pendente` and
/// filtered the ids — with the horizon held, every entry ever pending (issue 29: ~230 ms a settle).
#[tokio::test]
async fn the_settles_find_their_rows_by_the_primary_key_not_by_the_pending_index() {
    let db = TestDb::new(Servico::Mercado).await;
    let c = db.client().await;
    eventos(&c, 20_000, 60.0).await;
    c.batch_execute("UPDATE outbox_event SET status = 'SENT', enviado_em = now()").await.unwrap();
    eventos(&c, 300, 1.0).await;
    c.batch_execute("ANALYZE outbox_event").await.unwrap();
    let ids: Vec<String> = c
        .query("SELECT id::text FROM outbox_event WHERE status = 'PENDING' LIMIT 50", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let erros = vec!["x"; ids.len()].join(",");
    let esperas = vec!["1"; ids.len()].join(",");
    let statuses = vec!["503"; ids.len()].join(",");
    let casos = [
        (
            "MARK_SENT",
            store::MARK_SENT,
            "uuid[], uuid".to_string(),
            format!("'{{{}}}', '{}'", ids.join(","), Uuid::new_v4()),
        ),
        (
            "MARK_FAILED",
            store::MARK_FAILED,
            "uuid[], text[], float8[], uuid, int2[], int8".to_string(),
            format!(
                "'{{{}}}', '{{{erros}}}', '{{{esperas}}}', '{}', '{{{statuses}}}', 20",
                ids.join(","),
                Uuid::new_v4()
            ),
        ),
    ];
    for (nome, sql, tipos, args) in casos {
        c.batch_execute("DEALLOCATE ALL").await.unwrap();
        c.batch_execute(&format!("PREPARE s({tipos}) AS {sql}")).await.unwrap();
        let plano: String = c
            .simple_query(&format!("EXPLAIN EXECUTE s({args})"))
            .await
            .unwrap()
            .iter()
            .filter_map(|m| match m {
                tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).map(str::to_string),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            !plano.contains("ix_outbox_event_pendente") && plano.contains("outbox_event_pkey"),
            "{nome} does not probe the primary key:\n{plano}"
        );
    }
}
