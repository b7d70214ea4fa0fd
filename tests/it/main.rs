//! Integration tests: one binary (one link on a 2-core machine), a module per component.
//! Every test that touches PostgreSQL gets its own database cloned from a migrated template
//! (see `support::db`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

mod support;

// One module per component; the end-to-end fault scenarios are every test under an `e2e::`
// module (this `e2e`, `outbox::resilience::e2e`, `ha::failover::e2e`, `ha::patroni::e2e`,
// `ha::rolagem::e2e`), run by the e2e stage.
mod db;
mod e2e;
mod estoque;
mod ha;
mod http;
mod inbox;
mod mercado;
mod ops;
mod outbox;
