//! The route layer that re-runs a request once when its database session was lost before any
//! COMMIT was sent (issue 28, point 5; the marks are `giro_infra::db::reexecucao`'s). One
//! mechanism for every route of a service, not a retry per handler — except the probes
//! (`/readyz`, `/metrics`), which report the database as it is now and are never re-run.
//!
//! A request is re-run, once, when its first attempt answered 503 and:
//! - a statement failed on a lost or stale session (class 08, 57P01–57P03, 25006 read-only after a
//!   switchover, a closed connection), or a new connection failed for such a reason — not a
//!   timeout, a deadlock, a full disk or a pool with no free slot, which a second try at once would
//!   meet again;
//! - no COMMIT was sent (a COMMIT cut midway has an unknown outcome: its 503 stands, and the
//!   client's `Idempotency-Key` makes its own retry safe);
//! - it is a read (`GET`, `HEAD`), or its writes were in a business transaction (`Tx`): what was
//!   written before the failure was rolled back with it — or it never got a connection at all
//!   (a new one refused while the primary shuts down or fails over): nothing was sent;
//! - its body was read whole here: a `Content-Length` of at most [`MAX_CORPO`] bytes, or none.
//!
//! The second attempt runs on a fresh connection (a stale-session error makes the pools drop every
//! connection opened before it) and reads from the primary, not the read copy. It first waits until
//! the pool gives a session that can write, at most `db.espera-reexecucao` (10 s) after the
//! database was first seen gone ([`Espera`]): in a switchover the sessions the old leader ended
//! fail at once, while the new leader is still seconds away, and a second attempt at once would
//! fail too. Its answer is the answer, whatever it is. `giro_http_reexecucoes_total{resultado}` counts the re-runs by outcome.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

use giro_infra::db::reexecucao::{tentar, Tentativa};
use giro_infra::db::{self, Pool};

/// What a second attempt waits for: a session of `pool` that can write, for at most `prazo` after
/// the database was first seen gone — a switchover's seconds are waited out, but in a long outage
/// the requests after the first `prazo` answer 503 at once instead of each waiting it again.
#[derive(Clone)]
pub struct Espera {
    pool: Pool,
    prazo: Duration,
    /// Since when the database is gone, and when that was last seen (an outage older than
    /// `prazo` without a sighting is over: the next one starts afresh).
    fora: Arc<Mutex<Option<(Instant, Instant)>>>,
}

impl Espera {
    pub fn new(pool: Pool, prazo: Duration) -> Espera {
        Espera { pool, prazo, fora: Arc::default() }
    }

    /// Until `pool` gives a writable session or the wait's end; the second attempt runs either
    /// way (its own failure is then the answer).
    async fn banco_de_volta(&self) {
        let agora = Instant::now();
        let desde = {
            let mut g = self.fora.lock().unwrap_or_else(|e| e.into_inner());
            let desde = match *g {
                Some((desde, visto)) if agora.saturating_duration_since(visto) <= self.prazo => desde,
                _ => agora,
            };
            *g = Some((desde, agora));
            desde
        };
        let fim = desde + self.prazo;
        loop {
            let resta = fim.saturating_duration_since(Instant::now());
            if resta.is_zero() {
                return;
            }
            if db::ready(&self.pool, false, resta).await.is_ok() {
                *self.fora.lock().unwrap_or_else(|e| e.into_inner()) = None;
                return;
            }
            tokio::time::sleep(Duration::from_millis(200).min(resta)).await;
        }
    }
}

/// The largest body kept for a second attempt.
pub const MAX_CORPO: usize = 256 * 1024;

/// Middleware: see the module doc.
pub async fn uma_vez(State(espera): State<Espera>, req: Request, next: Next) -> Response {
    let tamanho = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok());
    let vazio = req.body().is_end_stream();
    if !vazio && tamanho.is_none_or(|n| n > MAX_CORPO) {
        // A body that cannot be kept: one attempt, as before.
        return tentar(false, next.run(req)).await.0;
    }
    let (partes, corpo) = req.into_parts();
    let bytes: Bytes = if vazio {
        Bytes::new()
    } else {
        match axum::body::to_bytes(corpo, MAX_CORPO).await {
            Ok(b) => b,
            // The body did not arrive (the body timeout answers 408 over this).
            Err(_) => {
                return crate::Problem::new(
                    StatusCode::BAD_REQUEST,
                    "o corpo da requisição não chegou inteiro",
                )
                .into_response_at(None)
            }
        }
    };
    let copia = Request::from_parts(partes.clone(), Body::from(bytes.clone()));
    let (res, t) = tentar(false, next.clone().run(copia)).await;
    if !reexecutavel(&partes.method, res.status(), &t) {
        if res.status() == StatusCode::SERVICE_UNAVAILABLE {
            // Which rule kept it from a second attempt: what an operator (or a failing failover
            // test) reads to tell a COMMIT cut midway from a timeout.
            tracing::info!(
                method = %partes.method,
                path = %partes.uri.path(),
                sessao_perdida = t.perdeu_sessao(),
                commit_enviado = t.enviou_commit(),
                transacao = t.abriu_transacao(),
                conexao = t.obteve_conexao(),
                "answered 503 without running the request again"
            );
        }
        return res;
    }
    tracing::warn!(method = %partes.method, path = %partes.uri.path(), "database session lost before COMMIT; running the request again on a fresh connection");
    espera.banco_de_volta().await;
    let (res, t) = tentar(true, next.run(Request::from_parts(partes.clone(), Body::from(bytes)))).await;
    let resultado = if res.status().is_success() { "sucesso" } else { "falha" };
    metrics::counter!("giro_http_reexecucoes_total", "resultado" => resultado).increment(1);
    if res.status().is_server_error() {
        tracing::warn!(
            method = %partes.method,
            path = %partes.uri.path(),
            status = res.status().as_u16(),
            sessao_perdida = t.perdeu_sessao(),
            commit_enviado = t.enviou_commit(),
            "the request run again failed too; its answer stands"
        );
    }
    res
}

/// Whether an attempt that answered `status` may be run again (see the module doc).
pub fn reexecutavel(metodo: &Method, status: StatusCode, t: &Tentativa) -> bool {
    let leitura = matches!(*metodo, Method::GET | Method::HEAD);
    status == StatusCode::SERVICE_UNAVAILABLE
        && t.perdeu_sessao()
        && !t.enviou_commit()
        && (leitura || t.abriu_transacao() || !t.obteve_conexao())
}
