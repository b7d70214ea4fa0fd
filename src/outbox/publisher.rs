//! The publisher loop: wake (in-process signal, `LISTEN`, or the poll interval) → claim a batch as
//! a lease → deliver with no transaction open → settle only rows still under the lease token.
//! Retention runs between rounds, in small batches. A round in progress finishes on shutdown.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio_postgres::{AsyncMessage, NoTls};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::config::{Config, DbConfig, OutboxConfig, Servico};
use crate::db::{OutboxSignal, Pool};
use crate::outbox::backoff;
use crate::outbox::delivery::{Outcome, Peer};
use crate::outbox::store::{self, Failure};

/// Rows deleted per retention statement: small, so the sweep never holds many locks.
const PRUNE_BATCH: i64 = 1000;

pub struct Publisher {
    /// Which outbox (`mercado` or `estoque`), for logs.
    pub nome: String,
    pub pool: Pool,
    pub peer: Peer,
    pub cfg: OutboxConfig,
    pub inbox_retencao: Duration,
    /// Woken by writers in this process, or by the `LISTEN` task.
    pub signal: Arc<OutboxSignal>,
    /// When set, a `LISTEN` connection to this database wakes the publisher on `NOTIFY`.
    pub listen: Option<DbConfig>,
    /// Test hook: deliver every event twice (the inbox must make the second a no-op).
    pub reenviar: bool,
}

/// What one round did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Round {
    pub claimed: usize,
    pub sent: usize,
    pub transient: usize,
    pub permanent: usize,
}

impl Publisher {
    /// The publisher of `servico`'s outbox: it delivers to the peer's events URL with the peer's
    /// token. `listen` = wake on `NOTIFY` (separate publishers).
    pub fn for_service(
        config: &Config,
        servico: Servico,
        pool: Pool,
        signal: Arc<OutboxSignal>,
        listen: bool,
    ) -> anyhow::Result<Publisher> {
        let par = servico.par();
        let cfg = config.outbox.clone();
        let peer = Peer::new(
            &config.servico(par).eventos_url,
            config.token_servico(par)?.clone(),
            cfg.timeout,
            cfg.concorrencia,
            cfg.lote_max,
            cfg.transporte,
        )?;
        Ok(Publisher {
            nome: servico.nome().to_string(),
            pool,
            peer,
            reenviar: cfg.reenviar,
            listen: (listen && cfg.notify).then(|| config.servico(servico).db.clone()),
            cfg,
            inbox_retencao: config.inbox_retencao,
            signal,
        })
    }

    pub async fn run(self, shutdown: CancellationToken) {
        if let Some(db) = self.listen.clone() {
            tokio::spawn(listen(db, self.signal.clone(), shutdown.clone()));
        }
        tracing::info!(outbox = %self.nome, peer = %crate::report::mask_password(self.peer.base()), lote = self.cfg.lote, "publisher started");
        let prune_every = self
            .cfg
            .retencao
            .min(self.inbox_retencao)
            .div_f64(2.0)
            .clamp(Duration::from_secs(1), Duration::from_secs(60));
        let mut last_prune = Instant::now();
        while !shutdown.is_cancelled() {
            let full = match self.round(Utc::now()).await {
                Ok(r) => r.claimed >= self.cfg.lote,
                Err(e) => {
                    tracing::warn!(outbox = %self.nome, error = %format!("{e:#}"), "publisher round failed");
                    false
                }
            };
            if last_prune.elapsed() >= prune_every {
                last_prune = Instant::now();
                if let Err(e) = self.prune(Utc::now()).await {
                    tracing::warn!(outbox = %self.nome, error = %format!("{e:#}"), "retention sweep failed");
                }
            }
            if full {
                // More may be due right now: no waiting.
                continue;
            }
            tokio::select! {
                _ = shutdown.cancelled() => break,
                _ = self.signal.wake.notified() => {}
                _ = tokio::time::sleep(self.cfg.intervalo) => {}
            }
        }
        tracing::info!(outbox = %self.nome, "publisher stopped");
    }

    /// Claims, delivers and settles one batch.
    pub async fn round(&self, agora: DateTime<Utc>) -> anyhow::Result<Round> {
        let token = Uuid::new_v4();
        let lease_until = agora + chrono::Duration::from_std(self.cfg.visibilidade)?;
        let claimed = {
            let client = self.pool.get().await?;
            store::claim(&**client, agora, self.cfg.lote as i64, lease_until, token).await?
            // The connection goes back to the pool here: none is held while delivering.
        };
        if claimed.is_empty() {
            return Ok(Round::default());
        }
        let mut outcomes = self.peer.deliver(&claimed).await;
        if self.reenviar {
            outcomes = self.peer.deliver(&claimed).await;
        }
        let done = Utc::now();
        let mut sent = Vec::new();
        let mut failures = Vec::new();
        let mut r = Round { claimed: claimed.len(), ..Round::default() };
        for (e, o) in claimed.iter().zip(outcomes) {
            let tipo = e.tipo.clone();
            match o {
                Outcome::Sent => {
                    r.sent += 1;
                    sent.push(e.id);
                    metrics::counter!("giro_outbox_deliveries_total", "tipo" => tipo, "result" => "sent")
                        .increment(1);
                    let secs = (done - e.criado_em).num_microseconds().unwrap_or(0).max(0) as f64 / 1e6;
                    metrics::histogram!("giro_outbox_delivery_seconds").record(secs);
                }
                Outcome::Transient(erro) => {
                    r.transient += 1;
                    let n = e.tentativas + 1;
                    let espera = backoff::with_jitter(n, self.cfg.backoff_maximo, backoff::random_factor());
                    let proxima = agora + chrono::Duration::from_std(espera)?;
                    if n >= self.cfg.max_tentativas {
                        tracing::error!(outbox = %self.nome, event_id = %e.id, tipo = %e.tipo, tentativa = n, erro = %erro, "delivery failed; attempts exhausted, event FAILED");
                    } else {
                        tracing::warn!(outbox = %self.nome, event_id = %e.id, tipo = %e.tipo, tentativa = n, erro = %erro, "delivery failed; will retry");
                    }
                    metrics::counter!("giro_outbox_deliveries_total", "tipo" => tipo, "result" => "transient").increment(1);
                    failures.push(Failure { id: e.id, erro, proxima: Some(proxima) });
                }
                Outcome::Permanent(erro) => {
                    r.permanent += 1;
                    tracing::error!(outbox = %self.nome, event_id = %e.id, tipo = %e.tipo, erro = %erro, "delivery refused permanently; event FAILED");
                    metrics::counter!("giro_outbox_deliveries_total", "tipo" => tipo, "result" => "permanent").increment(1);
                    failures.push(Failure { id: e.id, erro, proxima: None });
                }
            }
        }
        let client = self.pool.get().await?;
        store::mark_sent(&**client, &sent, token, done).await?;
        store::mark_failed(&**client, &failures, token, self.cfg.max_tentativas).await?;
        Ok(r)
    }

    /// Deletes `SENT` rows past `outbox.retencao` and inbox rows past `inbox.retencao`.
    pub async fn prune(&self, agora: DateTime<Utc>) -> anyhow::Result<(u64, u64)> {
        let client = self.pool.get().await?;
        let outbox_antes = agora - chrono::Duration::from_std(self.cfg.retencao)?;
        let inbox_antes = agora - chrono::Duration::from_std(self.inbox_retencao)?;
        let (mut sent, mut inbox) = (0, 0);
        // Bounded: at most 100 batches per sweep, the rest next time.
        for _ in 0..100 {
            let n = store::prune_sent(&**client, outbox_antes, PRUNE_BATCH).await?;
            sent += n;
            if n < PRUNE_BATCH as u64 {
                break;
            }
        }
        for _ in 0..100 {
            let n = crate::inbox::prune(&**client, inbox_antes, PRUNE_BATCH).await?;
            inbox += n;
            if n < PRUNE_BATCH as u64 {
                break;
            }
        }
        if sent + inbox > 0 {
            tracing::info!(outbox = %self.nome, sent, inbox, "retention: old rows deleted");
        }
        Ok((sent, inbox))
    }
}

/// Keeps a `LISTEN` connection open and turns each notification into a wake-up; reconnects
/// after a failure. Registered before the first claim, so no commit is missed.
async fn listen(db: DbConfig, signal: Arc<OutboxSignal>, shutdown: CancellationToken) {
    while !shutdown.is_cancelled() {
        match db.pg.connect(NoTls).await {
            Ok((client, mut connection)) => {
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
                let driver = tokio::spawn(async move {
                    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                    use futures_util::StreamExt;
                    while let Some(m) = messages.next().await {
                        match m {
                            Ok(AsyncMessage::Notification(_)) => {
                                let _ = tx.send(());
                            }
                            Ok(_) => {}
                            Err(_) => break,
                        }
                    }
                });
                if let Err(e) = client.batch_execute(&format!("LISTEN {}", store::CHANNEL)).await {
                    tracing::warn!(error = %e, "LISTEN failed");
                } else {
                    // Something may have committed before LISTEN took effect.
                    signal.wake.notify_one();
                    loop {
                        tokio::select! {
                            _ = shutdown.cancelled() => break,
                            m = rx.recv() => match m {
                                Some(()) => signal.wake.notify_one(),
                                None => break,
                            },
                        }
                    }
                }
                drop(client);
                driver.abort();
            }
            Err(e) => tracing::warn!(error = %e, "LISTEN connection failed; retrying"),
        }
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}
