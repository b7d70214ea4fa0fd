//! The relay's statements and tuning constants — claim, settle, retention — public only so the
//! workspace's tests and `giro bench` can drive and measure them directly; and the pure rules the
//! relay and the operator's actions apply (the settle decision, the backoff, what each statement
//! does to one row, the replay rule), public so the protocol's model (`tests/modelo.rs`) runs the
//! code's own rules. Not part of the crate's promise: hidden from its documentation, free to
//! change with the relay.

pub use crate::backoff::{backoff, with_jitter};
pub use crate::delivery::{chunk_size, Outcome};
pub use crate::inbox::REGISTRAR_NOVOS;
pub use crate::regras::{limite_da_entrega, Situacao};
pub use crate::saida::{pode_reenviar, DE_VOLTA};
pub use crate::settle::{decidir, settle, Decisao, Settle, WhyFailed};
pub use crate::store::{
    claim, claim_desde, make_due, mark_failed, mark_sent, parte_fresca, prune_sent, Claimed, Failure, Pisos,
    Reclamados, CLAIM, FRESCOR, MARK_FAILED, MARK_SENT, PARTE_FRESCA, REGISTRAR, TENTATIVAS_GUARDADAS,
};
