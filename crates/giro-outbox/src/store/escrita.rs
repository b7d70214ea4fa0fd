//! The writer: an event's row in the business transaction that produced it ([`registrar`]), or
//! kept for one statement per batch ([`adiando`], [`gravar_adiados`]), and the `NOTIFY` that wakes
//! separate publishers.

use giro_infra::db::Tx;
use uuid::Uuid;

use crate::evento::Evento;

/// `$1` id, `$2` tipo, `$3` payload, `$4` traceparent. `criado_em` (= the first attempt) is the
/// database's clock at the writer's transaction, not the event's `ocorridoEm`: the writer's
/// clock decides nothing about when its events go out.
pub const REGISTRAR: &str = "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em, traceparent) \
                             VALUES ($1, $2, $3, 'PENDING', now(), 0, now(), $4)";

/// The channel separate publishers `LISTEN` on; writers `NOTIFY` it (delivered at commit).
pub const CHANNEL: &str = "giro_outbox";

/// Writes `evento` as a `PENDING` row in the open business transaction (the original's
/// `Outbox.registrar`, propagation MANDATORY): id = eventId, tipo, payload, criado_em =
/// proxima_tentativa_em = the database's `now()` (the payload keeps `ocorridoEm`). The in-process
/// publisher is woken after commit ([`Tx::commit`]); separate publishers by one `NOTIFY` per
/// transaction when `outbox.notify` is on. Inside [`adiando`] the row is kept for
/// [`gravar_adiados`] instead: one statement for a whole batch's answers.
pub async fn registrar<S, E: Evento>(tx: &Tx<'_, S>, evento: &E) -> Result<(), tokio_postgres::Error> {
    let traceparent = giro_infra::trace::for_event().to_string();
    let linha = Adiado {
        id: evento.event_id(),
        tipo: evento.tipo().to_string(),
        payload: evento.payload(),
        traceparent,
    };
    if let Err(linha) = adiar(linha) {
        tx.execute(REGISTRAR, &[&linha.id, &linha.tipo, &linha.payload, &linha.traceparent]).await?;
    }
    if tx.mark_event_written() && tx.notify_pg() {
        tx.execute("SELECT pg_notify($1, '')", &[&CHANNEL]).await?;
    }
    Ok(())
}

/// An outbox row [`registrar`] kept for [`gravar_adiados`].
#[derive(Debug)]
pub struct Adiado {
    id: Uuid,
    tipo: String,
    payload: serde_json::Value,
    traceparent: String,
}

tokio::task_local! {
    static ADIADOS: std::cell::RefCell<Vec<Adiado>>;
}

/// Keeps `linha` when running inside [`adiando`]; gives it back otherwise.
fn adiar(linha: Adiado) -> Result<(), Adiado> {
    let mut linha = Some(linha);
    let _ = ADIADOS.try_with(|a| {
        if let Some(l) = linha.take() {
            a.borrow_mut().push(l);
        }
    });
    linha.map_or(Ok(()), Err)
}

/// Runs `fut` (effects applied in one transaction) with the outbox rows [`registrar`] writes kept
/// aside, and returns them with its output, for [`gravar_adiados`] in the same transaction: the
/// receiver's answers to a `/eventos/lote` chunk become one statement instead of one per answer.
pub async fn adiando<T>(fut: impl std::future::Future<Output = T>) -> (T, Vec<Adiado>) {
    ADIADOS
        .scope(std::cell::RefCell::new(Vec::new()), async move {
            let out = fut.await;
            let linhas = ADIADOS.with(|a| a.take());
            (out, linhas)
        })
        .await
}

/// `$1` ids, `$2` tipos, `$3` payloads, `$4` traceparents: [`REGISTRAR`] for many rows.
pub const REGISTRAR_VARIOS: &str = "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, tentativas, proxima_tentativa_em, traceparent) \
                                    SELECT id, tipo, payload, 'PENDING', now(), 0, now(), traceparent \
                                      FROM unnest($1::uuid[], $2::text[], $3::jsonb[], $4::text[]) AS r(id, tipo, payload, traceparent)";

/// Writes the rows [`adiando`] kept, in one statement, in `tx` (the transaction of their effects).
pub async fn gravar_adiados<S>(tx: &Tx<'_, S>, linhas: &[Adiado]) -> Result<(), tokio_postgres::Error> {
    if linhas.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = linhas.iter().map(|l| l.id).collect();
    let tipos: Vec<&str> = linhas.iter().map(|l| l.tipo.as_str()).collect();
    let payloads: Vec<&serde_json::Value> = linhas.iter().map(|l| &l.payload).collect();
    let traces: Vec<&str> = linhas.iter().map(|l| l.traceparent.as_str()).collect();
    tx.execute(REGISTRAR_VARIOS, &[&ids, &tipos, &payloads, &traces]).await?;
    Ok(())
}
