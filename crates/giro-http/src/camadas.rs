//! The stack every service's API router gets ([`finish`]): unlisted routes denied, the caller
//! identified, problem bodies rendered, a body limit, request metrics, one log line per request;
//! and the answers' headers every API shares ([`sem_cache`], [`cookies_seguros`]).

use std::sync::Arc;
use std::time::Instant;

use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::http::{header, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use tracing::Instrument;

use crate::{auth, metrics, problem};

/// Body limit of `/eventos` and the JSON routes (SPEC §9.2); `/eventos/lote` raises its own.
pub const BODY_LIMIT: usize = 64 * 1024;

/// The layers every service router gets: unlisted routes denied, the caller identified, problem
/// bodies rendered, a body limit, request metrics, one log line per request.
pub fn finish(router: Router, seg: Arc<auth::Seguranca>) -> Router {
    router
        .fallback(auth::deny)
        .method_not_allowed_fallback(auth::deny)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn(sem_cache))
        .layer(middleware::from_fn_with_state(seg, auth::identify))
        .layer(middleware::from_fn(problem::render))
        .layer(middleware::from_fn(metrics::track))
        .layer(middleware::from_fn(access_log))
        .layer(middleware::from_fn(giro_infra::trace::layer))
}

/// Middleware inside [`auth::identify`]: operator and session answers are never cached
/// (`no-store`: a shared cache or the back button must not replay them).
pub async fn sem_cache(req: Request, next: Next) -> Response {
    let sessao = req.uri().path() == "/sessao";
    let operador = matches!(req.extensions().get::<auth::Principal>(), Some(auth::Principal::Operador(_)));
    let mut res = next.run(req).await;
    if sessao || operador {
        res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    res
}

/// Middleware of a service's API with `http.cookies-seguros`: every cookie gets `Secure` (the
/// public origin is https, so the browser must never send them over plain http).
pub async fn cookies_seguros(req: Request, next: Next) -> Response {
    let mut res = next.run(req).await;
    let todos: Vec<HeaderValue> = res.headers().get_all(header::SET_COOKIE).iter().cloned().collect();
    if todos.is_empty() {
        return res;
    }
    res.headers_mut().remove(header::SET_COOKIE);
    for c in todos {
        let seguro = match c.to_str() {
            Ok(s) if !s.to_ascii_lowercase().contains("; secure") => {
                HeaderValue::from_str(&format!("{s}; Secure")).unwrap_or(c)
            }
            _ => c,
        };
        res.headers_mut().append(header::SET_COOKIE, seguro);
    }
    res
}

/// Middleware: exactly one log line per request, `request` with its method, route (the matched
/// template, e.g. `/pedidos/{id}`, or `unmatched`; never the query string), status and latency in
/// milliseconds, written when the response is ready, inside the request's `trace` span (its
/// `trace_id`, [`giro_infra::trace::layer`]). What the request logs meanwhile (an invalid token, a
/// failed event) is also in an `http` span with the same method and route. Headers, cookies and
/// bodies are never logged.
pub async fn access_log(req: Request, next: Next) -> Response {
    let method = req.method().clone();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let span = tracing::info_span!("http", method = %method, route = %route);
    let start = Instant::now();
    let res = next.run(req).instrument(span).await;
    let latency_ms = (start.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    tracing::info!(method = %method, route = %route, status = res.status().as_u16(), latency_ms, "request");
    res
}
