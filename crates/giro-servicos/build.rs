//! The migrations are embedded at compile time (`refinery::embed_migrations!` in `migrate`),
//! which cargo does not see as an input: a migration added or changed must rebuild this crate.
fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
