//! HTTP plumbing shared by both services: the layers every router gets (problem rendering,
//! request log and metrics, body size limit, deny-by-default fallback) and [`serve`], which runs
//! a router on an already-bound listener until a shutdown token fires, then drains in-flight
//! requests within a grace period.

pub mod auth;
pub mod extract;
pub mod health;
pub mod metrics;
pub mod openapi;
pub mod problem;
pub mod web;

use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tracing::Instrument;

pub use problem::Problem;

/// Body limit of `/eventos` and the JSON routes (SPEC §9.2); `/eventos/lote` raises its own.
pub const BODY_LIMIT: usize = 64 * 1024;

/// The layers every service router gets: unlisted routes denied, the caller identified, problem
/// bodies rendered, a body limit, request metrics, one log line per request.
pub fn finish(router: Router, seg: Arc<auth::Seguranca>) -> Router {
    router
        .fallback(auth::deny)
        .method_not_allowed_fallback(auth::deny)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(seg, auth::identify))
        .layer(middleware::from_fn(problem::render))
        .layer(middleware::from_fn(metrics::track))
        .layer(middleware::from_fn(access_log))
        .layer(middleware::from_fn(crate::trace::layer))
}

/// Middleware: exactly one log line per request, `request` with its method, route (the matched
/// template, e.g. `/pedidos/{id}`, or `unmatched`; never the query string), status and latency in
/// milliseconds, written when the response is ready, inside the request's `trace` span (its
/// `trace_id`, [`crate::trace::layer`]). What the request logs meanwhile (an invalid token, a
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

/// Serves `router` on `listener` until `shutdown` is cancelled, then lets in-flight requests
/// finish for at most `grace`.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
    grace: Duration,
) -> io::Result<()> {
    let stop = shutdown.clone();
    let server = axum::serve(listener, router.into_make_service_with_connect_info::<std::net::SocketAddr>())
        .with_graceful_shutdown(async move { stop.cancelled().await });
    let deadline = async {
        shutdown.cancelled().await;
        tokio::time::sleep(grace).await;
    };
    tokio::select! {
        r = server => r,
        _ = deadline => {
            tracing::warn!(grace_s = grace.as_secs_f64(), "grace period over; closing the remaining connections");
            Ok(())
        }
    }
}
