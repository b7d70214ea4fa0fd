//! The throttling counters ([`Contadores`]) in the service's own
//! database (table `contador_limite`, migration V13), so N replicas behind a load balancer share
//! one count per client: an attacker gets the same number of login attempts whichever replica
//! answers, and a restart does not reset them.
//!
//! Each count is one row (`chave`, `n`, `fim` = end of its window, on the database's clock). An
//! increment is one `INSERT … ON CONFLICT DO UPDATE … RETURNING` that starts a new window when the
//! old one is over, so concurrent replicas never lose an increment. It commits with
//! `synchronous_commit = off`: a counter must not make every checkout wait for the disk and the
//! standby, and losing the last few increments in a database crash only forgives a few attempts.
//! Rows whose window is over are deleted in batches by the session purge
//! ([`crate::auth::sessao::limpar_sessoes`] calls [`purgar_contadores`]; `SKIP LOCKED`).

use std::time::Duration;

use futures_util::future::BoxFuture;

use tokio_util::sync::CancellationToken;

use super::{Contadores, Contagem};
use giro_infra::db::{DbError, Pool};

pub struct ContadoresPg {
    pool: Pool,
}

impl ContadoresPg {
    pub fn new(pool: Pool) -> ContadoresPg {
        ContadoresPg { pool }
    }
}

fn contagem(n: i32, restante_s: f64) -> Contagem {
    Contagem {
        n: u32::try_from(n).unwrap_or(0),
        restante: Duration::try_from_secs_f64(restante_s.max(0.0)).unwrap_or(Duration::ZERO),
    }
}

impl Contadores for ContadoresPg {
    fn incrementar<'a>(
        &'a self,
        chave: &'a str,
        janela: Duration,
    ) -> BoxFuture<'a, anyhow::Result<Contagem>> {
        Box::pin(async move {
            let mut c = self.pool.get().await?;
            let tx = c.transaction().await?;
            tx.batch_execute("SET LOCAL synchronous_commit = off").await?;
            let row = tx
                .query_one(
                    "INSERT INTO contador_limite (chave, n, fim) VALUES ($1, 1, now() + make_interval(secs => $2)) \
                     ON CONFLICT (chave) DO UPDATE SET \
                        n = CASE WHEN contador_limite.fim <= now() THEN 1 ELSE contador_limite.n + 1 END, \
                        fim = CASE WHEN contador_limite.fim <= now() THEN EXCLUDED.fim ELSE contador_limite.fim END \
                     RETURNING n, extract(epoch FROM fim - now())::float8",
                    &[&chave, &janela.as_secs_f64()],
                )
                .await?;
            tx.commit().await?;
            Ok(contagem(row.get(0), row.get(1)))
        })
    }

    fn consultar<'a>(&'a self, chave: &'a str) -> BoxFuture<'a, anyhow::Result<Contagem>> {
        Box::pin(async move {
            let c = self.pool.get().await?;
            let row = c
                .query_opt(
                    "SELECT n, extract(epoch FROM fim - now())::float8 FROM contador_limite \
                      WHERE chave = $1 AND fim > now()",
                    &[&chave],
                )
                .await?;
            Ok(row
                .map(|r| contagem(r.get(0), r.get(1)))
                .unwrap_or(Contagem { n: 0, restante: Duration::ZERO }))
        })
    }

    fn zerar<'a>(&'a self, chave: &'a str) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            let c = self.pool.get().await?;
            c.execute("DELETE FROM contador_limite WHERE chave = $1", &[&chave]).await?;
            Ok(())
        })
    }
}

/// Deletes counters whose window is over, at most `lote` per statement, until none is left or
/// `shutdown` fires; returns how many. Safe with every replica running it at once (`SKIP LOCKED`).
pub async fn purgar_contadores(pool: &Pool, lote: i64, shutdown: &CancellationToken) -> Result<u64, DbError> {
    let mut total = 0;
    loop {
        let c = pool.get().await?;
        let n = c
            .execute(
                "DELETE FROM contador_limite WHERE chave IN ( \
                     SELECT chave FROM contador_limite WHERE fim <= now() \
                      LIMIT $1 FOR UPDATE SKIP LOCKED)",
                &[&lote],
            )
            .await?;
        total += n;
        if n < lote as u64 || shutdown.is_cancelled() {
            return Ok(total);
        }
    }
}
