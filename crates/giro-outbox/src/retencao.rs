//! Retention (SPEC §9.1), one job for both tables: `SENT` rows of `outbox_event` delivered more
//! than `outbox.retencao` ago (their attempts with them), run by the outbox's publisher beside its
//! loop; rows of `inbox_event` processed more than `inbox.retencao` ago, run by the service that
//! owns the inbox — not by the relay, which works on the other table and may run in another
//! process. Small batches, and every replica may sweep: the deletes skip rows another sweep holds
//! (`FOR UPDATE SKIP LOCKED`), so replicas never wait on each other or delete a row twice.
//!
//! Why the inbox's window matters: an event redelivered after its inbox row is gone would be
//! applied a second time, so `inbox.retencao` must outlast every redelivery — the relay's delivery
//! deadline (`outbox.prazo-entrega`, checked at start-up) and an operator's `retry` (refused for
//! older events without `--force`).

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio_util::sync::CancellationToken;

use giro_infra::db::Pool;
use giro_infra::supervisor::Vivo;

/// Rows deleted per statement: small, so the sweep never holds many locks.
const LOTE: i64 = 1000;

/// Statements per sweep at most; the rest waits for the next one.
const LOTES_POR_VARREDURA: usize = 100;

/// Which rows a [`Retencao`] deletes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tabela {
    /// The `SENT` rows of the outbox named so (in logs).
    Outbox(String),
    Inbox,
}

/// The retention sweep of one table.
pub struct Retencao {
    pub pool: Pool,
    /// `outbox.retencao` or `inbox.retencao`: rows older than this go.
    pub retencao: Duration,
    pub tabela: Tabela,
}

impl Retencao {
    /// The sweep of the inbox in `pool`.
    pub fn inbox(pool: Pool, retencao: Duration) -> Retencao {
        Retencao { pool, retencao, tabela: Tabela::Inbox }
    }

    /// The sweep of the `SENT` rows of the outbox `nome` in `pool`.
    pub fn outbox(nome: impl Into<String>, pool: Pool, retencao: Duration) -> Retencao {
        Retencao { pool, retencao, tabela: Tabela::Outbox(nome.into()) }
    }

    /// How often it sweeps: half the window, between 1 s and 1 min.
    pub fn intervalo(&self) -> Duration {
        self.retencao.div_f64(2.0).clamp(Duration::from_secs(1), Duration::from_secs(60))
    }

    /// Deletes the rows older than `agora − retencao` (`agora`: `None` = the database's clock),
    /// bounded per sweep; returns how many.
    pub async fn prune(&self, agora: impl Into<Option<DateTime<Utc>>>) -> anyhow::Result<u64> {
        let agora = agora.into();
        let client = self.pool.get().await?;
        let mut total = 0;
        for _ in 0..LOTES_POR_VARREDURA {
            let n = match self.tabela {
                Tabela::Outbox(_) => crate::store::prune_sent(&client, agora, self.retencao, LOTE).await?,
                Tabela::Inbox => crate::inbox::prune(&client, agora, self.retencao, LOTE).await?,
            };
            total += n;
            if n < LOTE as u64 {
                break;
            }
        }
        match &self.tabela {
            _ if total == 0 => {}
            Tabela::Outbox(nome) => {
                tracing::info!(outbox = %nome, sent = total, "retention: old rows deleted")
            }
            Tabela::Inbox => tracing::info!(inbox = total, "retention: old inbox rows deleted"),
        }
        Ok(total)
    }

    /// Sweeps every [`Retencao::intervalo`] until `shutdown`; `vivo` is told after each pass (a
    /// failed sweep is logged once while it goes on, and retried at the next one).
    pub async fn run_loop(self: Arc<Self>, shutdown: CancellationToken, vivo: Vivo) {
        let intervalo = self.intervalo();
        let (mut falhas, nome) = match &self.tabela {
            Tabela::Outbox(nome) => (vivo.falhas("retention sweep failed"), format!("outbox {nome}: ")),
            Tabela::Inbox => (vivo.falhas("inbox retention sweep failed"), String::new()),
        };
        while !shutdown.is_cancelled() {
            falhas.notar(self.prune(None).await.map_err(|e| format!("{nome}{e:#}")), intervalo);
            vivo.ok();
            tokio::select! {
                _ = shutdown.cancelled() => {}
                _ = tokio::time::sleep(intervalo) => {}
            }
        }
    }
}
