//! What every listener shares: connection and time bounds ([`connections`]), hostile input
//! ([`input`], [`fuzz`]), operator login and sessions, logs without secrets, the web listener and
//! its paths, compression, and the OpenAPI documents.

mod compression;
mod connections;
mod escrita;
mod fuzz;
mod input;
mod login;
mod logs;
mod openapi;
mod sessions;
mod web;
mod web_paths;
