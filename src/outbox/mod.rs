//! The transactional outbox (SPEC §5, §9.1–9.2).
//!
//! An event row is written by [`registrar`] inside the business transaction that produced it, so
//! it commits (or not) with the change. A publisher later delivers it over HTTP:
//!
//! ```text
//!  PENDING ──claim (lease: proxima_tentativa_em += visibilidade, new lease_token; commits at once)──┐
//!     ▲                                                                                            │
//!     │  transient failure: tentativas+1, backoff        deliver with no transaction open          │
//!     └──────────────── finalise WHERE lease_token = the claimed one ◄─────────────────────────────┘
//!                         ├─ 2xx ─────────────────────────► SENT (enviado_em)
//!                         └─ permanent 4xx / max attempts ─► FAILED (dead letter; `giro outbox retry`)
//! ```
//!
//! A publisher that dies mid-batch loses nothing: its rows come back when the lease ends. A late
//! one cannot overwrite a newer attempt: its token no longer matches. The outbox knows no role.

pub mod admin;
pub mod backoff;
pub mod console;
pub mod delivery;
pub mod relay;
pub mod store;

pub use store::registrar;
