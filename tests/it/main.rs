//! Integration tests: one binary (one link on a 2-core machine), a module per area.
//! Every test that touches PostgreSQL gets its own database cloned from a migrated template
//! (see `support::db`).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

mod support;

mod audit;
mod bench;
mod cli;
mod compressao;
mod config;
mod console;
mod constraints;
mod dev;
mod e2e;
mod estoque_atendimento;
mod estoque_classificacao;
mod estoque_entrada;
mod estoque_fixtures;
mod estoque_painel;
mod eventos;
mod failover;
mod grafana;
mod mercado_cadastro;
mod mercado_checkout;
mod mercado_consumidores;
mod mercado_fixtures;
mod mercado_http;
mod mercado_pagamento;
mod migrations;
mod openapi;
mod ops;
mod otlp;
mod outbox;
mod relay;
mod replicas;
mod resiliencia;
mod seguranca_checkout;
mod seguranca_conexoes;
mod seguranca_entrada;
mod seguranca_fuzz;
mod seguranca_login;
mod seguranca_logs;
mod seguranca_web;
mod service;
mod sessoes;
mod tag_worker;
mod trace;
mod web;
