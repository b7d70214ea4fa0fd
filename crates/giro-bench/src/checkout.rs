//! Checkout over HTTP against a real `giro mercado serve` (this binary, as a child process) and,
//! in the same run, `pgbench` with the same transaction — the statements Girô issued, read back
//! from `pg_stat_statements` — so Girô's rate is printed as a ratio of what PostgreSQL allows.
//! Also: each service's start-up time to ready and its resident memory, idle and after the load.
//!
//! The catalogue is 100 products with shelves too deep to run out, one unit per order, so every
//! checkout is the same transaction: lock the product, debit the shelf, insert the order, its
//! item and its reservation (the restock trigger finds the shelf above the minimum).

use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::scratch::{self, Scratch};
use crate::{ms, percentile};

pub struct CheckoutArgs {
    pub admin_url: String,
    pub clientes: usize,
    pub duracao: Duration,
    /// Mercado replicas on the scratch database; more than one puts HAProxy
    /// (`config/haproxy/giro.cfg`) in front of them, and the shoppers go through it.
    pub replicas: usize,
    /// Drive an already running mercado (one replica or a balancer) at this base URL instead:
    /// no scratch database, no pgbench reference; it buys one unit of the products it lists.
    pub url: Option<String>,
    /// The same load again through PgBouncer in transaction mode ([`crate::pgbouncer`]).
    pub pgbouncer: bool,
}

const PRODUTOS: i32 = 100;

fn token() -> String {
    format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())
}

/// `produtos` products on sale (SKUs 7890000000001 on) with shelves too deep to run out and a
/// minimum of 1, so no order ever asks for a restock.
pub(crate) async fn catalogo_fundo(c: &tokio_postgres::Client, produtos: i32) -> anyhow::Result<()> {
    c.execute(
        "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
         SELECT (7890000000000 + g)::text, 'Produto ' || g, 9.99, 1000000000, 1, 1000000000, 'DISPONIVEL' FROM generate_series(1, $1::int) g",
        &[&produtos],
    )
    .await?;
    Ok(())
}

/// What every child service of a bench is given: the scratch databases, fresh service tokens and
/// an operator login, loopback only, and request lines off (as a deployment that only keeps
/// warnings; the start-up line [`iniciar`] reads stays). Ports, peers and switches are the caller's.
pub(crate) fn child_env(mercado: &Scratch, estoque: &Scratch) -> BTreeMap<&'static str, String> {
    let mut env = BTreeMap::new();
    env.insert("MERCADO_DB_URL", mercado.url());
    env.insert("ESTOQUE_DB_URL", estoque.url());
    env.insert("MERCADO_TOKEN_SERVICO", token());
    env.insert("ESTOQUE_TOKEN_SERVICO", token());
    env.insert("OPERADOR_USUARIO", "bench".into());
    env.insert("OPERADOR_SENHA", token());
    env.insert("GIRO_HTTP_ENDERECO", "127.0.0.1".into());
    env.insert("RUST_LOG", "warn,giro_servicos::server=info".into());
    env
}

/// Lifts the per-address bounds: every simulated shopper (or HAProxy in front of the replicas) is
/// 127.0.0.1, so the checkout bounds and the per-address connection cap would stop the run.
pub(crate) fn lift_per_address_bounds(env: &mut BTreeMap<&'static str, String>) {
    env.insert("GIRO_CHECKOUT_MAX_POR_MINUTO", "0".into());
    env.insert("GIRO_CHECKOUT_MAX_UNIDADES_RESERVADAS", "0".into());
    env.insert("GIRO_CHECKOUT_MAX_UNIDADES_POR_PRODUTO", "0".into());
    env.insert("GIRO_HTTP_MAX_CONEXOES_POR_ENDERECO", "100000".into());
}

/// A service started from this binary; its address read from the "listening on" log line.
pub struct Servidor {
    pub child: Child,
    pub addr: String,
    pub pronto_em: Duration,
}

pub async fn iniciar(role: &str, env: &BTreeMap<&str, String>) -> anyhow::Result<Servidor> {
    iniciar_com(role, env, false).await
}

/// [`iniciar`], with the service's embedded publisher on when `publisher`.
pub async fn iniciar_com(
    role: &str,
    env: &BTreeMap<&str, String>,
    publisher: bool,
) -> anyhow::Result<Servidor> {
    let started = Instant::now();
    let mut c = Command::new(std::env::current_exe()?);
    c.args([role, "serve"]);
    if !publisher {
        c.arg("--no-publisher");
    }
    c.env_clear()
        // No configuration file or .env from wherever the bench was started: the shipped defaults.
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Ok(p) = std::env::var("PATH") {
        c.env("PATH", p);
    }
    c.env("RUST_LOG", "info");
    for (k, v) in env {
        c.env(k, v);
    }
    let mut child = c.spawn()?;
    let stderr = child.stderr.take().context("stderr")?;
    let mut lines = BufReader::new(stderr).lines();
    let addr = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await??
            .context("the service exited before listening")?;
        if let Some(i) = line.find("listening on http://") {
            break line[i + "listening on http://".len()..]
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string();
        }
    };
    // Keep draining its log so the pipe never fills.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let http = reqwest::Client::new();
    loop {
        if let Ok(r) = http.get(format!("http://{addr}/readyz")).send().await {
            if r.status().is_success() {
                break;
            }
        }
        anyhow::ensure!(started.elapsed() < Duration::from_secs(30), "{role} not ready in 30 s");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    Ok(Servidor { child, addr, pronto_em: started.elapsed() })
}

/// Resident memory of `pid` now and at its peak (kB), from /proc.
pub fn rss_kb(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

pub async fn run(args: CheckoutArgs) -> anyhow::Result<serde_json::Value> {
    if let Some(base) = &args.url {
        return externo(&args, base.trim_end_matches('/')).await;
    }
    scratch::with_pair(&args.admin_url, async |mercado, estoque| medir(&args, mercado, estoque).await).await
}

async fn medir(
    args: &CheckoutArgs,
    mercado: &Scratch,
    estoque: &Scratch,
) -> anyhow::Result<serde_json::Value> {
    let c = mercado.conectar().await?;
    catalogo_fundo(&c, PRODUTOS).await?;
    let pgss = c
        .batch_execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements; SELECT pg_stat_statements_reset()")
        .await
        .is_ok();

    let mut env = child_env(mercado, estoque);
    env.insert("MERCADO_PORTA", "0".into());
    env.insert("ESTOQUE_PORTA", "0".into());
    env.insert("GIRO_RESERVA_EXPIRACAO_HABILITADA", "false".into());
    env.insert("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "false".into());
    env.insert("GIRO_DB_POOL_MAX", args.clientes.clamp(4, 32).to_string());
    lift_per_address_bounds(&mut env);
    env.insert("GIRO_HTTP_MAX_CONEXOES", "100000".into());

    let mut servicos = serde_json::Map::new();
    let est = iniciar("estoque", &env).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (rss, _) = rss_kb(est.child.id().unwrap_or(0));
    eprintln!("  estoque: ready in {:.0} ms, {} kB RSS idle", est.pronto_em.as_secs_f64() * 1e3, rss);
    servicos.insert("estoque".into(), json!({"prontoMs": ms(est.pronto_em), "rssOciosoKb": rss}));
    drop(est);

    let replicas = args.replicas.max(1);
    let mut mercs = Vec::new();
    for _ in 0..replicas {
        mercs.push(iniciar("mercado", &env).await?);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let pid = mercs[0].child.id().unwrap_or(0);
    let (rss_idle, _) = rss_kb(pid);
    eprintln!(
        "  mercado: ready in {:.0} ms, {} kB RSS idle",
        mercs[0].pronto_em.as_secs_f64() * 1e3,
        rss_idle
    );
    let (_lb, base) = if replicas > 1 {
        let (lb, base) = balancear(&mercs).await?;
        eprintln!("  {replicas} mercado replicas behind HAProxy at {base}");
        (Some(lb), base)
    } else {
        (None, format!("http://{}", mercs[0].addr))
    };

    // Shoppers.
    let skus: Vec<String> = (1..=PRODUTOS).map(|n| format!("{}", 7_890_000_000_000u64 + n as u64)).collect();
    let skus = Arc::new(skus);
    // Without a key, then with a fresh `Idempotency-Key` per order as the storefront sends it,
    // in halves ordered A B B A: the tables grow and autovacuum wakes as the run goes on, and a
    // plain phase always first would hand that drift to the keyed phase as its "cost".
    let metade = args.duracao / 2;
    let mut r = comprar(&base, args.clientes, metade, skus.clone(), false).await?;
    let mut rk = comprar(&base, args.clientes, metade, skus.clone(), true).await?;
    rk.juntar(comprar(&base, args.clientes, metade, skus.clone(), true).await?);
    r.juntar(comprar(&base, args.clientes, metade, skus.clone(), false).await?);
    let (_, rss_pico) = rss_kb(pid);
    eprintln!(
        "  checkout over HTTP, {} shoppers, {replicas} replica(s): {:.0} orders/s, p50 {:.1} ms, p99 {:.1} ms ({} failed); mercado peak RSS {rss_pico} kB",
        args.clientes,
        r.taxa,
        ms(percentile(&r.lat, 50.0)),
        ms(percentile(&r.lat, 99.0)),
        r.falhas
    );
    eprintln!(
        "  the same with an Idempotency-Key per order: {:.0} orders/s ({:.0} % of the rate without), p50 {:.1} ms, p99 {:.1} ms ({} failed)",
        rk.taxa,
        100.0 * rk.taxa / r.taxa.max(f64::MIN_POSITIVE),
        ms(percentile(&rk.lat, 50.0)),
        ms(percentile(&rk.lat, 99.0)),
        rk.falhas
    );
    let com_chave = json!({"pedidos": rk.lat.len(), "falhas": rk.falhas, "pedidosPorSegundo": rk.taxa.round(),
        "p50Ms": ms(percentile(&rk.lat, 50.0)), "p99Ms": ms(percentile(&rk.lat, 99.0)),
        "razaoSemChave": (rk.taxa / r.taxa.max(f64::MIN_POSITIVE) * 1000.0).round() / 1000.0});
    servicos.insert(
        "mercado".into(),
        json!({"prontoMs": ms(mercs[0].pronto_em), "rssOciosoKb": rss_idle, "rssPicoKb": rss_pico}),
    );
    drop(mercs);
    let (taxa, lat, falhas, segundos) = (r.taxa, r.lat, r.falhas, r.segundos);
    let via_pgbouncer = if args.pgbouncer {
        let pgb = crate::pgbouncer::Pgbouncer::start(&mercado.db).await?;
        let porta = mercado.db.pg.get_ports().first().copied().unwrap_or(5432);
        let mut env = env.clone();
        env.insert("MERCADO_DB_URL", pgb.url(&mercado.url(), porta));
        env.insert("GIRO_DB_POOLER", "transacao".into());
        let m = iniciar("mercado", &env).await?;
        let p = comprar(&format!("http://{}", m.addr), args.clientes, args.duracao, skus, false).await?;
        eprintln!(
            "  the same through PgBouncer (transaction mode, db.pooler = transacao): {:.0} orders/s ({:.0} % of direct), p50 {:.1} ms, p99 {:.1} ms ({} failed)",
            p.taxa,
            100.0 * p.taxa / taxa.max(f64::MIN_POSITIVE),
            ms(percentile(&p.lat, 50.0)),
            ms(percentile(&p.lat, 99.0)),
            p.falhas
        );
        json!({"pedidos": p.lat.len(), "falhas": p.falhas, "pedidosPorSegundo": p.taxa.round(),
            "p50Ms": ms(percentile(&p.lat, 50.0)), "p99Ms": ms(percentile(&p.lat, 99.0)),
            "razaoDireto": (p.taxa / taxa.max(f64::MIN_POSITIVE) * 1000.0).round() / 1000.0})
    } else {
        serde_json::Value::Null
    };

    let referencia = if pgss {
        pgbench(&c, mercado, args).await
    } else {
        Err(anyhow::anyhow!("pg_stat_statements is not loaded in this cluster (shared_preload_libraries)"))
    };
    let referencia = match referencia {
        Ok((tps, script)) => {
            eprintln!(
                "  pgbench, same transaction, {} clients: {tps:.0} tps → Girô at {:.0} % of it",
                args.clientes,
                100.0 * taxa / tps
            );
            json!({"pgbenchTps": tps.round(), "razao": (taxa / tps * 1000.0).round() / 1000.0, "script": script})
        }
        Err(e) => {
            eprintln!("  pgbench reference skipped: {e:#}");
            json!({"erro": format!("{e:#}")})
        }
    };
    Ok(json!({
        "checkout": {"clientes": args.clientes, "replicas": replicas, "segundos": segundos, "pedidos": lat.len(), "falhas": falhas, "pedidosPorSegundo": taxa.round(),
                     "p50Ms": ms(percentile(&lat, 50.0)), "p99Ms": ms(percentile(&lat, 99.0)), "referencia": referencia,
                     "comChave": com_chave, "pgbouncer": via_pgbouncer},
        "servicos": servicos,
    }))
}

/// What the shoppers did.
struct Compras {
    lat: Vec<Duration>,
    falhas: usize,
    /// 409: the shelf was empty (only against a running system).
    esgotados: usize,
    segundos: f64,
    taxa: f64,
}

impl Compras {
    /// Adds another phase of the same load: the rate is over both phases' time.
    fn juntar(&mut self, outra: Compras) {
        self.lat.extend(outra.lat);
        self.lat.sort();
        self.falhas += outra.falhas;
        self.esgotados += outra.esgotados;
        self.segundos += outra.segundos;
        self.taxa = self.lat.len() as f64 / self.segundos;
    }
}

/// `clientes` shoppers ordering one unit of a random SKU of `skus` at `{base}/pedidos` for
/// `duracao`; each order with a fresh `Idempotency-Key` when `com_chave`.
async fn comprar(
    base: &str,
    clientes: usize,
    duracao: Duration,
    skus: Arc<Vec<String>>,
    com_chave: bool,
) -> anyhow::Result<Compras> {
    anyhow::ensure!(!skus.is_empty(), "no product to buy at {base}");
    let url = Arc::new(format!("{base}/pedidos"));
    let http = reqwest::Client::builder().http1_only().pool_max_idle_per_host(clientes).build()?;
    let fim = Instant::now() + duracao;
    let mut tarefas = Vec::new();
    for w in 0..clientes {
        let (http, url, skus) = (http.clone(), url.clone(), skus.clone());
        tarefas.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let (mut falhas, mut esgotados) = (0usize, 0usize);
            let mut i = w as u64;
            while Instant::now() < fim {
                i = i.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let sku = &skus[((i >> 33) % skus.len() as u64) as usize];
                let t = Instant::now();
                let mut pedido = http.post(url.as_str()).json(&json!({"itens": [{"sku": sku, "qtd": 1}]}));
                if com_chave {
                    pedido = pedido.header("idempotency-key", uuid::Uuid::new_v4().to_string());
                }
                let status = pedido.send().await.map(|r| r.status().as_u16()).unwrap_or(0);
                match status {
                    201 => lat.push(t.elapsed()),
                    409 => esgotados += 1,
                    _ => falhas += 1,
                }
            }
            (lat, falhas, esgotados)
        }));
    }
    let (mut lat, mut falhas, mut esgotados) = (Vec::new(), 0, 0);
    let inicio = Instant::now();
    for t in tarefas {
        let (l, f, e) = t.await?;
        lat.extend(l);
        falhas += f;
        esgotados += e;
    }
    let segundos = inicio.elapsed().as_secs_f64().max(duracao.as_secs_f64());
    lat.sort();
    let taxa = lat.len() as f64 / segundos;
    Ok(Compras { lat, falhas, esgotados, segundos, taxa })
}

/// HAProxy from `config/haproxy/giro.cfg` over the mercado replicas; returns it and its base URL
/// once it has every replica UP.
async fn balancear(mercs: &[Servidor]) -> anyhow::Result<(super::haproxy::Haproxy, String)> {
    let livre =
        || -> anyhow::Result<u16> { Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port()) };
    let (porta, stats) = (livre()?, livre()?);
    let binds: BTreeMap<String, u16> =
        [("mercado_api".to_string(), porta), ("stats".to_string(), stats)].into_iter().collect();
    let lista: Vec<(String, std::net::SocketAddr)> = mercs
        .iter()
        .enumerate()
        .map(|(i, m)| Ok((format!("mercado{}", i + 1), m.addr.parse()?)))
        .collect::<anyhow::Result<_>>()?;
    let servers: BTreeMap<String, Vec<(String, std::net::SocketAddr)>> =
        [("mercado_api".to_string(), lista.clone()), ("mercado_servicos".to_string(), lista)]
            .into_iter()
            .collect();
    let lb = super::haproxy::Haproxy::start(&super::haproxy::config(&binds, &servers), porta).await?;
    let t0 = Instant::now();
    loop {
        let csv = reqwest::get(format!("http://127.0.0.1:{stats}/;csv")).await?.text().await?;
        let up = csv.lines().filter(|l| l.starts_with("mercado_api,mercado") && l.contains(",UP,")).count();
        if up == mercs.len() {
            break;
        }
        anyhow::ensure!(
            t0.elapsed() < Duration::from_secs(30),
            "HAProxy has {up} of {} replicas UP",
            mercs.len()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    Ok((lb, format!("http://127.0.0.1:{porta}")))
}

/// Shoppers against a running mercado (a replica or a balancer), buying what `GET /produtos` lists.
async fn externo(args: &CheckoutArgs, base: &str) -> anyhow::Result<serde_json::Value> {
    let produtos: Vec<serde_json::Value> = reqwest::get(format!("{base}/produtos"))
        .await
        .with_context(|| format!("GET {base}/produtos"))?
        .error_for_status()?
        .json()
        .await?;
    let skus: Vec<String> = produtos
        .iter()
        .filter(|p| p["status"] == "DISPONIVEL")
        .filter_map(|p| p["sku"].as_str().map(str::to_string))
        .collect();
    eprintln!("  {} products on sale at {base}", skus.len());
    let r = comprar(base, args.clientes, args.duracao, Arc::new(skus), false).await?;
    eprintln!(
        "  checkout over HTTP at {base}, {} shoppers: {:.0} orders/s, p50 {:.1} ms, p99 {:.1} ms ({} sold out, {} failed)",
        args.clientes,
        r.taxa,
        ms(percentile(&r.lat, 50.0)),
        ms(percentile(&r.lat, 99.0)),
        r.esgotados,
        r.falhas
    );
    Ok(json!({
        "checkout": {"url": base, "clientes": args.clientes, "segundos": r.segundos, "pedidos": r.lat.len(),
                     "esgotados": r.esgotados, "falhas": r.falhas, "pedidosPorSegundo": r.taxa.round(),
                     "p50Ms": ms(percentile(&r.lat, 50.0)), "p99Ms": ms(percentile(&r.lat, 99.0))},
    }))
}

/// The checkout's statements as PostgreSQL recorded them, in the order Girô issues them, each
/// with its parameters bound to pgbench variables.
async fn pgbench(
    c: &tokio_postgres::Client,
    mercado: &Scratch,
    args: &CheckoutArgs,
) -> anyhow::Result<(f64, String)> {
    let rows = c
        .query(
            "SELECT query FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid \
              WHERE d.datname = current_database() AND calls > 0",
            &[],
        )
        .await?;
    let textos: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
    let achar = |prefixo: &str, contem: &str| -> anyhow::Result<String> {
        textos
            .iter()
            .find(|q| q.starts_with(prefixo) && q.contains(contem))
            .cloned()
            .with_context(|| format!("statement {prefixo:?} not found in pg_stat_statements"))
    };
    // Parameters as Girô binds them, one order of one unit, followed by the constants of Girô's
    // SQL that pg_stat_statements normalised into further `$n` (e.g. `versao + 1`, 'ATIVA'). It
    // does not always: an entry created without the parse's constant positions keeps the text as
    // sent, its constants literal — then the trailing values are not needed.
    let bind = |q: String, params: &[&str]| -> anyhow::Result<String> {
        let n = (1..=20).filter(|i| q.contains(&format!("${i}"))).count();
        anyhow::ensure!(
            n <= params.len(),
            "statement {q:?} has {n} placeholders, {} values given",
            params.len()
        );
        let params = &params[..n];
        let mut q = q;
        for (i, p) in params.iter().enumerate().rev() {
            q = q.replace(&format!("${}", i + 1), p);
        }
        Ok(q)
    };
    // Casts: in prepared mode pgbench's variables are untyped parameters.
    let pid = "lpad(to_hex(:pid::bigint), 32, '0')::uuid";
    let rid = "lpad(to_hex(:rid::bigint), 32, '0')::uuid";
    let sku = "(7890000000000 + :n::bigint)::text";
    let script = [
        "\\set n random(1, 100)".to_string(),
        "\\set pid random(1, 9000000000000000000)".to_string(),
        "\\set rid random(1, 9000000000000000000)".to_string(),
        "BEGIN;".to_string(),
        format!("{} \\gset", bind(achar("SELECT", "FOR UPDATE")?, &[sku])?),
        format!(
            "{};",
            bind(
                achar("UPDATE produto_vitrine SET estoque_prateleira", "")?,
                &[sku, ":estoque_prateleira::int - 1", "'DISPONIVEL'", "1"]
            )?
        ),
        format!(
            "{};",
            bind(
                achar("INSERT INTO pedido", "")?,
                // The shopper's address (V12's `cliente`), as Girô stores it for the checkout bounds.
                // Dated by the database (`now()` in Girô's SQL, issue 37 §3); it returns the
                // reservations' deadline for the TTL in seconds.
                &[pid, "9.99", "'127.0.0.1'::inet", "900", "'AGUARDANDO_PAGAMENTO'"]
            )?
        ),
        format!("{};", bind(achar("INSERT INTO item_pedido", "")?, &[pid, sku, "1", "9.99"])?),
        format!(
            "{};",
            bind(
                achar("INSERT INTO reserva", "")?,
                // The deadline is the database's now() + the TTL in seconds (issue 30).
                &[rid, sku, "1", pid, "900", "'ATIVA'"]
            )?
        ),
        "COMMIT;".to_string(),
    ]
    .join("\n");
    let path = std::env::temp_dir().join(format!("giro-checkout-{}.sql", std::process::id()));
    std::fs::write(&path, format!("{script}\n"))?;
    let tps = pgbench_file(&mercado.db, &path, args.clientes, args.duracao.as_secs().max(1)).await;
    let _ = std::fs::remove_file(&path);
    Ok((tps?, script))
}

/// Runs pgbench (`-M prepared`) with `file` against `db`; returns its tps.
pub async fn pgbench_file(
    db: &giro_infra::config::DbConfig,
    file: &std::path::Path,
    clientes: usize,
    segundos: u64,
) -> anyhow::Result<f64> {
    let pg = &db.pg;
    let host = match pg.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        _ => "127.0.0.1".into(),
    };
    let out = Command::new(pgbench_bin())
        .args(["-n", "-M", "prepared", "-f"])
        .arg(file)
        .args(["-c", &clientes.to_string(), "-j", "2", "-T", &segundos.to_string()])
        .args([
            "-h",
            &host,
            "-p",
            &pg.get_ports().first().copied().unwrap_or(5432).to_string(),
            "-U",
            pg.get_user().unwrap_or("postgres"),
        ])
        .arg(pg.get_dbname().unwrap_or_default())
        .env(
            "PGPASSWORD",
            pg.get_password().map(|p| String::from_utf8_lossy(p).into_owned()).unwrap_or_default(),
        )
        .output()
        .await
        .context("running pgbench")?;
    let text = String::from_utf8_lossy(&out.stdout);
    anyhow::ensure!(out.status.success(), "pgbench failed: {}{}", text, String::from_utf8_lossy(&out.stderr));
    let tps = text
        .lines()
        .find(|l| l.starts_with("tps = "))
        .and_then(|l| l.trim_start_matches("tps = ").split_whitespace().next())
        .and_then(|v| v.parse::<f64>().ok())
        .context("no tps in pgbench's output")?;
    Ok(tps)
}

fn pgbench_bin() -> String {
    for d in ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"] {
        let p = format!("{d}/pgbench");
        if std::path::Path::new(&p).is_file() {
            return p;
        }
    }
    "pgbench".into()
}
