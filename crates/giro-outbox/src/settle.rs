//! The settle rule: what one delivery attempt's outcome does to its row. Pure — no clock, no
//! database — so each branch has its test; [`relay`](crate::relay) applies it.
//!
//! - delivered → `SENT`;
//! - refused by the peer's receiver ([`Outcome::Permanent`]) → `FAILED` at once;
//! - a transient failure ([`Outcome::Transient`], [`Outcome::Unreachable`]) → retried after the
//!   backoff, unless the event is `outbox.prazo-entrega` old or older (its age by the database's
//!   clock at the claim, plus the time the publisher has spent on it since: no process's wall
//!   clock counts) or — only when `outbox.max-tentativas` is set — it has used them all: then
//!   `FAILED`. The deadline is reported first when both hold.

use std::time::Duration;

use crate::backoff;
use crate::delivery::Outcome;

/// What becomes of an attempted event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Settle {
    Sent,
    /// Back to `PENDING`, due after the backoff.
    Retry,
    Failed(WhyFailed),
}

giro_infra::nomes! {
    /// Why an event became a dead letter; the text is for the dead letter's log line.
    pub enum WhyFailed {
        /// The peer's receiver judged the event invalid.
        Refused = "the peer's receiver refused the event",
        /// Still undelivered `outbox.prazo-entrega` after its creation.
        Deadline = "delivery deadline (outbox.prazo-entrega) passed",
        /// `outbox.max-tentativas` attempts made.
        Attempts = "attempts exhausted (outbox.max-tentativas)",
    }
}

/// The rule. `tentativas` counts this attempt; `idade` is the event's age when the outcome was
/// known; an event `prazo` (= `outbox.prazo-entrega`) old or older has run out of time;
/// `max_tentativas` = `outbox.max-tentativas`.
pub fn settle(
    outcome: &Outcome,
    tentativas: i32,
    idade: Duration,
    prazo: Duration,
    max_tentativas: Option<i32>,
) -> Settle {
    match outcome {
        Outcome::Sent => Settle::Sent,
        Outcome::Permanent(_) => Settle::Failed(WhyFailed::Refused),
        Outcome::Transient(_) | Outcome::Unreachable(_) => {
            if idade >= prazo {
                Settle::Failed(WhyFailed::Deadline)
            } else if max_tentativas.is_some_and(|max| tentativas >= max) {
                Settle::Failed(WhyFailed::Attempts)
            } else {
                Settle::Retry
            }
        }
    }
}

/// What the settle statement writes for one attempted event (what [`settle`] decided, with the
/// backoff a retry waits).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Decisao {
    Sent,
    /// Back to `PENDING`, due this long after the settle's `now()`.
    Retry(Duration),
    Failed(WhyFailed),
}

/// The relay's whole decision for one attempted event: [`settle`], and for a retry
/// `backoff::with_jitter` of this attempt's number with `fator` (a random factor in
/// [0.8, 1.0] in the relay, `backoff::random_factor`). `backoff_maximo` =
/// `outbox.backoff-maximo`; the rest as [`settle`].
pub fn decidir(
    outcome: &Outcome,
    tentativas: i32,
    idade: Duration,
    prazo: Duration,
    max_tentativas: Option<i32>,
    backoff_maximo: Duration,
    fator: f64,
) -> Decisao {
    match settle(outcome, tentativas, idade, prazo, max_tentativas) {
        Settle::Sent => Decisao::Sent,
        Settle::Retry => Decisao::Retry(backoff::with_jitter(tentativas, backoff_maximo, fator)),
        Settle::Failed(why) => Decisao::Failed(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(secs: u64) -> Duration {
        Duration::from_secs(secs)
    }

    /// 100 s old when the outcome is known; the deadline is `prazo` seconds.
    fn transient(tentativas: i32, prazo: u64, max: Option<i32>) -> Settle {
        settle(&Outcome::Transient("HTTP 500".into()), tentativas, t(100), t(prazo), max)
    }

    #[test]
    fn a_delivered_event_is_sent_whatever_its_age_or_attempts() {
        assert_eq!(settle(&Outcome::Sent, 99, t(1_000), t(1), Some(3)), Settle::Sent);
    }

    #[test]
    fn a_refusal_by_the_receiver_is_a_dead_letter_at_once() {
        let o = Outcome::Permanent("HTTP 400".into());
        assert_eq!(settle(&o, 1, t(0), t(100), None), Settle::Failed(WhyFailed::Refused));
    }

    #[test]
    fn a_transient_failure_within_the_deadline_is_retried() {
        assert_eq!(transient(7, 101, None), Settle::Retry);
        assert_eq!(transient(2, 101, Some(3)), Settle::Retry, "below max-tentativas");
    }

    #[test]
    fn an_unreachable_peer_counts_as_a_transient_failure() {
        let o = Outcome::Unreachable("connection refused".into());
        assert_eq!(settle(&o, 1, t(99), t(100), None), Settle::Retry);
        assert_eq!(settle(&o, 1, t(100), t(100), None), Settle::Failed(WhyFailed::Deadline));
    }

    #[test]
    fn a_transient_failure_past_the_deadline_is_a_dead_letter() {
        assert_eq!(
            transient(1, 100, None),
            Settle::Failed(WhyFailed::Deadline),
            "exactly as old as the deadline"
        );
        assert_eq!(transient(1, 50, None), Settle::Failed(WhyFailed::Deadline));
    }

    #[test]
    fn attempts_run_out_only_when_max_tentativas_is_set() {
        assert_eq!(transient(3, 101, Some(3)), Settle::Failed(WhyFailed::Attempts));
        assert_eq!(transient(1_000, 101, None), Settle::Retry);
    }

    #[test]
    fn a_retry_waits_the_backoff_of_its_attempt() {
        let o = Outcome::Transient("HTTP 503".into());
        let d = |n| decidir(&o, n, t(1), t(100), None, t(300), 1.0);
        assert_eq!((d(1), d(4)), (Decisao::Retry(t(1)), Decisao::Retry(t(8))));
        assert_eq!(
            decidir(&o, 4, t(1), t(100), None, t(300), 0.8),
            Decisao::Retry(Duration::from_millis(6400))
        );
        assert_eq!(decidir(&o, 4, t(100), t(100), None, t(300), 1.0), Decisao::Failed(WhyFailed::Deadline));
    }

    #[test]
    fn the_deadline_is_reported_when_attempts_ran_out_too() {
        assert_eq!(transient(3, 100, Some(3)), Settle::Failed(WhyFailed::Deadline));
    }
}
