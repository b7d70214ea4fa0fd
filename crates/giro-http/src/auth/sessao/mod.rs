//! Operator sessions, kept in the service's own database (table `sessao_operador`, migration
//! V13; the SQL in [`store`]), not in the process, so any replica behind a load balancer serves
//! any request, a restart logs nobody out, and logout (a `DELETE`) ends the session on every
//! replica at once.
//!
//! **Signed ids** (issue 25). A session id is 64 random hex characters; the cookie carries it
//! with a MAC: `<id>.<mac>`, the MAC the first 16 bytes (32 hex) of HMAC-SHA256 over the id, keyed
//! by [`ChaveSessoes`]. A cookie of another shape or with a wrong MAC is anonymous **without a
//! query**, so a forged cookie costs the database nothing; a well-signed one costs one indexed
//! lookup. The key is derived — HMAC-SHA256 keyed by the service's own token
//! (`*_TOKEN_SERVICO`, at least 32 characters, never in the database) over a domain tag and the
//! operator's login and password — so it needs no secret of its own, a MAC says nothing about
//! the password to whoever holds a cookie (the token keys it), and changing the token, the
//! login or the password makes every earlier cookie unsigned.
//!
//! **Stored**: the row's key is an HMAC of the id under the same key, never the id itself: a
//! copy of the table opens no session. Each row also holds `credencial`, a fingerprint of the
//! key (an HMAC of a constant); every round of the purge ([`limpar_sessoes`], which runs at
//! start) deletes the rows of any other fingerprint, so after a password change the sessions
//! of the old credentials are gone, and reverting the password revives none of them. (During a
//! rolling change, replicas on either credentials delete each other's sessions: the operator
//! may have to log in again.) `vista_em` is written at most once a minute per session. Expiry is
//! absolute (`sessao.ttl`, 8 h, the cookie's `Max-Age`), measured on the database's clock so
//! replicas with skewed clocks agree.
//!
//! **Purge**: [`limpar_sessoes`] deletes expired rows and rows of other credentials (and the
//! throttling counters whose window is over, [`crate::limite::contadores_pg`]) in batches of
//! `sessao.lote-limpeza`; every replica runs it, and concurrent purges take disjoint rows
//! instead of waiting for each other (`SKIP LOCKED`, no advisory lock).

pub mod store;

use std::sync::Arc;
use std::time::Duration;

use axum::http::HeaderValue;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;

use super::{header_value, Seguranca};
use giro_infra::config::secret::random_token;
use giro_infra::config::{Operador, Secret};
use giro_infra::db::{DbError, Pool};
use giro_infra::supervisor::Vivo;

/// The original's session lifetime (8 h), the default of `sessao.ttl`.
pub const SESSION_TTL: Duration = Duration::from_secs(8 * 3600);
/// Length of the session ids this service hands out (hex).
const SESSION_ID_LEN: usize = 64;
/// Bytes of the cookie's MAC (a truncated HMAC-SHA256; 128 bits cannot be guessed).
const MAC_LEN: usize = 16;
/// `vista_em` is refreshed at most this often per session (seconds), to keep reads read-only.
const VISTA_PASSO_S: f64 = 60.0;

type HmacSha256 = Hmac<Sha256>;

/// The key that signs session cookies and keys their rows (see the module's documentation).
pub(crate) struct ChaveSessoes([u8; 32]);

fn hmac(chave: &[u8], partes: &[&[u8]]) -> [u8; 32] {
    // HMAC takes a key of any length: new_from_slice cannot fail.
    let Ok(mut m) = HmacSha256::new_from_slice(chave) else { return [0; 32] };
    for p in partes {
        m.update(p);
    }
    m.finalize().into_bytes().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl ChaveSessoes {
    pub(crate) fn derivar(token: &Secret, operador: &Operador) -> ChaveSessoes {
        ChaveSessoes(hmac(
            token.expose().as_bytes(),
            &[b"giro-sessao-v2\0", operador.usuario.as_bytes(), b"\0", operador.senha.expose().as_bytes()],
        ))
    }

    fn mac(&self, id: &str) -> String {
        hex(&hmac(&self.0, &[b"cookie\0", id.as_bytes()])[..MAC_LEN])
    }

    /// The cookie value of session `id`.
    fn assinar(&self, id: &str) -> String {
        format!("{id}.{}", self.mac(id))
    }

    /// The session id a cookie value carries, when its shape and MAC are right; no I/O.
    fn verificar<'a>(&self, valor: &'a str) -> Option<&'a str> {
        let (id, mac) = valor.split_once('.')?;
        if id.len() != SESSION_ID_LEN
            || !id.bytes().all(|b| b.is_ascii_hexdigit())
            || mac.len() != 2 * MAC_LEN
        {
            return None;
        }
        let ok: bool = self.mac(id).as_bytes().ct_eq(mac.as_bytes()).into();
        ok.then_some(id)
    }

    /// The stored key of session `id`: the table never holds the id.
    fn linha(&self, id: &str) -> Vec<u8> {
        hmac(&self.0, &[b"sessao\0", id.as_bytes()]).to_vec()
    }

    /// The fingerprint of these credentials on every session row opened with them.
    fn credencial(&self) -> Vec<u8> {
        hmac(&self.0, &[b"credencial"]).to_vec()
    }
}

impl Seguranca {
    /// The user of live session `cookie` (the cookie's value), if any: a cookie of the wrong
    /// shape or MAC is refused without touching the database.
    pub(crate) async fn sessao(&self, cookie: &str) -> Result<Option<String>, DbError> {
        let Some(id) = self.chave_sessoes.verificar(cookie) else {
            return Ok(None);
        };
        let chave = self.chave_sessoes.linha(id);
        let c = self.pool.get().await?;
        let Some((usuario, antiga)) = store::buscar(&c, &chave, VISTA_PASSO_S).await? else {
            return Ok(None);
        };
        if antiga {
            store::marcar_vista(&c, &chave).await?;
        }
        Ok(Some(usuario))
    }

    /// Stores a new session for `usuario` and returns its cookie value (`<id>.<mac>`).
    pub(crate) async fn criar_sessao(&self, usuario: &str) -> Result<String, DbError> {
        let id = random_token();
        let (chave, credencial) = (self.chave_sessoes.linha(&id), self.chave_sessoes.credencial());
        store::inserir(&self.pool.get().await?, &chave, usuario, self.ttl, &credencial).await?;
        Ok(self.chave_sessoes.assinar(&id))
    }

    /// Ends the session of cookie value `cookie` on every replica (nothing to do for a cookie
    /// this service did not sign).
    pub(crate) async fn encerrar_sessao(&self, cookie: &str) -> Result<(), DbError> {
        let Some(id) = self.chave_sessoes.verificar(cookie) else {
            return Ok(());
        };
        let c = self.pool.get().await?;
        store::apagar(&c, &self.chave_sessoes.linha(id)).await?;
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

/// Deletes the sessions opened with other credentials than `seg`'s, at most `lote` per
/// statement, until none is left or `shutdown` fires; returns how many.
pub async fn purgar_outras_credenciais(
    seg: &Seguranca,
    lote: i64,
    shutdown: &CancellationToken,
) -> Result<u64, DbError> {
    let credencial = &seg.chave_sessoes.credencial();
    giro_infra::db::em_lotes(&seg.pool, lote, shutdown, |c| async move {
        store::apagar_de_outras_credenciais(&c, credencial, lote).await
    })
    .await
}

/// Deletes expired sessions, at most `lote` per statement, until none is left or `shutdown`
/// fires; returns how many. Safe with every replica running it at once (`SKIP LOCKED`).
pub async fn purgar_expiradas(pool: &Pool, lote: i64, shutdown: &CancellationToken) -> Result<u64, DbError> {
    giro_infra::db::em_lotes(pool, lote, shutdown, |c| async move { store::apagar_expiradas(&c, lote).await })
        .await
}

/// The purge loop of a service: a round at start, then one every `intervalo`, until `shutdown`:
/// expired sessions, sessions of other credentials, counters whose window is over.
pub async fn limpar_sessoes(
    seg: Arc<Seguranca>,
    intervalo: Duration,
    lote: i64,
    shutdown: CancellationToken,
    vivo: Vivo,
) {
    tracing::info!(intervalo_s = intervalo.as_secs_f64(), lote, "expired-session purge started");
    let mut expiradas = vivo.falhas("expired-session purge failed; retrying next round");
    let mut outras = vivo.falhas("purge of other credentials' sessions failed; retrying next round");
    let mut contadores = vivo.falhas("expired throttle counters purge failed; retrying next round");
    loop {
        if let Some(n) = expiradas.notar(purgar_expiradas(&seg.pool, lote, &shutdown).await, intervalo) {
            if n > 0 {
                tracing::info!(sessoes = n, "expired operator sessions purged");
            }
        }
        if let Some(n) = outras.notar(purgar_outras_credenciais(&seg, lote, &shutdown).await, intervalo) {
            if n > 0 {
                tracing::info!(sessoes = n, "sessions of other operator credentials deleted");
            }
        }
        let purga = crate::limite::contadores_pg::purgar_contadores(&seg.pool, lote, &shutdown).await;
        contadores.notar(purga, intervalo);
        vivo.ok();
        tokio::select! {
            _ = shutdown.cancelled() => break,
            _ = tokio::time::sleep(intervalo) => {}
        }
    }
    tracing::info!("expired-session purge stopped");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chave(token: &str, senha: &str) -> ChaveSessoes {
        ChaveSessoes::derivar(
            &Secret::new(token),
            &Operador { usuario: "operador".into(), senha: Secret::new(senha) },
        )
    }

    #[test]
    fn a_cookie_is_accepted_only_with_its_own_mac_under_the_same_key() {
        let k = chave("t".repeat(32).as_str(), "senha-123");
        let id = random_token();
        let cookie = k.assinar(&id);
        assert_eq!(cookie.len(), 64 + 1 + 32);
        assert_eq!(k.verificar(&cookie), Some(id.as_str()));
        // Another password or token: the same cookie is unsigned.
        assert_eq!(chave("t".repeat(32).as_str(), "senha-456").verificar(&cookie), None);
        assert_eq!(chave("u".repeat(32).as_str(), "senha-123").verificar(&cookie), None);
        // A flipped MAC digit, a bare id, junk: refused.
        let mut outro = cookie.clone().into_bytes();
        let last = outro.len() - 1;
        outro[last] = if outro[last] == b'0' { b'1' } else { b'0' };
        assert_eq!(k.verificar(&String::from_utf8(outro).unwrap_or_default()), None);
        assert_eq!(k.verificar(&id), None);
        assert_eq!(k.verificar("x.y"), None);
        // The stored key and the fingerprint differ from the id and between credentials.
        assert_ne!(k.linha(&id), id.as_bytes());
        assert_ne!(k.credencial(), chave("t".repeat(32).as_str(), "senha-456").credencial());
    }
}
