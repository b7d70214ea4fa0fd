//! The security layout both services share (SPEC §6.1): a service token (Bearer, compared in
//! constant time), one operator with a session cookie, SPA-style CSRF (double submit: the
//! `XSRF-*` cookie echoed in `X-XSRF-TOKEN`), the `/sessao` routes, and deny-by-default.
//!
//! [`identify`] runs on every request and leaves a [`Principal`] in the request extensions;
//! routes declare who may call them with [`require`] and whether they need CSRF with [`csrf`];
//! the fallback for unlisted routes ([`deny`]) answers 401 to the anonymous and 403 to anyone
//! authenticated.
//!
//! **Sessions live in the service's own database** (table `sessao_operador`, migration V13), not
//! in the process, so any replica behind a load balancer serves any request, a restart logs nobody
//! out, and logout (a `DELETE`) ends the session on every replica at once. The row's key is a
//! SHA-256 of the session id together with the operator's login and password, never the id
//! itself: a copy of the table opens no session, and a changed password (or login) makes every
//! earlier session unknown to each replica as soon as it runs with the new one. Each request with
//! a session cookie costs one indexed lookup (no cache, so a logout holds everywhere); `vista_em`
//! is written at most once a minute per session. Expiry is absolute (`sessao.ttl`, 8 h, the
//! cookie's `Max-Age`), measured on the database's clock so replicas with skewed clocks agree.
//!
//! **CSRF tokens need no server state**: as the original's `CookieCsrfTokenRepository`, the
//! token *is* the `XSRF-*` cookie, checked against the header (double submit), so it already
//! holds across replicas; cookie names, attributes and the SPA behaviour are the original's.
//!
//! **Purge**: [`limpar_sessoes`] deletes expired rows (and the throttling counters whose window
//! is over, [`crate::contadores_pg`]) in batches of `sessao.lote-limpeza`, each a
//! `DELETE … WHERE id_hash IN (SELECT … FOR UPDATE SKIP LOCKED LIMIT n)`; every replica runs it,
//! and concurrent purges take disjoint rows instead of waiting for each other (no advisory lock).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::FormRejection;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Form, Json, Router};
use serde_json::json;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use tokio_util::sync::CancellationToken;

use crate::{throttle, Problem};
use giro_infra::config::secret::random_token;
use giro_infra::config::{Operador, Secret};
use giro_infra::db::{DbError, Pool};
use giro_infra::supervisor::Vivo;

/// The original's session lifetime (8 h), the default of `sessao.ttl`.
pub const SESSION_TTL: Duration = Duration::from_secs(8 * 3600);
pub const CSRF_HEADER: &str = "x-xsrf-token";
/// Length of the session ids this service hands out (hex); other cookie values are not looked up.
const SESSION_ID_LEN: usize = 64;
/// `vista_em` is refreshed at most this often per session (seconds), to keep reads read-only.
const VISTA_PASSO_S: f64 = 60.0;

/// Who is calling.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Principal {
    Anonimo,
    /// The peer service, authenticated by this service's token.
    Servico,
    /// The operator, authenticated by a session.
    Operador(String),
}

/// A role a route may require.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Papel {
    Servico,
    Operador,
}

impl Principal {
    fn tem(&self, p: Papel) -> bool {
        matches!((self, p), (Principal::Servico, Papel::Servico) | (Principal::Operador(_), Papel::Operador))
    }
}

/// One service's security settings; its sessions are in `pool` (the service's own database).
pub struct Seguranca {
    token: Secret,
    operador: Operador,
    cookie_sessao: &'static str,
    cookie_csrf: &'static str,
    pool: Pool,
    ttl: Duration,
}

impl Seguranca {
    /// Cookies `cookie_sessao` (`MERCADO_SESSAO`, …) and `cookie_csrf` (`XSRF-MERCADO`, …);
    /// sessions stored in `pool`, each valid for `ttl`.
    pub fn new(
        token: Secret,
        operador: Operador,
        cookie_sessao: &'static str,
        cookie_csrf: &'static str,
        pool: Pool,
        ttl: Duration,
    ) -> Arc<Self> {
        Arc::new(Seguranca { token, operador, cookie_sessao, cookie_csrf, pool, ttl })
    }

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
    async fn sessao(&self, id: &str) -> Result<Option<String>, DbError> {
        if id.len() != SESSION_ID_LEN || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(None);
        }
        let chave = self.chave(id);
        let c = self.pool.get().await?;
        let row = c
            .query_opt(
                "SELECT usuario, vista_em < now() - make_interval(secs => $2) \
                   FROM sessao_operador WHERE id_hash = $1 AND expira_em > now()",
                &[&chave, &VISTA_PASSO_S],
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        if row.get::<_, bool>(1) {
            c.execute("UPDATE sessao_operador SET vista_em = now() WHERE id_hash = $1", &[&chave]).await?;
        }
        Ok(Some(row.get(0)))
    }

    /// Stores a new session for `usuario` and returns its id (the cookie value).
    async fn criar_sessao(&self, usuario: &str) -> Result<String, DbError> {
        let id = random_token();
        let c = self.pool.get().await?;
        c.execute(
            "INSERT INTO sessao_operador (id_hash, usuario, expira_em) \
             VALUES ($1, $2, now() + make_interval(secs => $3))",
            &[&self.chave(&id), &usuario, &self.ttl.as_secs_f64()],
        )
        .await?;
        Ok(id)
    }

    /// Ends session `id` on every replica.
    async fn encerrar_sessao(&self, id: &str) -> Result<(), DbError> {
        let c = self.pool.get().await?;
        c.execute("DELETE FROM sessao_operador WHERE id_hash = $1", &[&self.chave(id)]).await?;
        Ok(())
    }

    fn credenciais_validas(&self, usuario: &str, senha: &str) -> bool {
        let u: bool = usuario.as_bytes().ct_eq(self.operador.usuario.as_bytes()).into();
        let p = self.operador.senha.matches(senha.as_bytes());
        u & p
    }

    fn csrf_cookie(&self, value: &str) -> HeaderValue {
        header_value(format!("{}={value}; Path=/; SameSite=Strict", self.cookie_csrf))
    }

    fn session_cookie(&self, value: &str, max_age: u64) -> HeaderValue {
        header_value(format!(
            "{}={value}; Path=/; Max-Age={max_age}; HttpOnly; SameSite=Strict",
            self.cookie_sessao
        ))
    }
}

fn header_value(s: String) -> HeaderValue {
    // Built from ASCII names and hex tokens only.
    HeaderValue::from_str(&s).unwrap_or_else(|_| HeaderValue::from_static(""))
}

/// The value of cookie `name` in the request, if any.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// Middleware on every request: works out the [`Principal`].
pub async fn identify(State(seg): State<Arc<Seguranca>>, mut req: Request, next: Next) -> Response {
    let mut principal = Principal::Anonimo;
    if let Some(auth) = req.headers().get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
        if let Some(token) = auth.strip_prefix("Bearer ") {
            if seg.token.matches(token.as_bytes()) {
                principal = Principal::Servico;
            } else {
                let remote =
                    req.extensions().get::<ConnectInfo<std::net::SocketAddr>>().map(|c| c.0.to_string());
                tracing::warn!(method = %req.method(), path = %req.uri().path(), remote = remote.as_deref().unwrap_or("-"), "invalid service token");
            }
        }
    }
    if principal == Principal::Anonimo {
        if let Some(id) = cookie(req.headers(), seg.cookie_sessao) {
            match seg.sessao(id).await {
                Ok(Some(usuario)) => principal = Principal::Operador(usuario),
                Ok(None) => {}
                // Not "logged out": the session may well be alive. Open routes go on as
                // anonymous; those that need the operator answer 503 ([`require`]).
                Err(e) => {
                    tracing::warn!(error = %e, "session lookup failed");
                    req.extensions_mut().insert(SessaoIndeterminada);
                }
            }
        }
    }
    req.extensions_mut().insert(principal);
    next.run(req).await
}

/// Marks a request whose session cookie could not be checked (the database did not answer).
#[derive(Clone, Copy, Debug)]
struct SessaoIndeterminada;

fn indeterminada(req: &Request) -> bool {
    req.extensions().get::<SessaoIndeterminada>().is_some()
}

fn principal(req: &Request) -> Principal {
    req.extensions().get::<Principal>().cloned().unwrap_or(Principal::Anonimo)
}

/// Route layer: lets through a caller with any of `papeis`; 401 anonymous, 403 otherwise.
pub async fn require(papeis: &'static [Papel], req: Request, next: Next) -> Response {
    let p = principal(&req);
    if papeis.iter().any(|papel| p.tem(*papel)) {
        return next.run(req).await;
    }
    if p == Principal::Anonimo && indeterminada(&req) {
        Problem::unavailable().into_response()
    } else if p == Principal::Anonimo {
        Problem::unauthorized().into_response()
    } else {
        Problem::forbidden().into_response()
    }
}

pub async fn require_servico(req: Request, next: Next) -> Response {
    require(&[Papel::Servico], req, next).await
}

pub async fn require_operador(req: Request, next: Next) -> Response {
    require(&[Papel::Operador], req, next).await
}

pub async fn require_servico_ou_operador(req: Request, next: Next) -> Response {
    require(&[Papel::Servico, Papel::Operador], req, next).await
}

/// Route layer: a state-changing request must echo the CSRF cookie in `X-XSRF-TOKEN`.
pub async fn csrf(State(seg): State<Arc<Seguranca>>, req: Request, next: Next) -> Response {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return next.run(req).await;
    }
    let cookie = cookie(req.headers(), seg.cookie_csrf).unwrap_or("");
    let header = req.headers().get(CSRF_HEADER).and_then(|v| v.to_str().ok()).unwrap_or("");
    let ok: bool = cookie.as_bytes().ct_eq(header.as_bytes()).into();
    if cookie.is_empty() || !ok {
        return Problem::new(StatusCode::FORBIDDEN, "token CSRF ausente ou inválido").into_response();
    }
    next.run(req).await
}

/// Fallback for every route not listed (the original's `anyRequest().denyAll()`).
pub async fn deny(req: Request) -> Problem {
    match principal(&req) {
        Principal::Anonimo => Problem::unauthorized(),
        _ => Problem::forbidden(),
    }
}

/// `GET/POST/DELETE /sessao`.
pub fn sessao_router(seg: Arc<Seguranca>) -> Router {
    Router::new()
        .route(
            "/sessao",
            get(sessao_atual)
                .post(entrar)
                .delete(sair)
                .route_layer(axum::middleware::from_fn_with_state(seg.clone(), csrf)),
        )
        .with_state(seg)
}

async fn sessao_atual(State(seg): State<Arc<Seguranca>>, req: Request) -> Response {
    let mut res = match principal(&req) {
        Principal::Operador(usuario) => Json(json!({ "usuario": usuario })).into_response(),
        _ if indeterminada(&req) => Problem::unavailable().into_response(),
        _ => Problem::new(StatusCode::UNAUTHORIZED, "nenhum operador logado").into_response(),
    };
    // Always hand out the CSRF cookie (written when absent; the SPA reads it before writing).
    if cookie(req.headers(), seg.cookie_csrf).is_none() {
        res.headers_mut().append(header::SET_COOKIE, seg.csrf_cookie(&random_token()));
    }
    res
}

async fn entrar(
    State(seg): State<Arc<Seguranca>>,
    headers: HeaderMap,
    limitador: Option<axum::Extension<Arc<throttle::Limitador>>>,
    cliente: Option<axum::Extension<throttle::EnderecoCliente>>,
    form: Result<Form<HashMap<String, String>>, FormRejection>,
) -> Response {
    // A body that is not a form carries no credentials: the login fails like a wrong password.
    let form = form.map(|f| f.0).unwrap_or_default();
    let usuario = form.get("usuario").map(String::as_str).unwrap_or("");
    let senha = form.get("senha").map(String::as_str).unwrap_or("");
    let ip = cliente.map(|c| c.0 .0).unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED));
    let limitador = limitador.map(|l| l.0);
    if let Some(l) = &limitador {
        if let Err(espera) = l.login_antes(ip, usuario).await {
            tracing::warn!(client = %ip, "operator login throttled");
            return throttle::muitas("tentativas de login demais", espera);
        }
    }
    if !seg.credenciais_validas(usuario, senha) {
        if let Some(l) = &limitador {
            l.login_falhou(ip, usuario).await;
        }
        tracing::warn!(client = %ip, "operator login refused");
        return Problem::new(StatusCode::UNAUTHORIZED, "usuário ou senha inválidos").into_response();
    }
    if let Some(l) = &limitador {
        l.login_entrou(ip, usuario).await;
    }
    let id = match seg.criar_sessao(usuario).await {
        Ok(id) => id,
        Err(e) => {
            tracing::warn!(error = %e, "storing the operator session failed");
            return Problem::unavailable().into_response();
        }
    };
    // The session this browser had before is replaced, not left to expire.
    if let Some(antiga) = cookie(&headers, seg.cookie_sessao) {
        if let Err(e) = seg.encerrar_sessao(antiga).await {
            tracing::warn!(error = %e, "ending the previous session failed");
        }
    }
    let mut res = StatusCode::NO_CONTENT.into_response();
    res.headers_mut().append(header::SET_COOKIE, seg.session_cookie(&id, seg.ttl.as_secs()));
    res.headers_mut().append(header::SET_COOKIE, seg.csrf_cookie(&random_token()));
    res
}

async fn sair(State(seg): State<Arc<Seguranca>>, headers: HeaderMap) -> Response {
    if let Some(id) = cookie(&headers, seg.cookie_sessao) {
        if let Err(e) = seg.encerrar_sessao(id).await {
            // The session would stay valid elsewhere: say so instead of pretending.
            tracing::warn!(error = %e, "ending the operator session failed");
            return Problem::unavailable().into_response();
        }
    }
    let mut res = StatusCode::NO_CONTENT.into_response();
    res.headers_mut().append(header::SET_COOKIE, seg.session_cookie("", 0));
    res.headers_mut().append(header::SET_COOKIE, seg.csrf_cookie(&random_token()));
    res
}

/// Deletes expired sessions, at most `lote` per statement, until none is left or `shutdown`
/// fires; returns how many. Safe with every replica running it at once (`SKIP LOCKED`).
pub async fn purgar_expiradas(pool: &Pool, lote: i64, shutdown: &CancellationToken) -> Result<u64, DbError> {
    let mut total = 0;
    loop {
        let c = pool.get().await?;
        let n = c
            .execute(
                "DELETE FROM sessao_operador WHERE id_hash IN ( \
                     SELECT id_hash FROM sessao_operador WHERE expira_em <= now() \
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

/// Deletes throttling counters whose window is over ([`crate::contadores_pg`]), in batches
/// of `lote` as [`purgar_expiradas`]; returns how many.
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
        if let Err(e) = purgar_contadores(&seg.pool, lote, &shutdown).await {
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
