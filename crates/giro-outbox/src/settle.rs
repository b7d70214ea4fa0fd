//! The settle rule: what one delivery attempt's outcome does to its row. Pure — no clock, no
//! database — so each branch has its test; [`relay`](crate::relay) applies it.
//!
//! - delivered → `SENT`;
//! - refused by the peer's receiver ([`Outcome::Permanent`]) → `FAILED` at once;
//! - a transient failure ([`Outcome::Transient`], [`Outcome::Unreachable`]) → retried after the
//!   backoff, unless the event was created before the delivery deadline (`outbox.prazo-entrega`
//!   ago) or — only when `outbox.max-tentativas` is set — it has used them all: then `FAILED`.
//!   The deadline is reported first when both hold.

use chrono::{DateTime, Utc};

use crate::delivery::Outcome;

/// What becomes of an attempted event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settle {
    Sent,
    /// Back to `PENDING`, due after the backoff.
    Retry,
    Failed(WhyFailed),
}

/// Why an event became a dead letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WhyFailed {
    /// The peer's receiver judged the event invalid.
    Refused,
    /// Still undelivered `outbox.prazo-entrega` after its creation.
    Deadline,
    /// `outbox.max-tentativas` attempts made.
    Attempts,
}

impl WhyFailed {
    /// For the log line of a dead letter.
    pub fn describe(self) -> &'static str {
        match self {
            WhyFailed::Refused => "the peer's receiver refused the event",
            WhyFailed::Deadline => "delivery deadline (outbox.prazo-entrega) passed",
            WhyFailed::Attempts => "attempts exhausted (outbox.max-tentativas)",
        }
    }
}

/// The rule. `tentativas` counts this attempt; `criado_em` is the event's creation;
/// `criado_ate` = the outcome's instant − `outbox.prazo-entrega` (an event created then or
/// before has run out of time); `max_tentativas` = `outbox.max-tentativas`.
pub fn settle(
    outcome: &Outcome,
    tentativas: i32,
    criado_em: DateTime<Utc>,
    criado_ate: DateTime<Utc>,
    max_tentativas: Option<i32>,
) -> Settle {
    match outcome {
        Outcome::Sent => Settle::Sent,
        Outcome::Permanent(_) => Settle::Failed(WhyFailed::Refused),
        Outcome::Transient(_) | Outcome::Unreachable(_) => {
            if criado_em <= criado_ate {
                Settle::Failed(WhyFailed::Deadline)
            } else if max_tentativas.is_some_and(|max| tentativas >= max) {
                Settle::Failed(WhyFailed::Attempts)
            } else {
                Settle::Retry
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(secs: i64) -> DateTime<Utc> {
        DateTime::<Utc>::from_timestamp(1_800_000_000 + secs, 0).unwrap_or_default()
    }

    /// Created at 100 s; the deadline cuts at `criado_ate`.
    fn transient(tentativas: i32, criado_ate: i64, max: Option<i32>) -> Settle {
        settle(&Outcome::Transient("HTTP 500".into()), tentativas, t(100), t(criado_ate), max)
    }

    #[test]
    fn a_delivered_event_is_sent_whatever_its_age_or_attempts() {
        assert_eq!(settle(&Outcome::Sent, 99, t(0), t(1_000), Some(3)), Settle::Sent);
    }

    #[test]
    fn a_refusal_by_the_receiver_is_a_dead_letter_at_once() {
        let o = Outcome::Permanent("HTTP 400".into());
        assert_eq!(settle(&o, 1, t(100), t(0), None), Settle::Failed(WhyFailed::Refused));
    }

    #[test]
    fn a_transient_failure_within_the_deadline_is_retried() {
        assert_eq!(transient(7, 99, None), Settle::Retry);
        assert_eq!(transient(2, 99, Some(3)), Settle::Retry, "below max-tentativas");
    }

    #[test]
    fn an_unreachable_peer_counts_as_a_transient_failure() {
        let o = Outcome::Unreachable("connection refused".into());
        assert_eq!(settle(&o, 1, t(100), t(99), None), Settle::Retry);
        assert_eq!(settle(&o, 1, t(100), t(100), None), Settle::Failed(WhyFailed::Deadline));
    }

    #[test]
    fn a_transient_failure_past_the_deadline_is_a_dead_letter() {
        assert_eq!(
            transient(1, 100, None),
            Settle::Failed(WhyFailed::Deadline),
            "created exactly at the cut"
        );
        assert_eq!(transient(1, 500, None), Settle::Failed(WhyFailed::Deadline));
    }

    #[test]
    fn attempts_run_out_only_when_max_tentativas_is_set() {
        assert_eq!(transient(3, 99, Some(3)), Settle::Failed(WhyFailed::Attempts));
        assert_eq!(transient(1_000, 99, None), Settle::Retry);
    }

    #[test]
    fn the_deadline_is_reported_when_attempts_ran_out_too() {
        assert_eq!(transient(3, 100, Some(3)), Settle::Failed(WhyFailed::Deadline));
    }
}
