//! The claim paths of a [`Publisher`]: the claim size that adapts to the backlog (`alvo`), the
//! claim as a lease with its fresh share ([`Publisher::claim`]), the express claim of a writer's
//! fresh events, the index floors each claim starts from and the
//! sweep from none ([`Publisher::sweep`]), and the loop's decisions of when each may be taken
//! (the bound, the express slot, the sweep's time). The module above says why each exists.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{InFlight, Publisher, MAX_LEASED_CLAIMS};
use crate::delivery::Faixa;
use crate::store::{self, Claimed};

/// Which claim [`Publisher::claim_in`] takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Modo {
    /// The loop's claim, from the floors, its size adapting to what came back.
    Comum,
    /// Only fresh events, delivered through the express lane ([`Faixa::Expressa`]).
    Expressa,
    /// A claim from no floor ([`Publisher::sweep`]).
    Varredura,
}

/// A claimed batch under its own lease and fencing token.
#[derive(Debug)]
pub struct Claim {
    pub token: Uuid,
    pub claimed: Vec<Claimed>,
    /// As many rows as asked for: more may be due right now.
    pub full: bool,
    /// When the lease was taken: its delivery must end by 80 % of `outbox.visibilidade` from here.
    pub at: Instant,
    /// The request slots its delivery takes: the express lane for an express claim.
    pub faixa: Faixa,
}

impl Publisher {
    /// The next claim's size.
    pub fn alvo(&self) -> usize {
        self.alvo.load(Ordering::SeqCst)
    }

    /// The largest claim: `outbox.lote-max`, or `outbox.lote` when that was set higher.
    pub(super) fn alvo_max(&self) -> usize {
        self.cfg.lote_max.max(self.cfg.lote)
    }

    /// A claim of `asked` rows brought `got`: a full one doubles the next claim (a backlog), one
    /// less than half full halves it (the outbox is draining), within `outbox.lote`..`lote-max`.
    pub(super) fn adapt(&self, asked: usize, got: usize) {
        let next = if got >= asked {
            (asked * 2).min(self.alvo_max())
        } else if got < asked / 2 {
            (asked / 2).max(self.cfg.lote)
        } else {
            asked
        };
        self.alvo.store(next, Ordering::SeqCst);
    }

    /// Whether another claim may be taken now: the rows leased stay within
    /// [`MAX_LEASED_CLAIMS`] × `outbox.lote-max`, and a request slot is free.
    pub(super) fn has_room(&self, in_flight: &InFlight) -> bool {
        in_flight.rows() + self.alvo() <= MAX_LEASED_CLAIMS * self.alvo_max() && self.peer.free_slots() > 0
    }

    /// Whether an express claim may be taken now: fresh first is on (`outbox.parte-fresca` > 0;
    /// 0 means strictly by due time), none in flight, its slot free, and the peer not known to be
    /// unreachable.
    pub(super) fn express_room(&self, in_flight: &InFlight) -> bool {
        self.cfg.parte_fresca > 0
            && in_flight.expressa.is_none()
            && self.peer.expressa_livre()
            && !self.peer_down.load(Ordering::SeqCst)
    }

    /// Whether a sweep is due: `outbox.varredura` is not zero (zero: every claim has no floor),
    /// none is in flight, and its time has come ([`Publisher::sweep`]).
    pub(super) fn sweep_due(&self, in_flight: &InFlight) -> bool {
        !self.cfg.varredura.is_zero()
            && in_flight.varredura.is_none()
            && self.pisos.lock().is_ok_and(|p| Instant::now() >= p.1)
    }

    /// Starts a sweep in a task of its own, beside the loop's claims: its rows count in the
    /// bound as a whole claim's until it is settled.
    pub(super) fn start_sweep(self: &Arc<Self>, in_flight: &mut InFlight) {
        let me = self.clone();
        let task = in_flight.claims.spawn(async move { me.finish(me.sweep().await?).await });
        in_flight.leased.insert(task.id(), self.alvo());
        in_flight.varredura = Some(task.id());
    }

    /// Takes a claim (the loop's or an express one) and hands it to a task of its own to deliver
    /// and settle; returns whether more may be due right now (it came back full).
    pub(super) async fn claim_into(self: &Arc<Self>, in_flight: &mut InFlight, modo: Modo) -> bool {
        let c = match self.claim_in(modo, None).await {
            Ok(c) => c,
            Err(e) => {
                let o_que = match modo {
                    Modo::Expressa => "express claim failed",
                    _ => "publisher round failed",
                };
                tracing::warn!(outbox = %self.nome, error = %format!("{e:#}"), "{o_que}");
                return false;
            }
        };
        let (full, n) = (c.full, c.claimed.len());
        if n > 0 {
            let me = self.clone();
            let id = in_flight.claims.spawn(async move { me.finish(c).await }).id();
            match modo {
                Modo::Expressa => in_flight.expressa = Some(id),
                _ => _ = in_flight.leased.insert(id, n),
            }
        }
        full
    }

    /// Claims up to [`Publisher::alvo`] due events under a new lease and token (committed at
    /// once), and adapts the next claim's size to what came back. What is due and the lease are
    /// the database's clock (`agora` = `None`); a test passes an instant to step through time.
    pub async fn claim(&self, agora: impl Into<Option<DateTime<Utc>>>) -> anyhow::Result<Claim> {
        self.claim_in(Modo::Comum, agora.into()).await
    }

    /// **A sweep**: a claim with no floors, for the rows written below them (a writer's
    /// transaction longer than `store::FOLGA`), every `outbox.varredura` — **beside** the
    /// loop's claims, in a task of its own, never in their way. While another session holds the
    /// xmin horizon a sweep steps over every dead entry since the horizon was taken, so it slows
    /// as the hold goes on (issue 29: ~0.5 s after 4 minutes); taken inline it stalled the loop —
    /// live events waited for it, every 10 s. Two rules bound it: the next sweep is due
    /// `outbox.varredura` after this one ends, or nine times its claim's duration if that is
    /// longer (a sweep never takes more than a tenth of the time, however long the hold); and it
    /// only ever lowers the floors — one that came back full leaves them where its rows end, so
    /// the loop's claims drain what it found at full speed, as after an outage.
    pub async fn sweep(&self) -> anyhow::Result<Claim> {
        #[cfg(feature = "test-hooks")]
        if let Some(gate) = &self.hooks.varredura {
            let _ = gate.subscribe().wait_for(|open| *open).await;
        }
        let at = Instant::now();
        let claim = self.claim_in(Modo::Varredura, None).await;
        if let Ok(mut p) = self.pisos.lock() {
            p.1 = Instant::now() + self.cfg.varredura.max(at.elapsed() * 9);
        }
        claim
    }

    /// A claim of kind `modo`, from the loop's floors ([`store::Pisos`]) — none for a sweep, nor
    /// for a test's own `agora` or with `outbox.varredura = 0s`. An express claim
    /// (`store::claim_frescos`: up to `outbox.lote` fresh events) moves neither the next claim's
    /// size nor the floors.
    pub(super) async fn claim_in(&self, modo: Modo, agora: Option<DateTime<Utc>>) -> anyhow::Result<Claim> {
        let token = Uuid::new_v4();
        let at = Instant::now();
        let asked = if modo == Modo::Expressa { self.cfg.lote.max(1) } else { self.alvo() };
        let client = self.pool.get().await?;
        let lease = self.cfg.visibilidade;
        let pisos = match modo {
            Modo::Varredura => store::Pisos::default(),
            Modo::Comum if agora.is_some() || self.cfg.varredura.is_zero() => store::Pisos::default(),
            _ => self.pisos.lock().map(|p| p.0).unwrap_or_default(),
        };
        let claimed = match modo {
            Modo::Expressa => {
                store::claim_frescos(&client, agora, asked as i64, lease, token, pisos.novos).await?
            }
            _ => {
                let parte = self.cfg.parte_fresca;
                let claimed =
                    store::claim_desde(&client, agora, asked as i64, lease, token, parte, pisos).await?;
                if let Ok(mut p) = self.pisos.lock() {
                    if modo == Modo::Varredura {
                        p.0 = p.0.menores(pisos.depois(&claimed));
                    } else if agora.is_none() && p.0 == pisos {
                        // Unless a sweep lowered them meanwhile: then its floors stand.
                        p.0 = pisos.depois(&claimed);
                    }
                }
                if modo == Modo::Comum {
                    self.adapt(asked, claimed.eventos.len());
                }
                claimed.eventos
            }
        };
        // The connection goes back to the pool here: none is held while delivering.
        drop(client);
        let faixa = if modo == Modo::Expressa { Faixa::Expressa } else { Faixa::Comum };
        Ok(Claim { token, full: claimed.len() >= asked, claimed, at, faixa })
    }
}
