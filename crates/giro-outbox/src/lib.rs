#![doc = include_str!("../README.md")]
//!
//! ## Inside
//!
//! **What it owns**: the `outbox_event` and `inbox_event` tables and every statement on them, the
//! relay, the HTTP delivery and receiving routes, retention, and the operator's view (admin
//! commands, console, gauges). **What it may use**: `giro-infra` and `giro-http`, nothing else of
//! the workspace — no service, no domain crate (`cargo tree -p giro-outbox` shows it). What it
//! must know of a service's events comes through [`Evento`]; what a service does with a received
//! one through [`Consumidor`](inbox::Consumidor).
//!
//! An event row is written by [`registrar`] inside the business transaction that produced it, so
//! it commits (or not) with the change. A publisher later delivers it over HTTP (SPEC §5,
//! §9.1–9.2):
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
//! **Fresh first** (issue 29): half of every claim goes to live events, newest first, the rest to
//! the backlog, so live events never queue behind an outage's; an express claim takes them past a
//! full pipe. **Floors**: each claim's index scans start where the previous one left off, so a
//! held xmin horizon's dead versions are not stepped over by every claim; a floorless sweep beside
//! the claims catches rows written below a floor. `store::claim` and `relay` say how and why.
//!
//! A publisher that dies mid-batch loses nothing: its rows come back when the lease ends. A late
//! one cannot overwrite a newer attempt: its token no longer matches.
//!
//! ## What it exports
//!
//! At the root, what a service adopting it writes against: [`Evento`] (the trait its events
//! implement), [`registrar`] (the writer; [`adiando`] and [`gravar_adiados`] batch the rows a
//! group of transactions writes), [`Publisher`] (the relay) and its [`Peer`], [`Retencao`] (the
//! retention job of either table), [`Status`], the batch answer's wire format ([`LoteResposta`])
//! and [`SCHEMA`]. Four modules are public, each for a reason:
//! - [`inbox`] — the receiving side, a half of the crate of its own: the [`Consumidor`](inbox::Consumidor)
//!   a service implements and the routes ([`inbox::router`]);
//! - [`instante`] — the instants' wire format, named by path in `#[serde(with = "…")]`;
//! - [`operador`] — what an operator uses: the dead letters' ways out and the service's
//!   repair, the reads of the admin commands, the console and an audit, `giro outbox …` and the
//!   console's and the gauges' routes; a service's code that touches operations says so in its
//!   `use` line;
//! - `internos` (hidden) — the claim and settle statements and their constants, public only so the
//!   workspace's tests and `giro bench` can drive and measure them, and the pure rules (the settle
//!   decision, the backoff, what each statement does to one row, the replay rule) the protocol's
//!   model runs (`tests/modelo/`); no promise.
//!
//! ## The files
//!
//! The rest is private, a file per concern, each saying what it holds: the `outbox_event`
//! statements in `store/` (write, claim, settle and retention, operator reads), the loop in
//! `relay/` (its claim paths in `relay/claim`), its pure rules in `settle` and `regras`, the HTTP
//! side in `delivery`, the dead letters' ways out in `saida`, `giro outbox …` in `admin`, the
//! console in `console`, the gauges in `metrics`.

#[cfg(feature = "operador")]
mod admin;
mod backoff;
#[cfg(feature = "operador")]
mod console;
mod delivery;
mod evento;
pub mod inbox;
pub mod instante;
#[doc(hidden)]
pub mod internos;
mod listen;
mod lote;
#[cfg(feature = "http")]
mod metrics;
pub mod operador;
mod regras;
mod relay;
mod retencao;
mod saida;
mod settle;
mod status;
mod store;

pub use delivery::Peer;
pub use evento::Evento;
pub use lote::{LoteResposta, ResultadoItem};
pub use relay::{Claim, Publisher, Round};
pub use retencao::{Retencao, Tabela};
pub use status::Status;
pub use store::{adiando, gravar_adiados, registrar, Adiado};

/// The DDL of `outbox_event` and `inbox_event` (`schema.sql`), for a service that adopts the
/// crate: run it in the service's own migrations.
pub const SCHEMA: &str = include_str!("../schema.sql");
