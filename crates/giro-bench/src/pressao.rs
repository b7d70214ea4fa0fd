//! The relay under pressure (issue 29), each case measured twice in one run — as before issue 29
//! (`outbox.parte-fresca = 0`: claims strictly by `proxima_tentativa_em`; `outbox.varredura =
//! 0s`: every claim scans its indexes from their start) and at the shipped defaults — against a
//! real estoque (its router, inbox and consumer, on loopback) and one in-process publisher:
//!
//! - **backlog** (`giro bench relay --backlog N`): N `ReposicaoSolicitada` wait in mercado's
//!   outbox as an outage leaves them (attempted once, made due again when the peer answered),
//!   the publisher starts (the peer is back), and a live writer commits `--live-rate` events per
//!   second, one per transaction, until the backlog has drained. Reported: the live events'
//!   commit → applied latency (`enviado_em − criado_em`: estoque committed them) and the
//!   backlog's drain rate.
//! - **held horizon** (`--hold-horizon 240s`): `--writers` writers commit events, one per
//!   transaction, as fast as they can, beside the publisher: a baseline phase (`--seconds`), then
//!   the same while another session holds a `REPEATABLE READ` transaction open on mercado's
//!   database (the xmin horizon: nothing the relay leaves behind can be vacuumed). Reported per
//!   phase, and per 30 s slice of the hold: events relayed per second and delivery latency p50 /
//!   p99; and the outbox's dead tuples at the end of the hold.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::relay::{bench_config, Rig};
use crate::scratch::{self, Scratch};
use crate::{escrever_um, ms, percentile, reset};
use giro_infra::db::Db;
use giro_servicos::config::{Config, Servico};

pub struct PressaoArgs {
    pub admin_url: String,
    /// Events waiting when the peer comes back (None: skip the case).
    pub backlog: Option<usize>,
    /// Live events per second while the backlog drains.
    pub taxa_viva: u32,
    /// How long the horizon is held (None: skip the case).
    pub segurar: Option<Duration>,
    /// The baseline phase before the hold.
    pub base: Duration,
    /// Writers committing as fast as they can during the horizon case.
    pub escritores: usize,
}

/// The two configurations each case runs under: before issue 29, and the shipped defaults.
const MODOS: [(&str, &str, &str); 2] = [("antes", "0", "0s"), ("depois", "50", "10s")];

pub async fn run(args: PressaoArgs) -> anyhow::Result<serde_json::Value> {
    scratch::with_pair(&args.admin_url, async |mercado_s, estoque_s| casos(&args, mercado_s, estoque_s).await)
        .await
}

async fn casos(
    args: &PressaoArgs,
    mercado_s: &Scratch,
    estoque_s: &Scratch,
) -> anyhow::Result<serde_json::Value> {
    let Rig { shutdown, base, estoque_url, mercado, estoque } = Rig::start(mercado_s, estoque_s).await?;
    let mut out = json!({});
    for (modo, parte, varredura) in MODOS {
        let cfg = bench_config(
            mercado_s,
            estoque_s,
            &[
                ("ESTOQUE_EVENTOS_URL", estoque_url.clone()),
                ("ESTOQUE_TOKEN_SERVICO", base.token_servico(Servico::Estoque)?.expose().to_string()),
                ("GIRO_OUTBOX_PARTE_FRESCA", parte.to_string()),
                ("GIRO_OUTBOX_VARREDURA", varredura.to_string()),
            ],
        )?;
        if let Some(n) = args.backlog {
            reset(&mercado, &estoque).await?;
            out["backlog"][modo] = backlog(args, &cfg, &mercado, n, modo).await?;
        }
        if let Some(segurar) = args.segurar {
            reset(&mercado, &estoque).await?;
            out["horizonte"][modo] = horizonte(args, &cfg, &mercado, segurar, modo).await?;
        }
    }
    shutdown.cancel();
    resumo(&out);
    Ok(out)
}

/// The publisher of mercado's outbox at `cfg`, woken in-process by `mercado`'s writers.
fn publicador(
    cfg: &Config,
    mercado: &Db,
    stop: &CancellationToken,
) -> anyhow::Result<tokio::task::JoinHandle<()>> {
    let p = giro_servicos::server::publisher_de(
        cfg,
        Servico::Mercado,
        mercado.pool.clone(),
        mercado.signal.clone(),
        false,
    )?;
    Ok(tokio::spawn(p.run(stop.clone())))
}

async fn agora(db: &Db) -> anyhow::Result<DateTime<Utc>> {
    Ok(db.client().await?.query_one("SELECT now()", &[]).await?.get(0))
}

async fn contar(db: &Db, sql: &str, desde: DateTime<Utc>) -> anyhow::Result<i64> {
    Ok(db.client().await?.query_one(sql, &[&desde]).await?.get(0))
}

/// p50, p99 and max of `enviado_em − criado_em` of the events created in `[de, ate)`, and how many.
async fn latencias(db: &Db, de: DateTime<Utc>, ate: DateTime<Utc>) -> anyhow::Result<serde_json::Value> {
    let rows = db
        .client()
        .await?
        .query(
            "SELECT (extract(epoch FROM enviado_em - criado_em) * 1000000)::bigint FROM outbox_event \
              WHERE status = 'SENT' AND criado_em >= $1 AND criado_em < $2",
            &[&de, &ate],
        )
        .await?;
    let mut v: Vec<Duration> =
        rows.iter().map(|r| Duration::from_micros(r.get::<_, i64>(0).max(0) as u64)).collect();
    v.sort();
    Ok(json!({
        "eventos": v.len(),
        "p50Ms": ms(percentile(&v, 50.0)),
        "p99Ms": ms(percentile(&v, 99.0)),
        "maxMs": ms(v.last().copied().unwrap_or_default()),
    }))
}

/// Waits until nothing created since `desde` is pending (within `prazo`).
async fn esperar_entregues(db: &Db, desde: DateTime<Utc>, prazo: Duration) -> anyhow::Result<()> {
    let fim = Instant::now() + prazo;
    while contar(db, "SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND criado_em >= $1", desde)
        .await?
        > 0
    {
        anyhow::ensure!(Instant::now() < fim, "events still pending after {prazo:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

async fn backlog(
    args: &PressaoArgs,
    cfg: &Config,
    mercado: &Db,
    n: usize,
    modo: &str,
) -> anyhow::Result<serde_json::Value> {
    // As an outage leaves them: attempted once, due again since the peer answered its probe.
    mercado
        .client()
        .await?
        .execute(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em) \
             SELECT id, 'ReposicaoSolicitada', \
                    jsonb_build_object('eventId', id, 'sku', lpad((1000000 + g)::text, 13, '789'), 'qtdFaltante', 1, 'ocorridoEm', '2026-09-25T12:00:00Z'), \
                    'PENDING', now() - interval '2 minutes', 1, now() - interval '1 second' \
               FROM (SELECT gen_random_uuid() AS id, g FROM generate_series(1, $1::int) g) s",
            &[&(n as i32)],
        )
        .await?;
    mercado.client().await?.batch_execute("VACUUM ANALYZE outbox_event").await?;
    let t0 = agora(mercado).await?;
    let stop = CancellationToken::new();
    let started = Instant::now();
    let task = publicador(cfg, mercado, &stop)?;
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(args.taxa_viva.max(1))));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut escritos = 0u64;
    let mut checado = Instant::now();
    let restante = "SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND criado_em < $1";
    loop {
        tick.tick().await;
        escrever_um(mercado, escritos).await?;
        escritos += 1;
        if checado.elapsed() >= Duration::from_millis(250) {
            checado = Instant::now();
            let falta = contar(mercado, restante, t0).await?;
            eprint!("\r  backlog {n} ({modo}): {} sent, {escritos} live written…", n as i64 - falta);
            if falta == 0 {
                break;
            }
        }
    }
    let drenagem = started.elapsed();
    esperar_entregues(mercado, t0, Duration::from_secs(120)).await?;
    stop.cancel();
    let _ = task.await;
    let vivos = latencias(mercado, t0, agora(mercado).await?).await?;
    let taxa = n as f64 / drenagem.as_secs_f64();
    eprintln!(
        "\r  backlog {n} ({modo}): drained in {:.1} s ({taxa:.0} events/s); {} live events, p50 {} ms, p99 {} ms, max {} ms",
        drenagem.as_secs_f64(),
        vivos["eventos"],
        vivos["p50Ms"],
        vivos["p99Ms"],
        vivos["maxMs"]
    );
    Ok(
        json!({"eventos": n, "segundos": drenagem.as_secs_f64(), "eventosPorSegundo": taxa.round(), "taxaViva": args.taxa_viva, "vivos": vivos}),
    )
}

/// `args.escritores` writers committing one event per transaction until `stop`.
fn escritores(
    args: &PressaoArgs,
    mercado: &Db,
    stop: &CancellationToken,
) -> Vec<tokio::task::JoinHandle<anyhow::Result<()>>> {
    (0..args.escritores as u64)
        .map(|w| {
            let (db, stop) = (mercado.clone(), stop.clone());
            tokio::spawn(async move {
                let mut i = 0;
                while !stop.is_cancelled() {
                    escrever_um(&db, w * 1_000_000_000 + i).await?;
                    i += 1;
                }
                Ok(())
            })
        })
        .collect()
}

async fn horizonte(
    args: &PressaoArgs,
    cfg: &Config,
    mercado: &Db,
    segurar: Duration,
    modo: &str,
) -> anyhow::Result<serde_json::Value> {
    let stop = CancellationToken::new();
    let task = publicador(cfg, mercado, &stop)?;
    let parar_escritores = CancellationToken::new();
    let ws = escritores(args, mercado, &parar_escritores);
    let t0 = agora(mercado).await?;
    eprint!("\r  held horizon ({modo}): baseline {:?}…", args.base);
    tokio::time::sleep(args.base).await;
    let t1 = agora(mercado).await?;
    // The report: a snapshot held open, on a table of its own, touching nothing the relay uses.
    let mut relatorio = mercado.client().await?;
    let rr = relatorio.transaction().await?;
    rr.batch_execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ").await?;
    rr.query_one("SELECT count(*) FROM produto_vitrine", &[]).await?;
    let fatia = Duration::from_secs(30).min(segurar);
    let mut marcas = vec![t1];
    let inicio = Instant::now();
    while inicio.elapsed() < segurar {
        tokio::time::sleep(fatia.min(segurar.saturating_sub(inicio.elapsed()))).await;
        marcas.push(agora(mercado).await?);
        eprint!(
            "\r  held horizon ({modo}): {:.0}/{:.0} s held…",
            inicio.elapsed().as_secs_f64(),
            segurar.as_secs_f64()
        );
    }
    let c = mercado.client().await?;
    let mortas: i64 = c
        .query_one("SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'outbox_event'", &[])
        .await?
        .get(0);
    let idade_xmin: i32 = c
        .query_one("SELECT coalesce(max(age(backend_xmin)), 0) FROM pg_stat_activity WHERE datname = current_database()", &[])
        .await?
        .get(0);
    drop(c);
    rr.commit().await?;
    drop(relatorio);
    parar_escritores.cancel();
    for w in ws {
        w.await??;
    }
    let t2 = *marcas.last().unwrap_or(&t1);
    esperar_entregues(mercado, t0, Duration::from_secs(300)).await?;
    stop.cancel();
    let _ = task.await;
    let fase = |de: DateTime<Utc>, ate: DateTime<Utc>, lat: serde_json::Value| {
        let s = (ate - de).num_milliseconds() as f64 / 1000.0;
        let n = lat["eventos"].as_f64().unwrap_or(0.0);
        json!({"segundos": s, "eventosPorSegundo": (n / s.max(0.001)).round(), "latencia": lat})
    };
    let linha_base = fase(t0, t1, latencias(mercado, t0, t1).await?);
    let linha_hold = fase(t1, t2, latencias(mercado, t1, t2).await?);
    let mut fatias = Vec::new();
    for w in marcas.windows(2) {
        fatias.push(fase(w[0], w[1], latencias(mercado, w[0], w[1]).await?));
    }
    let razao = |k: &str| {
        let (b, h) = (
            linha_base["latencia"][k].as_f64().unwrap_or(0.0),
            linha_hold["latencia"][k].as_f64().unwrap_or(0.0),
        );
        (h / b.max(0.001) * 100.0).round() / 100.0
    };
    let taxa_razao = (linha_hold["eventosPorSegundo"].as_f64().unwrap_or(0.0)
        / linha_base["eventosPorSegundo"].as_f64().unwrap_or(1.0).max(1.0)
        * 100.0)
        .round()
        / 100.0;
    eprintln!(
        "\r  held horizon ({modo}): baseline {} events/s p50 {} ms p99 {} ms; held {:.0} s: {} events/s p50 {} ms p99 {} ms (rate ×{taxa_razao}, p99 ×{}); {mortas} dead tuples, xmin age {idade_xmin}",
        linha_base["eventosPorSegundo"],
        linha_base["latencia"]["p50Ms"],
        linha_base["latencia"]["p99Ms"],
        segurar.as_secs_f64(),
        linha_hold["eventosPorSegundo"],
        linha_hold["latencia"]["p50Ms"],
        linha_hold["latencia"]["p99Ms"],
        razao("p99Ms")
    );
    Ok(json!({
        "escritores": args.escritores,
        "base": linha_base,
        "segurando": linha_hold,
        "fatias": fatias,
        "razaoTaxa": taxa_razao,
        "razaoP99": razao("p99Ms"),
        "tuplasMortas": mortas,
        "idadeXmin": idade_xmin,
    }))
}

/// One line per case and mode, for the table.
fn resumo(out: &serde_json::Value) {
    for (modo, _, _) in MODOS {
        let b = &out["backlog"][modo];
        if !b.is_null() {
            eprintln!(
                "| backlog {} ({modo}) | drain {} events/s; live p50 {} ms, p99 {} ms, max {} ms |",
                b["eventos"],
                b["eventosPorSegundo"],
                b["vivos"]["p50Ms"],
                b["vivos"]["p99Ms"],
                b["vivos"]["maxMs"]
            );
        }
        let h = &out["horizonte"][modo];
        if !h.is_null() {
            eprintln!(
                "| held horizon ({modo}) | rate ×{} of baseline, p99 ×{} ({} → {} ms) |",
                h["razaoTaxa"],
                h["razaoP99"],
                h["base"]["latencia"]["p99Ms"],
                h["segurando"]["latencia"]["p99Ms"]
            );
        }
    }
}
