//! The schemas: migrations and the constraints the database enforces whatever the code does.

mod constraints;
mod migrations;
mod papeis;
