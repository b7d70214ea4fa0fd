//! The relay's statements and tuning constants — claim, settle, retention — public only so the
//! workspace's tests and `giro bench` can drive and measure them directly. Not part of the
//! crate's promise: hidden from its documentation, free to change with the relay.

pub use crate::delivery::chunk_size;
pub use crate::inbox::REGISTRAR_NOVOS;
pub use crate::store::{
    claim, claim_desde, mark_failed, mark_sent, parte_fresca, prune_sent, Claimed, Failure, Pisos,
    Reclamados, CLAIM, FRESCOR, MARK_FAILED, MARK_SENT, PARTE_FRESCA, REGISTRAR, TENTATIVAS_GUARDADAS,
};
