//! `giro`, the one executable: [`cli`] is clap only, and `main.rs` parses, loads the
//! configuration and dispatches to the crate that does the work (docs/architecture.md draws
//! them):
//!
//! - `giro_servicos` — the two services (mercado, estoque), the role start-up, the publisher
//!   role and `giro audit`;
//! - `giro_outbox` — the transactional outbox, its relay and the inbox; `giro_contracts` — the
//!   integration events;
//! - `giro_infra` and `giro_http` — the machinery (configuration, pools, supervisor, telemetry;
//!   HTTP serving, problem+json, health, auth);
//! - `giro_bench` and `giro_dev` — the tools (`giro bench`, `giro dev`), outside the service
//!   library, using only the crates' public APIs.
//!
//! Nothing is re-exported: a path names the crate it crosses into.

pub mod cli;
