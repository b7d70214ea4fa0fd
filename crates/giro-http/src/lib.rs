//! Girô's HTTP layer, shared by both services and by any role that serves or calls HTTP. It owns:
//!
//! - [`servir`] — serving a router on a bound listener with its bounds (connections, heads,
//!   bodies, whole requests, panics) and a graceful drain ([`drenagem`]: first out of the
//!   balancer, then closed); [`camadas`] — the stack every API router gets ([`finish`]);
//! - [`problem`] — errors as problem+json; [`pg`] — the one policy turning a database error into
//!   an answer, for every route; [`reexecucao`] — a request re-run once when its session was
//!   lost before any COMMIT;
//! - [`extract`] — the extractors and the input policy applied before any SQL;
//! - [`auth`] — who is calling (service token, operator session) and who may call a route, with
//!   sessions ([`auth::sessao`]), CSRF ([`auth::csrf`](mod@auth::csrf)) and the `/sessao` routes
//!   ([`auth::login`]) as layers; [`limite`] — throttling by client address and user name, its
//!   counters in the database;
//! - [`health`], [`metrics`], [`openapi`] — the open routes; [`web`] — the static web fronts'
//!   listener.
//!
//! It may use `giro-infra` (configuration, pools, supervisor, trace context) and nothing of
//! Girô above it: no role, no outbox, no contract (a wrong-way `use` does not compile).

pub mod auth;
pub mod camadas;
pub mod drenagem;
pub mod extract;
pub mod health;
pub mod limite;
pub mod metrics;
pub mod openapi;
pub mod pg;
pub mod problem;
pub mod reexecucao;
pub mod servir;
pub mod web;

pub use camadas::{access_log, cookies_seguros, finish, sem_cache, BODY_LIMIT};
pub use giro_infra::config::LimitesHttp;
pub use problem::Problem;
pub use servir::{serve, serve_config};
