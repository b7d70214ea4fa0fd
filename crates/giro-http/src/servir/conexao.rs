//! One accepted connection with its bounds (issues 13 and 25): [`Guarda`] wraps the socket and
//! closes it when a client is slow to start or finish a request's head (slowloris), keeps an idle
//! keep-alive connection open, or stops reading its answers; [`Marca`] tells it when a request is
//! being served — from the call of the service until its answer's last byte has left hyper's
//! buffer: the answer's body holds the mark ([`CorpoVigiado`]), and once it is dropped the request
//! ends at the next flush that completes (hyper flushes the socket only with its buffer empty) —
//! so a long answer is never cut by the read timers, and the request timeout covers all of it.
//!
//! Write side (issue 25): a write that stays `Pending` for `timeout_escrita` with no byte taken
//! meanwhile fails (progress restarts the clock), so a client that never reads cannot hold its
//! connection slot; and while an answer is being served, a write still `Pending` when
//! `timeout_requisicao` (counted from the request's start) has passed fails too, so a client that
//! reads a byte now and then cannot stretch an answer past the request timeout. Writes that
//! complete are never failed: an answer produced at the deadline (the 503 of the request timeout)
//! still reaches a client that reads it.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes, HttpBody};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

use giro_infra::config::LimitesHttp;

/// What the connection's service tells its socket.
pub struct EstadoConexao {
    /// Requests being served (hyper serves one at a time; a count keeps an early start of the
    /// next one from being undone by the late end of the previous).
    em_requisicao: AtomicUsize,
    /// Bumped when a request ends, so the socket restarts its idle timer.
    respostas: AtomicU64,
    /// Answers whose body hyper has taken whole (or dropped): they end at the next completed flush.
    entregues: AtomicUsize,
    /// The reader parked while a request was served: woken when it ends, to arm the idle timer.
    leitor: std::sync::Mutex<Option<std::task::Waker>>,
    /// The current answer's deadline, in milliseconds after `base`.
    prazo_ms: AtomicU64,
    base: Instant,
    requisicao: Duration,
}

/// Held while a request is served; once it is dropped, the next completed flush marks the
/// connection idle again.
pub struct Marca {
    estado: Arc<EstadoConexao>,
    /// When the whole request must be answered (`timeout_requisicao` after its start).
    pub prazo: Instant,
}

impl EstadoConexao {
    pub fn new(limites: &LimitesHttp) -> Arc<Self> {
        Arc::new(EstadoConexao {
            em_requisicao: AtomicUsize::new(0),
            respostas: AtomicU64::new(0),
            entregues: AtomicUsize::new(0),
            leitor: std::sync::Mutex::new(None),
            prazo_ms: AtomicU64::new(u64::MAX),
            base: Instant::now(),
            requisicao: limites.timeout_requisicao,
        })
    }

    pub fn inicio(self: &Arc<Self>) -> Marca {
        let prazo = Instant::now() + self.requisicao;
        let ms = u64::try_from(prazo.saturating_duration_since(self.base).as_millis()).unwrap_or(u64::MAX);
        self.prazo_ms.store(ms, Ordering::Release);
        self.em_requisicao.fetch_add(1, Ordering::AcqRel);
        Marca { estado: self.clone(), prazo }
    }

    fn servindo(&self) -> bool {
        self.em_requisicao.load(Ordering::Acquire) > 0
    }

    /// The deadline of the answer being served, if one is.
    fn prazo(&self) -> Option<Instant> {
        if !self.servindo() {
            return None;
        }
        let ms = self.prazo_ms.load(Ordering::Acquire);
        (ms != u64::MAX).then(|| self.base + Duration::from_millis(ms))
    }
}

impl Drop for Marca {
    fn drop(&mut self) {
        self.estado.entregues.fetch_add(1, Ordering::AcqRel);
    }
}

impl EstadoConexao {
    /// A flush completed: the answers handed over before it are on the wire, their requests end.
    fn escoado(&self) {
        let n = self.entregues.swap(0, Ordering::AcqRel);
        if n == 0 {
            return;
        }
        self.respostas.fetch_add(1, Ordering::AcqRel);
        self.em_requisicao.fetch_sub(n, Ordering::AcqRel);
        if let Some(w) = self.leitor.lock().ok().and_then(|mut l| l.take()) {
            w.wake();
        }
    }
}

/// An answer's body carrying its request's [`Marca`]: the request counts as served until hyper
/// has taken the body whole (or dropped it), and a body that stalls (`Pending`) past the request's
/// deadline ends in an error, which makes hyper close the connection — the answer is cut rather
/// than left unfinished past `timeout_requisicao`.
pub struct CorpoVigiado {
    inner: Body,
    marca: Marca,
    timer: Option<Pin<Box<Sleep>>>,
}

impl CorpoVigiado {
    pub fn new(inner: Body, marca: Marca) -> Self {
        CorpoVigiado { inner, marca, timer: None }
    }
}

impl HttpBody for CorpoVigiado {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Pending => {
                let prazo = this.marca.prazo;
                let timer = this.timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(prazo)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        tracing::debug!(
                            "closing a connection: its answer's body outlasted the request timeout"
                        );
                        let e = io::Error::new(io::ErrorKind::TimedOut, "answer past the request timeout");
                        Poll::Ready(Some(Err(axum::Error::new(e))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
            other => other,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.inner.size_hint()
    }
}

pub struct Guarda<S> {
    inner: S,
    estado: Arc<EstadoConexao>,
    cabecalho: Duration,
    ocioso: Duration,
    escrita: Duration,
    /// When the connection last became idle (accepted, or a request ended).
    ocioso_desde: Instant,
    /// First byte of the next request's head, while idle.
    primeiro_byte: Option<Instant>,
    respostas_vistas: u64,
    timer: Pin<Box<Sleep>>,
    /// Since when writes have stayed `Pending` with no byte taken.
    parado_desde: Option<Instant>,
    timer_escrita: Pin<Box<Sleep>>,
}

impl<S> Guarda<S> {
    pub fn new(inner: S, estado: Arc<EstadoConexao>, limites: &LimitesHttp) -> Self {
        let agora = Instant::now();
        Guarda {
            inner,
            estado,
            cabecalho: limites.timeout_cabecalho,
            ocioso: limites.timeout_ocioso,
            escrita: limites.timeout_escrita,
            ocioso_desde: agora,
            primeiro_byte: None,
            respostas_vistas: 0,
            timer: Box::pin(tokio::time::sleep_until(agora + limites.timeout_ocioso)),
            parado_desde: None,
            timer_escrita: Box::pin(tokio::time::sleep_until(agora + limites.timeout_escrita)),
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

    /// The outcome of one write attempt, with the write-side bounds applied (see the module doc).
    fn vigiar<T>(&mut self, cx: &mut Context<'_>, r: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match r {
            Poll::Pending => {
                let agora = Instant::now();
                let desde = *self.parado_desde.get_or_insert(agora);
                let (mut prazo, mut o_que) = (desde + self.escrita, "answer not read (write timeout)");
                if let Some(p) = self.estado.prazo() {
                    if p < prazo {
                        (prazo, o_que) = (p, "answer not read within the request timeout");
                    }
                }
                esperar(&mut self.timer_escrita, cx, prazo, o_que)
            }
            pronto => {
                self.parado_desde = None;
                pronto
            }
        }
    }
}

/// `timer` set to `prazo` and polled: the connection's end, `o_que` timed out, once it passes.
fn esperar<T>(
    timer: &mut Pin<Box<Sleep>>,
    cx: &mut Context<'_>,
    prazo: Instant,
    o_que: &str,
) -> Poll<io::Result<T>> {
    if timer.deadline() != prazo {
        timer.as_mut().reset(prazo);
    }
    std::task::ready!(timer.as_mut().poll(cx));
    tracing::debug!(what = o_que, "closing a connection: timed out");
    Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, o_que.to_string())))
}

impl<S: AsyncRead + Unpin> AsyncRead for Guarda<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let antes = buf.filled().len();
        let em_requisicao = this.estado.servindo();
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
                esperar(&mut this.timer, cx, prazo, o_que)
            }
            Poll::Pending => {
                if let Ok(mut l) = this.estado.leitor.lock() {
                    *l = Some(cx.waker().clone());
                }
                // The request may have ended between the check above and now: poll again.
                if !this.estado.servindo() {
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
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_write(cx, buf);
        this.vigiar(cx, r)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_flush(cx);
        if let Poll::Ready(Ok(())) = r {
            this.estado.escoado();
        }
        this.vigiar(cx, r)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_shutdown(cx);
        this.vigiar(cx, r)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.inner).poll_write_vectored(cx, bufs);
        this.vigiar(cx, r)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}
