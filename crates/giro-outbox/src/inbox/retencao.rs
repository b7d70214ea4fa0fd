//! Inbox retention (SPEC §9.1): rows of `inbox_event` processed more than `inbox.retencao` ago are
//! deleted, in small batches, by a maintenance loop of the service that owns the inbox — not by
//! the relay, which works on the other table and may run in another process. Every replica may
//! run it: the deletes skip rows another sweep holds (`FOR UPDATE SKIP LOCKED`).
//!
//! Why the window matters: an event redelivered after its inbox row is gone would be applied a
//! second time, so `inbox.retencao` must outlast every redelivery — the relay's delivery deadline
//! (`outbox.prazo-entrega`, checked at start-up) and an operator's `retry` (refused for older
//! events without `--force`).

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use giro_infra::db::Pool;
use giro_infra::supervisor::Vivo;

/// Rows deleted per statement: small, so the sweep never holds many locks.
const LOTE: i64 = 1000;

/// Statements per sweep at most; the rest waits for the next one.
const LOTES_POR_VARREDURA: usize = 100;

/// The retention sweep of one service's inbox.
pub struct RetencaoInbox {
    pub pool: Pool,
    /// `inbox.retencao`: rows older than this go.
    pub retencao: Duration,
}

impl RetencaoInbox {
    pub fn new(pool: Pool, retencao: Duration) -> RetencaoInbox {
        RetencaoInbox { pool, retencao }
    }

    /// How often it sweeps: half the window, between 1 s and 1 min.
    pub fn intervalo(&self) -> Duration {
        self.retencao.div_f64(2.0).clamp(Duration::from_secs(1), Duration::from_secs(60))
    }

    /// Deletes inbox rows processed before `agora − inbox.retencao` (`agora`: `None` = the
    /// database's clock), bounded per sweep; returns how many.
    pub async fn prune(&self, agora: impl Into<Option<DateTime<Utc>>>) -> anyhow::Result<u64> {
        let agora = agora.into();
        let client = self.pool.get().await?;
        let mut total = 0;
        for _ in 0..LOTES_POR_VARREDURA {
            let n = super::prune(&client, agora, self.retencao, LOTE).await?;
            total += n;
            if n < LOTE as u64 {
                break;
            }
        }
        if total > 0 {
            tracing::info!(inbox = total, "retention: old inbox rows deleted");
        }
        Ok(total)
    }

    /// Sweeps every [`RetencaoInbox::intervalo`] until `shutdown`; `vivo` is told after each pass
    /// (a failed sweep is logged and retried at the next one).
    pub async fn run_loop(self: std::sync::Arc<Self>, shutdown: CancellationToken, vivo: Vivo) {
        let intervalo = self.intervalo();
        let mut falhas = vivo.falhas("inbox retention sweep failed");
        while !shutdown.is_cancelled() {
            match self.prune(None).await {
                Ok(_) => falhas.ok(),
                Err(e) => falhas.falhou(&format_args!("{e:#}"), intervalo),
            }
            vivo.ok();
            tokio::select! {
                _ = shutdown.cancelled() => {}
                _ = tokio::time::sleep(intervalo) => {}
            }
        }
    }
}
