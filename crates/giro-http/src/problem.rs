//! Errors as RFC 9457 problem details (`application/problem+json`), as the original's Spring
//! `ProblemDetail`: `{"type":"about:blank","title","status","detail","instance"}` plus extra
//! properties (checkout's `sku`).
//!
//! A handler returns a [`Problem`]; it travels as a response extension and [`render`] (a
//! middleware on every router) writes the body with `instance` = the request path, so handlers
//! need not know their own path. Internals are logged where they happen, never sent.

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

pub const CONTENT_TYPE: &str = "application/problem+json";

/// `Retry-After` (seconds) of every 503 problem and of `/readyz`'s 503: a restart, a failover or
/// a pool that frees up take seconds; a balancer or a client retries soon without hammering.
pub const RETRY_AFTER: &str = "2";

#[derive(Clone, Debug)]
pub struct Problem {
    pub status: StatusCode,
    pub title: Option<String>,
    pub detail: Option<String>,
    pub extra: Map<String, Value>,
}

impl Problem {
    pub fn new(status: StatusCode, detail: impl Into<String>) -> Self {
        Problem { status, title: None, detail: Some(detail.into()), extra: Map::new() }
    }

    pub fn bad_request(detail: impl Into<String>) -> Self {
        Problem::new(StatusCode::BAD_REQUEST, detail)
    }

    pub fn unauthorized() -> Self {
        Problem::new(StatusCode::UNAUTHORIZED, "autenticação necessária")
    }

    pub fn forbidden() -> Self {
        Problem::new(StatusCode::FORBIDDEN, "acesso negado")
    }

    pub fn internal() -> Self {
        Problem::new(StatusCode::INTERNAL_SERVER_ERROR, "erro interno; tente novamente")
    }

    pub fn unavailable() -> Self {
        Problem::new(StatusCode::SERVICE_UNAVAILABLE, "banco de dados indisponível; tente novamente")
    }

    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_string(), value.into());
        self
    }

    /// The JSON body for a request at `instance`.
    pub fn body(&self, instance: Option<&str>) -> Value {
        let title = self.title.as_deref().or(self.status.canonical_reason()).unwrap_or("Error");
        let mut m = Map::new();
        m.insert("type".into(), "about:blank".into());
        m.insert("title".into(), title.into());
        m.insert("status".into(), self.status.as_u16().into());
        m.extend(self.detail.iter().map(|d| ("detail".into(), d.as_str().into())));
        m.extend(instance.map(|i| ("instance".into(), i.into())));
        m.extend(self.extra.clone());
        Value::Object(m)
    }

    /// A complete response without the middleware (used where no request path is known). A 503
    /// says when to try again ([`RETRY_AFTER`]): what it answers is the database's (or the
    /// service's) trouble, which passes.
    pub fn into_response_at(self, instance: Option<&str>) -> Response {
        let body = self.body(instance).to_string();
        let mut res = (self.status, body).into_response();
        res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
        if self.status == StatusCode::SERVICE_UNAVAILABLE {
            res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static(RETRY_AFTER));
        }
        res
    }
}

impl IntoResponse for Problem {
    fn into_response(self) -> Response {
        let mut res = self.status.into_response();
        res.extensions_mut().insert(self);
        res
    }
}

/// Middleware: renders a [`Problem`] left in the response extensions, with the request path.
pub async fn render(req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    let mut res = next.run(req).await;
    if let Some(p) = res.extensions_mut().remove::<Problem>() {
        let mut rendered = p.into_response_at(Some(&path));
        // Keep headers a handler set besides the body's (e.g. Set-Cookie on a 401 of /sessao).
        for (k, v) in res.headers() {
            if k != header::CONTENT_TYPE && k != header::CONTENT_LENGTH {
                rendered.headers_mut().append(k.clone(), v.clone());
            }
        }
        return rendered;
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_has_the_spring_problem_detail_shape() {
        let p = Problem::new(StatusCode::CONFLICT, "x")
            .with_title("Estoque insuficiente")
            .with("sku", "7894900011517");
        let b = p.body(Some("/pedidos"));
        assert_eq!(
            b,
            serde_json::json!({"type":"about:blank","title":"Estoque insuficiente","status":409,
                "detail":"x","instance":"/pedidos","sku":"7894900011517"})
        );
        let d = Problem::bad_request("y").body(None);
        assert_eq!(d["title"], "Bad Request");
    }

    #[test]
    fn a_503_says_when_to_try_again_and_other_statuses_do_not() {
        let r = Problem::unavailable().into_response_at(Some("/pedidos"));
        assert_eq!(r.headers().get(header::RETRY_AFTER).map(|v| v.as_bytes()), Some(RETRY_AFTER.as_bytes()));
        let r = Problem::internal().into_response_at(None);
        assert!(r.headers().get(header::RETRY_AFTER).is_none());
    }
}
