//! An HTTP proxy in front of a peer's events URL whose behaviour a scenario switches: the chaos
//! run's network faults (a misrouting load balancer, a partition, lost answers, a slow peer).

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};

/// What the proxy in front of a peer does with each request (the chaos run's network faults).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ModoProxy {
    /// Forwards the request and the answer.
    Encaminhar,
    /// Answers an HTML 404 page itself, as a load balancer does while a deploy reroutes.
    Html404,
    /// Takes the request and neither forwards nor answers it: a partition; only the sender's
    /// timeout ends the wait.
    BuracoNegro,
    /// Forwards the request (the receiver commits) and never answers: the response is lost.
    SemResposta,
    /// Forwards the request and answers only after this delay: a peer slower than the timeout.
    Lenta(Duration),
    /// Resets every connection, new or kept alive, before a request is read: a partition where
    /// the peer's side refuses.
    Recusar,
}

/// An HTTP proxy in front of `target` (a peer's events URL) whose behaviour the test switches.
pub(super) struct Proxy {
    target: String,
    pub url: String,
    modo: Mutex<ModoProxy>,
    http: reqwest::Client,
    /// Requests forwarded whose answer the sender did not get in time (SemResposta, Lenta).
    pub perdidas: AtomicU64,
    /// Requests held without reaching the receiver (BuracoNegro).
    pub retidas: AtomicU64,
    /// Connections reset (Recusar).
    pub recusadas: AtomicU64,
}

impl Proxy {
    pub async fn start(target: String) -> Arc<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let proxy = Arc::new(Proxy {
            target,
            url: format!("http://{}", listener.local_addr().unwrap()),
            modo: Mutex::new(ModoProxy::Encaminhar),
            http: reqwest::Client::builder().timeout(Duration::from_secs(10)).build().unwrap(),
            perdidas: AtomicU64::new(0),
            retidas: AtomicU64::new(0),
            recusadas: AtomicU64::new(0),
        });
        let app = axum::Router::new().fallback(encaminhar).with_state(proxy.clone());
        let portao = Portao { listener, proxy: proxy.clone() };
        tokio::spawn(async move {
            let _ = axum::serve(portao, app).await;
        });
        proxy
    }

    pub fn modo(&self, m: ModoProxy) {
        *self.modo.lock().unwrap() = m;
    }

    fn recusando(&self) -> bool {
        *self.modo.lock().unwrap() == ModoProxy::Recusar
    }
}

async fn encaminhar(State(p): State<Arc<Proxy>>, req: Request) -> Response {
    let modo = *p.modo.lock().unwrap();
    // Only deliveries count as held or lost (not the publisher's probes of /readyz).
    let entrega = req.uri().path().starts_with("/eventos");
    match modo {
        ModoProxy::Html404 => {
            return (
                StatusCode::NOT_FOUND,
                [("content-type", "text/html")],
                "<html><h1>404 Not Found</h1></html>",
            )
                .into_response()
        }
        // Read before the switch: no answer goes out (the connection's write fails).
        ModoProxy::Recusar => return StatusCode::BAD_GATEWAY.into_response(),
        ModoProxy::BuracoNegro => {
            p.retidas.fetch_add(u64::from(entrega), Ordering::SeqCst);
            return std::future::pending().await;
        }
        _ => {}
    }
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 16 << 20).await else {
        return StatusCode::BAD_REQUEST.into_response();
    };
    let path = parts.uri.path_and_query().map(|x| x.as_str()).unwrap_or("/");
    let mut rb = p.http.request(parts.method, format!("{}{path}", p.target)).body(bytes);
    for (k, v) in parts.headers.iter() {
        if k != axum::http::header::HOST && k != axum::http::header::CONTENT_LENGTH {
            rb = rb.header(k, v);
        }
    }
    // In a task of its own: a request that left the proxy reaches the receiver whatever the
    // sender does meanwhile (gives up, closes), as over a real network path.
    let ida = tokio::spawn(async move {
        match rb.send().await {
            Ok(r) => {
                let status = r.status();
                let ct = r.headers().get("content-type").cloned();
                let body = r.bytes().await.unwrap_or_default();
                let mut res = (status, body).into_response();
                if let Some(ct) = ct {
                    res.headers_mut().insert("content-type", ct);
                }
                res
            }
            Err(_) => StatusCode::BAD_GATEWAY.into_response(),
        }
    });
    let res = ida.await.unwrap_or_else(|_| StatusCode::BAD_GATEWAY.into_response());
    match modo {
        ModoProxy::SemResposta => {
            p.perdidas.fetch_add(u64::from(entrega), Ordering::SeqCst);
            std::future::pending().await
        }
        ModoProxy::Lenta(atraso) => {
            p.perdidas.fetch_add(u64::from(entrega), Ordering::SeqCst);
            tokio::time::sleep(atraso).await;
            res
        }
        _ => res,
    }
}

/// The proxy's listener. While the mode is [`ModoProxy::Recusar`] it drops each new connection
/// at once and fails every read and write of those kept alive, so a sender sees its connection
/// reset and no answer — what axum's handler alone cannot do.
struct Portao {
    listener: TcpListener,
    proxy: Arc<Proxy>,
}

impl axum::serve::Listener for Portao {
    type Io = Conexao;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Conexao, SocketAddr) {
        loop {
            let (tcp, addr) = match self.listener.accept().await {
                Ok(c) => c,
                Err(_) => {
                    // Out of descriptors or the like: try again shortly rather than spin.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            };
            if self.proxy.recusando() {
                self.proxy.recusadas.fetch_add(1, Ordering::SeqCst);
                drop(tcp);
                continue;
            }
            return (Conexao { tcp, proxy: self.proxy.clone() }, addr);
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }
}

/// A proxied connection that fails while the proxy refuses (see [`Portao`]).
struct Conexao {
    tcp: TcpStream,
    proxy: Arc<Proxy>,
}

impl Conexao {
    fn cortada(&self) -> Option<io::Error> {
        self.proxy.recusando().then(|| {
            self.proxy.recusadas.fetch_add(1, Ordering::SeqCst);
            io::ErrorKind::ConnectionReset.into()
        })
    }
}

impl AsyncRead for Conexao {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if let Some(e) = self.cortada() {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.tcp).poll_read(cx, buf)
    }
}

impl AsyncWrite for Conexao {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if let Some(e) = self.cortada() {
            return Poll::Ready(Err(e));
        }
        Pin::new(&mut self.tcp).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.tcp).poll_shutdown(cx)
    }
}
