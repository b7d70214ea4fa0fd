//! The statements do what `regras::Situacao` says (issue 38): the protocol's model runs those
//! functions, so each statement is run here against rows in every situation they distinguish —
//! each status, no token, the claim's own token or another, due or not, first attempt or not,
//! fresh or not — and every row must come out as the function predicts. A rule changed in the
//! SQL alone (say, a settle without `lease_token = $token`) fails here; changed in the function
//! alone, it fails here and, if it matters, the model.
//!
//! `GIRO_TEST_PG_URL` names the cluster (as for `adocao`); each test works in a schema of its
//! own, made from [`giro_outbox::SCHEMA`] and dropped at the end.

// A test's helpers: a failed step is the test's failure, said by `expect`'s message.
#![allow(clippy::expect_used)]

use std::time::Duration;

use chrono::{DateTime, Utc};
use giro_outbox::internos::{
    claim, make_due, mark_failed, mark_sent, Decisao, Failure, Situacao, WhyFailed, DE_VOLTA,
};
use giro_outbox::Status;
use tokio_postgres::NoTls;
use uuid::Uuid;

const A: Uuid = Uuid::from_u128(0xA);
const B: Uuid = Uuid::from_u128(0xB);

struct Esquema {
    c: tokio_postgres::Client,
    nome: String,
}

impl Esquema {
    async fn novo() -> Esquema {
        let url = std::env::var("GIRO_TEST_PG_URL").expect(
            "GIRO_TEST_PG_URL: a PostgreSQL URL, e.g. postgres://postgres:postgres@127.0.0.1:15432/postgres",
        );
        let (c, conn) = tokio_postgres::connect(&url, NoTls).await.expect("connect to GIRO_TEST_PG_URL");
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let nome = format!("giro_regras_{}", Uuid::new_v4().simple());
        c.batch_execute(&format!("CREATE SCHEMA {nome}; SET search_path TO {nome}")).await.expect("schema");
        c.batch_execute(giro_outbox::SCHEMA).await.expect("the crate's tables");
        Esquema { c, nome }
    }

    /// One row per situation the rules distinguish; returns them with their ids.
    async fn linhas(&self, agora: DateTime<Utc>) -> Vec<(Uuid, Situacao)> {
        self.c.batch_execute("TRUNCATE outbox_event, outbox_tentativa").await.expect("truncate");
        let mut out = Vec::new();
        let s = |n: i64| chrono::Duration::seconds(n);
        for status in Status::TODOS {
            for token in [None, Some(A), Some(B)] {
                for proxima in [agora - s(10), agora, agora + s(10)] {
                    for (tentativas, fresco) in [(0, true), (0, false), (3, false)] {
                        let id = Uuid::from_u128(out.len() as u128 + 1);
                        let criado = if fresco { agora - s(1) } else { agora - s(3600) };
                        let sit = Situacao {
                            status,
                            tentativas,
                            proxima_tentativa_em: proxima,
                            lease_token: token,
                        };
                        self.c
                            .execute(
                                "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, \
                                 proxima_tentativa_em, lease_token) VALUES ($1, 'T', '{}', $2, $3, $4, $5, $6)",
                                &[&id, &status, &criado, &tentativas, &proxima, &token],
                            )
                            .await
                            .expect("insert");
                        out.push((id, sit));
                    }
                }
            }
        }
        out
    }

    async fn situacao(&self, id: Uuid) -> Situacao {
        let r = self
            .c
            .query_one(
                "SELECT status, tentativas, proxima_tentativa_em, lease_token FROM outbox_event WHERE id = $1",
                &[&id],
            )
            .await
            .expect("read");
        Situacao {
            status: r.get(0),
            tentativas: r.get(1),
            proxima_tentativa_em: r.get(2),
            lease_token: r.get(3),
        }
    }

    /// Every row as `esperado` predicts from its situation before.
    async fn confere(&self, antes: &[(Uuid, Situacao)], o_que: &str, esperado: impl Fn(&mut Situacao)) {
        for (id, s) in antes {
            let mut e = *s;
            esperado(&mut e);
            assert_eq!(self.situacao(*id).await, e, "{o_que}: row {s:?}");
        }
    }

    async fn now(&self) -> DateTime<Utc> {
        self.c.query_one("SELECT now()", &[]).await.expect("now").get(0)
    }
}

impl Drop for Esquema {
    fn drop(&mut self) {
        let nome = self.nome.clone();
        // Drop cannot be async: a short-lived thread with its own runtime drops the schema (also
        // when the test failed).
        let _ = std::thread::spawn(move || {
            let Ok(url) = std::env::var("GIRO_TEST_PG_URL") else { return };
            if let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() {
                rt.block_on(async move {
                    if let Ok((c, conn)) = tokio_postgres::connect(&url, NoTls).await {
                        tokio::spawn(conn);
                        let _ = c.batch_execute(&format!("DROP SCHEMA IF EXISTS {nome} CASCADE")).await;
                    }
                });
            }
        })
        .join();
    }
}

fn agora() -> DateTime<Utc> {
    DateTime::<Utc>::UNIX_EPOCH + chrono::Duration::seconds(1_800_000_000)
}

#[tokio::test]
async fn the_claim_takes_exactly_the_eligible_rows_and_writes_the_lease() {
    let db = Esquema::novo().await;
    let linhas = db.linhas(agora()).await;
    let lease = Duration::from_secs(30);
    let c = claim(&db.c, Some(agora()), 1_000, lease, B).await.expect("claim");
    let tomadas: Vec<Uuid> = c.iter().map(|e| e.id).collect();
    for (id, s) in &linhas {
        assert_eq!(tomadas.contains(id), s.elegivel(agora()), "claimed or not: {s:?}");
    }
    db.confere(&linhas, "claim", |s| {
        if s.elegivel(agora()) {
            s.reclamar(agora(), lease, B);
        }
    })
    .await;
    assert!(!tomadas.is_empty());
}

#[tokio::test]
async fn the_settles_change_only_rows_under_their_token_and_write_what_the_decision_says() {
    let db = Esquema::novo().await;
    let linhas = db.linhas(agora()).await;
    let ids: Vec<Uuid> = linhas.iter().map(|(id, _)| *id).collect();
    mark_sent(&db.c, &ids, A).await.expect("mark_sent");
    db.confere(&linhas, "MARK_SENT", |s| {
        s.assentar(A, Decisao::Sent, agora());
    })
    .await;

    let linhas = db.linhas(agora()).await;
    let falhas =
        |espera| ids.iter().map(|&id| Failure { id, erro: "HTTP 400".into(), espera }).collect::<Vec<_>>();
    mark_failed(&db.c, &falhas(None), A).await.expect("mark_failed");
    db.confere(&linhas, "MARK_FAILED, dead letter", |s| {
        s.assentar(A, Decisao::Failed(WhyFailed::Refused), agora());
    })
    .await;

    // A retry counts its backoff from the settle's `now()`: one transaction, one `now()`.
    let linhas = db.linhas(agora()).await;
    db.c.batch_execute("BEGIN").await.expect("begin");
    let espera = Duration::from_secs(7);
    mark_failed(&db.c, &falhas(Some(espera)), A).await.expect("mark_failed");
    let now = db.now().await;
    db.c.batch_execute("COMMIT").await.expect("commit");
    db.confere(&linhas, "MARK_FAILED, retry", |s| {
        s.assentar(A, Decisao::Retry(espera), now);
    })
    .await;
}

#[tokio::test]
async fn the_revive_and_a_replay_write_what_the_rules_say() {
    let db = Esquema::novo().await;
    // Due times around the database's own clock: the revive compares with `now()`.
    db.c.batch_execute("BEGIN").await.expect("begin");
    let now = db.now().await;
    let linhas = db.linhas(now).await;
    make_due(&db.c, 1_000).await.expect("make_due");
    db.c.batch_execute("COMMIT").await.expect("commit");
    db.confere(&linhas, "make_due", |s| {
        s.reviver(now);
    })
    .await;

    db.c.batch_execute("BEGIN").await.expect("begin");
    let now = db.now().await;
    let linhas = db.linhas(now).await;
    let ids: Vec<Uuid> = linhas.iter().map(|(id, _)| *id).collect();
    db.c.execute(DE_VOLTA, &[&ids]).await.expect("DE_VOLTA");
    db.c.batch_execute("COMMIT").await.expect("commit");
    db.confere(&linhas, "DE_VOLTA", |s| s.de_volta(now)).await;
}
