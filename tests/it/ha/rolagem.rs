//! A rolling restart nobody sees (issue 28, point 5): two mercado and two estoque replicas behind
//! the real HAProxy (`config/haproxy/giro.cfg`), shoppers checking out and paying through it, and
//! every replica in turn stopped with SIGTERM (waited until it exits 0), started again and waited
//! until the balancer has it UP — two rounds. Every answer to a shopper is counted: none may be
//! other than 2xx (no 5xx, no 409 — the shelves are ample, so a sold-out answer would mean
//! something else went wrong — no connection refused or cut), every 201's order exists, every
//! event took effect once, and `giro audit` exits 0.
//!
//! What makes it invisible is the drain (`GIRO_HTTP_DRENAGEM=5s`, longer than the balancer's
//! three 1 s checks): on SIGTERM a replica answers `/readyz` 503 and closes every connection after
//! its answer, so the balancer takes it out before its listener closes and never sends a request
//! on a connection the replica is closing.

/// The drain alone: told SIGTERM, a replica with `GIRO_HTTP_DRENAGEM` keeps serving, its
/// `/readyz` 503 `{"drenando": true}` and every answer with `Connection: close`, then exits 0.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_sigterm_a_draining_replica_answers_readyz_503_and_closes_each_connection_then_exits() {
    use std::time::Duration;

    use giro_servicos::config::Servico;

    use crate::support::process::{env_base, Giro};
    use crate::support::{wait_until, TestDb};

    let db = TestDb::new(Servico::Mercado).await;
    let env = env_base([
        ("MERCADO_PORTA", "0".to_string()),
        ("GIRO_OUTBOX_PUBLICADOR_EMBUTIDO", "false".to_string()),
        ("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "false".to_string()),
        ("GIRO_HTTP_DRENAGEM", "4s".to_string()),
        ("MERCADO_DB_URL", db.url()),
    ]);
    let mut g = Giro::spawn(&["mercado", "serve"], &env);
    let base = format!("http://{}", g.wait_listening().await);
    let http = reqwest::Client::new();
    wait_until(Duration::from_secs(30), "ready", || async {
        (http.get(format!("{base}/readyz")).send().await.ok()?.status() == 200).then_some(())
    })
    .await;
    let res = http.get(format!("{base}/produtos")).send().await.expect("GET /produtos");
    assert!(res.headers().get("connection").is_none(), "kept alive before the signal");

    g.signal("TERM");
    let readyz = wait_until(Duration::from_secs(10), "/readyz 503 while draining", || async {
        let r = http.get(format!("{base}/readyz")).send().await.ok()?;
        (r.status() == 503).then_some(r)
    })
    .await;
    assert!(readyz.headers().get("retry-after").is_some());
    let corpo: serde_json::Value = readyz.json().await.expect("json");
    assert_eq!(corpo["drenando"], true, "{corpo}");
    let res = http.get(format!("{base}/produtos")).send().await.expect("served while draining");
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers().get("connection").and_then(|v| v.to_str().ok()), Some("close"));

    let st = g.wait_exit(Duration::from_secs(30)).await;
    assert!(st.is_some_and(|s| s.success()), "exit 0 after the drain: {st:?}\n{}", g.log());
    assert!(g.log().contains("draining"), "{}", g.log());
    assert!(http.get(format!("{base}/readyz")).send().await.is_err(), "the listener is closed");
}

mod e2e {
    use std::time::{Duration, Instant};

    use giro_dev::demo::CATALOGO;
    use giro_servicos::config::Servico;
    use serde_json::{json, Value};

    use crate::support::e2e::{concordam, Clientes};
    use crate::support::lb::{nome, Frota, Op};
    use crate::support::{wait_until, TestDb};

    /// Shelves far above what the run sells: a restock brings 5 000 units, a lot holds 50 000.
    const MINIMO: i32 = 2_000;
    const IDEAL: i32 = 5_000;
    const LOTE: i32 = 50_000;

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_rolling_restart_of_every_replica_twice_under_load_gives_shoppers_only_2xx() {
        let (m, e) = (TestDb::new(Servico::Mercado).await, TestDb::new(Servico::Estoque).await);
        crate::support::historia::gravar(&m.client().await).await;
        crate::support::historia::gravar(&e.client().await).await;
        let mut f = Frota::new(
            m.url(),
            e.url(),
            2,
            &[("GIRO_HTTP_DRENAGEM", "5s"), ("GIRO_HTTP_PRAZO_DESLIGAMENTO", "10s")],
        )
        .await;

        let (oe, (s, _, _)) = Op::login(&f.estoque_url(), "XSRF-ESTOQUE").await;
        assert_eq!(s, 204, "estoque login");
        let (om, (s, _, _)) = Op::login(&f.mercado_url(), "XSRF-MERCADO").await;
        assert_eq!(s, 204, "mercado login");
        let validade = (giro_dev::demo::hoje_sao_paulo() + chrono::Duration::days(120)).to_string();
        for (i, item) in CATALOGO.iter().enumerate() {
            let lote = json!({"sku": item.sku, "descricao": item.descricao, "ncm": item.ncm,
                              "codigoLote": format!("L-ROL-{i}"), "quantidade": LOTE, "validade": validade});
            oe.must("POST", "/lotes", Some(&lote), 201).await;
            let preco: Value = serde_json::from_str(item.preco).expect("price");
            let produto = json!({"sku": item.sku, "nome": item.nome, "preco": preco,
                                 "estoqueMinimo": MINIMO, "estoqueIdeal": IDEAL});
            om.must("POST", "/produtos", Some(&produto), 201).await;
        }
        let url = format!("{}/produtos", f.mercado_url());
        wait_until(Duration::from_secs(90), "every shelf stocked", || async {
            let ps: Vec<Value> = reqwest::get(&url).await.ok()?.json().await.ok()?;
            (ps.len() == CATALOGO.len() && ps.iter().all(|p| p["disponivel"].as_i64() >= Some(MINIMO as i64)))
                .then_some(())
        })
        .await;

        let mut clientes = Clientes::start(f.mercado_url(), 4, u64::MAX, Duration::from_millis(20), 0.5);
        wait_until(Duration::from_secs(30), "load flowing", || async {
            (clientes.stats.respondidas() >= 20).then_some(())
        })
        .await;
        let inicio = Instant::now();
        for rodada in 1..=2 {
            for s in [Servico::Estoque, Servico::Mercado] {
                for i in 0..2 {
                    let t = Instant::now();
                    f.stop(s, i).await;
                    let parado = t.elapsed();
                    f.restart(s, i).await;
                    eprintln!(
                        "round {rodada}: {} stopped in {:.1} s, UP again {:.1} s later; {}",
                        nome(s, i),
                        parado.as_secs_f64(),
                        (t.elapsed() - parado).as_secs_f64(),
                        clientes.stats.resumo()
                    );
                }
            }
        }
        let duracao = inicio.elapsed();
        let stats = clientes.parar().await;
        f.assert_alive();

        let ord = std::sync::atomic::Ordering::SeqCst;
        let checkouts = stats.linha.lock().unwrap().len() as u64;
        let pagamentos = stats.pagos.load(ord)
            + stats.pagamento_recusado.load(ord)
            + stats.pagamento_sem_resposta.load(ord)
            + stats.inesperadas.lock().unwrap().iter().filter(|x| x.starts_with("payment")).count() as u64;
        eprintln!(
            "rolling restart, 2 rounds of 4 replicas in {:.0} s: {checkouts} checkouts and {pagamentos} payments answered; {}",
            duracao.as_secs_f64(),
            stats.resumo()
        );
        let inesperadas = stats.inesperadas.lock().unwrap().clone();
        assert!(inesperadas.is_empty(), "answers other than 2xx: {inesperadas:#?}");
        let nao_2xx: Vec<u16> =
            stats.linha.lock().unwrap().iter().map(|(_, s)| *s).filter(|s| !(200..300).contains(s)).collect();
        assert!(nao_2xx.is_empty(), "checkouts not 2xx (0 = no answer): {nao_2xx:?}");
        assert_eq!(stats.sem_estoque.load(ord), 0, "no sold-out answer: the shelves are ample");
        assert_eq!(stats.recusadas.load(ord) + stats.ambiguas.load(ord), 0, "no checkout without an answer");
        assert_eq!(stats.pagamento_sem_resposta.load(ord), 0, "no payment without an answer");
        assert_eq!(stats.pagamento_recusado.load(ord), 0, "no payment refused");
        assert!(checkouts >= 100, "the load ran throughout: {checkouts} checkouts");

        // Every 201 order exists, every event took effect once, giro audit exits 0.
        let pedidos = stats.pedidos.lock().unwrap().clone();
        concordam(&m.url(), &e.url(), &pedidos).await;
    }
}
