//! The answer of `POST /eventos/lote`, the batch route: written by the receiver
//! ([`inbox::receiver`](crate::inbox::receiver)), read by the sender ([`delivery`](crate::delivery)).

use serde::{Deserialize, Serialize};

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
