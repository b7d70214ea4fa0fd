//! What one attempt at a request did with the database, so the route layer can re-run it once when
//! it failed on a lost session *before* any COMMIT was sent (issue 28, point 5): such a failure
//! rolled everything back, and a fresh connection (the pools drop every connection opened before a
//! stale-session error, [`super::Saude::notar_erro`]) usually succeeds — a switchover, a PgBouncer
//! restart or a terminated backend then costs the shopper nothing.
//!
//! The attempt is a task-local ([`Tentativa`]) set by `giro_http::reexecucao` around each request;
//! [`super::Db::client`], [`super::Tx::begin`] and [`super::Tx::commit`] mark it, and whoever answers
//! a database failure calls [`marcar_se_sessao_perdida`] (`giro_http::pg::Politica` does for every
//! route). Outside a request
//! (background loops, tools) there is none and the marks are no-ops. A COMMIT once sent makes the
//! outcome unknown: that attempt is never re-run, its 503 stands, and the client's
//! `Idempotency-Key` makes its own retry safe.

use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::Falha;

/// The marks of one attempt.
#[derive(Debug, Default)]
pub struct Tentativa {
    /// This is the second attempt: reads avoid the read copy, and no third comes.
    pub segunda: bool,
    transacao: AtomicBool,
    conexao: AtomicBool,
    commit: AtomicBool,
    sessao: AtomicBool,
}

tokio::task_local! {
    static TENTATIVA: Arc<Tentativa>;
}

impl Tentativa {
    /// A business transaction was opened ([`super::Tx::begin`]).
    pub fn abriu_transacao(&self) -> bool {
        self.transacao.load(Ordering::Acquire)
    }

    /// A connection was handed out ([`super::Db::client`]): statements may have run on it.
    pub fn obteve_conexao(&self) -> bool {
        self.conexao.load(Ordering::Acquire)
    }

    /// A COMMIT was sent: its outcome may be unknown.
    pub fn enviou_commit(&self) -> bool {
        self.commit.load(Ordering::Acquire)
    }

    /// A statement failed on a lost or stale session (class 08, 57P01–57P03, 25006, a closed
    /// connection), or a new connection could not be opened for such a reason.
    pub fn perdeu_sessao(&self) -> bool {
        self.sessao.load(Ordering::Acquire)
    }
}

/// Runs `f` as one attempt; returns its output and the attempt's marks.
pub async fn tentar<F: Future>(segunda: bool, f: F) -> (F::Output, Arc<Tentativa>) {
    let t = Arc::new(Tentativa { segunda, ..Tentativa::default() });
    let out = TENTATIVA.scope(t.clone(), f).await;
    (out, t)
}

fn marcar(f: impl FnOnce(&Tentativa)) {
    let _ = TENTATIVA.try_with(|t| f(t));
}

pub(super) fn transacao_aberta() {
    marcar(|t| t.transacao.store(true, Ordering::Release));
}

pub(super) fn conexao_obtida() {
    marcar(|t| t.conexao.store(true, Ordering::Release));
}

pub(super) fn commit_enviado() {
    marcar(|t| t.commit.store(true, Ordering::Release));
}

/// Marks this request's attempt as having lost its session when `f` says so
/// ([`Falha::sessao_perdida`]): called where a database failure is answered, so the route layer
/// may run the request again. A no-op outside a request.
pub fn marcar_se_sessao_perdida(f: Falha<'_>) {
    if f.sessao_perdida() {
        marcar(|t| t.sessao.store(true, Ordering::Release));
    }
}

/// True inside the second attempt of a request.
pub fn na_segunda() -> bool {
    TENTATIVA.try_with(|t| t.segunda).unwrap_or(false)
}
