//! The relay and inbox protocol, model-checked (issue 38): every interleaving of writers, N
//! publishers, the peer's receiver, an operator and the faults, within small bounds, explored
//! exhaustively by stateright in `cargo test`.
//!
//! **What is modelled.** Writers commit events (each one shipment: the effect's identity on the
//! peer). Publishers claim any eligible row as a lease under a fresh fencing token and send it;
//! the receiver applies a request in one transaction (inbox row, effect, answer); the publisher
//! settles with the answer, or when its delivery limit passes without one, fenced by its token:
//! `SENT`, back to `PENDING` after the backoff, or `FAILED` (refused, or past the deadline). A
//! row waiting out a backoff may be revived. An operator may retry (same id; forced for a `SENT`
//! row), discard or redo (the same shipment under a new event id) a dead letter. Time passes in
//! whole seconds on the database's clock. Faults, from a budget the checker spends as it likes:
//! a publisher's crash, the receiver's transaction failing (5xx), a request or an answer lost, a
//! request duplicated; for free, as often as it likes: a publisher or a message pausing past the
//! lease (time passes while it takes no step), messages taken in any order, an answer that comes
//! after the publisher gave up on it (the peer applied, the answer is lost to it).
//!
//! **Abstractions, and why they lose nothing here.** A claim takes one row: a batch is the same
//! statement over several rows, each row fenced by the same token and settled on its own, so a
//! batch behaves as its rows' claims made at one instant. The fresh share, the express claim, the
//! floors and the sweep are one "claim any eligible row": they share the eligibility rule
//! ([`Situacao::elegivel`](giro_outbox::internos::Situacao::elegivel)) and differ only in which
//! eligible rows they take first, and the model takes every order. A publisher holding two claims
//! at once is two publishers here (each claim has its own token). `SKIP LOCKED` is the claim's
//! atomicity: a claim is one step. Writers' transactions are atomic (the outbox row commits with
//! the business change or not at all), so a writer that crashes before its commit wrote nothing.
//! Clocks: every instant that decides is the database's (`now()` in the statement) and the
//! publisher's monotonic time since its claim (at the database's rate); each publisher's wall
//! clock has an offset from it (`desvios`) that no rule of the code reads — the seeded
//! [`Defeito::RelogioDoProcesso`] shows what reading it would break.
//!
//! **Liveness.** Time is bounded (a horizon each check computes from its bounds), so every run
//! ends, and "at rest, each shipment applied exactly once or a dead letter, none pending" is
//! checked on every run's last state, beside stateright's `eventually`. It holds under the
//! fairness `Protocolo::tempo_pode_passar` states (a free publisher claims a due row within the
//! second, a claim is settled by its delivery limit, a request arrives within the lease, unless
//! a budgeted fault says otherwise): without it a publisher could wait for ever.
//!
//! **Reduction.** States that differ only in their token numbers, or (`simetria`) in which of
//! two alike publishers is which, are kept once.
//!
//! The rules themselves are the code's: see `protocolo`. docs/architecture.md ("The protocol's
//! model") says what is proven, under which bounds, and what is not.

mod protocolo;
mod verificar;

use std::time::Duration;

use protocolo::*;
use verificar::{diz, traco, verificar};

/// The shipped rules under the given bounds: 2 publishers, lease 2 s, deadline 4 s, backoff
/// capped at 2 s, a publisher pausing up to 3 s, writers in the first second, the operator in
/// the first `janela_reparos`. The horizon leaves every run time to come to rest: the last
/// event written (or redone) gets the deadline, a pause, a backoff and a lease per fault.
fn limites(eventos: u8, invalidos: bool, falhas: u8, reparos: u8, janela_reparos: u8) -> Limites {
    let (janela_escrita, prazo, pausa, lease, backoff) = (1, 4, 3, 2, 2);
    let ultimo = if reparos > 0 { janela_reparos } else { janela_escrita };
    Limites {
        publicadores: 2,
        eventos,
        janela_escrita,
        invalidos,
        falhas,
        reparos,
        janela_reparos,
        pausa,
        atraso: lease,
        horizonte: ultimo + prazo + pausa + backoff + lease * (falhas + 1),
        max_tentativas: 12,
        visibilidade: Duration::from_secs(lease.into()),
        prazo: Duration::from_secs(prazo.into()),
        backoff_maximo: Duration::from_secs(backoff.into()),
        desvios: vec![1, -1],
        receptor: Receptor::PorRemessa,
        defeito: None,
        simetria: true,
    }
}

/// Asserts every `always` and `eventually` property holds and every example was found.
fn sem_contraexemplo(nome: &str, l: Limites) {
    let m = Protocolo { l: l.clone() };
    let propriedades: Vec<(&'static str, bool)> = {
        use stateright::{Expectation, Model};
        m.properties().iter().map(|p| (p.name, p.expectation == Expectation::Sometimes)).collect()
    };
    let r = verificar(nome, m, None);
    let m = Protocolo { l };
    for (p, exemplo) in propriedades {
        match (r.achou(p), exemplo) {
            (Some(c), false) => panic!("[{nome}] counterexample to \"{p}\":\n{}", traco(&m, c)),
            (None, true) => panic!("[{nome}] no run shows \"{p}\": the check is vacuous there"),
            _ => {}
        }
    }
    assert!(r.estados > 1000, "[{nome}] explored only {} states", r.estados);
}

/// Asserts the checker finds a counterexample to `propriedade` and prints its trace.
fn contraexemplo(nome: &str, l: Limites, propriedade: &'static str) -> String {
    let m = Protocolo { l: l.clone() };
    let r = verificar(nome, m, Some(propriedade));
    let m = Protocolo { l };
    let c = r.achou(propriedade).unwrap_or_else(|| panic!("[{nome}] no counterexample to \"{propriedade}\""));
    let t = traco(&m, c);
    diz(&format!("modelo [{nome}]: counterexample to \"{propriedade}\":\n{t}"));
    t
}

// ---------------------------------------------------------------------------------------------
// The protocol as it is: every property holds, every example is reached.

#[test]
fn one_event_two_publishers_and_two_faults_keep_every_rule() {
    sem_contraexemplo("faults", limites(1, true, 2, 0, 0));
}

#[test]
fn two_events_and_two_publishers_keep_every_rule() {
    sem_contraexemplo("two events", limites(2, false, 0, 0, 0));
}

#[test]
fn the_repairs_keep_every_rule_and_a_redone_shipment_is_credited_once() {
    sem_contraexemplo("repairs", limites(1, true, 1, 1, 4));
}

// ---------------------------------------------------------------------------------------------
// Seeded bugs: each rule broken in the model alone, and the checker's counterexample.

fn com(mut l: Limites, defeito: Option<Defeito>, receptor: Receptor) -> Limites {
    l.defeito = defeito;
    l.receptor = receptor;
    l.simetria = false;
    l
}

#[test]
fn a_token_not_advanced_on_a_re_claim_lets_a_paused_publisher_settle_the_new_claim() {
    let l = com(limites(1, false, 1, 0, 0), Some(Defeito::TokenNaoAvanca), Receptor::PorRemessa);
    let t = contraexemplo("seeded: token not advanced", l, TOKEN_VELHO);
    assert!(t.contains("Pausar"), "a pause past the lease: {t}");
}

#[test]
fn a_settle_not_fenced_by_the_token_lets_a_paused_publisher_overwrite_a_newer_claim() {
    let l = com(limites(1, false, 1, 0, 0), Some(Defeito::SettleSemToken), Receptor::PorRemessa);
    let t = contraexemplo("seeded: settle without the token", l, TOKEN_VELHO);
    assert!(t.contains("Pausar"), "a pause past the lease: {t}");
}

#[test]
fn an_inbox_row_written_outside_the_effects_transaction_loses_the_effect() {
    let l = com(limites(1, false, 1, 0, 0), Some(Defeito::InboxForaDaTransacao), Receptor::PorRemessa);
    let t = contraexemplo("seeded: inbox outside the effect's transaction", l, REPOUSO);
    assert!(t.contains("CairReceptor") && t.contains("Sent"), "the receiver dies between: {t}");
}

#[test]
fn a_publisher_deciding_by_its_own_clock_dead_letters_an_event_before_its_deadline() {
    let l = com(limites(1, false, 0, 0, 0), Some(Defeito::RelogioDoProcesso), Receptor::PorRemessa);
    contraexemplo("seeded: the publisher's clock", l, MORTA_JUSTA);
}

/// The real bug (issue 37 §1, found by a fault run from outside): `giro outbox redo` of a
/// dead-lettered `ReposicaoEnviada` whose delivery timed out after mercado applied it credited
/// the shipment twice, while mercado keyed its effect on the event id alone. Same bounds, today's
/// rule (`remessa_creditada`): no counterexample.
#[test]
fn redoing_a_shipment_applied_before_its_answer_was_lost_credits_it_twice_under_the_rule_before_the_fix() {
    let antes = com(limites(1, false, 0, 1, 4), None, Receptor::PorEvento);
    let t = contraexemplo("real bug: redo under mercado's rule before V24", antes, APLICADA_UMA_VEZ);
    assert!(t.contains("Refazer"), "the redo: {t}");
    let hoje = com(limites(1, false, 0, 1, 4), None, Receptor::PorRemessa);
    sem_contraexemplo("real bug: redo under mercado's rule today", hoje);
}

/// Explores other bounds: `MODELO_LIMITES=eventos,invalidos(0|1),falhas,reparos,janela_reparos,publicadores`
/// `cargo test -p giro-outbox --test modelo explorar -- --ignored`.
#[test]
#[ignore = "a tool: run it by hand with MODELO_LIMITES"]
fn explorar() {
    let v: Vec<u8> = std::env::var("MODELO_LIMITES")
        .expect("MODELO_LIMITES=eventos,invalidos,falhas,reparos,janela_reparos,publicadores")
        .split(',')
        .map(|x| x.trim().parse().expect("a number"))
        .collect();
    let mut l = limites(v[0], v[1] == 1, v[2], v[3], v[4]);
    l.publicadores = v[5];
    l.desvios = (0..v[5]).map(|p| if p % 2 == 0 { 1 } else { -1 }).collect();
    let r = verificar("explore", Protocolo { l: l.clone() }, None);
    let m = Protocolo { l };
    for (n, c) in &r.descobertas {
        diz(&format!("{n}:\n{}", traco(&m, c)));
    }
}
