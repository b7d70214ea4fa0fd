//! The transactional outbox (SPEC §5, §9.1–9.2).
//!
//! An event row is written by [`registrar`] inside the business transaction that produced it, so
//! it commits (or not) with the change. A publisher later delivers it over HTTP:
//!
//! ```text
//!  PENDING ──claim (lease: proxima_tentativa_em += visibilidade, new lease_token, tentativas+1;──┐
//!     ▲        commits at once)                                                                  │
//!     │  transient failure: backoff                     deliver with no transaction open         │
//!     └──────────────── settle WHERE lease_token = the claimed one ◄─────────────────────────────┘
//!                         ├─ 2xx ─────────────────────────────────────► SENT (enviado_em)
//!                         └─ the receiver's refusal (problem+json 4xx),
//!                            or outbox.prazo-entrega passed ───────────► FAILED (dead letter; `giro outbox retry`)
//! ```
//!
//! A publisher that dies mid-batch loses nothing: its rows come back when the lease ends. A late
//! one cannot overwrite a newer attempt: its token no longer matches. The outbox knows no role.
//!
//! The files: [`store`] (every `outbox_event` statement: the writer [`registrar`], claim and
//! settle, and the reads of the admin commands, the console and `giro audit`); [`relay`] (the
//! loop); [`delivery`] (the HTTP side); [`backoff`]; [`admin`] (`giro outbox …`) and [`console`]
//! (`/operacao/outbox`).

pub mod admin;
pub mod backoff;
pub mod console;
pub mod delivery;
pub mod evento;
pub mod inbox;
pub mod instante;
pub mod listen;
pub mod lote;
pub mod metrics;
pub mod relay;
pub mod settle;
pub mod status;
pub mod store;

pub use evento::Evento;
pub use status::Status;
pub use store::registrar;
