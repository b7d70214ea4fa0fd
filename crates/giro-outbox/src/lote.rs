//! The body and the answer of `POST /eventos/lote`, the batch route: the body written by the
//! sender ([`delivery`](crate::delivery)) and read by the receiver
//! ([`inbox::receiver`](crate::inbox::receiver)), the answer the other way.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// The body: each event as stored, with its type and trace context.
#[derive(Serialize, Deserialize)]
pub struct LotePedido {
    pub eventos: Vec<ItemLote>,
}

#[derive(Serialize, Deserialize)]
pub struct ItemLote {
    pub tipo: String,
    pub evento: Box<RawValue>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traceparent: Option<String>,
}

/// One item of the answer: each event's own status, as `/eventos` would have answered it alone.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct ResultadoItem {
    #[serde(rename = "eventId")]
    pub event_id: Option<uuid::Uuid>,
    pub status: u16,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub detalhe: Option<String>,
}

/// One [`ResultadoItem`] per event, in the request's order.
#[derive(Serialize, Deserialize, Debug)]
pub struct LoteResposta {
    pub resultados: Vec<ResultadoItem>,
}
