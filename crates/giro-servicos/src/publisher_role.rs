//! The `giro publisher` role: outbox publishers as their own process, for one service's outbox or
//! both. Any number may run against one database; they compete through `FOR UPDATE SKIP LOCKED`
//! and the lease, and wake on `NOTIFY` (`outbox.notify`) or the poll interval. With
//! `publisher.porta-metricas` it serves its delivery counters at `/metrics`; under systemd it
//! announces `READY=1` once its databases answered.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::config::{Config, Servico};
use giro_infra::db::{self, OutboxSignal};
use giro_infra::supervisor::Supervisor;

pub async fn run(config: Config, only: Option<Servico>, shutdown: CancellationToken) -> anyhow::Result<()> {
    let servicos = only.map_or(Servico::TODOS.to_vec(), |s| vec![s]);
    for s in &servicos {
        // A publisher reads its outbox's database and sends to the peer with the peer's token.
        config.db(*s)?;
        config.token_servico(s.par())?;
    }
    crate::server::avisar_url_ddl(&config, &servicos);
    giro_http::metrics::install();
    let tasks = TaskTracker::new();
    // Restarts a failed publisher loop with backoff (see giro_infra::supervisor).
    let supervisor = Supervisor::new();
    let mut pools = Vec::new();
    for s in servicos {
        // Claims and settlements are short statements: a few connections suffice.
        let pool = db::pool_with(config.db(s)?, 4, config.db_timeout, config.db_limites)?
            .nomeado(&format!("publisher-{s}"));
        pools.push((pool.clone(), db::descrever(s.nome(), s.var_db_url(), config.db(s)?)));
        let signal = Arc::new(OutboxSignal::default());
        let p = Arc::new(crate::server::publisher_de(&config, s, pool, signal, true)?);
        let nome = match s {
            Servico::Mercado => "publisher-mercado",
            Servico::Estoque => "publisher-estoque",
        };
        let stop = shutdown.clone();
        supervisor
            .spawn(&tasks, nome, true, shutdown.clone(), move |vivo| p.clone().run_loop(stop.clone(), vivo));
    }
    if let Some(porta) = config.publisher_porta_metricas {
        let addr = std::net::SocketAddr::new(config.endereco, porta);
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
        let bound = listener.local_addr()?;
        tracing::info!(addr = %bound, "publisher metrics listening on http://{bound}");
        let router = giro_http::metrics::publisher_router(pools.iter().map(|(p, _)| p.clone()).collect());
        let (stop, config) = (shutdown.clone(), config.clone());
        tasks.spawn(async move { crate::server::servir(&config, listener, router, stop).await });
    }
    let pools_len = pools.len();
    // systemd readiness: READY=1 once every database it relays answered, STOPPING=1 at shutdown.
    tasks.spawn(giro_infra::systemd::lifecycle("publisher", pools, config.db_timeout, shutdown.clone()));
    tracing::info!(outboxes = pools_len, "giro publisher running");
    tasks.close();
    shutdown.cancelled().await;
    if tokio::time::timeout(config.prazo_desligamento, tasks.wait()).await.is_err() {
        tracing::warn!("publisher did not finish its batch within the grace period");
    }
    Ok(())
}
