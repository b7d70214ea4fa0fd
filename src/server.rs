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

use crate::config::{Config, ConfigError, Servico};
use crate::contracts::EventoIntegracao;
use crate::db::{self, Db};
use crate::http::{self, auth::Seguranca};
use crate::inbox::receiver::{self, Consumidor};
use crate::inbox::retencao::RetencaoInbox;
use crate::outbox::relay::Publisher;
use crate::supervisor::{Supervisor, Vivo};

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
}

impl Contexto {
    /// Runs a background loop under [`Contexto::supervisor`] until shutdown (see
    /// [`crate::supervisor`]); `make` builds each run of it.
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

/// What a role contributes to a running service; `S` is its database ([`db::Mercado`],
/// [`db::Estoque`]), the one its consumer's transactions run in.
pub struct Role<S> {
    /// The role's own routes, each with its authorization layer.
    pub router: Router,
    /// The effects of the events the role accepts on `/eventos`.
    pub consumidor: Arc<dyn Consumidor<S, Evento = EventoIntegracao>>,
    /// What discarding or redoing one of the role's dead letters does to its domain (issue 30).
    pub reparo: crate::outbox::saida::ReparoDe<S>,
}

/// Checks, before anything starts, the secrets every service needs: its own token (to
/// authenticate incoming service calls), its peer's token (to send events and, for mercado,
/// the product lookup) and the operator login.
pub fn validate(config: &Config, servico: Servico) -> Result<(), ConfigError> {
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
        .merge(http::auth::login::router(ctx.seguranca.clone()))
        .merge(receiver::router(ctx.db.clone(), role.consumidor, ctx.config.outbox.lote_max))
        .merge(http::health::router(http::health::Prontidao::new(
            ctx.db.pool.clone(),
            true,
            ctx.supervisor.clone(),
        )))
        .merge(crate::outbox::metrics::router(ctx.db.pool.clone()))
        .merge(crate::outbox::console::router_com::<EventoIntegracao, S>(
            ctx.db.clone(),
            ctx.seguranca.clone(),
            crate::outbox::console::Ajustes {
                inbox_retencao: ctx.config.inbox_retencao,
                timeout_requisicao: ctx.config.limites_http.timeout_requisicao,
                reparo: role.reparo,
            },
        ));
    // Counters in the service's database: every replica counts the same attempts.
    let limitador = http::limite::Limitador::new(
        &ctx.config,
        Arc::new(http::limite::contadores_pg::ContadoresPg::new(ctx.db.pool.clone())),
    );
    let mut router = http::finish(routes, ctx.seguranca.clone());
    if ctx.config.cookies_seguros {
        router = router.layer(axum::middleware::from_fn(http::cookies_seguros));
    }
    router.layer(axum::middleware::from_fn(move |req, next| {
        http::limite::identificar(limitador.clone(), req, next)
    }))
}

pub async fn run<S: 'static>(
    servico: Servico,
    config: Config,
    build: impl FnOnce(&Contexto) -> anyhow::Result<Role<S>>,
    shutdown: CancellationToken,
) -> anyhow::Result<()> {
    validate(&config, servico)?;
    let own = config.servico(servico);
    let pool = db::pool_with(&own.db, config.db_pool_max, config.db_timeout, config.db_limites)?;
    let db = Db::new(pool, config.outbox.notify);

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
    };
    let role = build(&ctx)?;
    let router = app(&ctx, role);
    start_web(&ctx, servico, &router).await?; // the built front on its own port (§9.5)
    crate::http::metrics::install();
    crate::otlp::init(&format!("giro-{}", servico.nome())); // on when OTEL_EXPORTER_OTLP_ENDPOINT is set
    if ctx.config.outbox.publicador_embutido {
        // Woken in-process by this service's commits; no LISTEN needed.
        let p = Arc::new(Publisher::for_service(
            &ctx.config,
            servico,
            ctx.db.pool.clone(),
            ctx.db.signal.clone(),
            false,
        )?);
        ctx.supervisionar("publisher", true, move |vivo, shutdown| p.clone().run_loop(shutdown, vivo));
    }
    // The inbox's retention is the receiving service's own maintenance, whether or not its
    // publisher is embedded. Every replica sweeps (SKIP LOCKED); not required for readiness: a
    // late sweep only keeps rows longer.
    let retencao = Arc::new(RetencaoInbox::new(ctx.db.pool.clone(), ctx.config.inbox_retencao));
    ctx.supervisionar("retencao-inbox", false, move |vivo, shutdown| {
        retencao.clone().run_loop(shutdown, vivo)
    });
    // Every replica purges; SKIP LOCKED keeps them off each other's rows. Not required for
    // readiness: expired sessions are refused whether or not their rows are gone yet.
    let (seg, sessao) = (ctx.seguranca.clone(), ctx.config.sessao.clone());
    ctx.supervisionar("limpeza-sessoes", false, move |vivo, shutdown| {
        http::auth::sessao::limpar_sessoes(
            seg.clone(),
            sessao.intervalo_limpeza,
            sessao.lote_limpeza,
            shutdown,
            vivo,
        )
    });
    // systemd readiness: READY=1 once the database answers (the listener is bound), STOPPING=1 at shutdown.
    ctx.tasks.spawn(crate::systemd::lifecycle(
        servico.nome(),
        vec![ctx.db.pool.clone()],
        ctx.config.db_timeout,
        shutdown.clone(),
    ));

    tracing::info!(service = %servico, addr = %bound, db = ?ctx.config.servico(servico).db, "giro {servico} listening on http://{bound}");
    let served = http::serve_com(
        listener,
        router,
        shutdown.clone(),
        ctx.config.prazo_desligamento,
        ctx.config.limites_http.clone(),
    )
    .await;
    shutdown.cancel();
    ctx.tasks.close();
    if tokio::time::timeout(ctx.config.prazo_desligamento, ctx.tasks.wait()).await.is_err() {
        tracing::warn!("background tasks did not finish within the grace period");
    }
    tracing::info!(service = %servico, "stopped");
    served.map_err(Into::into)
}

/// Starts the web listener of `servico` beside its API listener when a front is configured; it
/// stops with the same shutdown token and grace period.
async fn start_web(ctx: &Contexto, servico: Servico, api: &Router) -> anyhow::Result<()> {
    if let Some((listener, web)) = http::web::bind(&ctx.config, servico, api).await? {
        let (shutdown, grace) = (ctx.shutdown.clone(), ctx.config.prazo_desligamento);
        let limites = ctx.config.limites_http.clone();
        ctx.tasks.spawn(async move {
            if let Err(e) = http::serve_com(listener, web, shutdown, grace, limites).await {
                tracing::error!(error = %e, "web listener failed");
            }
        });
    }
    Ok(())
}
