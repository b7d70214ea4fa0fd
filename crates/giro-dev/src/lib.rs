//! `giro dev` (SPEC §9.3): one command for a complete local market — the private PostgreSQL
//! cluster (`scripts/pg`, 127.0.0.1:15432), both databases migrated, estoque and mercado (each
//! with its embedded publisher) as child processes, the tag-worker when its virtualenv is there,
//! the web fronts when built, the demo catalogue loaded through the public APIs, and the URLs and
//! operator login printed. Ctrl-C (or SIGTERM) stops everything, the cluster too when `giro dev`
//! started it.
//!
//! Development secrets are generated once into `.env` in the working directory (ignored by git),
//! which the services read as any deployment's `.env`. The checkout (for `scripts/pg`,
//! `tag-worker/`, `web/`) is the working directory when it has `scripts/pg`, else the source
//! tree the binary was built from.

pub mod cliente;
pub mod demo;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use anyhow::Context;
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

use giro_infra::config::secret::random_token;
use giro_servicos::config::{Config, Layers, Sources};

fn checkout() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    if cwd.join("scripts/pg").is_file() {
        cwd
    } else {
        // The checkout this crate was built from: crates/giro-dev/../..
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
    }
}

/// Writes `.env` with development secrets unless it exists; returns true when written.
fn ensure_dotenv(path: &Path) -> anyhow::Result<bool> {
    if path.exists() {
        return Ok(false);
    }
    let senha = &random_token()[..16];
    let text = format!(
        "{MARCA_DOTENV}; never use them in production.\n\
         MERCADO_TOKEN_SERVICO={}\nESTOQUE_TOKEN_SERVICO={}\nOPERADOR_USUARIO=operador\nOPERADOR_SENHA={senha}\n",
        random_token(),
        random_token()
    );
    std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(true)
}

struct Processo {
    nome: &'static str,
    child: Child,
}

async fn terminate(ps: &mut [Processo], grace: Duration) {
    for p in ps.iter() {
        if let Some(pid) = p.child.id() {
            let _ = Command::new("kill").arg("-TERM").arg(pid.to_string()).status().await;
        }
    }
    for p in ps.iter_mut() {
        match tokio::time::timeout(grace, p.child.wait()).await {
            Ok(_) => {}
            Err(_) => {
                eprintln!("giro dev: {} did not stop in time; killing it", p.nome);
                let _ = p.child.kill().await;
            }
        }
    }
}

async fn wait_ready(url: &str, what: &str, ps: &mut [Processo]) -> anyhow::Result<()> {
    let http = reqwest::Client::builder().timeout(Duration::from_secs(2)).build()?;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    loop {
        if let Ok(r) = http.get(url).send().await {
            if r.status().is_success() {
                return Ok(());
            }
        }
        for p in ps.iter_mut() {
            if let Ok(Some(status)) = p.child.try_wait() {
                anyhow::bail!("{} exited ({status}) before {what} was ready", p.nome);
            }
        }
        anyhow::ensure!(tokio::time::Instant::now() < deadline, "{what} not ready after 30 s ({url})");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Newest modification time of the files under `dir` (recursively).
fn newest(dir: &Path) -> Option<std::time::SystemTime> {
    let mut best = None;
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        let t = if p.is_dir() { newest(&p) } else { e.metadata().ok().and_then(|m| m.modified().ok()) };
        best = best.max(t);
    }
    best
}

/// Builds the web fronts with npm when it is there and a build is missing or older than the
/// sources; a failure is reported and the market starts without them.
async fn build_web(root: &Path) {
    let web = root.join("web");
    if !web.join("package.json").is_file() || std::env::var_os("GIRO_DEV_SEM_WEB").is_some() {
        return;
    }
    let fontes =
        ["vitrine", "painel", "shared"].iter().filter_map(|d| newest(&web.join(d).join("src"))).max();
    let builds = ["vitrine", "painel"]
        .iter()
        .map(|d| std::fs::metadata(web.join(d).join("dist/index.html")).and_then(|m| m.modified()).ok())
        .collect::<Option<Vec<_>>>()
        .and_then(|v| v.into_iter().min());
    if matches!((fontes, builds), (Some(f), Some(b)) if b >= f) {
        return;
    }
    let npm = |args: &'static [&'static str]| {
        let web = web.clone();
        async move {
            Command::new("npm")
                .args(args)
                .current_dir(&web)
                .stdin(Stdio::null())
                // npm's and Vite's summaries, on stderr with the rest of `giro dev`'s talk.
                .stdout(std::io::stderr())
                .status()
                .await
        }
    };
    if !web.join("node_modules").is_dir() {
        eprintln!("giro dev: installing the web fronts' packages (npm ci)…");
        match npm(&["ci", "--no-audit", "--no-fund", "--loglevel=error"]).await {
            Ok(s) if s.success() => {}
            Ok(_) | Err(_) => {
                eprintln!("giro dev: npm ci failed or npm is missing; the web fronts are not served");
                return;
            }
        }
    }
    eprintln!("giro dev: building the web fronts (npm run build, under a minute)…");
    match npm(&["run", "build"]).await {
        Ok(s) if s.success() => {}
        _ => eprintln!("giro dev: the web build failed; the web fronts are not served"),
    }
}

/// `giro dev`: starts the private cluster unless it runs already, and stops it again at the end
/// when it started it, whatever way the market ends.
pub async fn run(
    config_file: Option<PathBuf>,
    com_falhas: bool,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let root = checkout();
    let pg = root.join("scripts/pg");
    let running = Command::new(&pg).arg("status").stdin(Stdio::null()).stdout(Stdio::null()).status().await;
    let started_here = !matches!(running, Ok(s) if s.success());
    let out = Command::new(&pg)
        .arg("start")
        .stdin(Stdio::null())
        .output()
        .await
        .with_context(|| format!("running {}", pg.display()))?;
    anyhow::ensure!(
        out.status.success(),
        "scripts/pg start failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("giro dev: PostgreSQL running ({})", String::from_utf8_lossy(&out.stdout).trim());
    let result = market(&root, config_file, com_falhas, shutdown).await;
    if started_here {
        eprintln!("giro dev: stopping the PostgreSQL cluster it started (scripts/pg stop)");
        let _ = Command::new(&pg).arg("stop").stdin(Stdio::null()).stdout(Stdio::null()).status().await;
    } else {
        eprintln!("giro dev: the PostgreSQL cluster was running before and keeps running (scripts/pg stop stops it)");
    }
    result
}

/// The database URLs of the private cluster (`scripts/pg`, on `GIRO_PG_PORT` or its 15432), for
/// each database no layer of the configuration names (a file, `.env`, the environment). They are
/// `giro dev`'s alone: the built-in defaults have no database URL, so a server never reaches a
/// development database by omission (issue 37 §3).
fn urls_do_cluster(layers: &Layers) -> Vec<(&'static str, &'static str, String)> {
    let port = std::env::var("GIRO_PG_PORT").unwrap_or_else(|_| "15432".to_string());
    [("mercado.db-url", "MERCADO_DB_URL", "mercado"), ("estoque.db-url", "ESTOQUE_DB_URL", "estoque")]
        .into_iter()
        .filter(|(key, _, _)| layers.get(key).is_none_or(|(v, _)| v.trim().is_empty()))
        .map(|(key, var, db)| (key, var, format!("postgres://{db}:{db}@127.0.0.1:{port}/{db}")))
        .collect()
}

/// The operator password when it is the development one `giro dev` wrote into `.env`: that one
/// is printed in the banner; any other is the user's and is not.
fn senha_de_desenvolvimento(cwd: &Path, senha: &str) -> Option<String> {
    let dotenv = std::fs::read_to_string(cwd.join(".env")).ok()?;
    let nossa = dotenv.starts_with(MARCA_DOTENV)
        && std::env::var_os("OPERADOR_SENHA").is_none()
        && dotenv.lines().any(|l| l.strip_prefix("OPERADOR_SENHA=") == Some(senha));
    nossa.then(|| senha.to_string())
}

const MARCA_DOTENV: &str = "# Development secrets written by `giro dev`";

async fn market(
    root: &Path,
    config_file: Option<PathBuf>,
    com_falhas: bool,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    let root = root.to_path_buf();
    let cwd = std::env::current_dir()?;
    if ensure_dotenv(&cwd.join(".env"))? {
        eprintln!("giro dev: wrote development secrets to {}", cwd.join(".env").display());
    }
    // Read again: the `.env` may be new. The children get the cluster's URLs in their environment.
    let mut sources = Sources::from_process(config_file, Vec::new());
    let cluster = urls_do_cluster(&Layers::resolve(&sources)?);
    sources.flags = cluster.iter().map(|(key, _, url)| (*key, url.clone(), "giro dev")).collect();
    let config = Config::load(&sources)?;
    let operador = config.operador()?;
    for s in [giro_servicos::config::Servico::Mercado, giro_servicos::config::Servico::Estoque] {
        giro_servicos::migrate::run(s, config.db(s)?).await.with_context(|| format!("migrating {s}"))?;
    }

    let exe = std::env::current_exe()?;
    let mut ps = Vec::new();
    let venv_python = root.join("tag-worker/.venv/bin/python");
    if venv_python.is_file() {
        let port = config
            .tags
            .worker_url
            .rsplit(':')
            .next()
            .and_then(|p| p.trim_end_matches('/').parse::<u16>().ok())
            .unwrap_or(18000);
        let child = Command::new(&venv_python)
            .args(["-m", "app.cli", "--host", "127.0.0.1", "--port", &port.to_string()])
            .current_dir(root.join("tag-worker"))
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("starting the tag-worker")?;
        ps.push(Processo { nome: "tag-worker", child });
    } else {
        eprintln!("giro dev: tag-worker not started (no virtualenv; run scripts/tag-worker-setup): products stay unclassified");
    }
    build_web(&root).await;
    let mut web_env = Vec::new();
    for (var, dir) in
        [("GIRO_WEB_DIR_VITRINE", "web/vitrine/dist"), ("GIRO_WEB_DIR_PAINEL", "web/painel/dist")]
    {
        if root.join(dir).join("index.html").is_file() && std::env::var_os(var).is_none() {
            web_env.push((var, root.join(dir)));
        }
    }
    for role in ["estoque", "mercado"] {
        let mut c = Command::new(&exe);
        c.args([role, "serve"]).stdin(Stdio::null()).kill_on_drop(true);
        for (k, v) in &web_env {
            c.env(k, v);
        }
        for (_, var, url) in &cluster {
            c.env(var, url);
        }
        let child = c.spawn().with_context(|| format!("starting giro {role} serve"))?;
        ps.push(Processo { nome: if role == "estoque" { "estoque" } else { "mercado" }, child });
    }

    let estoque_url = format!("http://127.0.0.1:{}", config.estoque.porta);
    let mercado_url = format!("http://127.0.0.1:{}", config.mercado.porta);
    let tag_worker =
        ps.iter().any(|p| p.nome == "tag-worker").then(|| format!("{}/saude", config.tags.worker_url));
    let ready = async {
        if let Some(url) = &tag_worker {
            // Classification at intake needs the worker up; without it the demo loads unclassified.
            if let Err(e) = wait_ready(url, "the tag-worker", &mut ps).await {
                eprintln!("giro dev: {e:#}; going on without classification");
            }
        }
        wait_ready(&format!("{estoque_url}/readyz"), "estoque", &mut ps).await?;
        wait_ready(&format!("{mercado_url}/readyz"), "mercado", &mut ps).await?;
        let e = cliente::Operador::login(
            &estoque_url,
            "XSRF-ESTOQUE",
            &operador.usuario,
            operador.senha.expose(),
        )
        .await?;
        let m = cliente::Operador::login(
            &mercado_url,
            "XSRF-MERCADO",
            &operador.usuario,
            operador.senha.expose(),
        )
        .await?;
        let carga = demo::carregar(&e, &m).await?;
        if com_falhas {
            falhas(&config).await?;
        }
        Ok(carga)
    };
    let carga = tokio::select! {
        r = ready => r,
        _ = shutdown.cancelled() => {
            terminate(&mut ps, config.prazo_desligamento).await;
            return Ok(());
        }
    };
    let carga = match carga {
        Ok(c) => c,
        Err(e) => {
            terminate(&mut ps, config.prazo_desligamento).await;
            return Err(e);
        }
    };
    eprintln!(
        "\ngiro dev: the market is up (demo catalogue: {} lots and {} products loaded now)\n  \
         mercado API  {mercado_url}\n  estoque API  {estoque_url}\n  {}\n  {}\n  operator     {} / {}\n  \
         Ctrl-C stops everything.\n",
        carga.lotes,
        carga.produtos,
        if web_env.iter().any(|(k, _)| *k == "GIRO_WEB_DIR_VITRINE") {
            format!("vitrine      http://localhost:{}", config.web.porta_vitrine)
        } else {
            "vitrine      not built (web/vitrine/dist)".into()
        },
        if web_env.iter().any(|(k, _)| *k == "GIRO_WEB_DIR_PAINEL") {
            format!("painel       http://localhost:{}", config.web.porta_painel)
        } else {
            "painel       not built (web/painel/dist)".into()
        },
        operador.usuario,
        senha_de_desenvolvimento(&cwd, operador.senha.expose())
            .unwrap_or_else(|| "(your OPERADOR_SENHA)".to_string()),
    );

    // Until Ctrl-C, or a child ending on its own.
    let ended = loop {
        tokio::select! {
            _ = shutdown.cancelled() => break None,
            _ = tokio::time::sleep(Duration::from_millis(500)) => {
                if let Some(p) = ps.iter_mut().find_map(|p| matches!(p.child.try_wait(), Ok(Some(_))).then_some(p.nome)) {
                    break Some(p);
                }
            }
        }
    };
    terminate(&mut ps, config.prazo_desligamento).await;
    match ended {
        Some(nome) => anyhow::bail!("{nome} stopped on its own; everything was stopped"),
        None => {
            eprintln!("giro dev: stopped");
            Ok(())
        }
    }
}

/// `giro dev --with-faults`: something for the event console to show and act on, made through the
/// real paths — a `ReposicaoSolicitada` estoque's receiver refuses (a quantity of 0: a 400, so a
/// dead letter at once) in mercado's outbox, and a `ProdutoClassificado` in estoque's outbox held
/// back ten minutes as if its last three attempts had failed (a delayed event).
async fn falhas(config: &Config) -> anyhow::Result<()> {
    use giro_contracts::{EventoIntegracao, ProdutoClassificado, ReposicaoSolicitada};
    use giro_servicos::config::Servico;
    // `atrasar`: held back in the same transaction, so no publisher can send it first.
    async fn registrar(
        config: &Config,
        s: Servico,
        e: EventoIntegracao,
        atrasar: bool,
    ) -> anyhow::Result<()> {
        let pool = giro_infra::db::pool(config.db(s)?, 1, config.db_timeout)?;
        let db = giro_infra::db::Db::new(pool, true);
        let mut client = db.client().await?;
        let tx = db.begin(&mut client).await?;
        giro_outbox::registrar(&tx, &e).await?;
        if atrasar {
            tx.execute(
                "UPDATE outbox_event SET tentativas = 3, proxima_tentativa_em = now() + interval '10 minutes', \
                 ultimo_erro = 'giro dev --with-faults: three failed attempts, simulated' WHERE id = $1",
                &[&e.event_id()],
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }
    let sku = demo::CATALOGO[0].sku.to_string();
    let morta = uuid::Uuid::new_v4();
    let pedido = ReposicaoSolicitada {
        event_id: morta,
        sku: sku.clone(),
        qtd_faltante: 0,
        ocorrido_em: chrono::Utc::now(),
    };
    registrar(config, Servico::Mercado, EventoIntegracao::ReposicaoSolicitada(pedido), false).await?;
    let atrasada = uuid::Uuid::new_v4();
    let classificado = ProdutoClassificado {
        event_id: atrasada,
        sku,
        tags: vec!["refrigerante".into()],
        categoria: "bebidas".into(),
        ocorrido_em: chrono::Utc::now(),
    };
    registrar(config, Servico::Estoque, EventoIntegracao::ProdutoClassificado(classificado), true).await?;
    eprintln!(
        "giro dev: --with-faults: dead letter {morta} in mercado's outbox, delayed event {atrasada} in estoque's (see Eventos)"
    );
    Ok(())
}
