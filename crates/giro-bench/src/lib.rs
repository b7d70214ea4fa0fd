//! `giro bench`: measurements of a running Girô, on scratch databases of the cluster it is
//! pointed at, with a progress display on stderr and a JSON result. Figures and method are
//! recorded in `BENCHMARKS.md`. Speed is measured here, never by timed tests.

pub mod auditoria;
pub mod busca;
pub mod checkout;
pub mod cli;
pub mod expiracao;
pub mod haproxy;
pub mod peers;
pub mod pgbouncer;
pub mod pressao;
pub mod processos;
pub mod relay;
pub mod reposicao;
pub mod scratch;
pub mod soak;

use std::time::Duration;

/// The result as a table for people (stderr); the JSON goes to stdout.
pub fn tabela(r: &serde_json::Value) -> String {
    let mut out = String::from("\n| measurement | result |\n|---|---|\n");
    let mut row = |k: String, v: String| out.push_str(&format!("| {k} | {v} |\n"));
    if let Some(qs) = r["busca"]["consultas"].as_array() {
        for q in qs {
            row(
                format!("busca {} ({} products)", q["busca"], r["busca"]["produtos"]),
                format!("{} found, p50 {} ms, p99 {} ms", q["achados"], q["p50Ms"], q["p99Ms"]),
            );
        }
    }
    if let Some(runs) = r["relay"].as_array() {
        for x in runs {
            row(
                format!(
                    "relay {} ×{} publisher(s){}",
                    x["transporte"].as_str().unwrap_or(""),
                    x["publicadores"],
                    if x["linhasAntigas"].as_u64().unwrap_or(0) > 0 {
                        format!(", {} old rows", x["linhasAntigas"])
                    } else {
                        String::new()
                    }
                ),
                format!("{} events/s", x["eventosPorSegundo"]),
            );
        }
        let l = &r["latencia"];
        row(
            format!("commit → applied at {}/s", l["taxa"]),
            format!("p50 {} ms, p99 {} ms, max {} ms", l["p50Ms"], l["p99Ms"], l["maxMs"]),
        );
        let n = &r["notify"];
        row(
            "writers' commits/s, notify off / on".into(),
            format!("{} / {}", n["semNotifyCommitsPorSegundo"], n["comNotifyCommitsPorSegundo"]),
        );
        if let Some(lim) = r["limiteBanco"]["eventosPorSegundo"].as_f64() {
            let best = runs
                .iter()
                .filter(|x| x["transporte"] == "lote" && x["linhasAntigas"] == 0)
                .filter_map(|x| x["eventosPorSegundo"].as_f64())
                .fold(0.0, f64::max);
            row(
                "DB-only relay limit (pgbench)".into(),
                format!("{lim} events/s; Girô at {:.0} %", 100.0 * best / lim),
            );
        }
    }
    if let Some(runs) = r["processos"]["relay"].as_array() {
        for x in runs {
            let p = &x["perfil"];
            row(
                format!(
                    "relay, {} separate `giro publisher`(s), outbox.lote {}",
                    x["publicadores"], x["lote"]
                ),
                format!(
                    "{} events/s ({} events per claim, {} per request, {} requests in flight)",
                    x["eventosPorSegundo"],
                    p["eventosPorClaim"],
                    p["eventosPorPedido"],
                    p["pedidosEmVooMedia"]
                ),
            );
        }
        if let Some(x) = r["processos"]["razaoLimiteBanco"].as_f64() {
            row("separate publishers as a ratio of the DB-only limit".into(), format!("{:.0} %", 100.0 * x));
        }
        if let Some(x) = r["processos"]["razaoPorEvento"].as_f64() {
            row(
                "separate publishers ÷ the receiver's statements, one transaction per event (pgbench)".into(),
                format!(
                    "{x:.2}× ({:.0} events/s)",
                    r["limiteBanco"]["umaTransacaoPorEventoEventosPorSegundo"].as_f64().unwrap_or(0.0)
                ),
            );
        }
        if let Some(lim) = r["processos"]["limiteBancoNoLote"]["eventosPorSegundo"].as_f64() {
            row(
                format!(
                    "DB-only limit with the publishers' chunks ({})",
                    r["processos"]["limiteBancoNoLote"]["chunk"]
                ),
                format!("{lim} events/s"),
            );
        }
        let l = &r["processos"]["latencia"];
        if l.is_object() {
            row(
                format!("commit → applied at {}/s, separate publisher", l["taxa"]),
                format!("p50 {} ms, p99 {} ms, max {} ms", l["p50Ms"], l["p99Ms"], l["maxMs"]),
            );
        }
        row("load average (1, 5, 15 min)".into(), r["processos"]["carga"].as_str().unwrap_or("").into());
    }
    for (k, nome) in [("graphileWorker", "graphile-worker"), ("pgBoss", "pg-boss")] {
        let x = &r["pares"][k];
        if x.is_object() {
            row(
                format!(
                    "{nome} {}, no-op jobs, {} in flight",
                    x["versao"].as_str().unwrap_or(""),
                    x["concorrencia"]
                ),
                format!("{} jobs/s; Girô at {}×", x["jobsPorSegundo"], x["razaoGiro"]),
            );
        }
    }
    if let Some(e) = r["pares"]["erro"].as_str() {
        row("peers".into(), format!("skipped: {e}"));
    }
    if r["checkout"].is_object() {
        let c = &r["checkout"];
        let onde = match (c["url"].as_str(), c["replicas"].as_u64()) {
            (Some(url), _) => format!(" at {url}"),
            (None, Some(n)) if n > 1 => format!(", {n} replicas behind HAProxy"),
            _ => String::new(),
        };
        row(
            format!("checkout over HTTP{onde}, {} shoppers", c["clientes"]),
            format!("{} orders/s, p50 {} ms, p99 {} ms", c["pedidosPorSegundo"], c["p50Ms"], c["p99Ms"]),
        );
        if c["url"].is_string() {
            return out;
        }
        match c["referencia"]["pgbenchTps"].as_f64() {
            Some(tps) => row(
                "pgbench, same transaction".into(),
                format!(
                    "{tps} tps; Girô at {:.0} %",
                    100.0 * c["referencia"]["razao"].as_f64().unwrap_or(0.0)
                ),
            ),
            None => row(
                "pgbench, same transaction".into(),
                format!("skipped: {}", c["referencia"]["erro"].as_str().unwrap_or("")),
            ),
        }
        for s in ["mercado", "estoque"] {
            let x = &r["servicos"][s];
            row(format!("{s}: ready / idle RSS"), format!("{} ms / {} kB", x["prontoMs"], x["rssOciosoKb"]));
        }
    }
    out
}

/// Percentile `p` (0–100) of sorted `xs` (nearest rank).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

// ---- Shared by the relay, processes and peers benches ----

/// Events delivered so far.
pub(crate) async fn count_sent(db: &giro_infra::db::Db) -> anyhow::Result<i64> {
    let c = db.client().await?;
    Ok(giro_outbox::operador::count(&c, giro_outbox::Status::Sent).await?)
}

/// Empties both outboxes and inboxes between runs.
pub(crate) async fn reset(mercado: &giro_infra::db::Db, estoque: &giro_infra::db::Db) -> anyhow::Result<()> {
    mercado.client().await?.batch_execute("TRUNCATE outbox_event, inbox_event").await?;
    estoque.client().await?.batch_execute("TRUNCATE outbox_event, inbox_event").await?;
    Ok(())
}

/// The best events/s of a list of runs (without the aged-table runs).
pub(crate) fn melhor(runs: &serde_json::Value) -> Option<f64> {
    runs.as_array()?
        .iter()
        .filter(|r| {
            r["transporte"].as_str().unwrap_or("lote") == "lote"
                && r["linhasAntigas"].as_u64().unwrap_or(0) == 0
        })
        .filter_map(|r| r["eventosPorSegundo"].as_f64())
        .reduce(f64::max)
}

/// Writes `n` pending `ReposicaoSolicitada` (distinct SKUs estoque does not know) to the outbox.
pub(crate) async fn semear(mercado: &giro_infra::db::Db, n: usize) -> anyhow::Result<()> {
    mercado
        .client()
        .await?
        .execute(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em) \
             SELECT id, 'ReposicaoSolicitada', \
                    jsonb_build_object('eventId', id, 'sku', lpad((1000000 + g)::text, 13, '789'), 'qtdFaltante', 1, 'ocorridoEm', '2026-09-25T12:00:00Z'), \
                    'PENDING', now(), now() \
               FROM (SELECT gen_random_uuid() AS id, g FROM generate_series(1, $1::int) g) s",
            &[&(n as i32)],
        )
        .await?;
    Ok(())
}

/// A `ReposicaoSolicitada` for a SKU estoque does not know; `n` keeps the SKUs distinct.
pub(crate) fn solicitacao(n: u64) -> giro_contracts::EventoIntegracao {
    giro_contracts::EventoIntegracao::ReposicaoSolicitada(giro_contracts::ReposicaoSolicitada {
        event_id: uuid::Uuid::new_v4(),
        sku: format!("{}", 7_890_000_000_000u64 + n),
        qtd_faltante: 1,
        ocorrido_em: chrono::Utc::now(),
    })
}

/// Commits one event to `writer`'s outbox in a transaction of its own, as mercado's writers do
/// (with `NOTIFY` when `writer` was made with it).
pub(crate) async fn escrever_um(writer: &giro_infra::db::Db, n: u64) -> anyhow::Result<()> {
    let mut client = writer.client().await?;
    let tx = writer.begin(&mut client).await?;
    giro_outbox::registrar(&tx, &solicitacao(n)).await?;
    tx.commit().await?;
    Ok(())
}

/// Commit → applied latency at a steady rate: `taxa` events/s for `duracao` are committed through
/// `writer`, one per transaction, into an empty outbox that a publisher (already running) relays;
/// once all are `SENT` (within 60 s; `vivo` fails the run when the publisher died), the latency of
/// each is `enviado_em − criado_em`. Returns `{taxa, eventos, p50Ms, p99Ms, maxMs}`.
pub(crate) async fn latencia(
    writer: &giro_infra::db::Db,
    mercado: &giro_infra::db::Db,
    taxa: u32,
    duracao: Duration,
    rotulo: &str,
    lease: Duration,
    mut vivo: impl FnMut() -> anyhow::Result<()>,
) -> anyhow::Result<serde_json::Value> {
    let total = (f64::from(taxa) * duracao.as_secs_f64()) as usize;
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(taxa.max(1))));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    for i in 0..total {
        tick.tick().await;
        escrever_um(writer, i as u64).await?;
        if i % 100 == 0 {
            eprint!("\r  latency at {taxa}/s, {rotulo}: {i}/{total} written");
        }
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while (count_sent(mercado).await? as usize) < total {
        vivo()?;
        anyhow::ensure!(
            std::time::Instant::now() < deadline,
            "latency run ({rotulo}): events still pending after 60 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Where the time went: the claim's instant is its lease end minus the lease (`outbox.visibilidade`).
    let rows = mercado
        .client()
        .await?
        .query(
            "SELECT (extract(epoch FROM enviado_em - criado_em) * 1000000)::bigint, \
                    (extract(epoch FROM proxima_tentativa_em - make_interval(secs => $1::float8) - criado_em) * 1000000)::bigint, \
                    (extract(epoch FROM enviado_em - (proxima_tentativa_em - make_interval(secs => $1::float8))) * 1000000)::bigint \
               FROM outbox_event WHERE status = 'SENT'",
            &[&lease.as_secs_f64()],
        )
        .await?;
    let coluna = |i: usize| {
        let mut v: Vec<Duration> =
            rows.iter().map(|r| Duration::from_micros(r.get::<_, i64>(i).max(0) as u64)).collect();
        v.sort();
        v
    };
    let (lat, ate_claim, claim_aplicado) = (coluna(0), coluna(1), coluna(2));
    let (p50, p99, max) =
        (percentile(&lat, 50.0), percentile(&lat, 99.0), lat.last().copied().unwrap_or_default());
    eprintln!(
        "\r  latency at {taxa}/s, {rotulo}, over {total} events: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        ms(p50),
        ms(p99),
        ms(max)
    );
    let (c50, c99) = (ms(percentile(&ate_claim, 50.0)), ms(percentile(&ate_claim, 99.0)));
    let (a50, a99) = (ms(percentile(&claim_aplicado, 50.0)), ms(percentile(&claim_aplicado, 99.0)));
    eprintln!("    commit → claim p50 {c50:.1} ms, p99 {c99:.1} ms; claim → applied p50 {a50:.1} ms, p99 {a99:.1} ms");
    let partes = serde_json::json!({
        "commitAteClaim": {"p50Ms": c50, "p99Ms": c99},
        "claimAteAplicado": {"p50Ms": a50, "p99Ms": a99},
    });
    Ok(
        serde_json::json!({"taxa": taxa, "eventos": total, "p50Ms": ms(p50), "p99Ms": ms(p99), "maxMs": ms(max), "partes": partes}),
    )
}

/// `giro bench …`: runs the measurement, prints the table (stderr) and the JSON (stdout, and
/// `--output` when given).
pub async fn run(args: crate::cli::BenchArgs) -> anyhow::Result<()> {
    use crate::cli::BenchCommand;
    let result = match args.command {
        BenchCommand::Checkout { clientes, segundos, replicas, url, pgbouncer } => {
            crate::checkout::run(crate::checkout::CheckoutArgs {
                admin_url: args.pg_url,
                clientes,
                duracao: std::time::Duration::from_secs(segundos),
                replicas,
                url,
                pgbouncer,
            })
            .await?
        }
        BenchCommand::Relay { segundos, backlog, taxa_viva, segurar_horizonte, escritores, .. }
            if backlog.is_some() || segurar_horizonte.is_some() =>
        {
            crate::pressao::run(crate::pressao::PressaoArgs {
                admin_url: args.pg_url,
                backlog,
                taxa_viva,
                segurar: segurar_horizonte,
                base: std::time::Duration::from_secs(segundos),
                escritores,
            })
            .await?
        }
        BenchCommand::Relay {
            eventos,
            publicadores,
            transportes,
            lote,
            linhas_antigas,
            taxa,
            segundos,
            processos,
            lote_processos,
            pares,
            ..
        } => {
            crate::relay::run(crate::relay::RelayArgs {
                processos: processos.then_some(lote_processos),
                pares,
                linhas_antigas,
                admin_url: args.pg_url,
                eventos,
                publicadores,
                transportes,
                lote,
                taxa,
                duracao: std::time::Duration::from_secs(segundos),
            })
            .await?
        }
        BenchCommand::Peers { eventos, publicadores, jobs } => {
            crate::peers::run(crate::peers::PeersArgs { admin_url: args.pg_url, eventos, publicadores, jobs })
                .await?
        }
        BenchCommand::Audit { eventos, produtos } => {
            crate::auditoria::run(crate::auditoria::AuditArgs { admin_url: args.pg_url, eventos, produtos })
                .await?
        }
        BenchCommand::Expiry { pedidos, ttl } => {
            crate::expiracao::run(crate::expiracao::ExpiryArgs { admin_url: args.pg_url, pedidos, ttl })
                .await?
        }
        BenchCommand::Soak { taxa, minutos } => {
            crate::soak::run(crate::soak::SoakArgs { admin_url: args.pg_url, taxa, minutos }).await?
        }
        BenchCommand::Busca { produtos, vezes } => {
            crate::busca::run(crate::busca::BuscaArgs { admin_url: args.pg_url, produtos, vezes }).await?
        }
        BenchCommand::Restock { taxa, segundos } => {
            crate::reposicao::run(crate::reposicao::RestockArgs {
                admin_url: args.pg_url,
                taxa,
                duracao: Duration::from_secs(segundos),
            })
            .await?
        }
    };
    eprintln!("{}", crate::tabela(&result));
    let text = serde_json::to_string_pretty(&result)?;
    if let Some(path) = args.saida {
        std::fs::write(&path, &text)?;
    }
    println!("{text}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let xs: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(percentile(&xs, 50.0), Duration::from_millis(50));
        assert_eq!(percentile(&xs, 99.0), Duration::from_millis(99));
        assert_eq!(percentile(&xs, 100.0), Duration::from_millis(100));
        assert_eq!(percentile(&[], 50.0), Duration::ZERO);
    }
}
