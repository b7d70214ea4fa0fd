//! The outbox table's SQL (`outbox_event`, identical in both databases).
//!
//! **One clock: PostgreSQL's.** Every instant that decides when a row is due — its creation and
//! first attempt, a lease, a backoff, retention — is computed and compared by the database
//! (`now()`) in the statement that uses it, never by the process that writes or reads the row:
//! a writer whose clock runs minutes ahead of a separate publisher's no longer makes its events
//! wait out the difference, and a publisher behind or ahead neither delays nor dead-letters
//! anything (SPEC §4.7, issue 30). A statement that decides by time takes `agora` as an
//! `Option`: `None` in production (the database's clock), an instant in tests that step through
//! a backoff or a lease without sleeping.
//!
//! **The relay's bookkeeping commits without waiting for the WAL flush.** The claim ([`CLAIM`])
//! and the settles ([`MARK_SENT`], [`mark_failed`]) set `synchronous_commit = off` for their own
//! one-statement transaction (`set_config(…, true)`, evaluated once as a one-time filter; the
//! session keeps its setting). Their commits are still atomic and visible at once; what a crash of
//! PostgreSQL itself (or a failover) can take is the last ~200 ms of them (`wal_writer_delay`), and
//! losing them loses nothing: a lost claim or a lost `SENT` leaves the row `PENDING`, so it is
//! delivered again once its lease ends and the receiver's inbox absorbs the duplicate; a lost
//! `FAILED` is one more attempt. A claim no longer waits for a disk flush before its events can
//! go out (one flush less between a writer's commit and the receiver's), and claims and settles
//! no longer queue for flushes behind the business commits. The business transactions — the
//! writers' outbox rows, the receiver's inbox row with its effect — and the operator's actions stay
//! synchronous: those are what must survive.
//!
//! **The attempt history** (`outbox_tentativa`, issue 26): the settle that ends an attempt
//! records it in the same statement (a data-modifying CTE over the `UPDATE`'s result, so one round
//! trip, and fenced by the same lease token: a settle whose token is stale changes no row and
//! records nothing). What is recorded: **every failure** ([`mark_failed`]), and **a success only
//! for an event that has failures on record** ([`MARK_SENT`]): the delivery that ended its
//! trouble. A success row for every event would double the writes of the hot path, where nearly
//! every event goes out at its first attempt, for a history nobody reads (the event's own row
//! says `SENT`, when, after how many attempts); the hot path pays one probe of the history's
//! index per event instead (`EXPLAIN ANALYZE` of a 500-event settle: 0.6 ms of probes, ~1 µs an
//! event, beside the `UPDATE`'s own tens of ms). An attempt lost with its publisher (a crash, a lease run out) has no
//! settle and no row: the numbers (the claim's count) show the gap. At most
//! [`TENTATIVAS_GUARDADAS`] rows per event, the newest: the settle deletes the older ones in the
//! same statement. The rows go with their event: retention ([`prune_sent`]) and the archiving of
//! a dead letter (`saida`'s) delete them in the statement that deletes the
//! event — the archive keeps the event's last error and count, not its history (the console
//! shows no archived event). No foreign key: `TRUNCATE outbox_event` alone (benchmarks, tools)
//! must keep working. An operator's replay keeps the history and starts the count over.

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
