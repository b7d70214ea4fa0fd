//! Who is calling, and who may call a route (SPEC §6.1): a service token (Bearer, compared in
//! constant time) or one operator with a session cookie; every route not listed is denied.
//!
//! [`identify`] runs on every request and leaves a [`Principal`] in the request extensions;
//! routes declare who may call them with [`require`] and whether they need CSRF with
//! [`csrf::csrf`]; the fallback for unlisted routes ([`deny`]) answers 401 to the anonymous and
//! 403 to anyone authenticated. The parts, each a layer of its own:
//!
//! - [`sessao`] — operator sessions in the service's database (its SQL in [`sessao::store`]) and
//!   their purge;
//! - [`csrf`](mod@csrf) — double-submit CSRF, no server state;
//! - [`login`] — the `/sessao` routes (log in, who am I, log out), throttled by [`crate::limite`].
//!
//! [`Seguranca`] holds one service's settings (token, operator, cookie names, where sessions are
//! stored); the parts read it.

pub mod csrf;
pub mod login;
pub mod sessao;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::Problem;
use giro_infra::config::{Operador, Secret};
use giro_infra::db::Pool;

pub use csrf::csrf;

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
    /// The key sessions are signed and stored with ([`sessao`]), derived from the service token
    /// and the operator's credentials.
    chave_sessoes: sessao::ChaveSessoes,
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
        let chave_sessoes = sessao::ChaveSessoes::derivar(&token, &operador);
        Arc::new(Seguranca { token, operador, cookie_sessao, cookie_csrf, pool, ttl, chave_sessoes })
    }
}

pub(crate) fn header_value(s: String) -> HeaderValue {
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
        if let Some(id) = cookie(req.headers(), seg.cookie_sessao).map(str::to_string) {
            match seg.sessao(&id).await {
                Ok(Some(usuario)) => principal = Principal::Operador(usuario),
                Ok(None) => {}
                // Not "logged out": the session may well be alive. Open routes go on as
                // anonymous; those that need the operator answer 503 ([`require`]).
                Err(e) => {
                    tracing::warn!(error = %e, "session lookup failed");
                    req.extensions_mut().insert(SessaoIndeterminada { seg: seg.clone(), id });
                }
            }
        }
    }
    req.extensions_mut().insert(principal);
    next.run(req).await
}

/// Marks a request whose session cookie could not be checked (the database did not answer), with
/// what [`resolver`] needs to look it up again.
#[derive(Clone)]
struct SessaoIndeterminada {
    seg: Arc<Seguranca>,
    id: String,
}

pub(crate) fn indeterminada(req: &Request) -> bool {
    req.extensions().get::<SessaoIndeterminada>().is_some()
}

/// The caller, with a session lookup that failed in [`identify`] done again here. `identify` runs
/// outside the re-run layer (`crate::reexecucao`), so a session it lost marked no attempt and a
/// second attempt would meet the same mark: a route that needs the operator looks the session up
/// again inside the layer, where a lost session marks this attempt and the second one looks
/// again once the database is back (found in the Patroni switchover scenario, the operator's
/// reads answered 503).
pub(crate) async fn resolver(req: &mut Request) -> Principal {
    let p = principal(req);
    let Some(ind) = req.extensions().get::<SessaoIndeterminada>().cloned() else { return p };
    if p != Principal::Anonimo {
        return p;
    }
    match ind.seg.sessao(&ind.id).await {
        Ok(found) => {
            req.extensions_mut().remove::<SessaoIndeterminada>();
            let p = found.map_or(Principal::Anonimo, Principal::Operador);
            req.extensions_mut().insert(p.clone());
            p
        }
        Err(e) => {
            // Answered 503 by `require`: a lost session lets the re-run layer try again.
            giro_infra::db::reexecucao::marcar_se_sessao_perdida(e.falha());
            tracing::warn!(error = %e, "session lookup failed again");
            p
        }
    }
}

pub(crate) fn principal(req: &Request) -> Principal {
    req.extensions().get::<Principal>().cloned().unwrap_or(Principal::Anonimo)
}

/// Route layer: lets through a caller with any of `papeis`; 401 anonymous, 403 otherwise.
pub async fn require(papeis: &'static [Papel], mut req: Request, next: Next) -> Response {
    let p = resolver(&mut req).await;
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

/// Fallback for every route not listed (the original's `anyRequest().denyAll()`).
pub async fn deny(req: Request) -> Problem {
    match principal(&req) {
        Principal::Anonimo => Problem::unauthorized(),
        _ => Problem::forbidden(),
    }
}
