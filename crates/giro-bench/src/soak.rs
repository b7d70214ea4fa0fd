//! Memory over time with nothing scraping `/metrics` (`giro bench soak`): a real `giro mercado
//! serve` (its embedded publisher off), a separate `giro publisher --db mercado` (no metrics
//! port: nothing could ever scrape it) and a real `giro estoque serve`, at the shipped defaults,
//! under a steady load of checkouts (`--rate`) that each ask for a restock, so every part of the
//! request and relay paths runs, for `--minutes`. The resident memory (VmRSS) of mercado and of
//! the publisher is sampled every 30 s and reported at each minute mark; what matters is the
//! slope: a process that keeps something per request grows with the minutes. A run of 10 minutes
//! or more also reports the check of issue 29 (`rss10Por5`): RSS at minute 10 ÷ at minute 5 for
//! each process, and whether all are within 5 %.

use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::process::Command;

use crate::checkout::{iniciar_com, rss_kb};
use crate::reposicao::{ambiente, catalogo_no_nivel};
use crate::scratch::{self, Scratch};

pub struct SoakArgs {
    pub admin_url: String,
    pub taxa: u32,
    pub minutos: u64,
}

const PRODUTOS: u32 = 500;
const NIVEL: i32 = 10;

pub async fn run(args: SoakArgs) -> anyhow::Result<serde_json::Value> {
    scratch::with_pair(&args.admin_url, async |mercado, estoque| medir(&args, mercado, estoque).await).await
}

async fn medir(args: &SoakArgs, mercado: &Scratch, estoque: &Scratch) -> anyhow::Result<serde_json::Value> {
    let (m, e) = (mercado.conectar().await?, estoque.conectar().await?);
    catalogo_no_nivel(&m, &e, PRODUTOS, NIVEL).await?;
    let env = ambiente(mercado, estoque)?;
    let est = iniciar_com("estoque", &env, true).await?;
    let merc = iniciar_com("mercado", &env, false).await?;
    let mut publicador = Command::new(std::env::current_exe()?);
    publicador
        .args(["publisher", "--db", "mercado"])
        .env_clear()
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    for (k, v) in &env {
        publicador.env(k, v);
    }
    publicador.env("RUST_LOG", "warn");
    let publicador = publicador.spawn()?;
    let (pid_m, pid_p) = (merc.child.id().unwrap_or(0), publicador.id().unwrap_or(0));

    // The load: open loop at `taxa`, one unit each, cycling through the products.
    let feitos = Arc::new(AtomicU64::new(0));
    let falhas = Arc::new(AtomicU64::new(0));
    let carga = {
        let (feitos, falhas) = (feitos.clone(), falhas.clone());
        let url = Arc::new(format!("http://{}/pedidos", merc.addr));
        let taxa = args.taxa;
        let http = reqwest::Client::builder().http1_only().build()?;
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(taxa.max(1))));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            for i in 0u64.. {
                tick.tick().await;
                let (http, url, feitos, falhas) = (http.clone(), url.clone(), feitos.clone(), falhas.clone());
                let sku = format!("{}", 7_890_000_000_001u64 + i % u64::from(PRODUTOS));
                tokio::spawn(async move {
                    let r = http
                        .post(url.as_str())
                        .json(&json!({"itens": [{"sku": sku, "qtd": 1}]}))
                        .send()
                        .await;
                    match r.map(|r| r.status().as_u16()) {
                        Ok(201) => feitos.fetch_add(1, Ordering::Relaxed),
                        _ => falhas.fetch_add(1, Ordering::Relaxed),
                    };
                });
            }
        })
    };

    let inicio = Instant::now();
    let mut amostras = Vec::new();
    let total = Duration::from_secs(args.minutos * 60);
    let mut proxima = Duration::ZERO;
    while proxima <= total {
        tokio::time::sleep_until((inicio + proxima).into()).await;
        let (rm, _) = rss_kb(pid_m);
        let (rp, _) = rss_kb(pid_p);
        let (re, _) = rss_kb(est.child.id().unwrap_or(0));
        let min = proxima.as_secs_f64() / 60.0;
        eprintln!(
            "  {min:>5.1} min: mercado {rm} kB, publisher {rp} kB, estoque {re} kB; {} orders, {} failed",
            feitos.load(Ordering::Relaxed),
            falhas.load(Ordering::Relaxed)
        );
        amostras.push(json!({"minuto": min, "mercadoKb": rm, "publisherKb": rp, "estoqueKb": re,
                             "pedidos": feitos.load(Ordering::Relaxed)}));
        proxima += Duration::from_secs(30);
    }
    carga.abort();
    drop((merc, est, publicador));
    let segundos = inicio.elapsed().as_secs_f64();
    let nivel = nivelou(&amostras);
    Ok(json!({"soak": {
        "taxa": args.taxa, "minutos": args.minutos, "pedidos": feitos.load(Ordering::Relaxed),
        "falhas": falhas.load(Ordering::Relaxed),
        "pedidosPorSegundo": (feitos.load(Ordering::Relaxed) as f64 / segundos).round(),
        "amostras": amostras,
        "rss10Por5": nivel,
    }}))
}

/// How far RSS may move from minute 5 to minute 10 and still count as level (issue 29: "within a
/// few percent").
const NIVEL_TOLERANCIA: f64 = 0.05;

/// The check of a run of 10 minutes or more: each process's RSS at minute 10 ÷ at minute 5, and
/// whether every one is within [`NIVEL_TOLERANCIA`]; printed on stderr too. Null for a shorter run.
fn nivelou(amostras: &[serde_json::Value]) -> serde_json::Value {
    let em = |min: f64| amostras.iter().find(|a| (a["minuto"].as_f64().unwrap_or(-1.0) - min).abs() < 0.01);
    let (Some(cinco), Some(dez)) = (em(5.0), em(10.0)) else { return serde_json::Value::Null };
    let mut out = json!({});
    let mut todos = true;
    for k in ["mercadoKb", "publisherKb", "estoqueKb"] {
        let (a, b) = (cinco[k].as_f64().unwrap_or(0.0), dez[k].as_f64().unwrap_or(0.0));
        let razao = if a > 0.0 { b / a } else { 0.0 };
        todos &= (razao - 1.0).abs() <= NIVEL_TOLERANCIA;
        out[k.trim_end_matches("Kb")] = json!((razao * 1000.0).round() / 1000.0);
    }
    out["dentroDe5Porcento"] = json!(todos);
    eprintln!(
        "  RSS at 10 min ÷ at 5 min: mercado {}, publisher {}, estoque {} — {}",
        out["mercado"],
        out["publisher"],
        out["estoque"],
        if todos { "level (within 5 %)" } else { "NOT level (more than 5 %)" }
    );
    out
}
