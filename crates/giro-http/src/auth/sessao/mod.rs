//! Operator sessions, kept in the service's own database (table `sessao_operador`, migration
//! V13; the SQL in [`store`]), not in the process, so any replica behind a load balancer serves
//! any request, a restart logs nobody out, and logout (a `DELETE`) ends the session on every
//! replica at once.
//!
//! The row's key is a SHA-256 of the session id together with the operator's login and password,
//! never the id itself: a copy of the table opens no session, and a changed password (or login)
//! makes every earlier session unknown to each replica as soon as it runs with the new one. Each
//! request with a session cookie costs one indexed lookup (no cache, so a logout holds
//! everywhere); `vista_em` is written at most once a minute per session. Expiry is absolute
//! (`sessao.ttl`, 8 h, the cookie's `Max-Age`), measured on the database's clock so replicas
//! with skewed clocks agree.
//!
//! **Purge**: [`limpar_sessoes`] deletes expired rows (and the throttling counters whose window
//! is over, [`crate::limite::contadores_pg`]) in batches of `sessao.lote-limpeza`; every replica
//! runs it, and concurrent purges take disjoint rows instead of waiting for each other
//! (`SKIP LOCKED`, no advisory lock).

pub mod store;

use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderValue;
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use super::{header_value, Seguranca};
use giro_infra::config::secret::random_token;
use giro_infra::db::{DbError, Pool};
use giro_infra::supervisor::Vivo;

/// The original's session lifetime (8 h), the default of `sessao.ttl`.
pub const SESSION_TTL: Duration = Duration::from_secs(8 * 3600);
/// Length of the session ids this service hands out (hex); other cookie values are not looked up.
const SESSION_ID_LEN: usize = 64;
/// `vista_em` is refreshed at most this often per session (seconds), to keep reads read-only.
const VISTA_PASSO_S: f64 = 60.0;

impl Seguranca {
    /// The stored key of session `id`: SHA-256 over a domain tag, the operator's credentials and
    /// the id (zero-separated), so the table never holds the id and a password change orphans
    /// every earlier session.
    fn chave(&self, id: &str) -> Vec<u8> {
        let mut h = Sha256::new();
        h.update(b"giro-sessao-v1\0");
        h.update(self.operador.usuario.as_bytes());
        h.update(b"\0");
        h.update(self.operador.senha.expose().as_bytes());
        h.update(b"\0");
        h.update(id.as_bytes());
        h.finalize().to_vec()
    }

    /// The user of live session `id`, if any.
    pub(crate) async fn sessao(&self, id: &str) -> Result<Option<String>, DbError> {
        if id.len() != SESSION_ID_LEN || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let chave = self.chave(id);
        let c = self.pool.get().await?;
        let Some((usuario, antiga)) = store::buscar(&**c, &chave, VISTA_PASSO_S).await? else {
            return Ok(None);
        };
        if antiga {
            store::marcar_vista(&**c, &chave).await?;
        }
        Ok(Some(usuario))
    }

    /// Stores a new session for `usuario` and returns its id (the cookie value).
    pub(crate) async fn criar_sessao(&self, usuario: &str) -> Result<String, DbError> {
        let id = random_token();
        let c = self.pool.get().await?;
        store::inserir(&**c, &self.chave(&id), usuario, self.ttl).await?;
        Ok(id)
    }

    /// Ends session `id` on every replica.
    pub(crate) async fn encerrar_sessao(&self, id: &str) -> Result<(), DbError> {
        let c = self.pool.get().await?;
        store::apagar(&**c, &self.chave(id)).await?;
        Ok(())
    }

    /// The session cookie carrying `value` for `max_age` seconds (0 deletes it).
    pub(crate) fn session_cookie(&self, value: &str, max_age: u64) -> HeaderValue {
        header_value(format!(
            "{}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Strict",
            self.cookie_sessao
        ))
    }
}

/// Deletes expired sessions, at most `lote` per statement, until none is left or `shutdown`
/// fires; returns how many. Safe with every replica running it at once (`SKIP LOCKED`).
pub async fn purgar_expiradas(pool: &Pool, lote: i64, shutdown: &CancellationToken) -> Result<u64, DbError> {
    let mut total = 0;
    loop {
        let c = pool.get().await?;
        let n = store::apagar_expiradas(&**c, lote).await?;
        total += n;
        if n < lote as u64 || shutdown.is_cancelled() {
            return Ok(total);
        }
    }
}

/// The purge loop of a service: a round at start, then one every `intervalo`, until `shutdown`.
pub async fn limpar_sessoes(
    seg: Arc<Seguranca>,
    intervalo: Duration,
    lote: i64,
    shutdown: CancellationToken,
    vivo: Vivo,
) {
    tracing::info!(intervalo_s = intervalo.as_secs_f64(), lote, "expired-session purge started");
    loop {
        match purgar_expiradas(&seg.pool, lote, &shutdown).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(sessoes = n, "expired operator sessions purged"),
            Err(e) => tracing::warn!(error = %e, "expired-session purge failed; retrying next round"),
        }
        if let Err(e) = crate::limite::contadores_pg::purgar_contadores(&seg.pool, lote, &shutdown).await {
            tracing::warn!(error = %e, "expired throttle counters purge failed; retrying next round");
        }
        vivo.ok();
        tokio::select! {
            _ = shutdown.cancelled() => break,
            _ = tokio::time::sleep(intervalo) => {}
        }
    }
    tracing::info!("expired-session purge stopped");
}
