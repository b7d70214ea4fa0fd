//! What the outbox needs to know of a service's events: the [`Evento`] trait. A service implements
//! it once for its event type (Girô: `giro_contracts::EventoIntegracao`), and the writer, the
//! receiver, the console and the admin commands are generic over it. The outbox itself never
//! looks inside a payload except through what this trait tells it.

use chrono::{DateTime, Utc};
use uuid::Uuid;

/// An integration event of one service: one value of it is one `outbox_event` row and one
/// `POST /eventos` body.
pub trait Evento: Sized + Send + Sync + 'static {
    /// Why a received body is not an event of this type; its `Display` is the 400's detail (and
    /// the batch item's `detalhe`), exactly as the contract words it.
    type Erro: std::fmt::Display + Send + Sync + 'static;

    /// Every type name ([`Evento::tipo`]): what the console accepts as a filter.
    const TIPOS: &'static [&'static str];

    /// Where the aggregate key ([`Evento::chave`]) is in the stored payload, as a JSON path
    /// (`payload #>> path`): how the admin commands and the console read it back from a row.
    /// For example `&["sku"]`.
    const CAMINHO_CHAVE: &'static [&'static str];

    /// What the aggregate key is called, for people (for example "SKU").
    const NOME_CHAVE: &'static str;

    /// The type name: the `Evento-Tipo` header and `outbox_event.tipo`.
    fn tipo(&self) -> &'static str;

    /// The event's id: `outbox_event.id` and the inbox's `event_id` (what makes a redelivery a no-op).
    fn event_id(&self) -> Uuid;

    /// When it happened, by the writer's clock: information carried in the payload. The outbox
    /// schedules nothing by it (the row's `criado_em` and first attempt are the database's
    /// `now()`, so a writer's clock ahead delays nothing).
    fn ocorrido_em(&self) -> DateTime<Utc>;

    /// The body as JSON, stored in `outbox_event.payload` and sent as it is.
    fn payload(&self) -> serde_json::Value;

    /// The aggregate the event is about (for example a product's SKU). A batch is applied in this
    /// order, so concurrent batches lock the aggregates' rows in one order and do not deadlock;
    /// the admin commands show it beside a dead letter.
    fn chave(&self) -> &str;

    /// Parses and validates a received body of type `tipo` (which the receiver has already
    /// checked is one its consumer accepts). No rule here may depend on the receiver's clock: an
    /// event refused because the sender's clock drifted would be refused again on every retry.
    fn ler(tipo: &str, corpo: &[u8]) -> Result<Self, Self::Erro>;

    /// What a dead letter of type `tipo` about aggregate `chave` holds back until it is retried,
    /// in words for the operator (for example "restocks of SKU 7894900011517 wait"); `None` when
    /// nothing waits on it.
    fn bloqueio(tipo: &str, chave: &str) -> Option<String> {
        let _ = (tipo, chave);
        None
    }

    /// [`Evento::bloqueio`] for the event console, in pt-BR sentence case: `None` exactly when
    /// `bloqueio` is. By default it is `bloqueio`'s own words.
    fn bloqueio_para_operador(tipo: &str, chave: &str) -> Option<String> {
        Self::bloqueio(tipo, chave)
    }
}
