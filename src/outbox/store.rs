//! The outbox table's SQL (`outbox_event`, identical in both databases).

use crate::contracts::EventoIntegracao;
use crate::db::Tx;

/// The channel separate publishers `LISTEN` on; writers `NOTIFY` it (delivered at commit).
pub const CHANNEL: &str = "giro_outbox";

/// Writes `evento` as a `PENDING` row in the open business transaction (the original's
/// `Outbox.registrar`, propagation MANDATORY): id = eventId, tipo, payload, criado_em =
/// proxima_tentativa_em = ocorridoEm. The in-process publisher is woken after commit
/// ([`Tx::commit`]); separate publishers by one `NOTIFY` per transaction when `outbox.notify` is on.
pub async fn registrar(tx: &Tx<'_>, evento: &EventoIntegracao) -> Result<(), tokio_postgres::Error> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em) \
             VALUES ($1, $2, $3, 'PENDING', $4, 0, $4)",
        )
        .await?;
    tx.execute(&stmt, &[&evento.event_id(), &evento.tipo(), &evento.to_json(), &evento.ocorrido_em()]).await?;
    if tx.mark_event_written() && tx.notify_pg() {
        tx.execute("SELECT pg_notify($1, '')", &[&CHANNEL]).await?;
    }
    Ok(())
}
