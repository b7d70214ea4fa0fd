//! The history checker (`support::historia`) on histories the databases record: a clean round
//! trip passes; an injected double apply, a missing apply, a claim under a live lease, a row
//! changed after SENT and a credit outside its apply's transaction each fail, naming the event
//! (issue 38 §4). The e2e scenarios run the same check after each run (`support::e2e::verificar`).

use giro_servicos::config::Servico;
use uuid::Uuid;

use crate::support::historia::{self, Previsto};
use crate::support::TestDb;

/// Two fresh databases recording their history, as a scenario's are.
async fn par() -> (TestDb, TestDb, tokio_postgres::Client, tokio_postgres::Client) {
    let (m, e) = (TestDb::new(Servico::Mercado).await, TestDb::new(Servico::Estoque).await);
    let (mc, ec) = (m.client().await, e.client().await);
    historia::gravar(&mc).await;
    historia::gravar(&ec).await;
    (m, e, mc, ec)
}

/// An event written by mercado, claimed under `token`, applied by estoque, settled SENT: each step
/// its own transaction, through the same columns the relay and the receiver write.
async fn ida_e_volta(mc: &tokio_postgres::Client, ec: &tokio_postgres::Client) -> Uuid {
    let id = Uuid::new_v4();
    mc.execute(
        "INSERT INTO outbox_event (id, tipo, payload, criado_em, proxima_tentativa_em) \
         VALUES ($1, 'ReposicaoSolicitada', '{}', now(), now())",
        &[&id],
    )
    .await
    .unwrap();
    reclamar(mc, id).await;
    ec.execute("INSERT INTO inbox_event (event_id, processado_em) VALUES ($1, now())", &[&id]).await.unwrap();
    mc.execute(
        "UPDATE outbox_event SET status = 'SENT', enviado_em = now(), lease_token = NULL WHERE id = $1",
        &[&id],
    )
    .await
    .unwrap();
    id
}

/// A claim as the relay's: a new token, the lease 30 s from the database's now.
async fn reclamar(mc: &tokio_postgres::Client, id: Uuid) {
    mc.execute(
        "UPDATE outbox_event SET lease_token = $2, proxima_tentativa_em = now() + interval '30 seconds', \
                tentativas = tentativas + 1 WHERE id = $1",
        &[&id, &Uuid::new_v4()],
    )
    .await
    .unwrap();
}

async fn violacoes(mc: &tokio_postgres::Client, ec: &tokio_postgres::Client) -> Vec<(Uuid, String)> {
    let (m, e) = (historia::ler("mercado", mc).await, historia::ler("estoque", ec).await);
    let v = historia::violacoes(&m, &e, &Previsto::default());
    for (id, erro) in &v {
        eprintln!("event {id}: {erro}\n{}", historia::de(*id, &m, &e));
    }
    v
}

#[tokio::test]
async fn a_clean_round_trip_passes_and_each_injected_fault_fails_naming_its_event() {
    let (_m, _e, mc, ec) = par().await;
    let id = ida_e_volta(&mc, &ec).await;
    assert_eq!(violacoes(&mc, &ec).await, vec![], "a clean round trip");
    assert_eq!(historia::conferir("limpo", &mc, &ec, &Previsto::default()).await, 1);

    // A double apply: the receiver's history shows a second apply of the same event.
    ec.execute("INSERT INTO historia_teste (tabela, op, event_id) VALUES ('inbox', 'aplicado', $1)", &[&id])
        .await
        .unwrap();
    let v = violacoes(&mc, &ec).await;
    assert!(v.iter().any(|(i, e)| *i == id && e.contains("applied 2 times")), "{v:?}");
    ec.execute("DELETE FROM historia_teste WHERE seq = (SELECT max(seq) FROM historia_teste)", &[])
        .await
        .unwrap();

    // A missing event: written and settled, its apply nowhere.
    ec.execute("DELETE FROM historia_teste WHERE event_id = $1", &[&id]).await.unwrap();
    let v = violacoes(&mc, &ec).await;
    assert!(v.iter().any(|(i, e)| *i == id && e.contains("never applied")), "{v:?}");
    let previsto = Previsto::default();
    let falhou = std::panic::AssertUnwindSafe(historia::conferir("faltando", &mc, &ec, &previsto));
    let panico = futures_util::FutureExt::catch_unwind(falhou).await.expect_err("the check must fail");
    let msg = panico.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        msg.contains(&id.to_string()) && msg.contains("escrito"),
        "the event's history is printed: {msg}"
    );
}

#[tokio::test]
async fn a_claim_under_a_live_lease_and_a_change_after_sent_are_violations() {
    let (_m, _e, mc, ec) = par().await;
    let id = Uuid::new_v4();
    mc.execute(
        "INSERT INTO outbox_event (id, tipo, payload, criado_em, proxima_tentativa_em) \
         VALUES ($1, 'ReposicaoSolicitada', '{}', now(), now())",
        &[&id],
    )
    .await
    .unwrap();
    reclamar(&mc, id).await;
    // A second publisher takes the row while the first one's lease runs: two valid leases.
    reclamar(&mc, id).await;
    let v = violacoes(&mc, &ec).await;
    assert!(v.iter().any(|(i, e)| *i == id && e.contains("while token")), "{v:?}");

    // A settled row sent back to PENDING: a re-delivery after SENT.
    let (_m2, _e2, mc, ec) = par().await;
    let id = ida_e_volta(&mc, &ec).await;
    mc.execute("UPDATE outbox_event SET status = 'PENDING', enviado_em = NULL WHERE id = $1", &[&id])
        .await
        .unwrap();
    let v = violacoes(&mc, &ec).await;
    assert!(v.iter().any(|(i, e)| *i == id && e.contains("after it was settled SENT")), "{v:?}");
}

#[tokio::test]
async fn a_shipment_credited_twice_or_outside_its_apply_is_a_violation() {
    let (_m, _e, mc, ec) = par().await;
    let (remessa, evento) = (Uuid::new_v4(), Uuid::new_v4());
    // Credited in its own transaction, no apply in it: the effect outside the inbox's transaction.
    mc.execute(
        "INSERT INTO remessa_creditada (correlation_id, lote, event_id, qtd) VALUES ($1, 'L1', $2, 5)",
        &[&remessa, &evento],
    )
    .await
    .unwrap();
    let v = violacoes(&mc, &ec).await;
    assert!(v.iter().any(|(i, e)| *i == evento && e.contains("outside any apply")), "{v:?}");
    // The credit's key is unique in the table; a re-issued event credited again shows in the history.
    mc.execute(
        "INSERT INTO historia_teste (tabela, op, event_id, chave) VALUES ('remessa', 'creditado', $1, $2)",
        &[&Uuid::new_v4(), &format!("{remessa}/L1")],
    )
    .await
    .unwrap();
    let v = violacoes(&mc, &ec).await;
    assert!(v.iter().any(|(_, e)| e.contains("credited twice")), "{v:?}");
}

#[tokio::test]
async fn a_dead_letter_the_scenario_made_of_a_delivered_event_may_be_replayed_but_not_applied_again() {
    // pgbouncer's console check moves a delivered event back to FAILED (an answer lost after the
    // peer applied) and replays it: declared, the replay's claim and SENT pass; undeclared they do
    // not; a second apply fails either way.
    let (_m, _e, mc, ec) = par().await;
    let id = ida_e_volta(&mc, &ec).await;
    mc.execute("UPDATE outbox_event SET status = 'FAILED', ultimo_erro = 'teste' WHERE id = $1", &[&id])
        .await
        .unwrap();
    mc.execute(
        "UPDATE outbox_event SET status = 'PENDING', proxima_tentativa_em = now() WHERE id = $1",
        &[&id],
    )
    .await
    .unwrap();
    reclamar(&mc, id).await;
    mc.execute("UPDATE outbox_event SET status = 'SENT', lease_token = NULL WHERE id = $1", &[&id])
        .await
        .unwrap();
    let (m, e) = (historia::ler("mercado", &mc).await, historia::ler("estoque", &ec).await);
    let reaberto = Previsto { reabertos: vec![id], ..Previsto::default() };
    assert_eq!(historia::violacoes(&m, &e, &reaberto), vec![]);
    let v = historia::violacoes(&m, &e, &Previsto::default());
    assert!(v.iter().any(|(i, e)| *i == id && e.contains("after it was settled SENT")), "{v:?}");

    ec.execute("INSERT INTO historia_teste (tabela, op, event_id) VALUES ('inbox', 'aplicado', $1)", &[&id])
        .await
        .unwrap();
    let e = historia::ler("estoque", &ec).await;
    let v = historia::violacoes(&m, &e, &reaberto);
    assert!(v.iter().any(|(i, e)| *i == id && e.contains("applied 2 times")), "{v:?}");
}
