//! Girô behind PgBouncer in transaction mode (issue 28.2), `db.pooler = "transacao"`.
//!
//! [`e2e`]: the whole market flow through Debian's PgBouncer 1.18 with its defaults (no
//! `ignore_startup_parameters`, no prepared-statement support) and 3 server connections per
//! database, shared by every process: checkout, payment, expiry, restock both ways, lot intake,
//! operator sessions and login throttling, the outbox console's dead-letter replay, the
//! re-classification job on two estoque replicas at once, `giro migrate` on the direct URL and
//! `giro audit`; no 5xx, nothing lost, nothing applied twice.
//!
//! Beside it, the default (`db.pooler = "nenhum"`) still prepares each statement once per
//! connection and reuses it, and `transacao` leaves no named statement in the session.

use std::time::Duration;

use giro_infra::config::{DbConfig, PoolLimits};
use giro_infra::db::{self, Pooler};

use crate::support::TestDb;

const PRONTA: &str = "SELECT count(*) FROM pg_prepared_statements WHERE statement = $1";
const CONSULTA: &str = "SELECT sku FROM produto_vitrine WHERE sku = $1";

/// `CONSULTA` twice on one pooled connection, then how many named statements with its text the
/// session holds.
async fn preparadas(db: &DbConfig, pooler: Pooler) -> i64 {
    let limits = PoolLimits { pooler, ..PoolLimits::default() };
    let pool = db::pool_with(db, 1, Duration::from_secs(5), limits).expect("pool");
    let client = pool.get().await.expect("connection");
    for _ in 0..2 {
        client.query(CONSULTA, &[&"7894900011517"]).await.expect("query");
    }
    // Asked on the same session, through the simple protocol (itself no named statement).
    let sql = PRONTA.replace("$1", &format!("'{}'", CONSULTA.replace('\'', "''")));
    let rows = client.simple_query(&sql).await.expect("pg_prepared_statements");
    rows.iter()
        .find_map(|m| match m {
            tokio_postgres::SimpleQueryMessage::Row(r) => r.get(0).and_then(|v| v.parse().ok()),
            _ => None,
        })
        .expect("a count")
}

#[tokio::test]
async fn without_a_pooler_each_statement_is_prepared_once_per_connection_and_reused() {
    let t = TestDb::new(giro_servicos::config::Servico::Mercado).await;
    assert_eq!(preparadas(&t.db_config(), Pooler::Nenhum).await, 1, "one cached named statement, run twice");
}

#[tokio::test]
async fn under_a_transaction_pooler_no_named_statement_is_left_in_the_session() {
    let t = TestDb::new(giro_servicos::config::Servico::Mercado).await;
    assert_eq!(preparadas(&t.db_config(), Pooler::Transacao).await, 0, "unnamed statements only");
}

pub mod e2e {
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    use giro_dev::cliente::Operador;
    use serde_json::json;
    use uuid::Uuid;

    use crate::support::e2e::{
        audit_limpo, blocking, free_port, verificar, Clientes, Esperado, Papel, Repositor, Sistema,
    };
    use crate::support::pgbouncer::Pgbouncer;
    use crate::support::process::{command, Giro};
    use crate::support::{wait_until, OPERADOR, SENHA};

    /// Server connections PgBouncer keeps per database: fewer than one process's pool
    /// (`GIRO_DB_POOL_MAX` 8), so every process shares them with the others.
    const POOL: u32 = 3;
    const SHOPPERS: usize = 4;

    async fn contar(c: &tokio_postgres::Client, sql: &str) -> i64 {
        c.query_one(sql, &[]).await.expect(sql).get(0)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn the_whole_market_flow_runs_through_pgbouncer_in_transaction_mode() {
        let Some(pgb) = Pgbouncer::start(POOL).await else { return };
        let mut s = Sistema::new(
            "pgbouncer",
            &[
                ("GIRO_DB_POOLER", "transacao"),
                ("GIRO_LOGIN_MAX_FALHAS_ENDERECO", "3"),
                // Short enough that expiries happen during the run.
                ("GIRO_RESERVA_TTL", "3s"),
            ],
        )
        .await;
        let (m_direta, e_direta) = (s.mercado_db.url(), s.estoque_db.url());
        let (m_pgb, e_pgb) = (pgb.url(&m_direta), pgb.url(&e_direta));

        // Migrations through the direct URL, the runtime URL on PgBouncer.
        let env = [
            ("MERCADO_DB_URL", m_pgb.clone()),
            ("ESTOQUE_DB_URL", e_pgb.clone()),
            ("GIRO_MERCADO_DB_URL_DIRETA", m_direta.clone()),
            ("GIRO_ESTOQUE_DB_URL_DIRETA", e_direta.clone()),
            ("GIRO_DB_POOLER", "transacao".to_string()),
        ]
        .into_iter()
        .collect();
        let out = blocking(|| {
            command(&["migrate", "--db", "all", "--wait", "30s"], &env).output().expect("giro migrate")
        });
        assert!(
            out.status.success(),
            "giro migrate on the direct URL: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );

        let reclassifica = [
            ("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "true".to_string()),
            ("GIRO_TAGS_INTERVALO", "300ms".to_string()),
        ];
        s.definir_para(Papel::Mercado, vec![("MERCADO_DB_URL", m_pgb.clone())]);
        s.definir_para(
            Papel::Estoque,
            [vec![("ESTOQUE_DB_URL", e_pgb.clone())], reclassifica.to_vec()].concat(),
        );
        // One publisher LISTENs on the direct URL; the other has none and polls.
        s.definir_para(
            Papel::PublisherMercado,
            vec![("MERCADO_DB_URL", m_pgb.clone()), ("GIRO_MERCADO_DB_URL_DIRETA", m_direta.clone())],
        );
        s.definir_para(Papel::PublisherEstoque, vec![("ESTOQUE_DB_URL", e_pgb.clone())]);
        s.start_all().await;
        // A second estoque replica on the same database, re-classifying too.
        let mut env2 = s.env(Papel::Estoque);
        env2.insert("ESTOQUE_PORTA", free_port().to_string());
        let mut replica = Giro::spawn(&["estoque", "serve", "--no-publisher"], &env2);
        let addr2 = replica.wait_listening().await;
        wait_until(Duration::from_secs(20), "the second estoque replica ready", || async {
            let r = reqwest::get(format!("http://{addr2}/readyz")).await.ok()?;
            (r.status() == 200).then_some(())
        })
        .await;
        s.carregar_demo().await;

        // Shoppers (checkout, payment, expiry) and an operator entering lots as demand appears
        // (restock both ways, lot intake).
        let mut repositor = Repositor::start(s.estoque_url());
        let stats = Clientes::start(s.mercado_url(), SHOPPERS, 400, Duration::ZERO, 0.5)
            .esperar(Duration::from_secs(150))
            .await;
        eprintln!("[pgbouncer] {}", stats.resumo());
        assert!(stats.criados() > 0 && stats.pagos.load(Ordering::SeqCst) > 0, "{}", stats.resumo());

        // Re-classification on two replicas: products made untagged are classified once each.
        let e = s.estoque().await;
        // Counted from a settled catalogue: no product still waiting for its first classification.
        wait_until(Duration::from_secs(60), "every product classified", || async {
            (contar(&e, "SELECT count(*) FROM produto_estoque WHERE tags IS NULL").await == 0).then_some(())
        })
        .await;
        let antes = contar(&e, "SELECT count(*) FROM outbox_event WHERE tipo = 'ProdutoClassificado'").await;
        let n = e
            .execute("UPDATE produto_estoque SET tags = NULL WHERE sku IN (SELECT sku FROM produto_estoque ORDER BY sku LIMIT 4)", &[])
            .await
            .expect("untag");
        assert_eq!(n, 4);
        wait_until(Duration::from_secs(60), "the untagged products re-classified", || async {
            (contar(&e, "SELECT count(*) FROM produto_estoque WHERE tags IS NULL").await == 0).then_some(())
        })
        .await;
        let depois = contar(&e, "SELECT count(*) FROM outbox_event WHERE tipo = 'ProdutoClassificado'").await;
        assert_eq!(depois - antes, 4, "each product classified once, by one of the two replicas");

        // The console: a dead letter listed and replayed by an operator session. The dead letter
        // is made of a delivered event (as one whose answer was lost), so the replay sends it
        // again and the inbox must not apply it twice (the history check, told so).
        let drenado = s.drenar(Duration::from_secs(90), &[]).await;
        eprintln!("[pgbouncer] drained in {:.1} s", drenado.as_secs_f64());
        let m = s.mercado().await;
        let morto: Uuid = m
            .query_one(
                "UPDATE outbox_event SET status = 'FAILED', ultimo_erro = 'teste' \
                  WHERE id = (SELECT id FROM outbox_event WHERE status = 'SENT' ORDER BY criado_em LIMIT 1) RETURNING id",
                &[],
            )
            .await
            .expect("a dead letter")
            .get(0);
        let op = Operador::login(&s.mercado_url(), "XSRF-MERCADO", OPERADOR, SENHA).await.expect("login");
        let (st, lista) = op.get("/operacao/outbox/eventos?status=FAILED").await.expect("list");
        assert_eq!(st, 200, "{lista}");
        assert!(lista.to_string().contains(&morto.to_string()), "{lista}");
        let (st, r) =
            op.post(&format!("/operacao/outbox/eventos/{morto}/reenvio"), &json!({})).await.expect("replay");
        assert_eq!(st, 200, "{r}");
        wait_until(Duration::from_secs(30), "the replayed event sent again", || async {
            let st: String =
                m.query_one("SELECT status FROM outbox_event WHERE id = $1", &[&morto]).await.ok()?.get(0);
            (st == "SENT").then_some(())
        })
        .await;

        // Login throttling: 3 failures from one address, then 429.
        let http = reqwest::Client::new();
        let mut codigos = Vec::new();
        for _ in 0..4 {
            let csrf = Uuid::new_v4().simple().to_string();
            let r = http
                .post(format!("{}/sessao", s.mercado_url()))
                .header("Cookie", format!("XSRF-MERCADO={csrf}"))
                .header("X-XSRF-TOKEN", &csrf)
                .form(&[("usuario", OPERADOR), ("senha", "errada-errada")])
                .send()
                .await
                .expect("login");
            codigos.push(r.status().as_u16());
        }
        assert_eq!(codigos[3], 429, "the fourth failure is throttled: {codigos:?}");
        assert!(codigos[..3].iter().all(|c| (400..500).contains(c) && *c != 429), "{codigos:?}");

        s.drenar(Duration::from_secs(60), &[]).await;
        let entradas = repositor.parar().await;
        assert!(entradas.lotes.load(Ordering::SeqCst) > 0, "lots were entered");
        verificar(&s, &stats, &entradas, &Esperado { reabertos: vec![morto], ..Esperado::default() }).await;
        // Unpaid orders' reservations (TTL 3 s) expire through PgBouncer too: the sweep wakes at
        // each deadline, which a short run may not have reached yet.
        wait_until(Duration::from_secs(30), "unpaid reservations expired through PgBouncer too", || async {
            (contar(&m, "SELECT count(*) FROM reserva WHERE status = 'EXPIRADA'").await > 0).then_some(())
        })
        .await;

        // giro audit through PgBouncer too.
        let (code, report) = audit_pgb(&m_pgb, &e_pgb);
        assert_eq!(code, 0, "giro audit through PgBouncer: {report}");
        audit_limpo(&s);

        // Every process shared PgBouncer's few server connections, and none saw what a session
        // pooler breaks.
        for db in [&s.mercado_db.name, &s.estoque_db.name] {
            let n = pgb.servidores(db).await;
            assert!(n <= POOL as i64, "{db}: {n} server connections, at most {POOL}");
        }
        let replica_log = replica.log();
        for (nome, log) in [
            ("mercado", s.log(Papel::Mercado)),
            ("estoque", s.log(Papel::Estoque)),
            ("estoque replica", replica_log),
            ("publisher-mercado", s.log(Papel::PublisherMercado)),
            ("publisher-estoque", s.log(Papel::PublisherEstoque)),
        ] {
            for sinal in ["prepared statement", "unsupported startup parameter"] {
                assert!(!log.contains(sinal), "{nome} logged {sinal:?}:\n{log}");
            }
        }
        assert!(
            s.log(Papel::PublisherMercado).contains("LISTEN connected"),
            "publisher-mercado LISTENs directly"
        );
        assert!(!s.log(Papel::PublisherEstoque).contains("LISTEN connected"), "publisher-estoque polls");
        s.assert_alive();
    }

    /// `giro audit --json` with both URLs on PgBouncer under `db.pooler = "transacao"`.
    fn audit_pgb(m: &str, e: &str) -> (i32, serde_json::Value) {
        let env = [
            ("MERCADO_DB_URL", m.to_string()),
            ("ESTOQUE_DB_URL", e.to_string()),
            ("GIRO_DB_POOLER", "transacao".to_string()),
        ]
        .into_iter()
        .collect();
        let out = blocking(|| command(&["audit", "--json"], &env).output().expect("giro audit"));
        let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!("giro audit printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr))
        });
        (out.status.code().unwrap_or(-1), json)
    }
}
