//! Girô: a virtual market whose stock restocks itself.
//!
//! Two services, each owning its PostgreSQL database, agree on what happened without a broker
//! and without distributed transactions:
//!
//! - [`mercado`] (the storefront) debits the shelf on each sale; below the minimum, its restock
//!   trigger writes a `ReposicaoSolicitada` to its **outbox** in the same transaction.
//! - [`estoque`] (the warehouse) receives it through its **inbox** (`ON CONFLICT (event_id) DO
//!   NOTHING` in the effect's transaction), ships from its lots (FEFO) or records pent-up demand,
//!   and answers through its own outbox.
//! - [`outbox`] holds the writer, the table's SQL and the relay loop that delivers events over
//!   HTTP (a lease committed at claim time, fencing token, backoff, dead letter); [`inbox`] the
//!   receiving side. [`publisher_role`] runs relay loops as their own process (`giro publisher`).
//! - [`contracts`] are the four integration events, one enum.
//!
//! Infrastructure, shared and role-free: [`config`] (layered, typed), [`db`] (pools, the `Tx`
//! type that business functions take, marked with the service whose database it runs in,
//! migrations), [`http`] (problem+json, health, layers,
//! serving with graceful shutdown, the outgoing client), [`server`] (the start-up sequence of a
//! service role), [`supervisor`] (background loops restarted and reflected in readiness),
//! [`telemetry`], [`trace`] and [`otlp`] (trace context and export), [`shutdown`], [`systemd`]
//! (readiness notification). Commands beside the roles: [`audit`], [`bench`](mod@bench), [`dev`].
//! [`cli`] is clap only; `main.rs` dispatches. No file imports another in a cycle
//! (`scripts/import-cycles`).

pub mod audit;
pub mod bench;
pub mod cli;
pub mod dev;
pub mod estoque;
pub mod mercado;
pub mod publisher_role;
pub mod server;

pub use giro_contracts as contracts;
pub use giro_http as http;
pub use giro_infra::{config, db, otlp, shutdown, supervisor, systemd, telemetry, trace};
pub use giro_outbox as outbox;
pub use giro_outbox::inbox;
