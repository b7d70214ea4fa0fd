//! The restock round trip (`giro bench restock`): a real `giro mercado serve` and `giro estoque
//! serve`, each with its embedded publisher, at the shipped defaults (the children read no
//! configuration file: only the databases, ports, tokens and the peers' URLs), on scratch
//! databases. Checkouts arrive at a steady `--rate` (open loop: a slow answer does not slow the
//! arrivals), each taking one unit of a product whose shelf sits at its minimum, so every order
//! asks estoque for one unit; estoque ships it from a deep lot and the answer credits the shelf.
//!
//! The round trip of each request is read back from the databases once every request is served:
//! from the request's `criado_em` (stamped by the checkout that created it, in mercado) to the
//! moment mercado's inbox recorded the answer (`processado_em`, the database's `now()` in the
//! transaction that credits the shelf), with its two legs — request → estoque's inbox (the
//! shipment is written in that same transaction), and shipment → mercado's inbox. Both services
//! run on this host, so their instants share one clock.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::json;
use uuid::Uuid;

use crate::checkout::{child_env, iniciar_com, lift_per_address_bounds, Servidor};
use crate::scratch::{self, Scratch};
use crate::{ms, percentile};

pub struct RestockArgs {
    pub admin_url: String,
    /// Checkouts (and so restock requests) per second.
    pub taxa: u32,
    pub duracao: Duration,
}

/// Products the checkouts cycle through: each is asked for again only after this many orders
/// (2 s at 100/s), long after its previous restock came back.
const PRODUTOS: u32 = 200;

/// Shelf = minimum = ideal: one unit sold leaves the shelf below its minimum and asks for one.
const NIVEL: i32 = 10;

fn porta_livre() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// `produtos` products whose shelf sits at its minimum and ideal (`nivel`), each with a lot in
/// estoque too deep to run out: every unit sold asks for one unit back.
pub(crate) async fn catalogo_no_nivel(
    m: &tokio_postgres::Client,
    e: &tokio_postgres::Client,
    produtos: u32,
    nivel: i32,
) -> anyhow::Result<()> {
    m.execute(
        "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
         SELECT (7890000000000 + g)::text, 'Produto ' || g, 9.99, $2, $2, $2, 'DISPONIVEL' FROM generate_series(1, $1::int) g",
        &[&(produtos as i32), &nivel],
    )
    .await?;
    e.batch_execute(&format!(
        "INSERT INTO produto_estoque (sku, descricao, ncm, saldo_disponivel) \
         SELECT (7890000000000 + g)::text, 'Produto ' || g, '22030000', 1000000000 FROM generate_series(1, {produtos}) g; \
         INSERT INTO lote (sku, codigo_lote, quantidade, validade, recebido_em, quantidade_disponivel) \
         SELECT sku, 'L-BENCH', 1000000000, NULL, now(), 1000000000 FROM produto_estoque"
    ))
    .await?;
    Ok(())
}

/// Both services on the scratch databases, on free ports, each the other's peer, at the shipped
/// defaults but for what a bench on one address needs (the per-address bounds lifted).
pub(crate) fn ambiente(
    mercado: &Scratch,
    estoque: &Scratch,
) -> anyhow::Result<BTreeMap<&'static str, String>> {
    let (pm, pe) = (porta_livre()?, porta_livre()?);
    let mut env = child_env(mercado, estoque);
    env.insert("MERCADO_PORTA", pm.to_string());
    env.insert("ESTOQUE_PORTA", pe.to_string());
    env.insert("MERCADO_EVENTOS_URL", format!("http://127.0.0.1:{pm}"));
    env.insert("ESTOQUE_EVENTOS_URL", format!("http://127.0.0.1:{pe}"));
    env.insert("ESTOQUE_URL", format!("http://127.0.0.1:{pe}"));
    env.insert("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "false".into());
    lift_per_address_bounds(&mut env);
    Ok(env)
}

pub async fn run(args: RestockArgs) -> anyhow::Result<serde_json::Value> {
    scratch::with_pair(&args.admin_url, async |mercado, estoque| medir(&args, mercado, estoque).await).await
}

async fn medir(
    args: &RestockArgs,
    mercado: &Scratch,
    estoque: &Scratch,
) -> anyhow::Result<serde_json::Value> {
    let (m, e) = (mercado.conectar().await?, estoque.conectar().await?);
    catalogo_no_nivel(&m, &e, PRODUTOS, NIVEL).await?;
    let env = ambiente(mercado, estoque)?;
    let est: Servidor = iniciar_com("estoque", &env, true).await?;
    let merc: Servidor = iniciar_com("mercado", &env, true).await?;
    eprintln!(
        "  mercado and estoque ready, embedded publishers on; {} restocks/s for {:?}",
        args.taxa, args.duracao
    );

    let (pedidos, falhas) =
        comprar(&format!("http://{}/pedidos", merc.addr), args.taxa, args.duracao).await?;
    // Every request served: none open. (An order for a product whose request is still open
    // asks for nothing; at this rate and with this many products that is rare, and counted.)
    let prazo = Instant::now() + Duration::from_secs(60);
    loop {
        let abertas: i64 = m
            .query_one(
                "SELECT count(*) FROM solicitacao_reposicao WHERE status IN ('PENDENTE', 'AGUARDANDO_LOTE')",
                &[],
            )
            .await?
            .get(0);
        if abertas == 0 {
            break;
        }
        anyhow::ensure!(Instant::now() < prazo, "{abertas} restock requests still open 60 s after the load");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop((merc, est));

    let criadas: HashMap<Uuid, DateTime<Utc>> = m
        .query("SELECT event_id, criado_em FROM solicitacao_reposicao", &[])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let no_estoque: HashMap<Uuid, DateTime<Utc>> = e
        .query("SELECT event_id, processado_em FROM inbox_event", &[])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let no_mercado: HashMap<Uuid, DateTime<Utc>> = m
        .query("SELECT event_id, processado_em FROM inbox_event", &[])
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let (mut total, mut ida, mut volta) = (Vec::new(), Vec::new(), Vec::new());
    let dur = |a: DateTime<Utc>, b: DateTime<Utc>| (b - a).to_std().unwrap_or_default();
    for r in e.query("SELECT correlation_id, event_id, expedido_em FROM reposicao_expedida", &[]).await? {
        let (pedido, resposta, expedido): (Uuid, Uuid, DateTime<Utc>) = (r.get(0), r.get(1), r.get(2));
        let (Some(&criado), Some(&recebido), Some(&creditado)) =
            (criadas.get(&pedido), no_estoque.get(&pedido), no_mercado.get(&resposta))
        else {
            continue;
        };
        total.push(dur(criado, creditado));
        ida.push(dur(criado, recebido));
        volta.push(dur(expedido, creditado));
    }
    for v in [&mut total, &mut ida, &mut volta] {
        v.sort();
    }
    let p = |v: &[Duration], q: f64| (ms(percentile(v, q)) * 100.0).round() / 100.0;
    eprintln!(
        "  restock round trip (request → shelf credited) over {} requests at {}/s: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        total.len(),
        args.taxa,
        p(&total, 50.0),
        p(&total, 99.0),
        total.last().map_or(0.0, |d| ms(*d))
    );
    eprintln!(
        "    request → estoque's inbox p50 {:.2} / p99 {:.2} ms; shipment → mercado's inbox p50 {:.2} / p99 {:.2} ms",
        p(&ida, 50.0),
        p(&ida, 99.0),
        p(&volta, 50.0),
        p(&volta, 99.0)
    );
    Ok(json!({"reposicao": {
        "taxa": args.taxa, "segundos": args.duracao.as_secs_f64(), "pedidos": pedidos, "falhas": falhas,
        "solicitacoes": total.len(), "p50Ms": p(&total, 50.0), "p99Ms": p(&total, 99.0),
        "maxMs": total.last().map_or(0.0, |d| ms(*d)),
        "partes": {
            "pedidoAteEstoque": {"p50Ms": p(&ida, 50.0), "p99Ms": p(&ida, 99.0)},
            "expedicaoAtePrateleira": {"p50Ms": p(&volta, 50.0), "p99Ms": p(&volta, 99.0)},
        },
    }}))
}

/// Orders of one unit at `taxa` per second for `duracao`, cycling through the products; returns
/// how many were accepted (201) and how many were not.
async fn comprar(url: &str, taxa: u32, duracao: Duration) -> anyhow::Result<(usize, usize)> {
    let http = reqwest::Client::builder().http1_only().build()?;
    let url = Arc::new(url.to_string());
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / f64::from(taxa.max(1))));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let total = (f64::from(taxa) * duracao.as_secs_f64()) as u64;
    let mut tarefas = tokio::task::JoinSet::new();
    for i in 0..total {
        tick.tick().await;
        let (http, url) = (http.clone(), url.clone());
        let sku = format!("{}", 7_890_000_000_000u64 + 1 + i % u64::from(PRODUTOS));
        tarefas.spawn(async move {
            let r = http.post(url.as_str()).json(&json!({"itens": [{"sku": sku, "qtd": 1}]})).send().await;
            r.map(|r| r.status().as_u16()).unwrap_or(0)
        });
    }
    let (mut ok, mut falhas) = (0, 0);
    while let Some(r) = tarefas.join_next().await {
        if r? == 201 {
            ok += 1;
        } else {
            falhas += 1;
        }
    }
    Ok((ok, falhas))
}
