//! One accepted connection with its bounds (issue 13): [`Guarda`] wraps the socket and closes it
//! when a client is slow to start or finish a request's head (slowloris) or keeps an idle
//! keep-alive connection open; [`Marca`] tells it when a request is being served, so a long
//! answer or body is never cut by these timers (the body and whole-request timeouts cover it).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use giro_infra::config::LimitesHttp;

/// What the connection's service tells its socket.
#[derive(Default)]
pub struct EstadoConexao {
    em_requisicao: AtomicBool,
    /// Bumped when a request ends, so the socket restarts its idle timer.
    respostas: AtomicU64,
    /// The reader parked while a request was served: woken when it ends, to arm the idle timer.
    leitor: std::sync::Mutex<Option<std::task::Waker>>,
}

/// Held while a request is served; dropping it marks the connection idle again.
pub struct Marca(Arc<EstadoConexao>);

impl EstadoConexao {
    pub fn inicio(self: &Arc<Self>) -> Marca {
        self.em_requisicao.store(true, Ordering::Release);
        Marca(self.clone())
    }
}

impl Drop for Marca {
    fn drop(&mut self) {
        self.0.respostas.fetch_add(1, Ordering::AcqRel);
        self.0.em_requisicao.store(false, Ordering::Release);
        if let Some(w) = self.0.leitor.lock().ok().and_then(|mut l| l.take()) {
            w.wake();
        }
    }
}

pub struct Guarda<S> {
    inner: S,
    estado: Arc<EstadoConexao>,
    cabecalho: Duration,
    ocioso: Duration,
    /// When the connection last became idle (accepted, or a request ended).
    ocioso_desde: Instant,
    /// First byte of the next request's head, while idle.
    primeiro_byte: Option<Instant>,
    respostas_vistas: u64,
    timer: Pin<Box<Sleep>>,
}

impl<S> Guarda<S> {
    pub fn new(inner: S, estado: Arc<EstadoConexao>, limites: &LimitesHttp) -> Self {
        let agora = Instant::now();
        Guarda {
            inner,
            estado,
            cabecalho: limites.timeout_cabecalho,
            ocioso: limites.timeout_ocioso,
            ocioso_desde: agora,
            primeiro_byte: None,
            respostas_vistas: 0,
            timer: Box::pin(tokio::time::sleep_until(agora + limites.timeout_ocioso)),
        }
    }

    fn sincronizar(&mut self) {
        let r = self.estado.respostas.load(Ordering::Acquire);
        if r != self.respostas_vistas {
            self.respostas_vistas = r;
            self.ocioso_desde = Instant::now();
            self.primeiro_byte = None;
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarda<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let antes = buf.filled().len();
        let em_requisicao = this.estado.em_requisicao.load(Ordering::Acquire);
        if !em_requisicao {
            this.sincronizar();
        }
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if !em_requisicao && buf.filled().len() > antes && this.primeiro_byte.is_none() {
                    this.primeiro_byte = Some(Instant::now());
                }
                Poll::Ready(Ok(()))
            }
            Poll::Pending if !em_requisicao => {
                let (prazo, o_que) = match this.primeiro_byte {
                    None => (this.ocioso_desde + this.ocioso, "idle connection"),
                    Some(t) => (t + this.cabecalho, "request head"),
                };
                if this.timer.deadline() != prazo {
                    this.timer.as_mut().reset(prazo);
                }
                match this.timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        tracing::debug!(what = o_que, "closing a connection: timed out");
                        Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, o_que)))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
            Poll::Pending => {
                if let Ok(mut l) = this.estado.leitor.lock() {
                    *l = Some(cx.waker().clone());
                }
                // The request may have ended between the check above and now: poll again.
                if !this.estado.em_requisicao.load(Ordering::Acquire) {
                    cx.waker().wake_by_ref();
                }
                Poll::Pending
            }
            other => other,
        }
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Guarda<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
