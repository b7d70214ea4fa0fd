//! Relay throughput and latency, end to end: events pre-written to mercado's outbox are claimed,
//! sent over HTTP to a real estoque (its router, inbox and consumer, on loopback), applied and
//! committed there, and settled `SENT`. The events are `ReposicaoSolicitada` for SKUs estoque does
//! not know, so each effect is the inbox row plus a `ReposicaoNegada` written to estoque's outbox
//! in the same transaction — real work without one hot product row serialising everything.
//!
//! Latency: a writer commits one event per transaction at a steady rate, the publisher is woken
//! in-process (as the embedded one), and commit-to-ack is `enviado_em − criado_em`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use crate::scratch::{self, Scratch};
use crate::{escrever_um, latencia, melhor, reset, semear};
use giro_infra::db::{self, Db, OutboxSignal};
use giro_servicos::config::{Config, Servico, Sources};
use giro_servicos::server::{self, Contexto};

pub struct RelayArgs {
    /// Old `SENT` rows present during an extra pair of runs (0 = none), as before retention runs.
    pub linhas_antigas: usize,
    pub admin_url: String,
    pub eventos: usize,
    pub publicadores: Vec<usize>,
    pub transportes: Vec<String>,
    pub lote: usize,
    pub taxa: u32,
    pub duracao: Duration,
    /// Also measure separate `giro publisher` processes at the shipped defaults (`--processes`);
    /// `Some(Some(n))` passes `--lote n` to them.
    pub processos: Option<Option<usize>>,
    /// Also run the peers (graphile-worker, pg-boss) with this many jobs, in the same run.
    pub pares: Option<usize>,
}

pub(crate) fn bench_config(
    mercado: &Scratch,
    estoque: &Scratch,
    extra: &[(&str, String)],
) -> anyhow::Result<Config> {
    let token = |p: &str| format!("{p}-{}{}", Uuid::new_v4().simple(), Uuid::new_v4().simple());
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    env.insert("MERCADO_DB_URL".into(), mercado.url());
    env.insert("ESTOQUE_DB_URL".into(), estoque.url());
    env.insert("MERCADO_TOKEN_SERVICO".into(), token("m"));
    env.insert("ESTOQUE_TOKEN_SERVICO".into(), token("e"));
    env.insert("OPERADOR_USUARIO".into(), "bench".into());
    env.insert("OPERADOR_SENHA".into(), token("s"));
    env.insert("GIRO_TAGS_RECLASSIFICACAO_HABILITADA".into(), "false".into());
    env.insert("GIRO_RESERVA_EXPIRACAO_HABILITADA".into(), "false".into());
    env.insert("GIRO_OUTBOX_PUBLICADOR_EMBUTIDO".into(), "false".into());
    for (k, v) in extra {
        env.insert((*k).to_string(), v.clone());
    }
    Ok(Config::load(&Sources { file: None, cwd: std::env::temp_dir(), env, flags: vec![] })?)
}

/// Starts estoque's router on loopback; returns its base URL.
pub(crate) async fn start_estoque(config: &Config, shutdown: &CancellationToken) -> anyhow::Result<String> {
    let pool = db::pool(config.db(Servico::Estoque)?, config.db_pool_max, config.db_timeout)?;
    let ctx = Contexto {
        seguranca: server::seguranca(config, Servico::Estoque, &pool)?,
        config: config.clone(),
        db: Db::new(pool, false),
        tasks: TaskTracker::new(),
        shutdown: shutdown.clone(),
        supervisor: giro_infra::supervisor::Supervisor::new(),
        drenagem: Default::default(),
    };
    let role = giro_servicos::estoque::build(&ctx)?;
    let router = server::app(&ctx, role);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let stop = shutdown.clone();
    tokio::spawn(async move {
        let _ = giro_http::serve(listener, router, stop, Duration::from_secs(2)).await;
    });
    Ok(format!("http://{addr}"))
}

/// What the in-process relay benches run against: a real estoque on loopback over the scratch
/// databases (stopped by `shutdown`), the configuration it was started with (`base`, which a run's
/// own configuration repeats), and pools on both databases, mercado's sized for its writers.
pub(crate) struct Rig {
    pub shutdown: CancellationToken,
    pub base: Config,
    pub estoque_url: String,
    pub mercado: Db,
    pub estoque: Db,
}

impl Rig {
    pub(crate) async fn start(mercado_s: &Scratch, estoque_s: &Scratch) -> anyhow::Result<Rig> {
        let shutdown = CancellationToken::new();
        let base = bench_config(mercado_s, estoque_s, &[])?;
        let estoque_url = start_estoque(&base, &shutdown).await?;
        let mercado = Db::new(db::pool(base.db(Servico::Mercado)?, 8, base.db_timeout)?, false);
        let estoque = Db::new(db::pool(base.db(Servico::Estoque)?, 4, base.db_timeout)?, false);
        Ok(Rig { shutdown, base, estoque_url, mercado, estoque })
    }
}

/// Events not yet settled (the partial index keeps this cheap however many SENT rows there are).
async fn count_pending(db: &Db) -> anyhow::Result<i64> {
    let c = db.client().await?;
    Ok(giro_outbox::operador::count(&c, giro_outbox::Status::Pending).await?)
}

pub async fn run(args: RelayArgs) -> anyhow::Result<serde_json::Value> {
    scratch::with_pair(&args.admin_url, async |mercado_s, estoque_s| {
        scenarios(&args, mercado_s, estoque_s).await
    })
    .await
}

async fn scenarios(
    args: &RelayArgs,
    mercado_s: &Scratch,
    estoque_s: &Scratch,
) -> anyhow::Result<serde_json::Value> {
    let Rig { shutdown, base, estoque_url, mercado, estoque } = Rig::start(mercado_s, estoque_s).await?;
    let mut throughput = Vec::new();

    for transporte in &args.transportes {
        for &n in &args.publicadores {
            throughput.push(
                vazao(args, mercado_s, estoque_s, &mercado, &estoque, &estoque_url, &base, transporte, n, 0)
                    .await?,
            );
        }
    }
    if args.linhas_antigas > 0 {
        let n = args.publicadores.iter().copied().max().unwrap_or(1);
        let vazio =
            vazao(args, mercado_s, estoque_s, &mercado, &estoque, &estoque_url, &base, "lote", n, 0).await?;
        let velho = vazao(
            args,
            mercado_s,
            estoque_s,
            &mercado,
            &estoque,
            &estoque_url,
            &base,
            "lote",
            n,
            args.linhas_antigas,
        )
        .await?;
        throughput.push(vazio);
        throughput.push(velho);
    }

    // Latency at a steady rate, one publisher woken in-process.
    reset(&mercado, &estoque).await?;
    let cfg = bench_config(
        mercado_s,
        estoque_s,
        &[
            ("ESTOQUE_EVENTOS_URL", estoque_url.clone()),
            ("ESTOQUE_TOKEN_SERVICO", base.token_servico(Servico::Estoque)?.expose().to_string()),
        ],
    )?;
    let stop = CancellationToken::new();
    let p = giro_servicos::server::publisher_de(
        &cfg,
        Servico::Mercado,
        mercado.pool.clone(),
        mercado.signal.clone(),
        false,
    )?;
    let task = tokio::spawn(p.run(stop.clone()));
    let latencia = latencia(
        &mercado,
        &mercado,
        args.taxa,
        args.duracao,
        "in-process publisher",
        cfg.outbox.visibilidade,
        || Ok(()),
    )
    .await?;
    stop.cancel();
    let _ = task.await;
    let notify = notify_cost(&base, args.taxa.max(1) as usize * 10).await?;
    let limite = match referencia_db(args, mercado_s, estoque_s, &mercado, &estoque, args.lote).await {
        Ok(v) => v,
        Err(e) => {
            eprintln!("  DB-only reference skipped: {e:#}");
            json!({"erro": format!("{e:#}")})
        }
    };
    if let (Some(lim), Some(girô)) = (
        limite["eventosPorSegundo"].as_f64(),
        throughput
            .iter()
            .filter(|r| r["transporte"] == "lote" && r["linhasAntigas"] == 0)
            .filter_map(|r| r["eventosPorSegundo"].as_f64())
            .reduce(f64::max),
    ) {
        eprintln!(
            "  relay (batch, best) {girô:.0} events/s = {:.0} % of the DB-only limit {lim:.0}",
            100.0 * girô / lim
        );
    }
    let mut out = json!({
        "notify": notify,
        "limiteBanco": limite,
        "relay": throughput,
        "latencia": latencia,
    });
    if let Some(lote) = args.processos {
        let p = crate::processos::ProcessosArgs {
            eventos: args.eventos,
            publicadores: args.publicadores.clone(),
            lote,
            taxa: args.taxa,
            duracao: args.duracao,
        };
        let mut proc = crate::processos::run(&p, mercado_s, estoque_s, &mercado, &estoque).await?;
        // The DB-only limit again at the shipped outbox.lote, as if claims never grew past it
        // (a 50-event claim is one request of 50): what the adaptive claim size is worth.
        let lote_proc = proc["relay"][0]["lote"].as_u64().unwrap_or(50) as usize;
        proc["limiteBancoNoLote"] =
            match referencia_db(args, mercado_s, estoque_s, &mercado, &estoque, lote_proc).await {
                Ok(v) => v,
                Err(e) => json!({"erro": format!("{e:#}")}),
            };
        if let (Some(lim), Some(best)) = (limite["eventosPorSegundo"].as_f64(), melhor(&proc["relay"])) {
            proc["razaoLimiteBanco"] = json!((best / lim * 1000.0).round() / 1000.0);
            eprintln!(
                "  separate publishers (best) {best:.0} events/s = {:.0} % of the DB-only limit {lim:.0}",
                100.0 * best / lim
            );
        }
        // Issue 40's floor: the receiver's statements, one transaction per event.
        if let (Some(piso), Some(best)) =
            (limite["umaTransacaoPorEventoEventosPorSegundo"].as_f64(), melhor(&proc["relay"]))
        {
            proc["razaoPorEvento"] = json!((best / piso * 100.0).round() / 100.0);
            eprintln!(
                "  separate publishers (best) {best:.0} events/s = {:.2}× the receiver's statements one transaction per event ({piso:.0})",
                best / piso
            );
        }
        out["processos"] = proc;
    }
    if let Some(jobs) = args.pares {
        let giro = melhor(&out["processos"]["relay"]).or_else(|| melhor(&out["relay"])).unwrap_or(0.0);
        out["pares"] = crate::peers::comparar(&args.admin_url, jobs, giro).await;
    }
    shutdown.cancel();
    Ok(out)
}

/// What `NOTIFY` costs the writers: commits per second of 4 concurrent writers, each committing
/// one event per transaction, with `outbox.notify` off and on (no publisher running).
async fn notify_cost(config: &Config, per_writer: usize) -> anyhow::Result<serde_json::Value> {
    let mut out = serde_json::Map::new();
    for notify in [false, true] {
        let db = Db::new(db::pool(config.db(Servico::Mercado)?, 4, config.db_timeout)?, notify);
        db.client().await?.batch_execute("TRUNCATE outbox_event").await?;
        let started = Instant::now();
        let mut writers = Vec::new();
        for w in 0..4u64 {
            let db = db.clone();
            writers.push(tokio::spawn(async move {
                for i in 0..per_writer as u64 {
                    escrever_um(&db, w * 1_000_000 + i).await?;
                }
                anyhow::Ok(())
            }));
        }
        for w in writers {
            w.await??;
        }
        let rate = (4 * per_writer) as f64 / started.elapsed().as_secs_f64();
        eprintln!("  writers with notify={notify}: {rate:.0} commits/s");
        out.insert(
            if notify { "comNotifyCommitsPorSegundo".into() } else { "semNotifyCommitsPorSegundo".into() },
            json!(rate.round()),
        );
    }
    Ok(serde_json::Value::Object(out))
}

/// One throughput run: `args.eventos` events relayed by `n` publishers over `transporte`, with
/// `antigas` old `SENT` rows in the outbox.
#[allow(clippy::too_many_arguments)]
async fn vazao(
    args: &RelayArgs,
    mercado_s: &Scratch,
    estoque_s: &Scratch,
    mercado: &Db,
    estoque: &Db,
    estoque_url: &str,
    base: &Config,
    transporte: &str,
    n: usize,
    antigas: usize,
) -> anyhow::Result<serde_json::Value> {
    reset(mercado, estoque).await?;
    let c = mercado.client().await?;
    if antigas > 0 {
        eprint!("\r  writing {antigas} old SENT rows…");
        c.execute(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, tentativas, enviado_em) \
             SELECT gen_random_uuid(), 'ReposicaoSolicitada', '{\"sku\": \"7894900011517\", \"qtdFaltante\": 1}', 'SENT', \
                    now() - interval '3 days', now() - interval '3 days', 1, now() - interval '3 days' \
               FROM generate_series(1, $1::int)",
            &[&(antigas as i32)],
        )
        .await?;
        c.batch_execute("VACUUM ANALYZE outbox_event").await?;
    }
    drop(c);
    semear(mercado, args.eventos).await?;
    let cfg = bench_config(
        mercado_s,
        estoque_s,
        &[
            ("ESTOQUE_EVENTOS_URL", estoque_url.to_string()),
            ("GIRO_OUTBOX_TRANSPORTE", transporte.to_string()),
            ("GIRO_OUTBOX_LOTE", args.lote.to_string()),
            ("GIRO_OUTBOX_INTERVALO", "20ms".into()),
            ("ESTOQUE_TOKEN_SERVICO", base.token_servico(Servico::Estoque)?.expose().to_string()),
        ],
    )?;
    let stop = CancellationToken::new();
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..n {
        let p = giro_servicos::server::publisher_de(
            &cfg,
            Servico::Mercado,
            mercado.pool.clone(),
            Arc::new(OutboxSignal::default()),
            false,
        )?;
        tasks.push(tokio::spawn(p.run(stop.clone())));
    }
    loop {
        let pending = count_pending(mercado).await?;
        eprint!(
            "\r  relay {transporte:<6} {n} publisher(s), {antigas} old rows: {}/{} sent",
            args.eventos as i64 - pending,
            args.eventos
        );
        if pending == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = started.elapsed();
    stop.cancel();
    for t in tasks {
        let _ = t.await;
    }
    let rate = args.eventos as f64 / elapsed.as_secs_f64();
    eprintln!("  → {rate:.0} events/s in {:.2}s", elapsed.as_secs_f64());
    Ok(
        json!({"transporte": transporte, "publicadores": n, "eventos": args.eventos, "linhasAntigas": antigas, "segundos": elapsed.as_secs_f64(), "eventosPorSegundo": rate.round()}),
    )
}

/// The database-only limit of the relay: pgbench replaying, on the same cluster and at the same
/// time, what two publishers ask of PostgreSQL per batch — mercado: the claim and the settle
/// (Girô's own statements, `store::CLAIM` and `store::MARK_SENT`) — and the receiver's work done
/// statement by statement — estoque: one transaction per delivered chunk with the bulk inbox
/// insert (`inbox::REGISTRAR_NOVOS`) and, per event, the product lock (`produto::sql_bloquear`)
/// and the answer's outbox row (`store::REGISTRAR`). No HTTP, no JSON, no Rust. The receiver
/// itself does less: the answers in one statement (issue 30), the chunk's products locked in one
/// (issue 40), so Girô can pass the estoque side of this limit.
///
/// The floor the issue 40 ratio is taken against is the receiver's work done naively: one
/// transaction per event (the inbox row, the lock, the answer), pgbench again, alone afterwards.
///
/// Deviations, both in the database's favour: the claim's ids reach the settle as one array
/// (`array_agg` over the claim, the one row pgbench can keep in a variable), and the ids and
/// payloads are generated by SQL. (Until issue 40 the settle looked its ids up by the lease token,
/// a scan of the pending index that grew with every claim: 724 events/s on a quiet machine.)
async fn referencia_db(
    args: &RelayArgs,
    mercado_s: &Scratch,
    estoque_s: &Scratch,
    mercado: &Db,
    estoque: &Db,
    lote: usize,
) -> anyhow::Result<serde_json::Value> {
    let lote = lote.max(1);
    // The requests a publisher sends for a claim of `lote` (8 slots, the shipped concorrencia).
    let chunk = giro_outbox::internos::chunk_size(lote, 8, lote);
    let segundos = args.duracao.as_secs().clamp(1, 5);
    reset(mercado, estoque).await?;
    // Enough due rows that the claims never run dry during the run (≤ 25 000 events/s here).
    let semente = (25_000 * segundos as usize).max(lote * 4) as i32;
    mercado
        .client()
        .await?
        .execute(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em) \
             SELECT gen_random_uuid(), 'ReposicaoSolicitada', '{\"sku\": \"7890000000001\", \"qtdFaltante\": 1}', 'PENDING', now() - interval '1 minute', now() - interval '1 minute' \
               FROM generate_series(1, $1::int)",
            &[&semente],
        )
        .await?;
    mercado.client().await?.batch_execute("VACUUM ANALYZE outbox_event").await?;

    let bind = |sql: &str, params: &[&str]| -> String {
        let mut q = sql.to_string();
        for (i, p) in params.iter().enumerate().rev() {
            q = q.replace(&format!("${}", i + 1), p);
        }
        q.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    // The claim's lease in seconds, far ahead (the settle finds its rows by the unique token).
    let lease_s = "(86400 * 365 + :u::bigint / 1e6)::float8";
    let token = "lpad(to_hex(:t::bigint), 32, '0')::uuid";
    let script_mercado = [
        "\\set t random(1, 9000000000000000000)".to_string(),
        "\\set u random(1, 1000000000000)".to_string(),
        format!(
            "WITH c AS ({}) SELECT coalesce(array_agg(id), '{{}}')::text AS ids FROM c \\gset",
            bind(
                giro_outbox::internos::CLAIM,
                &[
                    "NULL::timestamptz",
                    &giro_outbox::internos::parte_fresca(lote as i64, giro_outbox::internos::PARTE_FRESCA)
                        .to_string(),
                    lease_s,
                    token,
                    &giro_outbox::internos::FRESCOR.as_secs_f64().to_string(),
                    "NULL::timestamptz",
                    &lote.to_string(),
                    "NULL::timestamptz",
                ]
            )
        ),
        format!("{};", bind(giro_outbox::internos::MARK_SENT, &[":ids::uuid[]", token])),
    ]
    .join("\n");
    // One event's statements, its SKU in pgbench variable `v`: the SKU drawn, the product locked,
    // the answer written.
    let evento = |v: &str| {
        [
            format!("\\set {v} random(7890000000001, 7899999999999)"),
            format!(
                "{};",
                bind(&giro_servicos::estoque::produto::sql_bloquear(), &[&format!(":{v}::bigint::text")])
            ),
            format!(
                "{};",
                bind(
                    giro_outbox::internos::REGISTRAR,
                    &[
                        "gen_random_uuid()",
                        "'ReposicaoNegada'",
                        &format!(
                            "jsonb_build_object('sku', :{v}::bigint::text, 'motivo', 'SKU_DESCONHECIDO')"
                        ),
                        "'00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'",
                    ]
                )
            ),
        ]
    };
    // One transaction of `n` events: their inbox rows in one statement, then each event's.
    let transacao = |n: usize| {
        let mut linhas = vec![
            "BEGIN;".to_string(),
            format!(
                "{};",
                bind(
                    giro_outbox::internos::REGISTRAR_NOVOS,
                    &[&format!("ARRAY(SELECT gen_random_uuid() FROM generate_series(1, {n}))")]
                )
            ),
        ];
        for i in 0..n {
            linhas.extend(evento(&format!("s{i}")));
        }
        linhas.push("COMMIT;".into());
        linhas.join("\n")
    };
    let script_estoque = transacao(chunk);
    // The naive receiver: the same statements, one transaction per event.
    let script_por_evento = transacao(1);

    let dir = std::env::temp_dir();
    let (fm, fe, f1) = (
        dir.join(format!("giro-relay-m-{}.sql", std::process::id())),
        dir.join(format!("giro-relay-e-{}.sql", std::process::id())),
        dir.join(format!("giro-relay-1-{}.sql", std::process::id())),
    );
    std::fs::write(&fm, format!("{script_mercado}\n"))?;
    std::fs::write(&fe, format!("{script_estoque}\n"))?;
    std::fs::write(&f1, format!("{script_por_evento}\n"))?;
    eprint!("\r  DB-only reference: pgbench claim+settle (2 clients) and inbox+effect (8 clients) for {segundos}s…");
    let (rm, re) = tokio::join!(
        crate::checkout::pgbench_file(&mercado_s.db, &fm, 2, segundos),
        crate::checkout::pgbench_file(&estoque_s.db, &fe, 8, segundos)
    );
    eprint!(
        "\r  DB-only reference: pgbench inbox+effect, one transaction per event (8 clients) for {segundos}s…"
    );
    let r1 = crate::checkout::pgbench_file(&estoque_s.db, &f1, 8, segundos).await;
    let _ = (std::fs::remove_file(&fm), std::fs::remove_file(&fe), std::fs::remove_file(&f1));
    let (tm, te, t1) = (rm?, re?, r1?);
    let limite = (tm * lote as f64).min(te * chunk as f64);
    eprintln!("\r  DB-only reference: claim+settle {:.0} events/s, inbox+effect {:.0} events/s → limit {limite:.0} events/s; one transaction per event {t1:.0} events/s", tm * lote as f64, te * chunk as f64);
    Ok(
        json!({"claimSettleEventosPorSegundo": (tm * lote as f64).round(), "inboxEfeitoEventosPorSegundo": (te * chunk as f64).round(),
              "eventosPorSegundo": limite.round(), "lote": lote, "chunk": chunk, "umaTransacaoPorEventoEventosPorSegundo": t1.round()}),
    )
}
