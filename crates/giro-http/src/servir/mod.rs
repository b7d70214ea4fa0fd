//! Serving a router with bounds (issues 13 and 25): every listener (both APIs, both web fronts,
//! the publisher's metrics port) goes through [`serve_config`], so each gets the same limits
//! on connections (in all and per client address), request heads, bodies, whole requests and the
//! writing of their answers, a caught panic, and a graceful drain on shutdown. The
//! per-connection timers are [`conexao`]'s.

pub mod conexao;

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{ConnectInfo, Request};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use giro_infra::config::rede::{self, Bloco};

use crate::{problem, LimitesHttp, Problem};

/// Serves `router` on `listener` until `shutdown`, then lets in-flight requests finish for at most
/// `grace`; with the default [`LimitesHttp`] and no trusted proxy (tests and tools), where
/// services use [`serve_config`] with the configured ones.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
    grace: Duration,
) -> io::Result<()> {
    serve_config(listener, router, shutdown, grace, LimitesHttp::default(), &[]).await
}

/// The read buffer of a connection (hyper's `max_buf_size`): the largest request head, and all
/// a pipelining client can have buffered while its previous answer is written.
pub const MAX_BUFFER: usize = 64 * 1024;

/// What a service's listeners use: the configured bounds and grace period, the configured
/// trusted proxies (`http.proxies-confiaveis`) exempt from the per-address connection cap —
/// every client behind a proxy arrives from its address, so capping it would cap them all (the
/// proxy bounds its own clients; the global cap still holds). The bounds:
/// - at most `max_conexoes` connections, and `max_conexoes_por_endereco` from one client
///   neighbourhood ([`rede::vizinhanca`]: an IPv4 address, an IPv6 `/prefixo_ipv6`); one more is
///   answered 503 and closed at once;
/// - a request's head within `timeout_cabecalho` of its first byte, and a connection without a
///   request closed after `timeout_ocioso` ([`conexao::Guarda`]);
/// - a body within `timeout_corpo` (408), a whole request within `timeout_requisicao` (503), and
///   its answer written within it too — a stalled answer past it is cut, the connection closed;
/// - an answer that makes no write progress for `timeout_escrita` closes the connection;
/// - one request served at a time per connection, pipelined ones waiting unread in a buffer of
///   at most [`MAX_BUFFER`] bytes (hyper parses the next head only once the answer is written);
/// - a panicking handler answers 500 problem+json instead of dropping the connection.
pub async fn serve_config(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
    grace: Duration,
    limites: LimitesHttp,
    proxies: &[String],
) -> io::Result<()> {
    let isentos: Vec<Bloco> = proxies.iter().filter_map(|p| Bloco::parse(p)).collect();
    let app = limitado(router, &limites);
    let vagas = Arc::new(Semaphore::new(limites.max_conexoes));
    let por_endereco = Arc::new(PorEndereco::default());
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
        let ip = remoto.ip();
        let vaga_endereco = if isentos.iter().any(|b| b.contem(ip)) {
            None
        } else {
            let chave = rede::vizinhanca(ip, limites.prefixo_ipv6);
            match por_endereco.clone().entrar(chave, limites.max_conexoes_por_endereco) {
                Some(v) => Some(v),
                None => {
                    recusar(stream, remoto, "conexões demais abertas deste endereço; tente novamente");
                    continue;
                }
            }
        };
        let Ok(vaga) = vagas.clone().try_acquire_owned() else {
            recusar(stream, remoto, "conexões demais abertas; tente novamente");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let (app, shutdown, limites) = (app.clone(), shutdown.clone(), limites.clone());
        conexoes.spawn(async move {
            let estado = conexao::EstadoConexao::new(&limites);
            let io = hyper_util::rt::TokioIo::new(conexao::Guarda::new(stream, estado.clone(), &limites));
            let svc = hyper::service::service_fn(move |req: hyper::Request<hyper::body::Incoming>| {
                let marca = estado.inicio();
                let mut req = req.map(axum::body::Body::new);
                req.extensions_mut().insert(ConnectInfo(remoto));
                let app = app.clone();
                async move {
                    let res = tower::ServiceExt::oneshot(app, req).await;
                    // The request counts as served until its body is written (or dropped).
                    res.map(|r| {
                        r.map(|corpo| axum::body::Body::new(conexao::CorpoVigiado::new(corpo, marca)))
                    })
                }
            });
            let conn = hyper::server::conn::http1::Builder::new()
                .keep_alive(true)
                .max_buf_size(MAX_BUFFER)
                .serve_connection(io, svc);
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
            drop(vaga_endereco);
        });
    }
    conexoes.close();
    if tokio::time::timeout(grace, conexoes.wait()).await.is_err() {
        tracing::warn!(grace_s = grace.as_secs_f64(), "grace period over; closing the remaining connections");
    }
    Ok(())
}

/// Open connections per client neighbourhood on one listener; an entry is removed with its last
/// connection, so the map holds at most as many keys as there are open connections.
#[derive(Default)]
struct PorEndereco(Mutex<HashMap<IpAddr, usize>>);

/// One connection counted against its neighbourhood; dropping it gives the place back.
struct VagaEndereco(Arc<PorEndereco>, IpAddr);

impl PorEndereco {
    fn entrar(self: Arc<Self>, chave: IpAddr, max: usize) -> Option<VagaEndereco> {
        let mut m = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let n = m.entry(chave).or_insert(0);
        if *n >= max {
            return None;
        }
        *n += 1;
        drop(m);
        Some(VagaEndereco(self, chave))
    }
}

impl Drop for VagaEndereco {
    fn drop(&mut self) {
        let mut m = self.0 .0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = m.get_mut(&self.1) {
            *n -= 1;
            if *n == 0 {
                m.remove(&self.1);
            }
        }
    }
}

/// Over the connection cap: a short 503 and the connection closed, without reading the request.
fn recusar(mut stream: tokio::net::TcpStream, remoto: std::net::SocketAddr, detalhe: &'static str) {
    static AVISO: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    // One warning per hundred refusals: a flood must not flood the log too.
    if AVISO.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 100 == 0 {
        tracing::warn!(remote = %remoto, detail = detalhe, "connection refused: too many open connections");
    }
    tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        let corpo = Problem::new(StatusCode::SERVICE_UNAVAILABLE, detalhe).body(None).to_string();
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
        Ok(_) => Problem::new(StatusCode::REQUEST_TIMEOUT, "o corpo da requisição não chegou a tempo")
            .into_response_at(None),
        Err(_) => {
            tracing::warn!(timeout_s = requisicao.as_secs_f64(), "request timed out");
            Problem::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "a requisição excedeu o tempo limite; tente novamente",
            )
            .into_response_at(None)
        }
    };
    // The connection is in an unknown state (an unread body): close it after this answer.
    res.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    res
}
