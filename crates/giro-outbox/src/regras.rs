//! What the relay's and the operator's statements do to one `outbox_event` row, stated once in
//! Rust: the writer's new row ([`store::REGISTRAR`](crate::store::REGISTRAR)), which rows a claim
//! may take and what its lease writes ([`store::CLAIM`](crate::store::CLAIM),
//! [`store::CLAIM_FRESCOS`](crate::store::CLAIM_FRESCOS)), the settles' fence and what they write
//! ([`store::MARK_SENT`](crate::store::MARK_SENT), [`store::MARK_FAILED`](crate::store::MARK_FAILED)),
//! the revive ([`store::make_due`](crate::store::make_due)) and an operator's replay (`saida`'s
//! `DE_VOLTA`). Pure: no clock, no database.
//!
//! **Why it exists** (issue 38): the statements are set-based SQL and stay so; the protocol's
//! model (`tests/modelo/`) runs these functions as its transitions, and `tests/regras_sql.rs`
//! runs each statement against rows in every situation they distinguish and asserts each row
//! comes out as they say. A rule changed in one place fails a test instead of drifting from the
//! other.
//!
//! The settle *decision* — what an outcome makes of an event — is [`settle::decidir`](crate::settle::decidir);
//! this module says what the statement then writes.

use std::time::Duration;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::settle::Decisao;
use crate::status::Status;

/// What the rules read and write of one row (its other columns — payload, errors, `enviado_em`,
/// the attempt history — decide nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Situacao {
    pub status: Status,
    /// Claims made (the attempt is counted at the claim).
    pub tentativas: i32,
    /// When it is due: its first attempt, the end of a lease, or of a backoff.
    pub proxima_tentativa_em: DateTime<Utc>,
    /// The fencing token of its latest claim, until a settle or a replay clears it.
    pub lease_token: Option<Uuid>,
}

impl Situacao {
    /// The writer's row: `PENDING`, no attempt, due at once (`criado_em = proxima_tentativa_em =
    /// now()` of the writer's transaction).
    pub fn nova(agora: DateTime<Utc>) -> Situacao {
        Situacao { status: Status::Pending, tentativas: 0, proxima_tentativa_em: agora, lease_token: None }
    }

    /// Whether a claim at `agora` may take the row: `status = 'PENDING' AND proxima_tentativa_em
    /// <= agora`. A row under a lease is not due until the lease ends. Every claim path narrows
    /// this and never widens it: the fresh share and the express claim add "first attempt, created
    /// within `FRESCOR`", the floors only skip rows a previous claim has seen, and `SKIP LOCKED`
    /// rows another transaction holds.
    pub fn elegivel(&self, agora: DateTime<Utc>) -> bool {
        self.status == Status::Pending && self.proxima_tentativa_em <= agora
    }

    /// The lease a claim writes: due again when the lease ends, under the claim's new `token`,
    /// one more attempt.
    pub fn reclamar(&mut self, agora: DateTime<Utc>, lease: Duration, token: Uuid) {
        self.proxima_tentativa_em = agora + lease;
        self.lease_token = Some(token);
        self.tentativas += 1;
    }

    /// The settles' fence: only a row still under the claim's `token` and not settled yet
    /// changes (`lease_token = $token AND status NOT IN ('SENT', 'FAILED')`).
    pub fn sob(&self, token: Uuid) -> bool {
        self.lease_token == Some(token) && !matches!(self.status, Status::Sent | Status::Failed)
    }

    /// A settle at `agora` of the attempt claimed under `token`: nothing when the fence says no
    /// (returns false); else `SENT`, back to `PENDING` due after the backoff, or `FAILED`, the
    /// token cleared either way.
    pub fn assentar(&mut self, token: Uuid, decisao: Decisao, agora: DateTime<Utc>) -> bool {
        if !self.sob(token) {
            return false;
        }
        match decisao {
            Decisao::Sent => self.status = Status::Sent,
            Decisao::Retry(espera) => self.proxima_tentativa_em = agora + espera,
            Decisao::Failed(_) => self.status = Status::Failed,
        }
        self.lease_token = None;
        true
    }

    /// The revive (the peer is back): a row waiting out a backoff becomes due at `agora`; a
    /// leased row is left to its publisher (`lease_token IS NULL`). Returns whether it changed.
    pub fn reviver(&mut self, agora: DateTime<Utc>) -> bool {
        let espera =
            self.status == Status::Pending && self.lease_token.is_none() && self.proxima_tentativa_em > agora;
        if espera {
            self.proxima_tentativa_em = agora;
        }
        espera
    }

    /// An operator's replay (`giro outbox retry`, the console's "Reenviar"), once `pode_reenviar`
    /// allowed it: back to `PENDING`, attempts reset, due at `agora`, no lease. `criado_em` stays,
    /// so the delivery deadline still counts from the event's creation.
    pub fn de_volta(&mut self, agora: DateTime<Utc>) {
        if self.status != Status::Pending {
            *self = Situacao::nova(agora);
        }
    }
}

/// How long a publisher waits for a claim's delivery, counted from the claim: 80 % of the lease,
/// so the settle (a transient failure when the answer has not come) lands while the lease holds.
/// A publisher paused past it (SIGSTOP, a stalled VM) settles later, under a token a new claim may
/// have replaced.
pub fn limite_da_entrega(visibilidade: Duration) -> Duration {
    visibilidade.mul_f64(0.8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settle::WhyFailed;

    fn t(s: i64) -> DateTime<Utc> {
        DateTime::<Utc>::UNIX_EPOCH + chrono::Duration::seconds(s)
    }

    #[test]
    fn a_lease_hides_the_row_until_it_ends_and_counts_the_attempt() {
        let mut s = Situacao::nova(t(0));
        assert!(s.elegivel(t(0)));
        s.reclamar(t(0), Duration::from_secs(30), Uuid::from_u128(1));
        assert_eq!((s.tentativas, s.lease_token), (1, Some(Uuid::from_u128(1))));
        assert!(!s.elegivel(t(29)) && s.elegivel(t(30)));
    }

    #[test]
    fn a_settle_changes_the_row_only_under_its_own_token() {
        let mut s = Situacao::nova(t(0));
        s.reclamar(t(0), Duration::from_secs(30), Uuid::from_u128(1));
        s.reclamar(t(30), Duration::from_secs(30), Uuid::from_u128(2));
        let antes = s;
        assert!(!s.assentar(Uuid::from_u128(1), Decisao::Sent, t(31)), "a stale token");
        assert_eq!(s, antes);
        assert!(s.assentar(Uuid::from_u128(2), Decisao::Retry(Duration::from_secs(2)), t(31)));
        assert_eq!((s.status, s.lease_token, s.proxima_tentativa_em), (Status::Pending, None, t(33)));
        assert!(!s.assentar(Uuid::from_u128(2), Decisao::Failed(WhyFailed::Deadline), t(32)), "settled once");
    }

    #[test]
    fn the_revive_leaves_a_leased_row_to_its_publisher() {
        let mut s = Situacao::nova(t(0));
        s.reclamar(t(0), Duration::from_secs(30), Uuid::from_u128(1));
        assert!(!s.reviver(t(1)));
        s.assentar(Uuid::from_u128(1), Decisao::Retry(Duration::from_secs(8)), t(1));
        assert!(s.reviver(t(2)) && s.elegivel(t(2)));
    }

    #[test]
    fn a_replay_starts_the_attempts_over_and_leaves_a_pending_row_alone() {
        let mut s = Situacao::nova(t(0));
        s.reclamar(t(0), Duration::from_secs(30), Uuid::from_u128(1));
        let leased = s;
        s.de_volta(t(5));
        assert_eq!(s, leased);
        s.assentar(Uuid::from_u128(1), Decisao::Failed(WhyFailed::Refused), t(1));
        s.de_volta(t(5));
        assert_eq!(s, Situacao::nova(t(5)));
    }
}
