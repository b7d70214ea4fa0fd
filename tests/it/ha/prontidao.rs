//! Readiness that matches what the replica can serve (issue 30.4), against a real `giro mercado
//! serve` on a scratch cluster of its own (`scripts/pg-scratch`), which the test breaks:
//!
//! - `max_connections` taken by another client while the service holds pooled sessions: `/readyz`
//!   stays 200 and checkouts keep succeeding (the health check no longer requires a *new*
//!   session);
//! - the database's tablespace (a small tmpfs) filled to ENOSPC: checkouts answer 503 with
//!   `Retry-After` (SQLSTATE 53100, never 500) and `/readyz` 503 with `Retry-After`; once space
//!   is freed, 201 and 200 again without a restart.
//!
//! The disk-full test needs to mount a tmpfs (root or CAP_SYS_ADMIN); where that is refused it
//! says so on stderr and checks nothing.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use giro_servicos::config::Servico;
use serde_json::{json, Value};

use crate::support::process::{command, Giro};
use crate::support::{real, wait_until, TestDb};

const SKU: &str = "7894900011517";

/// A scratch cluster, stopped and deleted when dropped.
struct Scratch {
    dir: String,
    port: u16,
    tablespace_dir: Option<PathBuf>,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::process::Command::new(script()).args(["stop", &self.dir]).status();
    }
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/pg-scratch")
}

impl Scratch {
    /// `None` when the tmpfs asked for cannot be mounted here.
    fn start(args: &[&str]) -> Option<Scratch> {
        let out = std::process::Command::new(script()).arg("start").args(args).output().expect("pg-scratch");
        if out.status.code() == Some(3) {
            eprintln!("skipped: {}", String::from_utf8_lossy(&out.stderr).trim());
            return None;
        }
        assert!(out.status.success(), "pg-scratch: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        let get = |k: &str| text.lines().find_map(|l| l.strip_prefix(&format!("{k}="))).map(str::to_string);
        Some(Scratch {
            dir: get("DIR").expect("DIR"),
            port: get("PORT").expect("PORT").parse().expect("port"),
            tablespace_dir: get("TABLESPACE_DIR").map(PathBuf::from),
        })
    }

    fn url(&self, user: &str, db: &str) -> String {
        format!("postgres://{user}:{user}@127.0.0.1:{}/{db}", self.port)
    }

    async fn connect(&self, user: &str, db: &str) -> Result<tokio_postgres::Client, tokio_postgres::Error> {
        let (c, conn) = tokio_postgres::connect(&self.url(user, db), tokio_postgres::NoTls).await?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(c)
    }

    /// The superuser (whose reserved slots stay open when the others are taken).
    async fn admin(&self, db: &str) -> tokio_postgres::Client {
        let url = format!("postgres://postgres:postgres@127.0.0.1:{}/{db}", self.port);
        let (c, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls).await.expect("admin");
        tokio::spawn(async move {
            let _ = conn.await;
        });
        c
    }

    /// Role and database `mercado` (in `tablespace` when given), migrated, with one product on the
    /// shelf; a real `giro mercado serve` on it, with a pool of 4.
    async fn mercado(&self, tablespace: Option<&str>) -> (Giro, std::net::SocketAddr, reqwest::Client) {
        let url = self.banco_mercado(tablespace).await;
        let dummy = TestDb::new(Servico::Mercado).await;
        // Every checkout comes from 127.0.0.1: the per-client bounds are not what is tested here.
        let env = real::env(
            Servico::Mercado,
            &dummy,
            &[
                ("MERCADO_DB_URL", &url),
                ("GIRO_DB_TIMEOUT", "3s"),
                ("GIRO_CHECKOUT_MAX_UNIDADES_POR_PRODUTO", "0"),
                ("GIRO_CHECKOUT_MAX_UNIDADES_RESERVADAS", "0"),
                ("GIRO_CHECKOUT_MAX_POR_MINUTO", "0"),
            ],
        );
        let mut giro = Giro::spawn(&["mercado", "serve"], &env);
        let addr = giro.wait_listening().await;
        let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("client");
        (giro, addr, http)
    }

    /// Role and database `mercado` (in `tablespace` when given), migrated, with one product on the
    /// shelf, and a role `intruso` for the other client; returns mercado's URL.
    async fn banco_mercado(&self, tablespace: Option<&str>) -> String {
        let admin = self.admin("postgres").await;
        let ts = tablespace.map(|t| format!(" TABLESPACE {t}")).unwrap_or_default();
        admin
            .batch_execute(
                "CREATE ROLE mercado LOGIN PASSWORD 'mercado'; CREATE ROLE intruso LOGIN PASSWORD 'intruso'",
            )
            .await
            .expect("roles");
        admin.batch_execute(&format!("CREATE DATABASE mercado OWNER mercado{ts}")).await.expect("database");
        let url = self.url("mercado", "mercado");
        let env: BTreeMap<&str, String> = [("MERCADO_DB_URL", url.clone())].into_iter().collect();
        let out = command(&["migrate", "--db", "mercado"], &env).output().expect("migrate");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        self.connect("mercado", "mercado")
            .await
            .expect("mercado")
            .execute(
                "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
                 VALUES ($1, 'Coca-Cola 2L', 8.99, 1000000, 1, 10, 'DISPONIVEL')",
                &[&SKU],
            )
            .await
            .expect("product");
        url
    }

    /// Takes every connection slot left to ordinary roles, as another client would; the sessions
    /// are held until the returned list is dropped.
    async fn tomar_conexoes(&self) -> Vec<tokio_postgres::Client> {
        let mut intruso = Vec::new();
        let recusa = loop {
            match self.connect("intruso", "postgres").await {
                Ok(c) => intruso.push(c),
                Err(e) => break e,
            }
            assert!(intruso.len() < 100, "max_connections never refused a session");
        };
        assert_eq!(recusa.code(), Some(&tokio_postgres::error::SqlState::TOO_MANY_CONNECTIONS), "{recusa}");
        intruso
    }
}

async fn checkout(http: &reqwest::Client, addr: std::net::SocketAddr) -> reqwest::Response {
    http.post(format!("http://{addr}/pedidos"))
        .json(&json!({"itens": [{"sku": SKU, "qtd": 1}]}))
        .send()
        .await
        .expect("POST /pedidos")
}

async fn readyz(http: &reqwest::Client, addr: std::net::SocketAddr) -> (u16, Option<String>, Value) {
    let res = http.get(format!("http://{addr}/readyz")).send().await.expect("GET /readyz");
    let s = res.status().as_u16();
    let ra = res.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string);
    (s, ra, res.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn connection_slots_taken_by_another_client_leave_readyz_200_and_checkouts_served_by_pooled_sessions() {
    let Some(pg) = Scratch::start(&["--max-connections", "14"]) else { return };
    let (giro, addr, http) = pg.mercado(None).await;
    // Four checkouts at once: the pool opens its four sessions.
    let warm: Vec<_> = (0..4).map(|_| checkout(&http, addr)).collect();
    for r in futures_util::future::join_all(warm).await {
        assert_eq!(r.status(), 201);
    }
    assert_eq!(readyz(&http, addr).await.0, 200);

    // Another client takes every slot left to ordinary roles.
    let intruso = pg.tomar_conexoes().await;

    // For longer than the new-session check's cache: readiness stays 200, checkouts succeed.
    let inicio = Instant::now();
    let mut n = 0;
    while inicio.elapsed() < Duration::from_secs(3) || n < 20 {
        let (s, _, corpo) = readyz(&http, addr).await;
        assert_eq!(s, 200, "readyz while new sessions are refused: {corpo}\n{}", giro.log());
        let r = checkout(&http, addr).await;
        assert_eq!(r.status(), 201, "checkout on pooled sessions: {}", r.text().await.unwrap_or_default());
        n += 1;
    }
    drop(intruso);
    assert_eq!(readyz(&http, addr).await.0, 200);
}

#[tokio::test]
async fn a_full_disk_answers_503_with_retry_after_and_readyz_503_then_201_and_200_once_space_is_freed() {
    let Some(pg) = Scratch::start(&["--tmpfs-tablespace", "48m"]) else { return };
    let (giro, addr, http) = pg.mercado(Some("cheio")).await;
    assert_eq!(checkout(&http, addr).await.status(), 201);
    assert_eq!(readyz(&http, addr).await.0, 200);

    // Fill the tablespace's tmpfs to ENOSPC.
    let enche = pg.tablespace_dir.as_ref().expect("tablespace dir").join("enche");
    {
        use std::io::Write;
        let mut f = std::fs::File::create(&enche).expect("filler");
        let bloco = vec![0u8; 1 << 20];
        while f.write_all(&bloco).is_ok() {}
        let _ = f.flush();
    }

    // Checkouts until the database refuses to extend a file: 503 + Retry-After, never a 500.
    let prazo = Instant::now() + Duration::from_secs(120);
    let recusa = loop {
        let r = checkout(&http, addr).await;
        match r.status().as_u16() {
            201 => assert!(Instant::now() < prazo, "the full disk never refused a checkout"),
            503 => break r,
            s => panic!(
                "a checkout on a full disk answered {s}: {}\n{}",
                r.text().await.unwrap_or_default(),
                giro.log()
            ),
        }
    };
    assert_eq!(recusa.headers().get("retry-after").map(|v| v.as_bytes()), Some(&b"2"[..]));
    let corpo: Value = recusa.json().await.expect("problem");
    assert!(corpo["detail"].as_str().unwrap_or("").contains("tente novamente"), "{corpo}");
    let (s, ra, corpo) = readyz(&http, addr).await;
    assert_eq!((s, ra.as_deref()), (503, Some("2")), "{corpo}");
    assert!(corpo["database"].as_str().unwrap_or("").contains("53100"), "{corpo}");

    // Space freed: readiness and checkouts come back without a restart.
    std::fs::remove_file(&enche).expect("free the space");
    wait_until(Duration::from_secs(30), "readyz to heal once space is freed", || async {
        (readyz(&http, addr).await.0 == 200).then_some(())
    })
    .await;
    assert_eq!(checkout(&http, addr).await.status(), 201);
    assert_eq!(readyz(&http, addr).await.0, 200);
}

/// The same behind a real HAProxy under load (issue 30.4): two mercado replicas on the scratch
/// cluster, shoppers through the balancer, and another client holding every free connection slot
/// for longer than HAProxy needs to take a replica out (3 failed checks a second apart). No
/// replica is marked DOWN and no shopper gets the balancer's 503: every checkout is a 201.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn connection_slots_taken_under_load_behind_haproxy_take_no_replica_out_and_refuse_no_shopper() {
    crate::support::lb::haproxy_bin();
    let Some(pg) = Scratch::start(&["--max-connections", "40"]) else { return };
    let url = pg.banco_mercado(None).await;
    let estoque = TestDb::new(Servico::Estoque).await;
    let f = crate::support::lb::Frota::new(url, estoque.url(), 2, &[("GIRO_DB_POOL_MAX", "4")]).await;
    let base = f.mercado_url();
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("client");
    let comprar = |http: reqwest::Client, base: String| async move {
        let r = http
            .post(format!("{base}/pedidos"))
            .json(&json!({"itens": [{"sku": SKU, "qtd": 1}]}))
            .send()
            .await
            .expect("POST /pedidos");
        let s = r.status().as_u16();
        (s, if s == 201 { String::new() } else { r.text().await.unwrap_or_default() })
    };
    // Rounds of 8 checkouts at once: both replicas open their four pooled sessions.
    for _ in 0..3 {
        let rodada: Vec<_> = (0..8).map(|_| comprar(http.clone(), base.clone())).collect();
        for (s, corpo) in futures_util::future::join_all(rodada).await {
            assert_eq!(s, 201, "warm-up checkout: {corpo}");
        }
    }
    f.lb.todos_up(Duration::from_secs(30)).await;
    let quedas = f.lb.quedas().await;

    let intruso = pg.tomar_conexoes().await;
    // Four shoppers for 6 s (twice what HAProxy needs to take a replica out), every answer kept.
    let fim = Instant::now() + Duration::from_secs(6);
    let compradores: Vec<_> = (0..4)
        .map(|_| {
            let (http, base) = (http.clone(), base.clone());
            tokio::spawn(async move {
                let mut respostas = Vec::new();
                while Instant::now() < fim {
                    respostas.push(comprar(http.clone(), base.clone()).await);
                }
                respostas
            })
        })
        .collect();
    let mut respostas = Vec::new();
    for c in compradores {
        respostas.extend(c.await.expect("shopper"));
    }
    let recusadas: Vec<_> = respostas.iter().filter(|(s, _)| *s != 201).collect();
    assert!(
        recusadas.is_empty(),
        "{} of {} checkouts not 201 while another client held the free slots: {:?}",
        recusadas.len(),
        respostas.len(),
        &recusadas[..recusadas.len().min(3)]
    );
    assert_eq!(f.lb.quedas().await, quedas, "a replica was taken out: {:?}", f.lb.estados().await);
    assert!(respostas.len() >= 8, "the load ran: {} checkouts", respostas.len());
    drop(intruso);
}
