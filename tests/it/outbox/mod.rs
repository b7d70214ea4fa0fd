//! The outbox side: the writer and the publisher ([`publisher`]), the relay's claims and
//! batches ([`relay`]), delivery that never stalls and heals after faults ([`resilience`], with its
//! end-to-end fault scenarios), the trace context carried by events ([`trace`]) and the event
//! console ([`console`]; while PostgreSQL is down, with the CLI's console logic:
//! [`console_outage`]); fresh events claimed ahead of a backlog ([`fresco`]) by scans dead tuples cannot slow ([`horizonte`]); the crate used as a library by a third service with no Girô domain code
//! ([`biblioteca`]); each delivery attempt on record ([`tentativas`]).

mod biblioteca;
mod console;
mod console_outage;
mod fresco;
mod historia;
mod horizonte;
pub mod publisher;
mod relay;
mod resilience;
mod saidas;
mod tentativas;
pub mod trace;
