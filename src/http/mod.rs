//! HTTP plumbing shared by both services: the layers every router gets (problem rendering,
//! request tracing, body size limit, request timeout, deny-by-default fallback) and [`serve`],
//! which runs a router on an already-bound listener until a shutdown token fires, then drains
//! in-flight requests within a grace period.

pub mod auth;
pub mod extract;
pub mod health;
pub mod metrics;
pub mod problem;
pub mod web;

use std::io;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{DefaultBodyLimit, MatchedPath, Request};
use axum::middleware;
use axum::response::Response;
use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower_http::trace::TraceLayer;

pub use problem::Problem;

/// Body limit of `/eventos` and the JSON routes (SPEC §9.2); `/eventos/lote` raises its own.
pub const BODY_LIMIT: usize = 64 * 1024;

/// The layers every service router gets: unlisted routes denied, the caller identified, problem
/// bodies rendered, a body limit, request tracing.
pub fn finish(router: Router, seg: Arc<auth::Seguranca>) -> Router {
    router
        .fallback(auth::deny)
        .method_not_allowed_fallback(auth::deny)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .layer(middleware::from_fn_with_state(seg, auth::identify))
        .layer(middleware::from_fn(problem::render))
        .layer(middleware::from_fn(metrics::track))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(|req: &Request| {
                    let route = req
                        .extensions()
                        .get::<MatchedPath>()
                        .map(|m| m.as_str().to_string())
                        .unwrap_or_else(|| "-".to_string());
                    tracing::info_span!("http", method = %req.method(), route = %route)
                })
                .on_response(|res: &Response, latency: Duration, _span: &tracing::Span| {
                    tracing::info!(status = res.status().as_u16(), latency_ms = latency.as_millis() as u64, "request");
                }),
        )
}

/// Serves `router` on `listener` until `shutdown` is cancelled, then lets in-flight requests
/// finish for at most `grace`.
pub async fn serve(listener: TcpListener, router: Router, shutdown: CancellationToken, grace: Duration) -> io::Result<()> {
    let stop = shutdown.clone();
    let server = axum::serve(listener, router.into_make_service_with_connect_info::<std::net::SocketAddr>()).with_graceful_shutdown(async move { stop.cancelled().await });
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
