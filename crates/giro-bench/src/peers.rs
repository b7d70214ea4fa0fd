//! `giro bench peers`: the queues users would pick instead of Girô's relay — graphile-worker and
//! pg-boss, pinned in `bench/peers/` (package.json + package-lock.json) — each enqueuing N jobs
//! one transaction at a time and working them with a no-op handler, 10 in flight, on the same
//! cluster (a scratch database each), next to Girô's end-to-end relay with separate publishers at
//! the shipped defaults. Girô's events/s (HTTP, inbox and effect committed) is printed as a ratio
//! of each peer's jobs/s (which do far less per job).

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;
use serde_json::json;
use tokio::process::Command;

use crate::melhor;
use crate::processos::{self, ProcessosArgs};
use crate::scratch;
use giro_infra::db::{self, Db};

/// `bench/peers`: `GIRO_BENCH_PEERS_DIR`, else under the working directory (a clone's root), else
/// the source tree this binary was built from.
pub fn dir() -> PathBuf {
    if let Some(d) = std::env::var_os("GIRO_BENCH_PEERS_DIR") {
        return PathBuf::from(d);
    }
    let here = PathBuf::from("bench/peers");
    if here.join("run.mjs").is_file() {
        return here;
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../bench/peers"))
}

/// Runs `bench/peers/setup.sh` when the pinned packages are not installed yet.
async fn setup(dir: &std::path::Path) -> anyhow::Result<()> {
    let node = Command::new("node").arg("--version").output().await;
    anyhow::ensure!(
        matches!(&node, Ok(o) if o.status.success()),
        "node não encontrado no PATH (os pares precisam de node ≥ 20 e npm)"
    );
    if dir.join("node_modules/graphile-worker").is_dir() && dir.join("node_modules/pg-boss").is_dir() {
        return Ok(());
    }
    eprintln!("  peers: installing the pinned packages (bench/peers/setup.sh)…");
    let st = Command::new("sh")
        .arg(dir.join("setup.sh"))
        .stdin(Stdio::null())
        // npm's report on stderr too: stdout carries only the JSON result.
        .stdout(std::io::stderr())
        .stderr(Stdio::inherit())
        .status()
        .await
        .context("bench/peers/setup.sh")?;
    anyhow::ensure!(st.success(), "bench/peers/setup.sh falhou ({st})");
    Ok(())
}

/// The peers' JSON (`{"graphileWorker": {…, "jobsPorSegundo"}, "pgBoss": {…}}`).
pub async fn medir(admin_url: &str, jobs: usize) -> anyhow::Result<serde_json::Value> {
    let dir = dir();
    setup(&dir).await?;
    let out = Command::new("node")
        .arg(dir.join("run.mjs"))
        .args(["--pg-url", admin_url, "--jobs", &jobs.to_string(), "--concurrency", "10"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .output()
        .await
        .context("node bench/peers/run.mjs")?;
    anyhow::ensure!(out.status.success(), "bench/peers/run.mjs falhou ({})", out.status);
    serde_json::from_slice(&out.stdout).context("bench/peers/run.mjs: JSON")
}

/// The peers beside Girô's `giro` events/s, with the ratios; an error becomes `{"erro"}` so the
/// rest of a run is kept.
pub async fn comparar(admin_url: &str, jobs: usize, giro: f64) -> serde_json::Value {
    match medir(admin_url, jobs).await {
        Ok(mut v) => {
            for k in ["graphileWorker", "pgBoss"] {
                if let Some(j) = v[k]["jobsPorSegundo"].as_f64().filter(|j| *j > 0.0) {
                    let r = (giro / j * 10.0).round() / 10.0;
                    v[k]["giroEventosPorSegundo"] = json!(giro.round());
                    v[k]["razaoGiro"] = json!(r);
                    eprintln!("  Girô {giro:.0} events/s = {r}× {k} ({j:.0} jobs/s)");
                }
            }
            v
        }
        Err(e) => {
            eprintln!("  peers skipped: {e:#}");
            json!({"erro": format!("{e:#}")})
        }
    }
}

pub struct PeersArgs {
    pub admin_url: String,
    pub eventos: usize,
    pub publicadores: usize,
    pub jobs: usize,
}

/// `giro bench peers`: Girô's relay with separate publishers at the shipped defaults, then the peers.
pub async fn run(args: PeersArgs) -> anyhow::Result<serde_json::Value> {
    let proc = scratch::with_pair(&args.admin_url, async |mercado_s, estoque_s| {
        let mercado = Db::new(db::pool(&mercado_s.db, 4, Duration::from_secs(5))?, false);
        let estoque = Db::new(db::pool(&estoque_s.db, 4, Duration::from_secs(5))?, false);
        let p = ProcessosArgs {
            eventos: args.eventos,
            publicadores: vec![args.publicadores],
            lote: None,
            taxa: 0,
            duracao: Duration::ZERO,
        };
        processos::run(&p, mercado_s, estoque_s, &mercado, &estoque).await
    })
    .await?;
    let giro = melhor(&proc["relay"]).unwrap_or(0.0);
    let pares = comparar(&args.admin_url, args.jobs, giro).await;
    Ok(json!({"processos": proc, "pares": pares}))
}
