//! Replicas behind a real HAProxy (issue 16): [`Haproxy`] runs `config/haproxy/giro.cfg` with the
//! test's ports, and [`Frota`] (fleet) runs N replicas of each service on the same databases with
//! every peer URL pointing at the balancer, as the README's "Scaling out" deploys them.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use giro_dev::demo::{self, CATALOGO};
use giro_servicos::config::Servico;
use serde_json::{json, Value};

use super::e2e::{blocking, free_port};
use super::process::{env_base, scratch_dir, Giro};
use super::{wait_until, OPERADOR, SENHA};

/// The haproxy binary: `scripts/haproxy-setup` installs it when missing and prints its path.
pub fn haproxy_bin() -> String {
    let script = format!("{}/scripts/haproxy-setup", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(&script).output().unwrap_or_else(|e| panic!("{script}: {e}"));
    assert!(out.status.success(), "{script} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `config/haproxy/giro.cfg` with the test's addresses ([`giro_bench::haproxy::config`]); every
/// section given must be in the file.
pub fn config(
    binds: &BTreeMap<String, u16>,
    servers: &BTreeMap<String, Vec<(String, SocketAddr)>>,
) -> String {
    let c = giro_bench::haproxy::config(binds, servers);
    for (n, p) in binds {
        assert!(c.contains(&format!("bind 127.0.0.1:{p}\n")), "giro.cfg has no section {n} to bind");
    }
    for (n, list) in servers {
        assert!(c.contains(&format!("backend {n}\n")), "giro.cfg has no backend {n}");
        assert!(list.iter().all(|(_, a)| c.contains(&a.to_string())), "servers of {n} missing");
    }
    c
}

/// A running HAProxy; killed when dropped.
pub struct Haproxy {
    pub proc: Giro,
    pub stats_port: u16,
    pub path: PathBuf,
}

impl Haproxy {
    pub async fn start(
        binds: &BTreeMap<String, u16>,
        servers: &BTreeMap<String, Vec<(String, SocketAddr)>>,
    ) -> Haproxy {
        let bin = blocking(haproxy_bin);
        let path = scratch_dir().join("giro.cfg");
        std::fs::write(&path, config(binds, servers)).expect("write haproxy config");
        let check = Command::new(&bin).arg("-c").arg("-f").arg(&path).output().expect("haproxy -c");
        assert!(check.status.success(), "haproxy -c: {}", String::from_utf8_lossy(&check.stderr));
        let mut c = Command::new(&bin);
        // -db: foreground, no master process; killing this child stops the balancer.
        c.arg("-db").arg("-f").arg(&path);
        let proc = Giro::spawn_command(c);
        let stats_port = binds["stats"];
        let url = format!("http://127.0.0.1:{stats_port}/;csv");
        wait_until(Duration::from_secs(20), "haproxy's statistics page", || async {
            reqwest::get(&url).await.ok().filter(|r| r.status() == 200).map(|_| ())
        })
        .await;
        Haproxy { proc, stats_port, path }
    }

    /// The stats page (CSV): the index of each of `colunas`, and the row of each server (not the
    /// FRONTEND and BACKEND summaries) that has them all.
    async fn stats(&self, colunas: &[&str]) -> (Vec<usize>, Vec<Vec<String>>) {
        let text = reqwest::get(format!("http://127.0.0.1:{}/;csv", self.stats_port))
            .await
            .expect("stats")
            .text()
            .await
            .expect("stats text");
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap_or("").trim_start_matches("# ").split(',').collect();
        let col = |n: &str| header.iter().position(|h| *h == n).unwrap_or_else(|| panic!("stats column {n}"));
        let indices: Vec<usize> = colunas.iter().map(|&n| col(n)).collect();
        let (sv, ultima) = (col("svname"), indices.iter().copied().max().unwrap_or(0));
        let linhas = lines
            .map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>())
            .filter(|f| f.len() > ultima.max(sv) && f[sv] != "FRONTEND" && f[sv] != "BACKEND")
            .collect();
        (indices, linhas)
    }

    /// `status` of every server, per (backend, server): "UP", "DOWN", "UP 1/2", …
    pub async fn estados(&self) -> BTreeMap<(String, String), String> {
        let (c, linhas) = self.stats(&["pxname", "svname", "status"]).await;
        let (px, sv, st) = (c[0], c[1], c[2]);
        linhas.into_iter().map(|f| ((f[px].clone(), f[sv].clone()), f[st].clone())).collect()
    }

    /// How many times any server went from UP to DOWN so far (the `chkdown` counters).
    pub async fn quedas(&self) -> u64 {
        let (c, linhas) = self.stats(&["chkdown"]).await;
        linhas.iter().filter_map(|f| f[c[0]].parse::<u64>().ok()).sum()
    }

    /// Waits until every server of every backend is UP.
    pub async fn todos_up(&self, timeout: Duration) {
        wait_until(timeout, "every server UP in haproxy", || async {
            self.estados().await.values().all(|st| st == "UP").then_some(())
        })
        .await;
    }

    /// Waits until server `srv` is `want` ("UP" or "DOWN") in every backend that has it.
    pub async fn esperar(&self, srv: &str, want: &str, timeout: Duration) {
        wait_until(timeout, &format!("{srv} {want} in haproxy"), || async {
            let e = self.estados().await;
            let mine: Vec<_> = e.iter().filter(|((_, s), _)| s == srv).collect();
            (!mine.is_empty() && mine.iter().all(|(_, st)| st.as_str() == want)).then_some(())
        })
        .await;
    }
}

/// One replica's ports: its API and its web front.
#[derive(Clone, Copy, Debug)]
pub struct Portas {
    pub api: u16,
    pub web: u16,
}

/// N replicas of each service on the same databases, behind one HAProxy.
pub struct Frota {
    pub mercado_db_url: String,
    pub estoque_db_url: String,
    pub lb: Haproxy,
    pub portas_lb: BTreeMap<String, u16>,
    pub portas: BTreeMap<(Servico, usize), Portas>,
    pub procs: BTreeMap<(Servico, usize), Giro>,
    old_logs: Vec<String>,
    extra: Vec<(&'static str, String)>,
    web_dir: PathBuf,
}

pub fn nome(s: Servico, i: usize) -> String {
    format!("{}{}", s.nome(), i + 1)
}

impl Frota {
    /// `n` replicas per service (started and UP in the balancer), `extra` environment for every one.
    pub async fn new(
        mercado_db_url: String,
        estoque_db_url: String,
        n: usize,
        extra: &[(&'static str, &str)],
    ) -> Frota {
        let web_dir = scratch_dir();
        std::fs::write(web_dir.join("index.html"), "<!doctype html><title>giro</title>").expect("index.html");
        let mut portas = BTreeMap::new();
        for s in [Servico::Mercado, Servico::Estoque] {
            for i in 0..n {
                portas.insert((s, i), Portas { api: free_port(), web: free_port() });
            }
        }
        let portas_lb: BTreeMap<String, u16> = ["mercado_api", "estoque_api", "vitrine", "painel", "stats"]
            .iter()
            .map(|n| (n.to_string(), free_port()))
            .collect();
        let lista = |s: Servico, web: bool| -> Vec<(String, SocketAddr)> {
            (0..n)
                .map(|i| {
                    let p = portas[&(s, i)];
                    let port = if web { p.web } else { p.api };
                    (nome(s, i), SocketAddr::from(([127, 0, 0, 1], port)))
                })
                .collect()
        };
        let servers: BTreeMap<String, Vec<(String, SocketAddr)>> = [
            ("mercado_api", lista(Servico::Mercado, false)),
            ("mercado_servicos", lista(Servico::Mercado, false)),
            ("vitrine", lista(Servico::Mercado, true)),
            ("estoque_api", lista(Servico::Estoque, false)),
            ("estoque_servicos", lista(Servico::Estoque, false)),
            ("painel", lista(Servico::Estoque, true)),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let lb = Haproxy::start(&portas_lb, &servers).await;
        let mut frota = Frota {
            mercado_db_url,
            estoque_db_url,
            lb,
            portas_lb,
            portas,
            procs: BTreeMap::new(),
            old_logs: Vec::new(),
            extra: extra.iter().map(|(k, v)| (*k, v.to_string())).collect(),
            web_dir,
        };
        // estoque first: mercado's product lookups and events go to it.
        for s in [Servico::Estoque, Servico::Mercado] {
            for i in 0..n {
                frota.spawn(s, i).await;
            }
        }
        for s in [Servico::Estoque, Servico::Mercado] {
            for i in 0..n {
                frota.lb.esperar(&nome(s, i), "UP", Duration::from_secs(120)).await;
            }
        }
        frota
    }

    pub fn url(&self, frontend: &str) -> String {
        format!("http://127.0.0.1:{}", self.portas_lb[frontend])
    }

    pub fn mercado_url(&self) -> String {
        self.url("mercado_api")
    }

    pub fn estoque_url(&self) -> String {
        self.url("estoque_api")
    }

    fn env(&self, s: Servico, i: usize) -> BTreeMap<&'static str, String> {
        let p = self.portas[&(s, i)];
        let mut env = env_base([
            ("GIRO_HTTP_PRAZO_DESLIGAMENTO", "5s".to_string()),
            ("GIRO_DB_POOL_MAX", "6".to_string()),
            // A loaded test machine: a pool slot or a connection may take seconds.
            ("GIRO_DB_TIMEOUT", "30s".to_string()),
            ("GIRO_OUTBOX_INTERVALO", "250ms".to_string()),
            // The balancer is the trusted proxy whose X-Forwarded-For names the client; every
            // shopper here is 127.0.0.1, so the per-address checkout limits are lifted.
            ("GIRO_HTTP_PROXIES_CONFIAVEIS", "127.0.0.1".to_string()),
            ("GIRO_CHECKOUT_MAX_POR_MINUTO", "1000000".to_string()),
            ("GIRO_CHECKOUT_MAX_UNIDADES_RESERVADAS", "1000000000".to_string()),
            ("GIRO_CHECKOUT_MAX_UNIDADES_POR_PRODUTO", "0".to_string()),
            // Every peer URL is the balancer's.
            ("ESTOQUE_URL", self.estoque_url()),
            ("ESTOQUE_EVENTOS_URL", self.estoque_url()),
            ("MERCADO_EVENTOS_URL", self.mercado_url()),
            // No tag-worker: products stay unclassified (SPEC §7.4), which these tests do not look at.
            ("TAG_WORKER_URL", format!("http://127.0.0.1:{}", free_port())),
            ("GIRO_TAGS_RECLASSIFICACAO_HABILITADA", "false".to_string()),
        ]);
        match s {
            Servico::Mercado => {
                env.insert("MERCADO_DB_URL", self.mercado_db_url.clone());
                env.insert("MERCADO_PORTA", p.api.to_string());
                env.insert("GIRO_WEB_PORTA_VITRINE", p.web.to_string());
                env.insert("GIRO_WEB_DIR_VITRINE", self.web_dir.display().to_string());
            }
            Servico::Estoque => {
                env.insert("ESTOQUE_DB_URL", self.estoque_db_url.clone());
                env.insert("ESTOQUE_PORTA", p.api.to_string());
                env.insert("GIRO_WEB_PORTA_PAINEL", p.web.to_string());
                env.insert("GIRO_WEB_DIR_PAINEL", self.web_dir.display().to_string());
            }
        }
        for (k, v) in &self.extra {
            env.insert(k, v.clone());
        }
        env
    }

    /// Starts replica `i` of `s` (on its fixed ports) and waits for its listener.
    pub async fn spawn(&mut self, s: Servico, i: usize) {
        assert!(!self.procs.contains_key(&(s, i)), "{} already running", nome(s, i));
        let mut g = Giro::spawn(&[s.nome(), "serve"], &self.env(s, i));
        g.wait_listening().await;
        self.procs.insert((s, i), g);
    }

    /// Starts replica `i` of `s` and waits until the balancer has it UP again.
    pub async fn restart(&mut self, s: Servico, i: usize) {
        self.spawn(s, i).await;
        self.lb.esperar(&nome(s, i), "UP", Duration::from_secs(30)).await;
    }

    /// `kill -9`.
    pub async fn kill(&mut self, s: Servico, i: usize) {
        let mut g = self.procs.remove(&(s, i)).expect("running replica");
        g.signal("KILL");
        assert!(g.wait_exit(Duration::from_secs(10)).await.is_some(), "survived kill -9");
        self.old_logs.push(format!("===== {} (killed)\n{}", nome(s, i), g.log()));
    }

    /// SIGTERM and a clean exit.
    pub async fn stop(&mut self, s: Servico, i: usize) {
        let mut g = self.procs.remove(&(s, i)).expect("running replica");
        g.signal("TERM");
        let st = g.wait_exit(Duration::from_secs(20)).await;
        let log = g.log();
        self.old_logs.push(format!("===== {} (stopped)\n{log}", nome(s, i)));
        assert!(st.is_some_and(|st| st.success()), "{} after SIGTERM: {st:?}\n{log}", nome(s, i));
    }

    /// A separate `giro publisher` relaying both outboxes (beside the replicas' embedded ones).
    pub async fn spawn_publisher(&mut self) -> Giro {
        let mut env = self.env(Servico::Mercado, 0);
        env.insert("ESTOQUE_DB_URL", self.estoque_db_url.clone());
        let mut g = Giro::spawn(&["publisher"], &env);
        g.wait_for_line("ready: the database answered", Duration::from_secs(30)).await;
        g
    }

    /// Lots for the whole demo catalogue, then its products, through the balancer; waits until
    /// every shelf is restocked. Returns the two operators (estoque, mercado).
    pub async fn carregar_demo(&self) -> (Op, Op) {
        let (oe, (s, _, _)) = Op::login(&self.estoque_url(), "XSRF-ESTOQUE").await;
        assert_eq!(s, 204, "estoque login");
        let (om, (s, _, _)) = Op::login(&self.mercado_url(), "XSRF-MERCADO").await;
        assert_eq!(s, 204, "mercado login");
        for (i, item) in CATALOGO.iter().enumerate() {
            oe.must("POST", "/lotes", Some(&lote(item.sku, &format!("L-DEMO-{i}"))), 201).await;
        }
        for item in CATALOGO {
            let preco: Value = serde_json::from_str(item.preco).expect("price");
            let body = json!({"sku": item.sku, "nome": item.nome, "preco": preco,
                              "estoqueMinimo": item.minimo, "estoqueIdeal": item.ideal});
            om.must("POST", "/produtos", Some(&body), 201).await;
        }
        let url = format!("{}/produtos", self.mercado_url());
        wait_until(Duration::from_secs(60), "every shelf restocked", || async {
            let ps: Vec<Value> = reqwest::get(&url).await.ok()?.json().await.ok()?;
            (ps.len() == CATALOGO.len() && ps.iter().all(|p| p["status"] == "DISPONIVEL")).then_some(())
        })
        .await;
        (oe, om)
    }

    /// The PID of a running replica (for its RSS).
    pub fn pid(&self, s: Servico, i: usize) -> u32 {
        self.procs[&(s, i)].child.id()
    }

    /// Panics if a replica that should run has died.
    pub fn assert_alive(&mut self) {
        for ((s, i), g) in self.procs.iter_mut() {
            if let Ok(Some(st)) = g.child.try_wait() {
                panic!("{} died ({st}):\n{}", nome(*s, *i), g.log());
            }
        }
    }
}

impl Drop for Frota {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let path = std::env::temp_dir().join(format!("giro-frota-{}.log", uuid::Uuid::new_v4()));
            let mut text = self.old_logs.join("\n");
            for ((s, i), g) in &self.procs {
                text.push_str(&format!("\n===== {} (running)\n{}", nome(*s, *i), g.log()));
            }
            text.push_str(&format!("\n===== haproxy\n{}", self.lb.proc.log()));
            let _ = std::fs::write(&path, text);
            eprintln!("logs of every replica and the balancer: {}", path.display());
        }
        self.procs.clear();
    }
}

/// Resident memory of process `pid`, in KiB (`VmRSS` of /proc/PID/status).
pub fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .expect("VmRSS")
}

/// An operator talking to a balancer, who notes which replica answered each request.
#[derive(Clone)]
pub struct Op {
    http: reqwest::Client,
    pub base: String,
    cookie: String,
    csrf: String,
}

/// (status, replica that answered, body).
pub type Resposta = (u16, String, Value);

impl Op {
    pub async fn login(base: &str, csrf_cookie: &str) -> (Op, Resposta) {
        let http = reqwest::Client::builder().timeout(Duration::from_secs(15)).build().expect("client");
        let csrf = uuid::Uuid::new_v4().simple().to_string();
        let res = http
            .post(format!("{base}/sessao"))
            .header("cookie", format!("{csrf_cookie}={csrf}"))
            .header("x-xsrf-token", &csrf)
            .form(&[("usuario", OPERADOR), ("senha", SENHA)])
            .send()
            .await
            .expect("login");
        let status = res.status().as_u16();
        let replica = replica(&res);
        let mut cookies = Vec::new();
        let mut token = csrf;
        for v in res.headers().get_all("set-cookie") {
            let kv = v.to_str().unwrap_or("").split(';').next().unwrap_or("").to_string();
            match kv.strip_prefix(&format!("{csrf_cookie}=")) {
                Some(t) => token = t.to_string(),
                None => cookies.push(kv),
            }
        }
        cookies.push(format!("{csrf_cookie}={token}"));
        let op = Op { http, base: base.to_string(), cookie: cookies.join("; "), csrf: token };
        (op, (status, replica, Value::Null))
    }

    /// The same session on another base URL (a web listener's `/api`).
    pub fn at(&self, base: String) -> Op {
        Op { base, ..self.clone() }
    }

    pub async fn call(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Resposta, reqwest::Error> {
        let url = format!("{}{path}", self.base);
        let mut rb = match method {
            "GET" => self.http.get(url),
            "POST" => self.http.post(url),
            "DELETE" => self.http.delete(url),
            m => panic!("method {m}"),
        };
        rb = rb.header("cookie", &self.cookie).header("x-xsrf-token", &self.csrf);
        if let Some(b) = body {
            rb = rb.json(b);
        }
        let res = rb.send().await?;
        let status = res.status().as_u16();
        let replica = replica(&res);
        Ok((status, replica, res.json().await.unwrap_or(Value::Null)))
    }

    /// `call`, sent again while the balancer answers a 503 itself (no replica named): such a
    /// request reached no replica — every one was out of its health check for the moment, as on
    /// a loaded machine whose database answers /readyz late — so nothing was done, and an operator
    /// would simply try again. Up to 120 s.
    pub async fn servida(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Resposta, reqwest::Error> {
        let fim = std::time::Instant::now() + Duration::from_secs(120);
        loop {
            let r = self.call(method, path, body).await?;
            if r.0 != 503 || r.1 != "?" || std::time::Instant::now() >= fim {
                return Ok(r);
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    pub async fn must(&self, method: &str, path: &str, body: Option<&Value>, want: u16) -> String {
        let (status, replica, answer) =
            self.servida(method, path, body).await.unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        assert_eq!(status, want, "{method} {path} on {replica}: {answer}");
        replica
    }
}

fn replica(res: &reqwest::Response) -> String {
    res.headers().get("x-giro-replica").and_then(|v| v.to_str().ok()).unwrap_or("?").to_string()
}

pub fn alternam(servidos: &[String], what: &str) {
    assert!(servidos.iter().all(|r| r != "?"), "{what}: every answer names its replica: {servidos:?}");
    for w in servidos.windows(2) {
        assert_ne!(w[0], w[1], "{what}: consecutive requests on the same replica: {servidos:?}");
    }
}

pub fn lote(sku: &str, codigo: &str) -> Value {
    let item = CATALOGO.iter().find(|i| i.sku == sku).expect("demo sku");
    let validade = (demo::hoje_sao_paulo() + chrono::Duration::days(120)).to_string();
    json!({"sku": sku, "descricao": item.descricao, "ncm": item.ncm, "codigoLote": codigo,
           "quantidade": demo::QUANTIDADE_LOTE, "validade": validade})
}

/// The operator on estoque under load: reads the dashboard and enters a lot for every SKU with
/// pent-up demand, in a loop, through the balancer (a 503 the balancer answers itself is sent
/// again, [`Op::servida`]). Every answer other than the expected one is
/// noted (with the instant) for the test to judge.
pub struct Painel {
    stop: Arc<AtomicBool>,
    pub ok: Arc<AtomicU64>,
    pub lotes: Arc<AtomicU64>,
    pub falhas: Arc<Mutex<Vec<String>>>,
    handle: tokio::task::JoinHandle<()>,
}

impl Painel {
    pub fn start(op: Op) -> Painel {
        let stop = Arc::new(AtomicBool::new(false));
        let ok = Arc::new(AtomicU64::new(0));
        let lotes = Arc::new(AtomicU64::new(0));
        let falhas = Arc::new(Mutex::new(Vec::new()));
        let (st, okc, lc, fa) = (stop.clone(), ok.clone(), lotes.clone(), falhas.clone());
        let handle = tokio::spawn(async move {
            let mut n = 0u64;
            let falha = |x: String| fa.lock().unwrap().push(x);
            while !st.load(Ordering::SeqCst) {
                n += 1;
                let path = ["/painel/resumo", "/painel/demandas", "/painel/reposicoes"][n as usize % 3];
                let demandas = match op.servida("GET", path, None).await {
                    Ok((200, _, d)) => {
                        okc.fetch_add(1, Ordering::SeqCst);
                        d
                    }
                    Ok((s, rep, b)) => {
                        falha(format!("GET {path}: {s} from {rep}: {b}"));
                        Value::Null
                    }
                    Err(e) => {
                        falha(format!("GET {path}: no answer: {e}"));
                        Value::Null
                    }
                };
                let mut skus: Vec<String> = if path == "/painel/demandas" {
                    demandas
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|d| d["sku"].as_str().map(str::to_string))
                        .collect()
                } else {
                    Vec::new()
                };
                skus.sort();
                skus.dedup();
                for sku in skus {
                    let body = lote(&sku, &format!("L-REP-{n:05}-{}", &sku[sku.len() - 4..]));
                    match op.servida("POST", "/lotes", Some(&body)).await {
                        Ok((201, _, _)) => {
                            okc.fetch_add(1, Ordering::SeqCst);
                            lc.fetch_add(1, Ordering::SeqCst);
                        }
                        Ok((s, rep, b)) => falha(format!("POST /lotes: {s} from {rep}: {b}")),
                        Err(e) => falha(format!("POST /lotes: no answer: {e}")),
                    }
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        });
        Painel { stop, ok, lotes, falhas, handle }
    }

    pub async fn parar(self) -> (u64, Vec<String>) {
        self.stop.store(true, Ordering::SeqCst);
        self.handle.await.expect("painel task");
        (self.ok.load(Ordering::SeqCst), self.falhas.lock().unwrap().clone())
    }
}
