//! CSRF, SPA style (double submit): a state-changing request must echo the `XSRF-*` cookie in
//! `X-XSRF-TOKEN`. As the original's `CookieCsrfTokenRepository`, the token *is* the cookie,
//! checked against the header, so it needs no server state and already holds across replicas;
//! cookie names, attributes and the SPA behaviour are the original's.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::{cookie, header_value, Seguranca};
use crate::Problem;

pub const CSRF_HEADER: &str = "x-xsrf-token";

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

impl Seguranca {
    /// The CSRF cookie carrying `value` (readable by the SPA: no `HttpOnly`).
    pub(crate) fn csrf_cookie(&self, value: &str) -> HeaderValue {
        header_value(format!("{}={value}; Path=/; SameSite=Strict", self.cookie_csrf))
    }
}
