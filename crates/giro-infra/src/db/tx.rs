//! The business transaction ([`Tx`]), typed by the service whose database it runs in.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::{reexecucao, sql, Client, Db, DbError, OutboxSignal, Pooler, Saude};

/// A transaction whose database its opener did not state ([`Db::begin`]).
#[derive(Debug)]
pub enum AnyDb {}

/// An open business transaction in the database of service `S` (a marker each service defines
/// for its own database, or [`AnyDb`]); the SQL is the same whatever `S` is. A mercado transaction where an
/// estoque one is expected does not compile (the doctest is on `giro_servicos::mercado::Tx`).
pub struct Tx<'a, S> {
    client: &'a mut Client,
    /// COMMIT or ROLLBACK was sent; otherwise dropping it sends ROLLBACK.
    feita: AtomicBool,
    pooler: Pooler,
    signal: Arc<OutboxSignal>,
    wrote_event: AtomicBool,
    /// Its pool's health: every statement that fails here is noted there.
    saude: Arc<Saude>,
    // `fn() -> S`: the marker is never held, so it changes neither Send nor Sync.
    servico: PhantomData<fn() -> S>,
}

impl<S> sql::Base for Tx<'_, S> {
    fn pooler(&self) -> Pooler {
        self.pooler
    }
    async fn preparar(&self, sql: &str) -> Result<tokio_postgres::Statement, tokio_postgres::Error> {
        self.client.inner.prepare_cached(sql).await
    }
    fn pg(&self) -> &(impl tokio_postgres::GenericClient + Sync) {
        &**self.client.inner
    }
    fn saude(&self) -> Option<&Saude> {
        Some(&self.saude)
    }
}

impl<'a, S> Tx<'a, S> {
    /// Opens a business transaction on `client` from `db`'s pool (READ COMMITTED, as the
    /// original); `S` is the caller's: `mercado::Tx::begin(&db, &mut client)`.
    pub async fn begin(db: &Db, client: &'a mut Client) -> Result<Self, DbError> {
        reexecucao::transacao_aberta();
        Ok(Tx::abrir(client, db.signal.clone()).await?)
    }

    /// `BEGIN` (with, under a transaction pooler, the session limits as `SET LOCAL` in the same
    /// simple query: they last until this transaction ends, so nothing leaks to the next client of
    /// the same server connection), sent without waiting for its answer: the first statement goes
    /// out right behind it, in the same round trip. Its answer is not read; a failure shows in
    /// that statement's (a lost connection, or "current transaction is aborted").
    pub(super) async fn abrir(
        client: &'a mut Client,
        signal: Arc<OutboxSignal>,
    ) -> Result<Self, tokio_postgres::Error> {
        let (pooler, saude) = (client.pooler, client.saude.clone());
        enviar(client, &client.abertura).inspect_err(|e| saude.notar_erro(e))?;
        Ok(Tx {
            client,
            feita: AtomicBool::new(false),
            pooler,
            signal,
            wrote_event: AtomicBool::new(false),
            saude,
            servico: PhantomData,
        })
    }
}

/// Sends `sql` with the simple-query protocol and does not wait for (nor read) its answer: the
/// first poll of `batch_execute` queues the query on the connection, in order with what follows.
fn enviar(client: &Client, sql: &str) -> Result<(), tokio_postgres::Error> {
    use futures_util::FutureExt;
    client.inner.batch_execute(sql).now_or_never().unwrap_or(Ok(()))
}

impl<S> Drop for Tx<'_, S> {
    /// Not committed nor rolled back (an early return, a dropped request): rolled back, as
    /// tokio-postgres' own transaction does, before the connection serves anyone else.
    fn drop(&mut self) {
        if !*self.feita.get_mut() {
            let _ = enviar(self.client, "ROLLBACK");
        }
    }
}

impl<S> Tx<'_, S> {
    /// Marks that this transaction wrote an outbox event; returns true the first time, so the
    /// writer sends one `NOTIFY` per transaction, not per event.
    pub fn mark_event_written(&self) -> bool {
        !self.wrote_event.swap(true, Ordering::Relaxed)
    }

    pub fn notify_pg(&self) -> bool {
        self.signal.notify_pg
    }

    /// Runs `sql` (one statement or several, no parameters) with the simple-query protocol.
    pub async fn batch_execute(&self, sql: &str) -> Result<(), tokio_postgres::Error> {
        self.client.inner.batch_execute(sql).await.inspect_err(|e| self.saude.notar_erro(e))
    }

    pub async fn commit(self) -> Result<(), tokio_postgres::Error> {
        self.commit_em_seguida().await
    }

    /// COMMIT, queued behind the statements whose futures were first polled before this one's
    /// (`tokio::join!` them ahead of it): one round trip for the last writes and the COMMIT. The
    /// caller checks those statements' results: when one failed, PostgreSQL has rolled the
    /// transaction back and answers this COMMIT with ROLLBACK, not an error. Once sent, the
    /// transaction is over: a later [`Tx::commit`] sends nothing.
    pub async fn commit_em_seguida(&self) -> Result<(), tokio_postgres::Error> {
        if self.feita.load(Ordering::Relaxed) {
            return Ok(());
        }
        // From here the outcome may be unknown: the request is not re-run ([`reexecucao`]).
        reexecucao::commit_enviado();
        self.terminar("COMMIT").await?;
        if self.wrote_event.load(Ordering::Relaxed) {
            self.signal.wake.notify_one();
        }
        Ok(())
    }

    pub async fn rollback(self) -> Result<(), tokio_postgres::Error> {
        self.terminar("ROLLBACK").await
    }

    async fn terminar(&self, sql: &str) -> Result<(), tokio_postgres::Error> {
        self.feita.store(true, Ordering::Relaxed);
        self.client.inner.batch_execute(sql).await.inspect_err(|e| self.saude.notar_erro(e))
    }
}
