//! Start-up of a service role (`giro mercado serve`, `giro estoque serve`): validate what the role
//! needs, build its pool, bind its listener, compose the router (health, `/sessao`, `/eventos`,
//! the role's routes, the shared layers), run the background loops (the embedded publisher, the
//! inbox's retention, the role's jobs), and serve until shutdown.
//!
//! The role modules only say what their routes, consumer and jobs are; the sequence lives here once.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{Config, Servico};
use giro_contracts::EventoIntegracao;
use giro_http::auth::Seguranca;
use giro_infra::config::ConfigError;
use giro_infra::db::{self, Db};
use giro_infra::supervisor::{Supervisor, Vivo};
use giro_outbox::inbox::{self, Consumidor};
use giro_outbox::Publisher;

/// What a role is given to build itself.
pub struct Contexto {
    pub config: Config,
    pub db: Db,
    pub seguranca: Arc<Seguranca>,
    /// Background loops are spawned here; shutdown waits for them.
    pub tasks: TaskTracker,
    pub shutdown: CancellationToken,
    /// Restarts failed background loops; `/readyz` is 503 while a required one is down.
    pub supervisor: Arc<Supervisor>,
    /// On while the listeners drain after SIGTERM (`http.drenagem`): `/readyz` is 503.
    pub drenagem: giro_http::drenagem::Drenagem,
}

impl Contexto {
    /// Runs a background loop under [`Contexto::supervisor`] until shutdown (see
    /// [`giro_infra::supervisor`]); `make` builds each run of it.
    pub fn supervisionar<F, Fut>(&self, nome: &'static str, obrigatorio: bool, make: F)
    where
        F: Fn(Vivo, CancellationToken) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let shutdown = self.shutdown.clone();
        self.supervisor.spawn(&self.tasks, nome, obrigatorio, self.shutdown.clone(), move |vivo| {
            make(vivo, shutdown.clone())
        });
    }
}

/// What a role contributes to a running service; `S` is its database (the marker its module
/// defines: `mercado::Mercado`, `estoque::Estoque`), the one its consumer's transactions run in.
pub struct Role<S> {
    /// The role's own routes, each with its authorization layer.
    pub router: Router,
    /// The effects of the events the role accepts on `/eventos`.
    pub consumidor: Arc<dyn Consumidor<S, Evento = EventoIntegracao>>,
    /// The role's business series read at scrape time (estoque's open demand), if any.
    pub metricas: Option<giro_outbox::operador::ExtraMetricas>,
    /// The series the role emits, described to the recorder at start (mercado's orders).
    pub series: &'static [giro_http::metrics::Serie],
    /// What discarding or redoing one of the role's dead letters does to its domain (issue 30).
    pub reparo: giro_outbox::operador::ReparoDe<S>,
    /// The SKUs of the role's products whose name holds every word of `$1` (text[], each
    /// `%word%`): what the event console's search also matches (issue 39).
    pub busca_produto: Option<&'static str>,
}

/// Checks, before anything starts, what every service needs: its own database (never the
/// other's), its own token (to authenticate incoming service calls), its peer's token (to send
/// events and, for mercado, the product lookup) and the operator login.
pub fn validate(config: &Config, servico: Servico) -> Result<(), ConfigError> {
    config.db(servico)?;
    config.token_servico(servico)?;
    config.token_servico(servico.par())?;
    config.operador()?;
    Ok(())
}

/// Builds the security layout of `servico` (cookies `MERCADO_SESSAO` / `XSRF-MERCADO`, …), its
/// sessions stored in `pool` (the service's own database).
pub fn seguranca(config: &Config, servico: Servico, pool: &db::Pool) -> Result<Arc<Seguranca>, ConfigError> {
    let (sessao, csrf) = match servico {
        Servico::Mercado => ("MERCADO_SESSAO", "XSRF-MERCADO"),
        Servico::Estoque => ("ESTOQUE_SESSAO", "XSRF-ESTOQUE"),
    };
    Ok(Seguranca::new(
        config.token_servico(servico)?.clone(),
        config.operador()?,
        sessao,
        csrf,
        pool.clone(),
        config.sessao.ttl,
    ))
}

/// The complete router of a service: what [`run`] serves, and what in-process tests drive.
pub fn app<S: 'static>(ctx: &Contexto, role: Role<S>) -> Router {
    let routes = role
        .router
        .merge(giro_http::auth::login::router(ctx.seguranca.clone()))
        .merge(inbox::router(ctx.db.clone(), role.consumidor, ctx.config.outbox.lote_max))
        .merge(giro_outbox::operador::router_console_com::<EventoIntegracao, S>(
            ctx.db.clone(),
            ctx.seguranca.clone(),
            giro_outbox::operador::AjustesConsole {
                inbox_retencao: ctx.config.inbox_retencao,
                timeout_requisicao: ctx.config.limites_http.timeout_requisicao,
                reparo: role.reparo,
                busca_produto: role.busca_produto,
            },
        ))
        // Innermost of the shared layers: a request whose session was lost before any COMMIT
        // runs again once, on a fresh connection (the throttle above counts it once).
        .layer(axum::middleware::from_fn_with_state(
            giro_http::reexecucao::Espera::new(ctx.db.pool.clone(), ctx.config.db_espera_reexecucao),
            giro_http::reexecucao::uma_vez,
        ))
        // Probes stay outside the re-run: `/readyz` and `/metrics` report the database as it is
        // now, within their own bounds — a second attempt that first waits out
        // `db.espera-reexecucao` would outlast a balancer's check and hide the outage.
        .merge(giro_http::health::router(giro_http::health::Prontidao::drenando_com(
            ctx.db.pool.clone(),
            true,
            ctx.supervisor.clone(),
            ctx.drenagem.clone(),
        )))
        .merge(giro_outbox::operador::router_metricas(&ctx.db, role.metricas));
    // Counters in the service's database: every replica counts the same attempts.
    let limitador = giro_http::limite::Limitador::new(
        &ctx.config.proxies_confiaveis,
        &ctx.config.limites_http,
        &ctx.config.login,
        giro_http::limite::ContadoresPg::new(ctx.db.pool.clone()),
    );
    let mut router = giro_http::finish(routes, ctx.seguranca.clone());
    if ctx.config.cookies_seguros {
        router = router.layer(axum::middleware::from_fn(giro_http::cookies_seguros));
    }
    router.layer(axum::middleware::from_fn(move |req, next| {
        giro_http::limite::identificar(limitador.clone(), req, next)
    }))
}

pub async fn run<S: 'static>(
    servico: Servico,
    config: Config,
    build: impl FnOnce(&Contexto) -> anyhow::Result<Role<S>>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    validate(&config, servico)?;
    avisar_url_ddl(&config, &[servico]);
    let own = config.servico(servico);
    let pool = db::pool_with(config.db(servico)?, config.db_pool_max, config.db_timeout, config.db_limites)?
        .nomeado(servico.nome());
    let mut db = Db::new(pool, config.outbox.notify);
    let leitura = match &own.db_leitura {
        Some(cfg) => {
            // Bounded waits: a dead standby sends reads to the primary quickly.
            let p = db::pool_with(cfg, config.db_pool_max, db::leitura::ESPERA, config.db_limites)?
                .nomeado(&format!("{}-leitura", servico.nome()));
            let l = db::leitura::Leitura::new(p, config.db_atraso_maximo_leitura);
            db = db.com_leitura(l.clone());
            Some(l)
        }
        None => None,
    };

    let addr = SocketAddr::new(config.endereco, own.porta);
    let listener =
        TcpListener::bind(addr).await.map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
    let bound = listener.local_addr()?;

    let ctx = Contexto {
        seguranca: seguranca(&config, servico, &db.pool)?,
        config,
        db,
        tasks: TaskTracker::new(),
        shutdown: shutdown.clone(),
        supervisor: Supervisor::new(),
        drenagem: giro_http::drenagem::Drenagem::default(),
    };
    // The listeners stop `http.drenagem` after the signal; background loops at once.
    let parar_http = ctx.drenagem.adiar(&shutdown, ctx.config.drenagem);
    // Before the role is built: what it records at start (its loops' gauges, its counters at 0)
    // must reach the recorder.
    giro_http::metrics::install();
    let role = build(&ctx)?;
    let series = role.series;
    let router = ctx.drenagem.camada(app(&ctx, role));
    start_web(&ctx, servico, &router, &parar_http).await?; // the built front on its own port (§9.5)
    if let Some(l) = leitura {
        ctx.tasks.spawn(db::leitura::vigiar(l, shutdown.clone()));
    }
    giro_http::metrics::descrever(series);
    giro_infra::otlp::init(&format!("giro-{}", servico.nome())); // on when OTEL_EXPORTER_OTLP_ENDPOINT is set
    if ctx.config.outbox.publicador_embutido {
        // Woken in-process by this service's commits; no LISTEN needed.
        let p =
            Arc::new(publisher_de(&ctx.config, servico, ctx.db.pool.clone(), ctx.db.signal.clone(), false)?);
        ctx.supervisionar("publisher", true, move |vivo, shutdown| p.clone().run_loop(shutdown, vivo));
    }
    // The inbox's retention is the receiving service's own maintenance, whether or not its
    // publisher is embedded. Every replica sweeps (SKIP LOCKED); not required for readiness: a
    // late sweep only keeps rows longer.
    let retencao = Arc::new(giro_outbox::Retencao::inbox(ctx.db.pool.clone(), ctx.config.inbox_retencao));
    ctx.supervisionar("retencao-inbox", false, move |vivo, shutdown| {
        retencao.clone().run_loop(shutdown, vivo)
    });
    // Every replica purges; SKIP LOCKED keeps them off each other's rows. Not required for
    // readiness: expired sessions are refused whether or not their rows are gone yet.
    let (seg, sessao) = (ctx.seguranca.clone(), ctx.config.sessao.clone());
    ctx.supervisionar("limpeza-sessoes", false, move |vivo, shutdown| {
        giro_http::auth::sessao::limpar_sessoes(
            seg.clone(),
            sessao.intervalo_limpeza,
            sessao.lote_limpeza,
            shutdown,
            vivo,
        )
    });
    // systemd readiness: READY=1 once the database answers (the listener is bound), STOPPING=1 at shutdown.
    ctx.tasks.spawn(giro_infra::systemd::lifecycle(
        servico.nome(),
        vec![(
            ctx.db.pool.clone(),
            giro_infra::db::descrever(servico.nome(), servico.var_db_url(), ctx.config.db(servico)?),
        )],
        ctx.config.db_timeout,
        shutdown.clone(),
    ));

    tracing::info!(service = %servico, addr = %bound, "giro {servico} listening on http://{bound}");
    let served = servir(&ctx.config, listener, router, parar_http).await;
    shutdown.cancel();
    ctx.tasks.close();
    if tokio::time::timeout(ctx.config.prazo_desligamento, ctx.tasks.wait()).await.is_err() {
        tracing::warn!("background tasks did not finish within the grace period");
    }
    tracing::info!(service = %servico, "stopped");
    served.map_err(Into::into)
}

/// The schema owner's URL (`db-url-ddl`) is `giro migrate`'s alone: a running service or
/// publisher never uses it, so it ignores it — and says so when its environment holds it (an
/// install from before `/etc/giro/migrate-<db>.env`), because the process then holds the
/// password that can drop the schema. A warning, not a refusal: an upgrade must not stop a shop
/// over a value it does not read.
pub fn avisar_url_ddl(config: &Config, servicos: &[Servico]) {
    for &s in servicos {
        if config.servico(s).db_ddl.is_some() {
            let var = s.variavel("db-url-ddl");
            tracing::warn!(
                db = %s,
                "{var} is set, but only `giro migrate` uses it: move it to /etc/giro/migrate-{s}.env, \
                 which only giro-migrate@{s} reads, so no running process holds the schema owner's password"
            );
        }
    }
}

/// Serves `router` on `listener` with the configured bounds, grace period and trusted proxies
/// ([`giro_http::serve_config`]) until `parar`.
pub async fn servir(
    config: &Config,
    listener: TcpListener,
    router: Router,
    parar: CancellationToken,
) -> std::io::Result<()> {
    let (limites, proxies) = (config.limites_http.clone(), &config.proxies_confiaveis);
    giro_http::serve_config(listener, router, parar, config.prazo_desligamento, limites, proxies).await
}

/// What each web listener forwards under `/api` (issue 25, SPEC §9.5): the routes its front's
/// pages call — read from `web/*/src/**/api.ts` and `web/shared/eventos.ts` — and the health
/// routes (a load balancer checks a web port with `/api/readyz`). Anything else is 404 there:
/// `/metrics`, `/eventos`, `/openapi.json` and the other front's routes stay on the API port.
/// A front that calls a new route needs it added here (its browser test fails until then).
pub fn rotas_web(servico: Servico) -> Vec<giro_http::web::Rota> {
    use axum::http::Method;
    let mut rotas = vec![
        (Method::GET, "/healthz"),
        (Method::GET, "/readyz"),
        (Method::GET, "/actuator/health"),
        // The operator's login, on both fronts (the storefront's under /operador/).
        (Method::GET, "/sessao"),
        (Method::POST, "/sessao"),
        (Method::DELETE, "/sessao"),
        // The event console (web/shared/eventos.ts), on both fronts.
        (Method::GET, "/operacao/outbox"),
        (Method::GET, "/operacao/outbox/eventos"),
        (Method::GET, "/operacao/outbox/serie"),
        (Method::GET, "/operacao/outbox/eventos/{id}"),
        (Method::DELETE, "/operacao/outbox/eventos/{id}"),
        (Method::POST, "/operacao/outbox/eventos/{id}/reenvio"),
        (Method::POST, "/operacao/outbox/eventos/{id}/refazer"),
        (Method::POST, "/operacao/outbox/reenvio"),
        (Method::POST, "/operacao/outbox/descarte"),
    ];
    rotas.extend(match servico {
        Servico::Mercado => vec![
            // The shop (web/vitrine/src/api.ts).
            (Method::GET, "/produtos"),
            (Method::GET, "/produtos/{sku}"),
            (Method::GET, "/produtos/{sku}/imagem"),
            (Method::POST, "/pedidos"),
            (Method::GET, "/pedidos/{id}"),
            (Method::POST, "/pedidos/{id}/pagamento"),
            // The operator pages (web/vitrine/src/operador/api.ts).
            (Method::POST, "/produtos"),
            (Method::GET, "/operacao/produtos"),
            // The operator home's charts (web/vitrine/src/operador/graficos.ts).
            (Method::GET, "/operacao/graficos/vendas"),
            (Method::GET, "/operacao/graficos/esgotados"),
            (Method::GET, "/operacao/graficos/prateleira"),
            (Method::PATCH, "/operacao/produtos/{sku}"),
            (Method::PUT, "/operacao/produtos/{sku}/imagem"),
            (Method::DELETE, "/operacao/produtos/{sku}/imagem"),
            (Method::GET, "/operacao/pedidos"),
            (Method::GET, "/operacao/pedidos/{id}"),
            (Method::POST, "/operacao/pedidos/{id}/cancelamento"),
            (Method::GET, "/operacao/estoque/produtos/{sku}"),
        ],
        // The dashboard (web/painel/src/api.ts).
        Servico::Estoque => vec![
            (Method::GET, "/painel/resumo"),
            (Method::GET, "/painel/demandas"),
            (Method::GET, "/painel/reposicoes"),
            (Method::GET, "/painel/estoque"),
            (Method::GET, "/painel/estoque/{sku}"),
            (Method::GET, "/painel/graficos/latencia-reposicao"),
            (Method::GET, "/painel/graficos/demanda-por-idade"),
            (Method::POST, "/painel/estoque/{sku}/lotes/{codigoLote}/baixa"),
            (Method::GET, "/produtos/{sku}"),
            (Method::POST, "/lotes"),
        ],
    });
    rotas
}

/// The built front `servico` serves, when one is configured: mercado's storefront (vitrine),
/// estoque's dashboard (painel), which links to the storefront.
fn front(config: &Config, servico: Servico) -> Option<giro_http::web::Front> {
    let w = &config.web;
    let (nome, dir, porta, ajustes) = match servico {
        Servico::Mercado => ("storefront", w.dir_vitrine.clone()?, w.porta_vitrine, serde_json::json!({})),
        Servico::Estoque => (
            "dashboard",
            w.dir_painel.clone()?,
            w.porta_painel,
            serde_json::json!({ "urlVitrine": w.url_vitrine, "portaVitrine": w.porta_vitrine }),
        ),
    };
    Some(giro_http::web::Front { nome, dir, porta, ajustes })
}

/// Starts the web listener of `servico` beside its API listener when a front is configured; it
/// stops with the API's listener (`parar`: after the drain) and the same grace period.
async fn start_web(
    ctx: &Contexto,
    servico: Servico,
    api: &Router,
    parar: &CancellationToken,
) -> anyhow::Result<()> {
    if let Some(front) = front(&ctx.config, servico) {
        let (listener, web) =
            giro_http::web::bind(ctx.config.endereco, servico.nome(), front, api, &rotas_web(servico))
                .await?;
        let (shutdown, config) = (parar.clone(), ctx.config.clone());
        ctx.tasks.spawn(async move {
            if let Err(e) = servir(&config, listener, web, shutdown).await {
                tracing::error!(error = %e, "web listener failed");
            }
        });
    }
    Ok(())
}

/// The publisher of `servico`'s outbox: it delivers to the peer's events URL with the peer's
/// token. `listen` = wake on `NOTIFY` (separate publishers).
pub fn publisher_de(
    config: &Config,
    servico: Servico,
    pool: db::Pool,
    signal: Arc<db::OutboxSignal>,
    listen: bool,
) -> anyhow::Result<Publisher> {
    let par = servico.par();
    let cfg = config.outbox.clone();
    let peer = giro_outbox::Peer::new(
        &config.servico(par).eventos_url,
        config.token_servico(par)?.clone(),
        cfg.timeout,
        cfg.concorrencia,
        cfg.lote_max,
        cfg.transporte,
    )?
    .named(par.nome());
    // Through a transaction pooler a session lasts one transaction, so a LISTEN there would
    // never hear: listen on PostgreSQL itself (`db-url-direta`) when configured, else poll.
    let own = config.servico(servico);
    let listen = listen
        .then(|| match config.db_limites.pooler {
            db::Pooler::Nenhum => own.db.clone(),
            db::Pooler::Transacao => own.db_direta.clone(),
        })
        .flatten();
    Ok(Publisher::new(servico.nome(), pool, peer, cfg, signal, listen))
}
