//! The `LISTEN` side of a separate publisher: writers `NOTIFY` [`store::CHANNEL`] at commit, and
//! this task turns each notification into a wake-up of the relay loop ([`OutboxSignal::wake`]).
//! Under `db.pooler = "transacao"` it runs only on the service's `db-url-direta` (a transaction
//! pooler gives a session to a statement, not to a listener), and without one the publisher polls
//! (the composition root says where, e.g. `giro_servicos::server::publisher_de`).

use std::sync::Arc;
use std::time::Duration;

use tokio_postgres::{AsyncMessage, NoTls};
use tokio_util::sync::CancellationToken;

use crate::store;
use giro_infra::config::DbConfig;
use giro_infra::db::OutboxSignal;

/// Keeps a `LISTEN` connection open and turns each notification into a wake-up. The connection
/// has a connect timeout and TCP keepalive (a silent partition is noticed), and is re-established
/// with backoff (250 ms doubling to 5 s) after any failure, logged and counted; the poll interval
/// covers the gap, and a wake-up right after each (re)connection catches commits made meanwhile.
pub async fn listen(db: DbConfig, signal: Arc<OutboxSignal>, shutdown: CancellationToken, timeout: Duration) {
    const FIRST: Duration = Duration::from_millis(250);
    const MAX: Duration = Duration::from_secs(5);
    let timeout = timeout.max(Duration::from_secs(1));
    let mut pg = db.pg.clone();
    pg.connect_timeout(timeout);
    pg.keepalives(true);
    pg.keepalives_idle(Duration::from_secs(10));
    pg.keepalives_interval(Duration::from_secs(5));
    pg.keepalives_retries(3);
    let mut pause = FIRST;
    let mut connected_before = false;
    while !shutdown.is_cancelled() {
        let attempt = tokio::time::timeout(timeout * 2, pg.connect(NoTls)).await;
        match attempt {
            Ok(Ok((client, mut connection))) => {
                // Each notification wakes the relay; the task ends with the connection.
                let despertar = signal.clone();
                let mut driver = tokio::spawn(async move {
                    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                    use futures_util::StreamExt;
                    while let Some(Ok(m)) = messages.next().await {
                        if let AsyncMessage::Notification(_) = m {
                            despertar.wake.notify_one();
                        }
                    }
                });
                let listen = format!("LISTEN {}", store::CHANNEL);
                match tokio::time::timeout(timeout, client.batch_execute(&listen)).await {
                    Ok(Ok(())) => {
                        if connected_before {
                            metrics::counter!("giro_outbox_listen_reconnects_total").increment(1);
                            tracing::info!("LISTEN re-established");
                        } else {
                            tracing::info!("LISTEN connected");
                        }
                        connected_before = true;
                        pause = FIRST;
                        // Something may have committed before LISTEN took effect.
                        signal.wake.notify_one();
                        tokio::select! {
                            _ = shutdown.cancelled() => {}
                            _ = &mut driver => {}
                        }
                        if !shutdown.is_cancelled() {
                            tracing::warn!(
                                "LISTEN connection lost; re-establishing (polling covers the gap)"
                            );
                        }
                    }
                    Ok(Err(e)) => tracing::warn!(error = %e, "LISTEN failed; retrying"),
                    Err(_) => tracing::warn!("LISTEN did not answer in time; retrying"),
                }
                drop(client);
                driver.abort();
            }
            Ok(Err(e)) => tracing::warn!(error = %e, "LISTEN connection failed; retrying"),
            Err(_) => tracing::warn!("LISTEN connection timed out; retrying"),
        }
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = tokio::time::sleep(pause) => {}
        }
        pause = (pause * 2).min(MAX);
    }
}
