//! Reads from a standby (issue 28, point 3): the public read routes (the catalogue, a product, the
//! dashboard's summaries) take their client from [`Db::leitura`], which is a connection to the
//! read copy (`{mercado,estoque}.db-url-leitura`) while that copy is known to be fresh enough, and
//! the primary's pool otherwise. One mechanism for every such route; a route that must see its
//! own request's write never calls it.
//!
//! Decisions:
//! - **The lag is measured in the background** ([`vigiar`], every [`INTERVALO`]), never on a
//!   request's path: a standby that stops answering costs a request nothing but the fall-back.
//! - **Lag** is `now() - pg_last_xact_replay_timestamp()` only while the standby has received WAL
//!   it has not replayed (`pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn()`); with nothing
//!   left to replay the copy is as fresh as the primary, however long ago the primary last wrote
//!   (an idle primary would otherwise look minutes behind). A copy that is not in recovery (the
//!   read URL names a primary, or a promoted standby) has no lag.
//! - **Stale or silent = not used**: a lag above `db.atraso-maximo-leitura`, a check that failed,
//!   or a measurement older than [`VALIDADE`] (the checking loop stalled) send the read to the
//!   primary. A connection the read pool fails to give also falls back, and marks the copy unusable
//!   until the next check says otherwise.
//! - The read pool's wait and connect are bounded by [`ESPERA`], so a dead standby delays no read
//!   by more than that even between two checks.
//! - Metrics: `giro_db_leituras_total{pool="leitura"|"primario"}` counts which pool served each
//!   such read, `giro_db_atraso_leitura_segundos` is the last measured lag (-1 when unknown).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use super::{epoch, Client, Db, DbError, Pool};

/// How often the copy's lag is measured.
pub const INTERVALO: Duration = Duration::from_secs(1);
/// A measurement older than this is not trusted (the loop that takes them stalled).
pub const VALIDADE: Duration = Duration::from_secs(3);
/// The read pool's bound on waiting for, or opening, a connection.
pub const ESPERA: Duration = Duration::from_secs(1);

/// What the copy's lag is measured with (see the module doc).
const ATRASO: &str = "SELECT CASE
    WHEN NOT pg_is_in_recovery() THEN 0::float8
    WHEN pg_last_wal_receive_lsn() IS NOT NULL
         AND pg_last_wal_receive_lsn() <= pg_last_wal_replay_lsn() THEN 0::float8
    ELSE COALESCE(extract(epoch FROM now() - pg_last_xact_replay_timestamp())::float8, 'Infinity'::float8)
  END";

/// A read copy, its bound and what was last measured of it.
pub struct Leitura {
    pub pool: Pool,
    pub atraso_maximo: Duration,
    /// Nanoseconds after the process's epoch of the last measurement within the bound; 0 = none.
    usavel_em: AtomicU64,
    /// The last measured lag in microseconds; `u64::MAX` = unknown (the check failed).
    atraso_us: AtomicU64,
}

impl Leitura {
    pub fn new(pool: Pool, atraso_maximo: Duration) -> Arc<Leitura> {
        Arc::new(Leitura {
            pool,
            atraso_maximo,
            usavel_em: AtomicU64::new(0),
            atraso_us: AtomicU64::new(u64::MAX),
        })
    }

    /// The last measured lag, if the last check answered.
    pub fn atraso(&self) -> Option<Duration> {
        let us = self.atraso_us.load(Ordering::Relaxed);
        (us != u64::MAX).then(|| Duration::from_micros(us))
    }

    /// True when the last measurement within the bound is recent enough to read from the copy.
    pub fn usavel(&self) -> bool {
        let em = self.usavel_em.load(Ordering::Relaxed);
        em != 0 && epoch().elapsed().saturating_sub(Duration::from_nanos(em)) < VALIDADE
    }

    fn descartar(&self) {
        self.usavel_em.store(0, Ordering::Relaxed);
    }

    /// Measures the copy's lag once and records whether it may be read from.
    pub async fn medir(&self) -> anyhow::Result<Duration> {
        let medida = async {
            let c = self.pool.get().await?;
            let s: f64 = c.query_one(ATRASO, &[]).await?.get(0);
            anyhow::Ok(s)
        };
        let r = match tokio::time::timeout(ESPERA * 2, medida).await {
            Ok(r) => r,
            Err(_) => Err(anyhow::anyhow!("the read copy did not answer within {:?}", ESPERA * 2)),
        };
        match r {
            Ok(s) => {
                let atraso = Duration::try_from_secs_f64(s.max(0.0)).unwrap_or(Duration::MAX);
                let us = u64::try_from(atraso.as_micros()).unwrap_or(u64::MAX - 1);
                self.atraso_us.store(us, Ordering::Relaxed);
                metrics::gauge!("giro_db_atraso_leitura_segundos").set(atraso.as_secs_f64().min(1e9));
                if atraso <= self.atraso_maximo {
                    let agora = epoch().elapsed().as_nanos().max(1) as u64;
                    self.usavel_em.store(agora, Ordering::Relaxed);
                } else {
                    self.descartar();
                }
                Ok(atraso)
            }
            Err(e) => {
                self.atraso_us.store(u64::MAX, Ordering::Relaxed);
                metrics::gauge!("giro_db_atraso_leitura_segundos").set(-1.0);
                self.descartar();
                Err(e)
            }
        }
    }
}

/// Measures `leitura`'s lag every [`INTERVALO`] until `shutdown`; logs when the copy stops or
/// starts being used, not every round.
pub async fn vigiar(leitura: Arc<Leitura>, shutdown: CancellationToken) {
    let mut usada = None;
    loop {
        let r = leitura.medir().await;
        let agora = leitura.usavel();
        if usada != Some(agora) {
            match (&r, agora) {
                (Ok(a), true) => tracing::info!(lag_s = a.as_secs_f64(), "reading from the read copy"),
                (Ok(a), false) => tracing::warn!(
                    lag_s = a.as_secs_f64(),
                    max_s = leitura.atraso_maximo.as_secs_f64(),
                    "the read copy lags past its bound; reading from the primary"
                ),
                (Err(e), _) => {
                    tracing::warn!(error = %super::causa(e), "the read copy does not answer; reading from the primary")
                }
            }
            usada = Some(agora);
        }
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(INTERVALO) => {}
        }
    }
}

impl Db {
    /// With a read copy: this database's reads may go to it (see the module doc).
    pub fn com_leitura(mut self, leitura: Arc<Leitura>) -> Db {
        self.leitura = Some(leitura);
        self
    }

    /// A client for a pure read that need not see this request's own writes: from the read copy
    /// while it is fresh within the bound, else from the primary's pool.
    pub async fn leitura(&self) -> Result<Client, DbError> {
        // A re-run after a lost session reads from the primary: the copy may be what was lost.
        let copia = self.leitura.as_ref().filter(|l| l.usavel() && !super::reexecucao::na_segunda());
        if let Some(l) = copia {
            let inicio = Instant::now();
            match l.pool.get().await {
                Ok(c) => {
                    super::reexecucao::conexao_obtida();
                    metrics::counter!("giro_db_leituras_total", "pool" => "leitura").increment(1);
                    return Ok(c);
                }
                Err(e) => {
                    l.descartar();
                    tracing::warn!(error = %e, waited_ms = inicio.elapsed().as_millis() as u64, "no connection from the read copy; reading from the primary");
                }
            }
        }
        metrics::counter!("giro_db_leituras_total", "pool" => "primario").increment(1);
        self.client().await
    }
}
