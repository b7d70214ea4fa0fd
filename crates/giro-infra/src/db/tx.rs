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
    inner: deadpool_postgres::Transaction<'a>,
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
        self.inner.prepare_cached(sql).await
    }
    fn pg(&self) -> &(impl tokio_postgres::GenericClient + Sync) {
        &*self.inner
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

    /// `BEGIN`, then under a transaction pooler the session limits as `SET LOCAL` (one more
    /// round trip; they last until this transaction ends, so nothing leaks to the next client of
    /// the same server connection).
    pub(super) async fn abrir(
        client: &'a mut Client,
        signal: Arc<OutboxSignal>,
    ) -> Result<Self, tokio_postgres::Error> {
        let pooler = client.pooler;
        let (locais, saude) = (client.limites_locais.clone(), client.saude.clone());
        let inner = client.inner.transaction().await.inspect_err(|e| saude.notar_erro(e))?;
        if !locais.is_empty() {
            inner.batch_execute(&locais).await.inspect_err(|e| saude.notar_erro(e))?;
        }
        Ok(Tx { inner, pooler, signal, wrote_event: AtomicBool::new(false), saude, servico: PhantomData })
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
        self.inner.batch_execute(sql).await.inspect_err(|e| self.saude.notar_erro(e))
    }

    pub async fn commit(self) -> Result<(), tokio_postgres::Error> {
        let wrote = self.wrote_event.load(Ordering::Relaxed);
        let (signal, saude) = (self.signal.clone(), self.saude.clone());
        // From here the outcome may be unknown: the request is not re-run ([`reexecucao`]).
        reexecucao::commit_enviado();
        self.inner.commit().await.inspect_err(|e| saude.notar_erro(e))?;
        if wrote {
            signal.wake.notify_one();
        }
        Ok(())
    }

    pub async fn rollback(self) -> Result<(), tokio_postgres::Error> {
        let saude = self.saude.clone();
        self.inner.rollback().await.inspect_err(|e| saude.notar_erro(e))
    }
}
