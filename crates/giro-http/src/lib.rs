//! HTTP plumbing shared by both services: the layers every router gets (problem rendering,
//! request log and metrics, body size limit, deny-by-default fallback) and [`serve`], which runs
//! a router on an already-bound listener until a shutdown token fires, then drains in-flight
//! requests within a grace period.
//!
//! The rest, one concern a file: [`problem`] (problem+json) and [`pg`] (a database error as an
//! answer); [`extract`] (extractors and the input policy); [`auth`] (service token, operator
//! session, CSRF); [`throttle`] with its counters in the database ([`contadores_pg`]); [`conexao`]
//! (per-connection bounds); [`health`], [`metrics`], [`openapi`]; [`web`] (the web fronts'
//! listener); [`client`] (the outgoing HTTP client).

pub mod auth;
pub mod client;
pub mod conexao;
pub mod contadores_pg;
pub mod extract;
pub mod health;
pub mod metrics;
pub mod openapi;
pub mod pg;
pub mod problem;
pub mod throttle;
pub mod web;

use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, DefaultBodyLimit, MatchedPath, Request};
use axum::http::{header, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

pub use giro_infra::config::LimitesHttp;
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

/// Serves `router` on `listener` with the default [`LimitesHttp`] (tests and tools); services use
/// [`serve_com`] with the configured ones.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
    grace: Duration,
) -> io::Result<()> {
    serve_com(listener, router, shutdown, grace, LimitesHttp::default()).await
}

/// Serves `router` on `listener` until `shutdown` is cancelled, then lets in-flight requests
/// finish for at most `grace`. Every listener (both APIs, both web fronts, the publisher's
/// metrics port) goes through here, so each gets the same bounds:
/// - at most `max_conexoes` connections; one more is answered 503 and closed at once;
/// - a request's head within `timeout_cabecalho` of its first byte, and a connection without a
///   request closed after `timeout_ocioso` ([`conexao::Guarda`]);
/// - a body within `timeout_corpo` (408), a whole request within `timeout_requisicao` (503);
/// - a panicking handler answers 500 problem+json instead of dropping the connection.
pub async fn serve_com(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
    grace: Duration,
    limites: LimitesHttp,
) -> io::Result<()> {
    let app = limitado(router, &limites);
    let vagas = Arc::new(Semaphore::new(limites.max_conexoes));
    let conexoes = TaskTracker::new();
    loop {
        let (stream, remoto) = tokio::select! {
            _ = shutdown.cancelled() => break,
            r = listener.accept() => match r {
                Ok(c) => c,
                Err(e) => {
                    // Out of file descriptors and the like: pause instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let Ok(vaga) = vagas.clone().try_acquire_owned() else {
            recusar(stream, remoto);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let (app, shutdown, limites) = (app.clone(), shutdown.clone(), limites.clone());
        conexoes.spawn(async move {
            let estado = Arc::new(conexao::EstadoConexao::default());
            let io = hyper_util::rt::TokioIo::new(conexao::Guarda::new(stream, estado.clone(), &limites));
            let svc = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                let marca = estado.inicio();
                let mut req = req.map(axum::body::Body::new);
                req.extensions_mut().insert(ConnectInfo(remoto));
                let app = app.clone();
                async move {
                    let res = tower::ServiceExt::oneshot(app, req).await;
                    drop(marca);
                    res
                }
            });
            let conn = hyper::server::conn::http1::Builder::new().keep_alive(true).serve_connection(io, svc);
            tokio::pin!(conn);
            tokio::select! {
                r = conn.as_mut() => {
                    if let Err(e) = r {
                        tracing::debug!(remote = %remoto, error = %e, "connection ended");
                    }
                }
                _ = shutdown.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    let _ = conn.await;
                }
            }
            drop(vaga);
        });
    }
    conexoes.close();
    if tokio::time::timeout(grace, conexoes.wait()).await.is_err() {
        tracing::warn!(grace_s = grace.as_secs_f64(), "grace period over; closing the remaining connections");
    }
    Ok(())
}

/// Over the connection cap: a short 503 and the connection closed, without reading the request.
fn recusar(mut stream: tokio::net::TcpStream, remoto: std::net::SocketAddr) {
    static AVISO: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    // One warning per hundred refusals: a flood must not flood the log too.
    if AVISO.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 100 == 0 {
        tracing::warn!(remote = %remoto, "connection refused: too many open connections");
    }
    tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        let corpo = Problem::new(
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            "conexões demais abertas; tente novamente",
        )
        .body(None)
        .to_string();
        let resposta = format!(
            "HTTP/1.1 503 Service Unavailable\r\ncontent-type: {}\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{corpo}",
            problem::CONTENT_TYPE,
            corpo.len()
        );
        let _ = tokio::time::timeout(Duration::from_secs(1), async {
            let _ = stream.write_all(resposta.as_bytes()).await;
            let _ = stream.shutdown().await;
        })
        .await;
    });
}

/// The per-request bounds every listener applies: panics caught, body and request timeouts.
fn limitado(router: Router, limites: &LimitesHttp) -> Router {
    let (corpo, requisicao) = (limites.timeout_corpo, limites.timeout_requisicao);
    router
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(panico))
        .layer(middleware::from_fn(move |req: Request, next: Next| prazos(req, next, corpo, requisicao)))
}

fn panico(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    // The panic message itself is printed by the panic hook; never sent.
    tracing::error!("a request handler panicked");
    Problem::internal().into_response_at(None)
}

async fn prazos(mut req: Request, next: Next, corpo: Duration, requisicao: Duration) -> Response {
    use axum::body::HttpBody;
    let inicio = tokio::time::Instant::now();
    let corpo_atrasado = Arc::new(std::sync::atomic::AtomicBool::new(false));
    if !req.body().is_end_stream() {
        let prazo = inicio + corpo;
        let flag = corpo_atrasado.clone();
        let body = std::mem::take(req.body_mut()).into_data_stream();
        let stream = futures_util::stream::unfold(Some(body), move |estado| {
            let flag = flag.clone();
            async move {
                let mut body = estado?;
                match tokio::time::timeout_at(prazo, futures_util::StreamExt::next(&mut body)).await {
                    Ok(Some(item)) => Some((item, Some(body))),
                    Ok(None) => None,
                    Err(_) => {
                        flag.store(true, std::sync::atomic::Ordering::Release);
                        let e = io::Error::new(io::ErrorKind::TimedOut, "request body timed out");
                        Some((Err(axum::Error::new(e)), None))
                    }
                }
            }
        });
        *req.body_mut() = axum::body::Body::from_stream(stream);
    }
    let resposta = tokio::time::timeout_at(inicio + requisicao, next.run(req)).await;
    let mut res = match resposta {
        Ok(r) if !corpo_atrasado.load(std::sync::atomic::Ordering::Acquire) => return r,
        Ok(_) => {
            Problem::new(axum::http::StatusCode::REQUEST_TIMEOUT, "o corpo da requisição não chegou a tempo")
                .into_response_at(None)
        }
        Err(_) => {
            tracing::warn!(timeout_s = requisicao.as_secs_f64(), "request timed out");
            Problem::new(
                axum::http::StatusCode::SERVICE_UNAVAILABLE,
                "a requisição excedeu o tempo limite; tente novamente",
            )
            .into_response_at(None)
        }
    };
    // The connection is in an unknown state (an unread body): close it after this answer.
    res.headers_mut().insert(axum::http::header::CONNECTION, axum::http::HeaderValue::from_static("close"));
    res
}
