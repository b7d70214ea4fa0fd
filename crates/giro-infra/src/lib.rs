//! Girô's infrastructure, shared and role-free: [`config`] (layered, typed), [`db`] (pools, the
//! `Tx` type that business functions take, migrations), [`supervisor`] (background loops
//! restarted and reflected in readiness), [`shutdown`], [`telemetry`], [`trace`] and [`otlp`]
//! (trace context and export), [`systemd`] (readiness notification).

pub mod config;
pub mod db;
pub mod otlp;
pub mod shutdown;
pub mod supervisor;
pub mod systemd;
pub mod telemetry;
pub mod trace;
