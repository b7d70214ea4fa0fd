//! Running it: a started service ([`service`]), configuration, the CLI, `giro audit`, `giro
//! bench`, `giro dev`, systemd readiness, logs and alert rules, the Grafana dashboard, OTLP export.

mod audit;
mod bench;
mod cli;
mod config;
mod dev;
mod grafana;
mod metricas;
mod otlp;
mod service;
mod systemd_and_alerts;
