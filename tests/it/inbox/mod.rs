//! The receiving side: `POST /eventos` and `POST /eventos/lote` ([`receiver`]).

mod receiver;
