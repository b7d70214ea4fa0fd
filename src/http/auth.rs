//! The security layout both services share (SPEC §6.1): a service token (Bearer, compared in
//! constant time), one operator with a session cookie, SPA-style CSRF (double submit: the
//! `XSRF-*` cookie echoed in `X-XSRF-TOKEN`), the `/sessao` routes, and deny-by-default.
//!
//! [`identify`] runs on every request and leaves a [`Principal`] in the request extensions;
//! routes declare who may call them with [`require`] and whether they need CSRF with [`csrf`];
//! the fallback for unlisted routes ([`deny`]) answers 401 to the anonymous and 403 to anyone
//! authenticated. Sessions live in memory, as the original's (a restart logs the operator out).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::rejection::FormRejection;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Form, Json, Router};
use serde_json::json;
use subtle::ConstantTimeEq;

use crate::config::secret::random_token;
use crate::config::{Operador, Secret};
use crate::http::{throttle, Problem};

const SESSION_TTL: Duration = Duration::from_secs(8 * 3600);
const MAX_SESSIONS: usize = 10_000;
pub const CSRF_HEADER: &str = "x-xsrf-token";

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

struct Sessao {
    usuario: String,
    expira: Instant,
}

/// One service's security settings and its session store.
pub struct Seguranca {
    token: Secret,
    operador: Operador,
    cookie_sessao: &'static str,
    cookie_csrf: &'static str,
    sessoes: Mutex<HashMap<String, Sessao>>,
}

impl Seguranca {
    /// `nome` = `MERCADO` or `ESTOQUE`: cookies `<nome>_SESSAO` and `XSRF-<nome>`.
    pub fn new(
        token: Secret,
        operador: Operador,
        cookie_sessao: &'static str,
        cookie_csrf: &'static str,
    ) -> Arc<Self> {
        Arc::new(Seguranca {
            token,
            operador,
            cookie_sessao,
            cookie_csrf,
            sessoes: Mutex::new(HashMap::new()),
        })
    }

    fn sessao(&self, id: &str) -> Option<String> {
        let mut s = self.sessoes.lock().ok()?;
        let now = Instant::now();
        match s.get(id) {
            Some(sessao) if sessao.expira > now => Some(sessao.usuario.clone()),
            Some(_) => {
                s.remove(id);
                None
            }
            None => None,
        }
    }

    fn criar_sessao(&self, usuario: &str) -> String {
        let id = random_token();
        if let Ok(mut s) = self.sessoes.lock() {
            let now = Instant::now();
            if s.len() >= MAX_SESSIONS {
                s.retain(|_, v| v.expira > now);
            }
            s.insert(id.clone(), Sessao { usuario: usuario.to_string(), expira: now + SESSION_TTL });
        }
        id
    }

    fn encerrar_sessao(&self, id: &str) {
        if let Ok(mut s) = self.sessoes.lock() {
            s.remove(id);
        }
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
        if let Some(usuario) = cookie(req.headers(), seg.cookie_sessao).and_then(|id| seg.sessao(id)) {
            principal = Principal::Operador(usuario);
        }
    }
    req.extensions_mut().insert(principal);
    next.run(req).await
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
    if p == Principal::Anonimo {
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
    let id = seg.criar_sessao(usuario);
    let mut res = StatusCode::NO_CONTENT.into_response();
    res.headers_mut().append(header::SET_COOKIE, seg.session_cookie(&id, SESSION_TTL.as_secs()));
    res.headers_mut().append(header::SET_COOKIE, seg.csrf_cookie(&random_token()));
    res
}

async fn sair(State(seg): State<Arc<Seguranca>>, headers: HeaderMap) -> Response {
    if let Some(id) = cookie(&headers, seg.cookie_sessao) {
        seg.encerrar_sessao(id);
    }
    let mut res = StatusCode::NO_CONTENT.into_response();
    res.headers_mut().append(header::SET_COOKIE, seg.session_cookie("", 0));
    res.headers_mut().append(header::SET_COOKIE, seg.csrf_cookie(&random_token()));
    res
}
