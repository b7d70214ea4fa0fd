//! Girô's two services and what runs them.
//!
//! Two services, each owning its PostgreSQL database, agree on what happened without a broker
//! and without distributed transactions:
//!
//! - [`mercado`] (the storefront) debits the shelf on each sale; below the minimum, its restock
//!   trigger writes a `ReposicaoSolicitada` to its **outbox** in the same transaction.
//! - [`estoque`] (the warehouse) receives it through its **inbox** (`ON CONFLICT (event_id) DO
//!   NOTHING` in the effect's transaction), ships from its lots (FEFO) or records pent-up demand,
//!   and answers through its own outbox.
//! - [`giro_outbox`] holds the writer, the table's SQL and the relay loop that delivers events
//!   over HTTP (a lease committed at claim time, fencing token, backoff, dead letter), and
//!   `giro_outbox::inbox` the receiving side. [`publisher_role`] runs relay loops as their own
//!   process (`giro publisher`).
//! - [`giro_contracts`] are the four integration events, one enum.
//!
//! Infrastructure, shared and role-free, in crates of its own that this one names by path (no
//! re-export hides which crate a line crosses into): [`giro_infra`] (config, db, supervisor,
//! telemetry, trace, OTLP, shutdown, systemd) and [`giro_http`] (problem+json, health, layers,
//! serving with graceful shutdown, the outgoing client). [`server`] is the start-up sequence of
//! a service role; [`migrate`] embeds both databases' migrations and is `giro migrate`;
//! [`audit`] is `giro audit`. No file imports another in a cycle
//! (`scripts/import-cycles`).

pub mod audit;
pub mod config;
pub mod estoque;
pub mod mercado;
pub mod migrate;
pub mod outboxes;
pub mod parametro;
pub mod publisher_role;
pub mod server;
