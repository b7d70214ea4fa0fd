//! The protocol as a state machine for stateright: the state ([`Estado`]), the steps any process
//! or fault may take from it ([`Passo`]), and the properties every reachable state must keep.
//!
//! Every rule the code has is the code's own function, called here: which row a claim may take
//! and what its lease writes, the settles' fence and what they write, the revive and the replay
//! ([`Situacao`]'s methods, which `tests/regras_sql.rs` holds the statements to), the settle
//! decision with its backoff ([`decidir`]), the delivery's time limit ([`limite_da_entrega`]) and
//! the operator's replay rule ([`pode_reenviar`]). What the model adds is only what the code
//! leaves to the world: who moves when, what the network and the peer do, and the faults.

use std::time::Duration;

use chrono::{DateTime, Utc};
use giro_outbox::internos::{
    decidir, limite_da_entrega, pode_reenviar, with_jitter, Decisao, Outcome, Situacao, WhyFailed,
};
use giro_outbox::operador::Linha;
use giro_outbox::Status;
use stateright::{Model, Property};
use uuid::Uuid;

/// The peer's rule for a shipment's effect (mercado's consumer of `ReposicaoEnviada`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Receptor {
    /// mercado before V24: the inbox row (the event id) is the only guard, so every event the
    /// inbox has not seen credits its shipment.
    PorEvento,
    /// mercado today (`consumidores::reposicao_enviada`): the inbox row, and the shipment's own
    /// identity (correlation_id + lote) in `remessa_creditada`, in the same transaction: a
    /// shipment credits once whatever event carries it.
    PorRemessa,
}

/// A seeded bug: one rule broken, which the checker must catch (the code keeps the right one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Defeito {
    /// The claim keeps a token the row already has (`lease_token = COALESCE(lease_token, $4)`):
    /// a re-claim after a lease ran out does not advance it.
    TokenNaoAvanca,
    /// The settles find their row by id and status only, without `lease_token = $token`.
    SettleSemToken,
    /// The receiver commits the inbox row in a transaction of its own and applies the effect in
    /// a second one.
    InboxForaDaTransacao,
    /// The publisher decides what is due, and an event's age, by its own wall clock (the claim's
    /// `agora` from the process) instead of the database's `now()`.
    RelogioDoProcesso,
}

/// The bounds of one check, and the rules it runs under.
#[derive(Clone, Debug)]
pub struct Limites {
    pub publicadores: u8,
    /// The writers' events, one shipment each, committed at seconds `0..=janela_escrita`.
    pub eventos: u8,
    pub janela_escrita: u8,
    /// Whether a writer's event may be one the receiver refuses (a permanent 400).
    pub invalidos: bool,
    /// Faults the checker may choose, in all: a publisher's crash, the receiver's transaction
    /// failing (5xx) or its crash, a request or an answer lost, a request duplicated.
    pub falhas: u8,
    /// Operator actions on dead letters: retry, discard, redo, each at second
    /// `janela_reparos` or before (or never).
    pub reparos: u8,
    pub janela_reparos: u8,
    /// How long a paused publisher (a fault: SIGSTOP, a stalled VM) may hold a claim before it
    /// settles it, counted from the claim: more than the lease, so it comes back after another
    /// publisher may have claimed its row.
    pub pausa: u8,
    /// How long a request may travel before the receiver takes it (or it is lost: a fault): as
    /// long as the lease, so a request may arrive after its publisher gave up on it and after
    /// another claim of its row.
    pub atraso: u8,
    /// The model's last second: time stops there (a run still busy then fails the "at rest" property).
    pub horizonte: u8,
    /// At most this many attempts of one row (a bound for a rule that would loop within one
    /// second; the shipped rules never come near it).
    pub max_tentativas: i32,
    /// `outbox.visibilidade`, `outbox.prazo-entrega`, `outbox.backoff-maximo`.
    pub visibilidade: Duration,
    pub prazo: Duration,
    pub backoff_maximo: Duration,
    /// Each publisher's wall clock minus the database's, in seconds.
    pub desvios: Vec<i8>,
    pub receptor: Receptor,
    pub defeito: Option<Defeito>,
    /// Keep one of two states that differ only by which publisher is which (their clocks
    /// aside, publishers are alike): half the states, but a trace's publisher numbers may swap
    /// from one step to the next, so the seeded bugs' checks, which print theirs, turn it off.
    pub simetria: bool,
}

/// `inbox.retencao`: long past the model's horizon, as the configuration requires it be longer
/// than `outbox.prazo-entrega` (what happens after it is not modelled).
const RETENCAO_INBOX: Duration = Duration::from_secs(30 * 86_400);

/// An instant of the model: `s` seconds after its start.
pub fn t(s: i64) -> DateTime<Utc> {
    DateTime::<Utc>::UNIX_EPOCH + chrono::Duration::seconds(s)
}

fn token(n: u8) -> Uuid {
    Uuid::from_u128(u128::from(n))
}

/// One event row of the sender's outbox, with what the model remembers of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Evento {
    /// What the statements read and write.
    pub situacao: Situacao,
    pub criado: u8,
    /// The shipment it carries (its effect's identity on the peer).
    pub remessa: u8,
    /// False: the peer's receiver refuses it (400).
    pub valido: bool,
    /// Moved to the archive by a discard or a redo: no statement finds it any more.
    pub arquivado: bool,
    /// Why it became a dead letter, last time.
    pub porque: Option<WhyFailed>,
    /// (ghost) The claim that took it last, counting every claim of the run: a settle by any
    /// other is stale, whatever the token says.
    pub claim: u8,
}

/// A publisher's claim in flight.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Trabalho {
    pub evento: u8,
    pub token: u8,
    /// (ghost) Which claim of the run this is.
    pub claim: u8,
    /// When it was claimed (the database's second), the row's attempts then, and its age then.
    pub em: u8,
    pub tentativas: i32,
    pub idade: u8,
    /// Paused (a fault): it may settle as late as `pausa` seconds after its claim.
    pub pausado: bool,
}

/// What the receiver answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resposta {
    /// 204, applied now.
    Aplicado,
    /// 204, its inbox row was there.
    Duplicado,
    /// 400: the receiver judged it invalid.
    Recusado,
    /// 5xx: its transaction failed this time.
    Falhou,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Msg {
    /// `em`: the second it was sent.
    Pedido {
        evento: u8,
        p: u8,
        token: u8,
        em: u8,
    },
    Resposta {
        p: u8,
        token: u8,
        r: Resposta,
    },
}

/// The whole system at one instant.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Estado {
    /// The database's clock, in seconds since the start.
    pub agora: u8,
    /// The writers' events committed so far.
    pub escritos: u8,
    /// The outbox (archived rows stay, marked).
    pub eventos: Vec<Evento>,
    pub publicadores: Vec<Option<Trabalho>>,
    /// Messages in flight, in any order (kept sorted: a multiset).
    pub rede: Vec<Msg>,
    /// The receiver's inbox: bit `e` = event `e` recorded.
    pub inbox: u32,
    /// `remessa_creditada`: bit `k` = shipment `k` credited.
    pub creditadas: u32,
    /// The receiver between its two transactions ([`Defeito::InboxForaDaTransacao`]).
    pub meio: Option<Msg>,
    /// (ghost) How many times each shipment's effect was applied.
    pub aplicados: Vec<u8>,
    pub falhas: u8,
    pub reparos: u8,
    /// (ghost) Broken rules seen on the way ([`VELHO`] …).
    pub violacoes: u8,
    /// (ghost) Things that happened on the way ([`CERCA`] …), so the checks are not vacuous.
    pub vistos: u8,
}

/// A settle under a stale token changed its row.
pub const VELHO: u8 = 1;
/// A claim took a row whose lease had not ended by the database's clock.
pub const DUAS_LEASES: u8 = 2;
/// A row became `FAILED` without a refusal and before the deadline.
pub const MORTA_CEDO: u8 = 4;

/// The fence turned a stale settle away.
pub const CERCA: u8 = 1;
/// A shipment already applied was redone under a new event id.
pub const REFEITA_APLICADA: u8 = 2;
/// A dead letter was retried.
pub const REENVIADA: u8 = 4;

/// One step of a process, of the network or of a fault.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Passo {
    /// A writer's transaction commits its event.
    Escrever { valido: bool },
    /// One second passes (on every clock).
    Passar,
    /// Publisher `p` claims event `evento` (any eligible row: the fresh share, the express claim
    /// and the backlog's order only choose among them) and sends it.
    Reclamar { p: u8, evento: u8 },
    /// The receiver takes a request: inbox row, effect and answer in one transaction.
    Receber(Msg),
    /// [`Defeito::InboxForaDaTransacao`]: the effect's own transaction.
    Efeito,
    /// Publisher `p` reads an answer to its claim and settles (`fator`: the backoff's jitter, %).
    Assentar { p: u8, r: Resposta, fator: u8 },
    /// Publisher `p`'s delivery limit passed with no answer: a transient failure.
    Esgotar { p: u8, fator: u8 },
    /// The peer is back: a row waiting out its backoff is due now.
    Reviver { evento: u8 },
    /// Operator: `giro outbox retry` (forced: a `SENT` row).
    Reenviar { evento: u8, forcar: bool },
    /// Operator: `giro outbox discard`.
    Descartar { evento: u8 },
    /// Operator: `giro outbox redo`: archived, and the same shipment as a new event.
    Refazer { evento: u8 },
    /// Fault: publisher `p` dies; its claim is left to its lease.
    Cair { p: u8 },
    /// Fault: publisher `p` stops (SIGSTOP, a stalled VM) with its claim in hand, past its lease.
    Pausar { p: u8 },
    /// Fault: the receiver's transaction fails (a 5xx).
    FalharReceptor(Msg),
    /// Fault: the receiver dies between its two transactions ([`Defeito::InboxForaDaTransacao`]).
    CairReceptor,
    /// Fault: a message is lost.
    Perder(Msg),
    /// Fault: a request arrives twice.
    Duplicar(Msg),
}

pub struct Protocolo {
    pub l: Limites,
}

impl Protocolo {
    fn defeito(&self, d: Defeito) -> bool {
        self.l.defeito == Some(d)
    }

    /// The clock publisher `p` decides by: the database's (the code), or its own.
    fn relogio(&self, s: &Estado, p: u8) -> i64 {
        let desvio = if self.defeito(Defeito::RelogioDoProcesso) { self.l.desvios[p as usize] } else { 0 };
        i64::from(s.agora) + i64::from(desvio)
    }

    /// The jitter factors (%) whose backoffs differ in whole seconds: the model's clock ticks in
    /// seconds, so a backoff of 0.8 s and one of 1 s are due at the same claim.
    fn fatores(&self, tentativas: i32) -> Vec<u8> {
        let mut out: Vec<(u8, u64)> = Vec::new();
        for f in [100u8, 80] {
            let d = with_jitter(tentativas, self.l.backoff_maximo, f64::from(f) / 100.0);
            let s = d.as_secs() + u64::from(d.subsec_nanos() > 0);
            if !out.iter().any(|(_, x)| *x == s) {
                out.push((f, s));
            }
        }
        out.into_iter().map(|(f, _)| f).collect()
    }

    /// Whether the protocol has reached rest: no step left.
    pub fn em_repouso(&self, s: &Estado) -> bool {
        let mut passos = Vec::new();
        self.actions(s, &mut passos);
        passos.is_empty()
    }

    /// Every shipment applied exactly once, or never and resting as a dead letter; no event
    /// pending.
    pub fn resolvido(&self, s: &Estado) -> bool {
        (0..s.escritos).all(|k| {
            let dela = || s.eventos.iter().filter(move |e| e.remessa == k);
            let pendente = dela().any(|e| !e.arquivado && e.situacao.status == Status::Pending);
            let enviada = dela().any(|e| !e.arquivado && e.situacao.status == Status::Sent);
            let morta = dela().any(|e| e.situacao.status == Status::Failed);
            !pendente && (s.aplicados[k as usize] == 1 || (s.aplicados[k as usize] == 0 && morta && !enviada))
        })
    }

    /// The effect of shipment `k`, by the receiver's rule.
    fn aplicar(&self, s: &mut Estado, k: u8) {
        let nova = match self.l.receptor {
            Receptor::PorEvento => true,
            Receptor::PorRemessa => s.creditadas & (1 << k) == 0,
        };
        if nova {
            s.creditadas |= 1 << k;
            s.aplicados[k as usize] += 1;
        }
    }

    /// An answer goes back only to the claim still waiting for it (a publisher ignores an answer
    /// to a claim it settled or lost in a crash).
    fn responder(&self, s: &mut Estado, p: u8, tok: u8, r: Resposta) {
        if s.publicadores[p as usize].as_ref().is_some_and(|j| j.token == tok) {
            insere(&mut s.rede, Msg::Resposta { p, token: tok, r });
        }
    }

    /// Publisher `p` settles its claim with `outcome`.
    fn assentar(&self, s: &mut Estado, p: u8, outcome: Outcome, fator: u8) {
        let Some(j) = s.publicadores[p as usize].take() else { return };
        s.rede.retain(|m| !matches!(m, Msg::Resposta { p: q, .. } if *q == p));
        let agora = s.agora;
        let idade = if self.defeito(Defeito::RelogioDoProcesso) {
            let criado = i64::from(s.eventos[j.evento as usize].criado);
            (self.relogio(s, p) - criado).max(0) as u64
        } else {
            u64::from(j.idade) + u64::from(agora - j.em)
        };
        let e = &mut s.eventos[j.evento as usize];
        if e.arquivado {
            return;
        }
        let l = &self.l;
        let decisao = decidir(
            &outcome,
            j.tentativas,
            Duration::from_secs(idade),
            l.prazo,
            None,
            l.backoff_maximo,
            f64::from(fator) / 100.0,
        );
        let decisao = match decisao {
            Decisao::Retry(d) => {
                Decisao::Retry(Duration::from_secs(d.as_secs() + u64::from(d.subsec_nanos() > 0)))
            }
            d => d,
        };
        if self.defeito(Defeito::SettleSemToken) && e.situacao.status == Status::Pending {
            // `WHERE id = $1 AND status = 'PENDING'`: the row is taken whatever token it holds.
            e.situacao.lease_token = Some(token(j.token));
        }
        let mudou = e.situacao.assentar(token(j.token), decisao, t(i64::from(agora)));
        let velho = j.claim != e.claim;
        match (mudou, velho) {
            (true, true) => s.violacoes |= VELHO,
            (false, true) => s.vistos |= CERCA,
            _ => {}
        }
        if let (true, Decisao::Failed(why)) = (mudou, decisao) {
            e.porque = Some(why);
            let idade_real = Duration::from_secs(u64::from(agora - e.criado));
            let justa = match why {
                WhyFailed::Refused => !e.valido,
                WhyFailed::Deadline => idade_real >= l.prazo,
                WhyFailed::Attempts => false,
            };
            if !justa {
                s.violacoes |= MORTA_CEDO;
            }
        }
    }

    /// What `pode_reenviar` is given: the row as the operator's read returns it.
    fn linha(&self, e: &Evento, id: usize) -> Linha {
        Linha {
            id: Uuid::from_u128(id as u128),
            tipo: "ReposicaoEnviada".into(),
            status: e.situacao.status,
            tentativas: e.situacao.tentativas,
            criado_em: t(i64::from(e.criado)),
            proxima_tentativa_em: e.situacao.proxima_tentativa_em,
            enviado_em: None,
            ultimo_erro: None,
            payload: serde_json::Value::Null,
        }
    }

    fn pode_reenviar(&self, s: &Estado, i: usize, forcar: bool) -> bool {
        let e = &s.eventos[i];
        !e.arquivado
            && pode_reenviar(&self.linha(e, i), t(i64::from(s.agora)), RETENCAO_INBOX, forcar).is_ok()
    }

    /// Whether publisher `p`'s delivery limit ([`limite_da_entrega`]) falls before the end of the
    /// current second: it may give up on the answer now, and must settle before time passes
    /// (unless paused). A step taken "at second n" happens somewhere in [n, n + 1).
    fn no_limite(&self, s: &Estado, j: &Trabalho) -> bool {
        Duration::from_secs(u64::from(s.agora - j.em) + 1) > limite_da_entrega(self.l.visibilidade)
    }

    /// Whether time may pass. Something must wait for it (a row for its due time, a claim for
    /// its answer or its limit, a writer for its moment, a dead letter for its operator), and no
    /// one may be owed a step first — the fairness the liveness property rests on:
    /// - a publisher with nothing in hand claims a due row within the second (it polls every
    ///   `outbox.intervalo`, 1 s, and is woken by writers);
    /// - a publisher holding a claim settles it by its delivery limit, or, paused (a fault from
    ///   the budget), within `pausa` seconds of the claim; or it dies (a fault too);
    /// - a request reaches the receiver within `atraso` seconds, or is lost (a fault);
    /// - the writers commit within their window.
    fn tempo_pode_passar(&self, s: &Estado) -> bool {
        let l = &self.l;
        let espera = s.publicadores.iter().any(Option::is_some)
            || s.eventos.iter().any(|e| !e.arquivado && e.situacao.status == Status::Pending)
            || (s.escritos < l.eventos && s.agora < l.janela_escrita)
            || (s.reparos > 0
                && s.agora < l.janela_reparos
                && s.eventos.iter().any(|e| !e.arquivado && e.situacao.status == Status::Failed));
        let devido = (0..l.publicadores).any(|p| match &s.publicadores[p as usize] {
            None => {
                let agora = t(self.relogio(s, p));
                s.eventos.iter().any(|e| !e.arquivado && e.situacao.elegivel(agora))
            }
            Some(j) if j.pausado => s.agora - j.em >= l.pausa,
            Some(j) => self.no_limite(s, j),
        });
        let escrita_devida = s.escritos < l.eventos && s.agora >= l.janela_escrita;
        let atrasado = escrita_devida
            || s.rede.iter().any(|m| matches!(m, Msg::Pedido { em, .. } if s.agora - em >= l.atraso));
        s.agora < l.horizonte && espera && !devido && !atrasado
    }
}

/// The tokens the state holds: in rows, claims and messages.
fn tokens(s: &Estado) -> Vec<u8> {
    let linhas = s.eventos.iter().filter_map(|e| e.situacao.lease_token).map(|u| u.as_u128() as u8);
    let trabalhos = s.publicadores.iter().flatten().map(|j| j.token);
    let msgs = s.rede.iter().chain(&s.meio).map(|m| match m {
        Msg::Pedido { token, .. } | Msg::Resposta { token, .. } => *token,
    });
    linhas.chain(trabalhos).chain(msgs).collect()
}

/// The (ghost) claim numbers the state holds.
fn claims(s: &Estado) -> Vec<u8> {
    let linhas = s.eventos.iter().map(|e| e.claim).filter(|&c| c > 0);
    linhas.chain(s.publicadores.iter().flatten().map(|j| j.claim)).collect()
}

/// Renumbers tokens and claim numbers 1, 2, … in the order the state holds them. Only their
/// equality means anything (a token is fresh, a settle's is or is not the row's), so two states
/// that differ only in their numbers behave alike; keeping one of them is what keeps the state
/// space from growing with every claim of a run.
fn normalizar(s: &mut Estado) {
    fn mapa(vistos: Vec<u8>) -> Vec<u8> {
        let mut m = vec![0u8; 256];
        let mut n = 0;
        for v in vistos {
            if m[v as usize] == 0 {
                n += 1;
                m[v as usize] = n;
            }
        }
        m
    }
    let tk = mapa(tokens(s));
    let cl = mapa(claims(s));
    for e in &mut s.eventos {
        e.situacao.lease_token = e.situacao.lease_token.map(|u| token(tk[u.as_u128() as usize]));
        if e.claim > 0 {
            e.claim = cl[e.claim as usize];
        }
    }
    for j in s.publicadores.iter_mut().flatten() {
        j.token = tk[j.token as usize];
        j.claim = cl[j.claim as usize];
    }
    let renumera = |m: &mut Msg| match m {
        Msg::Pedido { token, .. } | Msg::Resposta { token, .. } => *token = tk[*token as usize],
    };
    s.rede.iter_mut().for_each(renumera);
    s.meio.iter_mut().for_each(renumera);
    s.rede.sort();
}

/// Of a state and the one with publishers 0 and 1 swapped, the one whose hash is smaller (a
/// fixed hasher: the same choice in every run).
fn representante(s: Estado) -> Estado {
    use std::hash::{DefaultHasher, Hash, Hasher};
    if s.publicadores.len() != 2 {
        return s;
    }
    let mut t = s.clone();
    t.publicadores.swap(0, 1);
    let troca = |m: &mut Msg| match m {
        Msg::Pedido { p, .. } | Msg::Resposta { p, .. } => *p = 1 - *p,
    };
    t.rede.iter_mut().for_each(troca);
    t.meio.iter_mut().for_each(troca);
    normalizar(&mut t);
    let h = |e: &Estado| {
        let mut h = DefaultHasher::new();
        e.hash(&mut h);
        h.finish()
    };
    if h(&t) < h(&s) {
        t
    } else {
        s
    }
}

/// Inserts into a sorted multiset.
fn insere(rede: &mut Vec<Msg>, m: Msg) {
    let i = rede.partition_point(|x| *x <= m);
    rede.insert(i, m);
}

/// Removes one copy from a sorted multiset.
fn tira(rede: &mut Vec<Msg>, m: &Msg) -> bool {
    match rede.iter().position(|x| x == m) {
        Some(i) => {
            rede.remove(i);
            true
        }
        None => false,
    }
}

impl Model for Protocolo {
    type State = Estado;
    type Action = Passo;

    fn init_states(&self) -> Vec<Estado> {
        vec![Estado {
            agora: 0,
            escritos: 0,
            eventos: Vec::new(),
            publicadores: vec![None; self.l.publicadores as usize],
            rede: Vec::new(),
            inbox: 0,
            creditadas: 0,
            meio: None,
            aplicados: vec![0; self.l.eventos as usize],
            falhas: self.l.falhas,
            reparos: self.l.reparos,
            violacoes: 0,
            vistos: 0,
        }]
    }

    fn actions(&self, s: &Estado, passos: &mut Vec<Passo>) {
        let l = &self.l;
        if s.escritos < l.eventos && s.agora <= l.janela_escrita {
            passos.push(Passo::Escrever { valido: true });
            if l.invalidos {
                passos.push(Passo::Escrever { valido: false });
            }
        }
        if self.tempo_pode_passar(s) {
            passos.push(Passo::Passar);
        }
        for p in 0..l.publicadores {
            match &s.publicadores[p as usize] {
                None => {
                    let agora = t(self.relogio(s, p));
                    for (i, e) in s.eventos.iter().enumerate() {
                        if !e.arquivado && e.situacao.elegivel(agora) {
                            passos.push(Passo::Reclamar { p, evento: i as u8 });
                        }
                    }
                }
                Some(j) => {
                    let mut vistas: Vec<Resposta> = Vec::new();
                    for m in &s.rede {
                        if let Msg::Resposta { p: q, token: tok, r } = m {
                            if *q == p && *tok == j.token && !vistas.contains(r) {
                                vistas.push(*r);
                                for fator in self.fatores(j.tentativas) {
                                    passos.push(Passo::Assentar { p, r: *r, fator });
                                }
                            }
                        }
                    }
                    if self.no_limite(s, j) {
                        for fator in self.fatores(j.tentativas) {
                            passos.push(Passo::Esgotar { p, fator });
                        }
                    }
                    if s.falhas > 0 {
                        passos.push(Passo::Cair { p });
                        if !j.pausado {
                            passos.push(Passo::Pausar { p });
                        }
                    }
                }
            }
        }
        let mut anterior: Option<&Msg> = None;
        for m in &s.rede {
            if anterior == Some(m) {
                continue;
            }
            anterior = Some(m);
            if let Msg::Pedido { .. } = m {
                if !(self.defeito(Defeito::InboxForaDaTransacao) && s.meio.is_some()) {
                    passos.push(Passo::Receber(m.clone()));
                }
                if s.falhas > 0 {
                    passos.push(Passo::FalharReceptor(m.clone()));
                    passos.push(Passo::Duplicar(m.clone()));
                }
            }
            if s.falhas > 0 {
                passos.push(Passo::Perder(m.clone()));
            }
        }
        if s.meio.is_some() {
            passos.push(Passo::Efeito);
            if s.falhas > 0 {
                passos.push(Passo::CairReceptor);
            }
        }
        let agora = t(i64::from(s.agora));
        for (i, e) in s.eventos.iter().enumerate() {
            let evento = i as u8;
            if e.arquivado {
                continue;
            }
            let mut revivida = e.situacao;
            if revivida.reviver(agora) {
                passos.push(Passo::Reviver { evento });
            }
            if s.reparos == 0 || s.agora > l.janela_reparos {
                continue;
            }
            if self.pode_reenviar(s, i, false) {
                passos.push(Passo::Reenviar { evento, forcar: false });
            } else if self.pode_reenviar(s, i, true) {
                passos.push(Passo::Reenviar { evento, forcar: true });
            }
            if e.situacao.status == Status::Failed {
                passos.push(Passo::Descartar { evento });
                passos.push(Passo::Refazer { evento });
            }
        }
    }

    fn next_state(&self, antes: &Estado, passo: Passo) -> Option<Estado> {
        let mut s = antes.clone();
        let l = &self.l;
        let agora = t(i64::from(s.agora));
        match passo {
            Passo::Escrever { valido } => {
                let remessa = s.escritos;
                s.escritos += 1;
                s.eventos.push(Evento {
                    situacao: Situacao::nova(agora),
                    criado: s.agora,
                    remessa,
                    valido,
                    arquivado: false,
                    porque: None,
                    claim: 0,
                });
            }
            Passo::Passar => s.agora += 1,
            Passo::Reclamar { p, evento } => {
                // A token no row, claim or message holds (they are renumbered after each step).
                let n = tokens(&s).into_iter().max().unwrap_or(0) + 1;
                let c = claims(&s).into_iter().max().unwrap_or(0) + 1;
                let relogio = self.relogio(&s, p);
                let e = &mut s.eventos[evento as usize];
                if e.situacao.lease_token.is_some() && e.situacao.proxima_tentativa_em > agora {
                    s.violacoes |= DUAS_LEASES;
                }
                let tok = match (self.defeito(Defeito::TokenNaoAvanca), e.situacao.lease_token) {
                    (true, Some(velho)) => velho.as_u128() as u8,
                    _ => n,
                };
                e.situacao.reclamar(t(relogio), l.visibilidade, token(tok));
                e.claim = c;
                let idade = (relogio - i64::from(e.criado)).max(0) as u8;
                let tentativas = e.situacao.tentativas;
                s.publicadores[p as usize] = Some(Trabalho {
                    evento,
                    token: tok,
                    claim: c,
                    em: s.agora,
                    tentativas,
                    idade,
                    pausado: false,
                });
                insere(&mut s.rede, Msg::Pedido { evento, p, token: tok, em: s.agora });
            }
            Passo::Receber(m) => {
                let Msg::Pedido { evento, p, token: tok, .. } = m else { return None };
                tira(&mut s.rede, &m);
                let e = &s.eventos[evento as usize];
                let (valido, remessa) = (e.valido, e.remessa);
                let r = if !valido {
                    Resposta::Recusado
                } else if s.inbox & (1 << evento) != 0 {
                    Resposta::Duplicado
                } else if self.defeito(Defeito::InboxForaDaTransacao) {
                    // The inbox row commits alone; the effect waits for its own transaction.
                    s.inbox |= 1 << evento;
                    s.meio = Some(m);
                    return Some(s);
                } else {
                    s.inbox |= 1 << evento;
                    self.aplicar(&mut s, remessa);
                    Resposta::Aplicado
                };
                self.responder(&mut s, p, tok, r);
            }
            Passo::Efeito => {
                let Some(Msg::Pedido { evento, p, token: tok, .. }) = s.meio.take() else { return None };
                let remessa = s.eventos[evento as usize].remessa;
                self.aplicar(&mut s, remessa);
                self.responder(&mut s, p, tok, Resposta::Aplicado);
            }
            Passo::Assentar { p, r, fator } => {
                let outcome = match r {
                    Resposta::Aplicado | Resposta::Duplicado => Outcome::Sent,
                    Resposta::Recusado => Outcome::Permanent("HTTP 400".into()),
                    Resposta::Falhou => Outcome::Transient("HTTP 500".into()),
                };
                self.assentar(&mut s, p, outcome, fator);
            }
            Passo::Esgotar { p, fator } => {
                self.assentar(&mut s, p, Outcome::Unreachable("sem resposta".into()), fator);
            }
            Passo::Reviver { evento } => {
                s.eventos[evento as usize].situacao.reviver(agora);
            }
            Passo::Reenviar { evento, .. } => {
                s.reparos -= 1;
                s.vistos |= REENVIADA;
                let e = &mut s.eventos[evento as usize];
                e.situacao.de_volta(agora);
                e.porque = None;
            }
            Passo::Descartar { evento } => {
                s.reparos -= 1;
                s.eventos[evento as usize].arquivado = true;
            }
            Passo::Refazer { evento } => {
                s.reparos -= 1;
                let e = &mut s.eventos[evento as usize];
                e.arquivado = true;
                let (remessa, valido) = (e.remessa, e.valido);
                if s.aplicados[remessa as usize] > 0 {
                    s.vistos |= REFEITA_APLICADA;
                }
                s.eventos.push(Evento {
                    situacao: Situacao::nova(agora),
                    criado: s.agora,
                    remessa,
                    valido,
                    arquivado: false,
                    porque: None,
                    claim: 0,
                });
            }
            Passo::Cair { p } => {
                s.falhas -= 1;
                s.publicadores[p as usize] = None;
                s.rede.retain(|m| !matches!(m, Msg::Resposta { p: q, .. } if *q == p));
            }
            Passo::Pausar { p } => {
                s.falhas -= 1;
                if let Some(j) = &mut s.publicadores[p as usize] {
                    j.pausado = true;
                }
            }
            Passo::FalharReceptor(m) => {
                let Msg::Pedido { p, token: tok, .. } = m else { return None };
                s.falhas -= 1;
                tira(&mut s.rede, &m);
                self.responder(&mut s, p, tok, Resposta::Falhou);
            }
            Passo::CairReceptor => {
                s.falhas -= 1;
                s.meio = None;
            }
            Passo::Perder(m) => {
                s.falhas -= 1;
                tira(&mut s.rede, &m);
            }
            Passo::Duplicar(m) => {
                s.falhas -= 1;
                insere(&mut s.rede, m);
            }
        }
        normalizar(&mut s);
        if l.simetria && !self.defeito(Defeito::RelogioDoProcesso) {
            s = representante(s);
        }
        Some(s)
    }

    fn within_boundary(&self, s: &Estado) -> bool {
        s.eventos.iter().all(|e| e.situacao.tentativas <= self.l.max_tentativas)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        let mut p = vec![
            Property::always(APLICADA_UMA_VEZ, |_, s: &Estado| s.aplicados.iter().all(|&n| n <= 1)),
            Property::always(TOKEN_VELHO, |_, s: &Estado| s.violacoes & VELHO == 0),
            Property::always(UMA_LEASE, |_, s: &Estado| s.violacoes & DUAS_LEASES == 0),
            Property::always(MORTA_JUSTA, |_, s: &Estado| s.violacoes & MORTA_CEDO == 0),
            Property::always(REPOUSO, |m: &Protocolo, s: &Estado| {
                // A request in flight can always be received: not at rest (the cheap test first).
                let em_voo = s.meio.is_none() && s.rede.iter().any(|m| matches!(m, Msg::Pedido { .. }));
                em_voo || m.resolvido(s) || !m.em_repouso(s)
            }),
            Property::eventually(ASSENTADOS, |m: &Protocolo, s: &Estado| {
                s.escritos == m.l.eventos
                    && s.publicadores.iter().all(Option::is_none)
                    && s.eventos.iter().all(|e| e.arquivado || e.situacao.status != Status::Pending)
            }),
            Property::sometimes(EX_PRAZO, |_, s: &Estado| {
                s.eventos.iter().any(|e| e.porque == Some(WhyFailed::Deadline))
            }),
        ];
        if self.l.falhas > 0 {
            // A settle goes stale only past its lease: a pause, a fault.
            p.push(Property::sometimes(EX_CERCA, |_, s: &Estado| s.vistos & CERCA != 0));
        }
        if self.l.invalidos {
            p.push(Property::sometimes(EX_RECUSA, |_, s: &Estado| {
                s.eventos.iter().any(|e| e.porque == Some(WhyFailed::Refused))
            }));
        }
        if self.l.reparos > 0 {
            p.push(Property::sometimes(EX_REFEITA, |_, s: &Estado| s.vistos & REFEITA_APLICADA != 0));
            p.push(Property::sometimes(EX_REENVIADA, |_, s: &Estado| s.vistos & REENVIADA != 0));
        }
        p
    }
}

pub const APLICADA_UMA_VEZ: &str = "a shipment is applied at most once";
pub const TOKEN_VELHO: &str = "no settle under a stale token changes a row";
pub const UMA_LEASE: &str = "no claim takes a row whose lease holds";
pub const MORTA_JUSTA: &str = "a dead letter only after a refusal or the deadline";
pub const REPOUSO: &str = "at rest, each shipment applied exactly once or a dead letter";
pub const ASSENTADOS: &str = "every event is eventually settled";
pub const EX_CERCA: &str = "(example) the fence turns a stale settle away";
pub const EX_PRAZO: &str = "(example) an event dies at the deadline";
pub const EX_RECUSA: &str = "(example) an event dies refused";
pub const EX_REFEITA: &str = "(example) a shipment already applied is redone";
pub const EX_REENVIADA: &str = "(example) a dead letter is retried";
