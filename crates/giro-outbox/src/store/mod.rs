//! The outbox table's SQL (`outbox_event`, identical in every database that adopts it).
//!
//! **One clock: PostgreSQL's.** Every instant that decides when a row is due — its creation and
//! first attempt, a lease, a backoff, retention — is computed and compared by the database
//! (`now()`) in the statement that uses it, so no process's clock, ahead or behind, delays or
//! dead-letters anything (SPEC §4.7, issue 30). A statement that decides by time takes `agora`
//! as an `Option`: `None` in production, an instant in tests that step through time.
//!
//! **The relay's bookkeeping commits without waiting for the WAL flush.** The claim ([`CLAIM`])
//! and the settles ([`MARK_SENT`], [`mark_failed`]) set `synchronous_commit = off` for their own
//! one-statement transaction (`set_config(…, true)`, a one-time filter; the session keeps its
//! setting). Their commits are atomic and visible at once; a crash of PostgreSQL (or a failover)
//! can take their last ~200 ms (`wal_writer_delay`), which loses nothing: a lost claim or `SENT`
//! leaves the row `PENDING`, delivered again when its lease ends and absorbed by the receiver's
//! inbox; a lost `FAILED` is one more attempt. So claims and settles no longer wait for, or queue
//! behind, the business commits' flushes. The business transactions (the writers' rows, the
//! receiver's inbox row with its effect) and the operator's actions stay synchronous.
//!
//! **The attempt history** (`outbox_tentativa`, issue 26): the settle that ends an attempt
//! records it in the same statement (a CTE over the `UPDATE`'s result: one round trip, fenced by
//! the same token, so a stale settle records nothing). **Every failure** is recorded
//! ([`mark_failed`]), and **a success only for an event with failures on record** ([`MARK_SENT`]):
//! a row for every success would double the hot path's writes for a history nobody reads (the
//! event's own row says `SENT`, when, after how many attempts); the hot path pays one index probe
//! per event instead (~1 µs an event in a 500-event settle). An attempt lost with its publisher has
//! no row: the numbers (the claim's count) show the gap. At most [`TENTATIVAS_GUARDADAS`] rows per
//! event, the newest. The rows go with their event, in the statement that deletes it (retention,
//! [`prune_sent`]; the archiving of a dead letter, `saida`'s): the archive keeps the last error and
//! count, not the history. No foreign key: `TRUNCATE outbox_event` alone (benchmarks, tools) must
//! keep working. An operator's replay keeps the history and starts the count over.
//!
//! The files, by concern: [`escrita`] (the writer), [`claim`] (the claim paths: fresh, express,
//! floors, sweep, revive), [`marcar`] (the settles and retention), [`leituras`] (the operator's
//! reads). Their items are re-exported here: `store::X` is the one path the crate uses.

mod claim;
mod escrita;
mod leituras;
mod marcar;

pub use claim::*;
pub use escrita::*;
pub use leituras::*;
pub use marcar::*;
