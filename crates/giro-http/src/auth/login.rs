//! `GET/POST/DELETE /sessao`: who is logged in (and the CSRF cookie for the SPA), logging in
//! with the operator's credentials (a form, throttled per address and per user name by
//! [`crate::limite`]), logging out on every replica.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::rejection::FormRejection;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Form, Json, Router};
use serde_json::json;
use subtle::ConstantTimeEq;

use super::{cookie, csrf, indeterminada, resolver, Principal, Seguranca};
use crate::pg::Politica;
use crate::{limite, Problem};
use giro_infra::config::secret::random_token;

/// How a failure to write a session becomes an answer: the one database policy, no constraint
/// of its own.
const POLITICA: Politica = Politica::sem_restricoes("operator session");

/// `GET/POST/DELETE /sessao`.
pub fn router(seg: Arc<Seguranca>) -> Router {
    Router::new()
        .route(
            "/sessao",
            get(sessao_atual)
                .post(entrar)
                .delete(sair)
                .route_layer(axum::middleware::from_fn_with_state(seg.clone(), csrf::csrf)),
        )
        .with_state(seg)
}

impl Seguranca {
    fn credenciais_validas(&self, usuario: &str, senha: &str) -> bool {
        let u: bool = usuario.as_bytes().ct_eq(self.operador.usuario.as_bytes()).into();
        let p = self.operador.senha.matches(senha.as_bytes());
        u & p
    }
}

async fn sessao_atual(State(seg): State<Arc<Seguranca>>, mut req: Request) -> Response {
    // `?opcional=true` (issue 39, additive): nobody logged in is a 200 `{"usuario": null}`, not a
    // 401, so a login page that asks first logs no error in the browser's console.
    let opcional = req.uri().query().is_some_and(|q| q.split('&').any(|p| p == "opcional=true"));
    let mut res = match resolver(&mut req).await {
        Principal::Operador(usuario) => Json(json!({ "usuario": usuario })).into_response(),
        _ if indeterminada(&req) => Problem::unavailable().into_response(),
        _ if opcional => Json(json!({ "usuario": null })).into_response(),
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
    limitador: Option<axum::Extension<Arc<limite::Limitador>>>,
    cliente: Option<axum::Extension<limite::EnderecoCliente>>,
    form: Result<Form<HashMap<String, String>>, FormRejection>,
) -> Response {
    // A body that is not a form carries no credentials: the login fails like a wrong password.
    let form = form.map(|f| f.0).unwrap_or_default();
    let usuario = form.get("usuario").map(String::as_str).unwrap_or("");
    let senha = form.get("senha").map(String::as_str).unwrap_or("");
    let ip = cliente.map(|c| c.0 .0).unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED));
    let limitador = limitador.map(|l| l.0);
    // The attempt is counted before the password is looked at; when it cannot be counted the
    // answer is 503 whichever password came (no oracle, no unthrottled guessing).
    if let Some(l) = &limitador {
        if let Err(r) = l.login_antes(ip, usuario).await {
            match r {
                limite::Recusa::Espera(_) => tracing::warn!(client = %ip, "operator login throttled"),
                limite::Recusa::Indisponivel => {
                    tracing::warn!(client = %ip, "operator login not checked: throttle counters unavailable")
                }
            }
            return limite::recusar("tentativas de login demais", r);
        }
    }
    if !seg.credenciais_validas(usuario, senha) {
        tracing::warn!(client = %ip, "operator login refused");
        return Problem::new(StatusCode::UNAUTHORIZED, "usuário ou senha inválidos").into_response();
    }
    if let Some(l) = &limitador {
        l.login_entrou(ip, usuario).await;
    }
    let id = match seg.criar_sessao(usuario).await {
        Ok(id) => id,
        Err(e) => return POLITICA.responder(&e).into_response(),
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
            return POLITICA.responder(&e).into_response();
        }
    }
    let mut res = StatusCode::NO_CONTENT.into_response();
    res.headers_mut().append(header::SET_COOKIE, seg.session_cookie("", 0));
    res.headers_mut().append(header::SET_COOKIE, seg.csrf_cookie(&random_token()));
    res
}
