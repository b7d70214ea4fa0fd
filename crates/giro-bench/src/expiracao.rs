//! Abandoned carts (`giro bench expiry`): a real `giro mercado serve` at the shipped defaults
//! (the expiry sweep's interval and batch included), `--orders` unpaid orders closed as fast as
//! 8 shoppers can with a short reservation TTL (`--ttl`), then nobody pays. How late is each
//! order expired after its deadline — while it is late, its units are held off the shelf.
//!
//! Lateness is read by watching the count of EXPIRADO orders (every 100 ms): the k-th order to
//! expire is matched with the k-th earliest deadline (the sweep takes them in deadline order), so
//! each figure is exact to the watch's 100 ms.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde_json::json;

use crate::checkout::{catalogo_fundo, child_env, iniciar, lift_per_address_bounds};
use crate::scratch::{self, Scratch};
use crate::{ms, percentile};

pub struct ExpiryArgs {
    pub admin_url: String,
    pub pedidos: usize,
    pub ttl: Duration,
}

const PRODUTOS: i32 = 100;

/// Shoppers closing the orders at once (the pool is sized for them, as `giro bench checkout` does).
const SHOPPERS: usize = 8;

pub async fn run(args: ExpiryArgs) -> anyhow::Result<serde_json::Value> {
    scratch::with_pair(&args.admin_url, async |mercado, estoque| medir(&args, mercado, estoque).await).await
}

async fn medir(args: &ExpiryArgs, mercado: &Scratch, estoque: &Scratch) -> anyhow::Result<serde_json::Value> {
    let c = mercado.conectar().await?;
    catalogo_fundo(&c, PRODUTOS).await?;
    let mut env = child_env(mercado, estoque);
    env.insert("MERCADO_PORTA", "0".into());
    env.insert("GIRO_DB_POOL_MAX", SHOPPERS.to_string());
    env.insert("GIRO_RESERVA_TTL", format!("{}ms", args.ttl.as_millis()));
    lift_per_address_bounds(&mut env);
    let merc = iniciar("mercado", &env).await?;

    let url = Arc::new(format!("http://{}/pedidos", merc.addr));
    let http = reqwest::Client::builder().http1_only().build()?;
    let proximo = Arc::new(AtomicUsize::new(0));
    let inicio = Instant::now();
    let mut tarefas = tokio::task::JoinSet::new();
    for _ in 0..SHOPPERS {
        let (http, url, proximo, total) = (http.clone(), url.clone(), proximo.clone(), args.pedidos);
        tarefas.spawn(async move {
            let mut falhas = Vec::new();
            loop {
                let i = proximo.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    return falhas;
                }
                let sku = format!("{}", 7_890_000_000_001u64 + (i as u64 % PRODUTOS as u64));
                match http.post(url.as_str()).json(&json!({"itens": [{"sku": sku, "qtd": 2}]})).send().await {
                    Ok(r) if r.status().as_u16() == 201 => {}
                    Ok(r) => falhas.push(format!(
                        "{}: {}",
                        r.status().as_u16(),
                        r.text().await.unwrap_or_default()
                    )),
                    Err(e) => falhas.push(e.to_string()),
                }
            }
        });
    }
    let mut recusas: Vec<String> = Vec::new();
    while let Some(f) = tarefas.join_next().await {
        recusas.extend(f?);
    }
    let falhas = recusas.len();
    let fechamento = inicio.elapsed();
    eprintln!(
        "  {} unpaid orders closed in {:.1} s ({falhas} refused), TTL {:?}",
        args.pedidos,
        fechamento.as_secs_f64(),
        args.ttl
    );

    let prazos: Vec<DateTime<Utc>> = c
        .query("SELECT min(expira_em) FROM reserva GROUP BY pedido_id ORDER BY 1", &[])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    let total = prazos.len();
    // (count expired, instant seen), until every order is expired or 120 s past the last deadline.
    let mut vistos: Vec<(usize, DateTime<Utc>)> = Vec::new();
    let limite = prazos.last().copied().unwrap_or_else(Utc::now) + chrono::Duration::seconds(120);
    loop {
        let row =
            c.query_one("SELECT count(*) FILTER (WHERE status = 'EXPIRADO'), now() FROM pedido", &[]).await?;
        let (n, agora): (i64, DateTime<Utc>) = (row.get(0), row.get(1));
        vistos.push((n as usize, agora));
        if n as usize >= total || agora > limite {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    drop(merc);
    let mut atrasos: Vec<Duration> = Vec::with_capacity(total);
    let mut nao_expirados = 0;
    for (k, prazo) in prazos.iter().enumerate() {
        match vistos.iter().find(|(n, _)| *n > k) {
            Some((_, visto)) => atrasos.push((*visto - *prazo).to_std().unwrap_or_default()),
            None => nao_expirados += 1,
        }
    }
    atrasos.sort();
    let max = atrasos.last().copied().unwrap_or_default();
    eprintln!(
        "  expired after their deadline: p50 {:.2} s, p99 {:.2} s, max {:.2} s ({nao_expirados} of {total} not expired within 120 s)",
        ms(percentile(&atrasos, 50.0)) / 1000.0,
        ms(percentile(&atrasos, 99.0)) / 1000.0,
        ms(max) / 1000.0,
    );
    Ok(json!({"expiracao": {
        "pedidos": total, "recusados": falhas, "ttlS": args.ttl.as_secs_f64(),
        "fechamentoS": (fechamento.as_secs_f64() * 10.0).round() / 10.0,
        "atrasoP50S": (ms(percentile(&atrasos, 50.0)) / 10.0).round() / 100.0,
        "atrasoP99S": (ms(percentile(&atrasos, 99.0)) / 10.0).round() / 100.0,
        "atrasoMaxS": (ms(max) / 10.0).round() / 100.0,
        "naoExpirados": nao_expirados,
        "recusas": &recusas[..recusas.len().min(3)],
    }}))
}
