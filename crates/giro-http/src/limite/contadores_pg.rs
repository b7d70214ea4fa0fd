//! The throttling counters in the service's own database (table
//! `contador_limite`, migration V13), so N replicas behind a load balancer share one count per
//! client: an attacker gets the same number of login attempts whichever replica answers, and a
//! restart does not reset them.
//!
//! Each count is one row (`chave`, `n`, `fim` = end of its window, on the database's clock). An
//! increment is one statement ([`INCREMENTAR`]) that updates the row and returns the new count,
//! starting a new window when the old one is over: concurrent increments of one key queue on
//! its row and each sees its own count, so the check ("is the count past the limit?") and the
//! increment cannot be raced. It commits with `synchronous_commit = off`: a counter must not make
//! every checkout wait for the disk and the standby, and losing the last few increments in a
//! database crash only forgives a few attempts.
//!
//! **Bounded** (issue 25): a new key is inserted only while the table holds fewer than
//! `http.max-contadores` rows. The number of rows is kept by triggers in `contador_limite_total`
//! (16 slices, so concurrent inserts seldom wait for each other; migrations mercado V16, estoque
//! V15), read in the same statement — a count of the table on each new key would cost a scan of
//! up to the cap. Concurrent inserts at the edge may pass the cap by how many run at once.
//! Rows whose window is over are deleted in batches by the session purge
//! ([`crate::auth::sessao::limpar_sessoes`] calls [`purgar_contadores`]; `SKIP LOCKED`), which
//! does not hold readiness.

use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::Contagem;
use giro_infra::db::{DbError, Pool};

/// Where counts live. Keys are short ASCII-ish strings (`login:ip:1.2.3.4`).
pub struct ContadoresPg {
    pool: Pool,
}

fn contagem(n: i32, restante_s: f64) -> Contagem {
    Contagem {
        n: u32::try_from(n).unwrap_or(0),
        restante: Duration::try_from_secs_f64(restante_s.max(0.0)).unwrap_or(Duration::ZERO),
    }
}

/// `$1` chave, `$2` janela (s), `$3` teto, `$4` max_chaves: the existing row is updated (a window
/// that is over starts again at 1); a new key is inserted only while the table is under `$4`
/// rows (a concurrent insert of the same key turns into the update: `ON CONFLICT`). No row
/// back: the key is new and the table is full.
pub const INCREMENTAR: &str = "\
    WITH atual AS ( \
        UPDATE contador_limite SET \
            n = CASE WHEN fim <= now() THEN 1 ELSE LEAST(n + 1, $3) END, \
            fim = CASE WHEN fim <= now() THEN now() + make_interval(secs => $2) ELSE fim END \
         WHERE chave = $1 \
        RETURNING n, fim), \
    novo AS ( \
        INSERT INTO contador_limite AS c (chave, n, fim) \
        SELECT $1, 1, now() + make_interval(secs => $2) \
         WHERE NOT EXISTS (SELECT 1 FROM atual) \
           AND (SELECT COALESCE(sum(t.n), 0)::bigint FROM contador_limite_total t) < $4::bigint \
        ON CONFLICT (chave) DO UPDATE SET \
            n = CASE WHEN c.fim <= now() THEN 1 ELSE LEAST(c.n + 1, $3) END, \
            fim = CASE WHEN c.fim <= now() THEN EXCLUDED.fim ELSE c.fim END \
        RETURNING n, fim) \
    SELECT n, extract(epoch FROM fim - now())::float8 FROM atual \
    UNION ALL SELECT n, extract(epoch FROM fim - now())::float8 FROM novo";

impl ContadoresPg {
    pub fn new(pool: Pool) -> ContadoresPg {
        ContadoresPg { pool }
    }

    /// Adds one to `chave` and returns the count, in one atomic step (concurrent callers each
    /// see a count of their own); the count stops at `teto` (a locked key stays locked without
    /// growing). A key whose window is over starts a new one of `janela`. `Ok(None)` when the key
    /// is new and the store already holds `max_chaves` keys: nothing was counted.
    pub async fn incrementar(
        &self,
        chave: &str,
        janela: Duration,
        teto: u32,
        max_chaves: u64,
    ) -> anyhow::Result<Option<Contagem>> {
        let teto = i32::try_from(teto).unwrap_or(i32::MAX).max(1);
        let max = i64::try_from(max_chaves).unwrap_or(i64::MAX);
        let mut c = self.pool.get().await?;
        let tx = c.transaction().await?;
        tx.batch_execute("SET LOCAL synchronous_commit = off").await?;
        let row = tx.query_opt(INCREMENTAR, &[&chave, &janela.as_secs_f64(), &teto, &max]).await?;
        tx.commit().await?;
        Ok(row.map(|r| contagem(r.get(0), r.get(1))))
    }

    /// Takes one back from `chave` (never below zero).
    pub async fn descontar(&self, chave: &str) -> anyhow::Result<()> {
        let stmt = "UPDATE contador_limite SET n = n - 1 WHERE chave = $1 AND n > 0 AND fim > now()";
        self.pool.get().await?.execute(stmt, &[&chave]).await?;
        Ok(())
    }

    /// The count of `chave` now (0 once its window is over).
    pub async fn consultar(&self, chave: &str) -> anyhow::Result<Contagem> {
        let stmt = "SELECT n, extract(epoch FROM fim - now())::float8 FROM contador_limite \
                    WHERE chave = $1 AND fim > now()";
        let row = self.pool.get().await?.query_opt(stmt, &[&chave]).await?;
        Ok(row.map(|r| contagem(r.get(0), r.get(1))).unwrap_or(Contagem { n: 0, restante: Duration::ZERO }))
    }

    /// Forgets `chave`.
    pub async fn zerar(&self, chave: &str) -> anyhow::Result<()> {
        self.pool.get().await?.execute("DELETE FROM contador_limite WHERE chave = $1", &[&chave]).await?;
        Ok(())
    }
}

/// Deletes counters whose window is over, at most `lote` per statement, until none is left or
/// `shutdown` fires; returns how many. Safe with every replica running it at once (`SKIP LOCKED`).
pub async fn purgar_contadores(pool: &Pool, lote: i64, shutdown: &CancellationToken) -> Result<u64, DbError> {
    let stmt = "DELETE FROM contador_limite WHERE chave IN ( \
                SELECT chave FROM contador_limite WHERE fim <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)";
    giro_infra::db::em_lotes(pool, lote, shutdown, |c| async move { c.execute(stmt, &[&lote]).await }).await
}
