//! Girô's infrastructure, shared and role-free: [`config`] (the typed settings the lower crates take; the keys and their layers are the application's), [`db`] (pools, the
//! `Tx` type that business functions take, migrations), [`supervisor`] (background loops
//! restarted and reflected in readiness), [`shutdown`], [`telemetry`], [`trace`] and [`otlp`]
//! (trace context and export), [`systemd`] (readiness notification), [`client`] (the
//! outgoing HTTP client's one recipe), [`mascara`] (passwords
//! masked in what is shown or logged), [`serde_pt`] (serde's messages in pt-BR, for the HTTP
//! input policy and the event contracts).

pub mod client;
pub mod config;
pub mod db;
pub mod mascara;
pub mod otlp;
pub mod serde_pt;
pub mod shutdown;
pub mod supervisor;
pub mod systemd;
pub mod telemetry;
pub mod trace;
