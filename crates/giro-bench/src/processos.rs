//! The relay as a user runs it (`giro bench relay --processes`): a real `giro estoque serve` and
//! separate `giro publisher --db mercado` processes — this binary, at the shipped defaults (the
//! children read no configuration file, only the databases, tokens and the peer's URL from the
//! environment). N pending `ReposicaoSolicitada` are written to mercado's outbox first; the clock
//! runs from starting the publishers until all N are in estoque's inbox. Then the commit → applied
//! latency at a steady rate, with one separate publisher woken by `NOTIFY`.
//!
//! Each run also records where the time went: claims and receiver requests (events per claim and
//! per request, from `pg_stat_statements` and estoque's `/metrics`), the receiver's mean request
//! time and how many requests it had in flight on average, and the CPU seconds of each process
//! and of the PostgreSQL backends serving them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::process::{Child, Command};

use crate::checkout::{self, Servidor};
use crate::scratch::Scratch;
use crate::{latencia, reset, semear};
use giro_infra::db::{self, Db};
use giro_servicos::config::Config;

/// What the process runs need besides the scratch databases.
pub struct ProcessosArgs {
    pub eventos: usize,
    pub publicadores: Vec<usize>,
    /// `--lote` for the publishers (None = the shipped default, as a user runs them).
    pub lote: Option<usize>,
    pub taxa: u32,
    pub duracao: Duration,
}

/// The environment every child gets: [`checkout::child_env`], ports chosen by the system and the
/// background sweeps off; nothing about the outbox.
fn ambiente(mercado: &Scratch, estoque: &Scratch) -> BTreeMap<&'static str, String> {
    let mut env = checkout::child_env(mercado, estoque);
    env.insert("MERCADO_PORTA", "0".into());
    env.insert("ESTOQUE_PORTA", "0".into());
    env.insert("GIRO_RESERVA_EXPIRACAO_HABILITADA", "false".into());
    env.insert("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "false".into());
    env
}

/// A `giro publisher --db mercado` child; its log goes to a file, read back if it dies.
struct Publicador {
    child: Child,
    log: PathBuf,
}

fn iniciar_publicador(
    env: &BTreeMap<&'static str, String>,
    lote: Option<usize>,
    i: usize,
) -> anyhow::Result<Publicador> {
    let log = std::env::temp_dir().join(format!("giro-bench-publisher-{}-{i}.log", std::process::id()));
    let mut c = Command::new(std::env::current_exe()?);
    c.args(["publisher", "--db", "mercado"]);
    if let Some(n) = lote {
        c.args(["--lote", &n.to_string()]);
    }
    c.env_clear()
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::from(std::fs::File::create(&log)?))
        .kill_on_drop(true);
    if let Ok(p) = std::env::var("PATH") {
        c.env("PATH", p);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.env("RUST_LOG", "warn");
    Ok(Publicador { child: c.spawn()?, log })
}

impl Publicador {
    fn morto(&mut self) -> Option<String> {
        match self.child.try_wait() {
            Ok(Some(status)) => {
                let log = std::fs::read_to_string(&self.log).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(5).collect();
                Some(format!(
                    "giro publisher exited ({status}): {}",
                    tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
                ))
            }
            _ => None,
        }
    }

    /// SIGTERM (a round in progress finishes), then SIGKILL after 10 s.
    async fn parar(mut self) {
        if let Some(pid) = self.child.id() {
            let _ = Command::new("kill").args(["-TERM", &pid.to_string()]).status().await;
            if tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await.is_err() {
                let _ = self.child.kill().await;
            }
        }
        let _ = std::fs::remove_file(&self.log);
    }
}

/// User + system CPU of `pid` in seconds (clock ticks at the usual 100 Hz).
fn cpu_s(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces) start at state = field 3.
    let rest = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    (tick(11) + tick(12)) as f64 / 100.0
}

/// CPU seconds of every PostgreSQL backend connected to `nome`, by pid.
async fn cpu_backends(db: &Db, nome: &str) -> anyhow::Result<BTreeMap<i32, f64>> {
    let rows =
        db.client().await?.query("SELECT pid FROM pg_stat_activity WHERE datname = $1", &[&nome]).await?;
    Ok(rows.iter().map(|r| r.get::<_, i32>(0)).map(|p| (p, cpu_s(p as u32))).collect())
}

fn delta(antes: &BTreeMap<i32, f64>, depois: &BTreeMap<i32, f64>) -> f64 {
    depois.iter().map(|(p, s)| s - antes.get(p).copied().unwrap_or(0.0)).sum()
}

/// `giro_http_request_seconds` sum and count for `/eventos/lote` and `/eventos`, from estoque.
async fn receptor(http: &reqwest::Client, addr: &str) -> (f64, f64) {
    let text = match http.get(format!("http://{addr}/metrics")).send().await {
        Ok(r) => r.text().await.unwrap_or_default(),
        Err(_) => return (0.0, 0.0),
    };
    let (mut sum, mut count) = (0.0, 0.0);
    for l in text.lines() {
        for route in ["/eventos/lote", "/eventos"] {
            let v = |name: &str| {
                l.strip_prefix(&format!("giro_http_request_seconds_{name}{{route=\"{route}\"}} "))
                    .and_then(|v| v.trim().parse::<f64>().ok())
            };
            sum += v("sum").unwrap_or(0.0);
            count += v("count").unwrap_or(0.0);
        }
    }
    (sum, count)
}

/// Resets `pg_stat_statements` for the two scratch databases only (other work shares the cluster).
async fn pgss_reset(db: &Db, nomes: &[&str]) -> bool {
    let Ok(c) = db.client().await else { return false };
    if c.batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements").await.is_err() {
        return false;
    }
    let nomes: Vec<String> = nomes.iter().map(|s| s.to_string()).collect();
    c.query("SELECT pg_stat_statements_reset(0, oid, 0) FROM pg_database WHERE datname = ANY($1)", &[&nomes])
        .await
        .is_ok()
}

/// Calls, rows and total time of the statements run against the scratch databases.
async fn pgss(db: &Db, nomes: &[&str]) -> anyhow::Result<Vec<serde_json::Value>> {
    let nomes: Vec<String> = nomes.iter().map(|s| s.to_string()).collect();
    let rows = db
        .client()
        .await?
        .query(
            "SELECT d.datname::text, s.calls, s.rows, s.total_exec_time, s.query \
               FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid \
              WHERE d.datname = ANY($1) ORDER BY s.total_exec_time DESC LIMIT 10",
            &[&nomes],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| {
            let q: String = r.get(4);
            let q = q.split_whitespace().collect::<Vec<_>>().join(" ");
            json!({"banco": r.get::<_, String>(0), "chamadas": r.get::<_, i64>(1), "linhas": r.get::<_, i64>(2),
                   "totalMs": (r.get::<_, f64>(3) * 10.0).round() / 10.0,
                   "sql": q.chars().take(90).collect::<String>()})
        })
        .collect())
}

/// Calls and total milliseconds of the statements on `banco` whose full text matches `padrao`
/// (`LIKE`), summed over their entries.
async fn chamadas(db: &Db, banco: &str, padrao: &str) -> (i64, f64) {
    let Ok(c) = db.client().await else { return (0, 0.0) };
    c.query_one(
        "SELECT coalesce(sum(s.calls), 0)::bigint, coalesce(sum(s.total_exec_time), 0)::float8 \
           FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid \
          WHERE d.datname = $1 AND s.query LIKE $2",
        &[&banco, &padrao],
    )
    .await
    .map(|r| (r.get(0), r.get(1)))
    .unwrap_or((0, 0.0))
}

/// The process runs and the latency run; `limite` is the DB-only limit measured beside them.
pub async fn run(
    args: &ProcessosArgs,
    mercado_s: &Scratch,
    estoque_s: &Scratch,
    mercado: &Db,
    estoque: &Db,
) -> anyhow::Result<serde_json::Value> {
    let mut env = ambiente(mercado_s, estoque_s);
    // What the children will run with: the shipped defaults (the same embedded giro.toml).
    let defaults = Config::load(&giro_servicos::config::Sources {
        file: None,
        cwd: std::env::temp_dir(),
        env: env.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect(),
        flags: vec![],
    })?
    .outbox;
    reset(mercado, estoque).await?;
    // estoque as a user runs it, without its own publisher: mercado is not running here, so its
    // answers (ReposicaoNegada) would only be retried against nothing.
    let est: Servidor = checkout::iniciar("estoque", &env).await?;
    let est_pid = est.child.id().unwrap_or(0);
    env.insert("ESTOQUE_EVENTOS_URL", format!("http://{}", est.addr));
    let http = reqwest::Client::new();
    let nomes = [mercado_s.nome.as_str(), estoque_s.nome.as_str()];
    let lote = args.lote.unwrap_or(defaults.lote);
    eprintln!(
        "  separate processes: outbox.lote {lote}{}, outbox.concorrencia {}, outbox.lote-max {}",
        if args.lote.is_some() { " (--lote)" } else { " (shipped default)" },
        defaults.concorrencia,
        defaults.lote_max
    );

    let mut runs = Vec::new();
    for &n in &args.publicadores {
        reset(mercado, estoque).await?;
        semear(mercado, args.eventos).await?;
        let stats = pgss_reset(mercado, &nomes).await;
        let (rs0, rc0) = receptor(&http, &est.addr).await;
        let est_cpu0 = cpu_s(est_pid);
        let (bm0, be0) = (cpu_backends(mercado, nomes[0]).await?, cpu_backends(mercado, nomes[1]).await?);

        let started = Instant::now();
        let mut pubs = Vec::new();
        for i in 0..n {
            pubs.push(iniciar_publicador(&env, args.lote, i)?);
        }
        let (mut ultimo, mut desde) = (0i64, Instant::now());
        loop {
            let feitos: i64 =
                estoque.client().await?.query_one("SELECT count(*) FROM inbox_event", &[]).await?.get(0);
            eprint!("\r  relay, {n} separate publisher(s): {feitos}/{} in estoque's inbox", args.eventos);
            if feitos as usize >= args.eventos {
                break;
            }
            for p in &mut pubs {
                if let Some(e) = p.morto() {
                    anyhow::bail!(e);
                }
            }
            if feitos != ultimo {
                (ultimo, desde) = (feitos, Instant::now());
            }
            anyhow::ensure!(
                desde.elapsed() < Duration::from_secs(60),
                "no progress for 60 s at {feitos} events"
            );
            // The count scans the inbox: every 100 ms keeps its cost to the receiver small
            // (at 20 ms it took 2–3.5 s of estoque's database time in a 35 s run).
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let elapsed = started.elapsed();
        // Readings before the publishers go: their backends close with them.
        let pub_cpu: f64 = pubs.iter().map(|p| cpu_s(p.child.id().unwrap_or(0))).sum();
        let (bm1, be1) = (cpu_backends(mercado, nomes[0]).await?, cpu_backends(mercado, nomes[1]).await?);
        let est_cpu = cpu_s(est_pid) - est_cpu0;
        let (rs1, rc1) = receptor(&http, &est.addr).await;
        for p in pubs {
            p.parar().await;
        }
        let rate = args.eventos as f64 / elapsed.as_secs_f64();
        eprintln!("  → {rate:.0} events/s in {:.2}s", elapsed.as_secs_f64());

        let stmts = if stats { pgss(mercado, &nomes).await.unwrap_or_default() } else { Vec::new() };
        let (claims, claim_ms) = chamadas(mercado, nomes[0], "%FOR UPDATE SKIP LOCKED%").await;
        let (settles, settle_ms) =
            chamadas(mercado, nomes[0], "UPDATE outbox_event SET status%enviado_em%").await;
        let (commits, _) = chamadas(mercado, nomes[1], "COMMIT").await;
        let (notifies, _) = chamadas(mercado, nomes[1], "%pg_notify%").await;
        let (pedidos, pedidos_s) = (rc1 - rc0, rs1 - rs0);
        let secs = elapsed.as_secs_f64();
        let per = |a: f64, b: f64| if b > 0.0 { ((a / b) * 10.0).round() / 10.0 } else { 0.0 };
        let perfil = json!({
            "claims": claims,
            "eventosPorClaim": per(args.eventos as f64, claims as f64),
            "claimMediaMs": per(claim_ms, claims as f64),
            // Wall time × publishers ÷ claims: a publisher's time per claim (claims overlap, so
            // this is no longer one round's duration).
            "rodadaMediaMs": per(secs * 1000.0 * n as f64, claims as f64),
            "settles": settles,
            "settleMediaMs": per(settle_ms, settles as f64),
            "pedidosReceptor": pedidos,
            "eventosPorPedido": per(args.eventos as f64, pedidos),
            "pedidoMediaMs": per(pedidos_s * 1000.0, pedidos),
            "pedidosEmVooMedia": per(pedidos_s, secs),
            "commitsReceptor": commits,
            "notifiesReceptor": notifies,
            "cpuSegundos": {
                "publicadores": (pub_cpu * 100.0).round() / 100.0,
                "estoque": (est_cpu * 100.0).round() / 100.0,
                "postgresMercado": (delta(&bm0, &bm1) * 100.0).round() / 100.0,
                "postgresEstoque": (delta(&be0, &be1) * 100.0).round() / 100.0,
                "disponivel": (secs * std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as f64 * 100.0).round() / 100.0,
            },
            "sentencas": stmts,
        });
        eprintln!(
            "    {claims} claims ({:.1} events each), {pedidos} requests ({:.1} events each, {:.1} ms mean, {:.1} in flight on average)",
            perfil["eventosPorClaim"].as_f64().unwrap_or(0.0),
            perfil["eventosPorPedido"].as_f64().unwrap_or(0.0),
            perfil["pedidoMediaMs"].as_f64().unwrap_or(0.0),
            perfil["pedidosEmVooMedia"].as_f64().unwrap_or(0.0),
        );
        runs.push(json!({"publicadores": n, "lote": lote, "concorrencia": defaults.concorrencia, "loteMax": defaults.lote_max,
            "eventos": args.eventos, "segundos": secs, "eventosPorSegundo": rate.round(), "perfil": perfil}));
    }

    let carga = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let carga = carga.split_whitespace().take(3).collect::<Vec<_>>().join(" ");
    if args.taxa == 0 || args.duracao.is_zero() {
        drop(est);
        return Ok(json!({"relay": runs, "carga": carga}));
    }

    // Latency: one separate publisher woken by NOTIFY, a writer committing one event per
    // transaction at `taxa` with NOTIFY at commit (`outbox.notify`, as mercado's writers).
    reset(mercado, estoque).await?;
    let mut p = iniciar_publicador(&env, args.lote, 99)?;
    let writer = Db::new(db::pool(&mercado_s.db, 2, Duration::from_secs(5))?, defaults.notify);
    // Written once the publisher listens, so the first events measure the wake-up, not its start.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let n: i64 = mercado
            .client()
            .await?
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND query LIKE 'LISTEN %'",
                &[&nomes[0]],
            )
            .await?
            .get(0);
        if n > 0 {
            break;
        }
        if let Some(e) = p.morto() {
            anyhow::bail!(e);
        }
        anyhow::ensure!(Instant::now() < deadline, "the separate publisher did not LISTEN within 30 s");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let latencia = latencia(
        &writer,
        mercado,
        args.taxa,
        args.duracao,
        "separate publisher",
        defaults.visibilidade,
        || p.morto().map_or(Ok(()), |e| Err(anyhow::anyhow!(e))),
    )
    .await;
    p.parar().await;
    let mut latencia = latencia?;
    latencia["lote"] = json!(lote);
    drop(est);
    Ok(json!({
        "relay": runs,
        "latencia": latencia,
        "carga": carga,
    }))
}
