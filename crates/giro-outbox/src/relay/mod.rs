//! The relay loop (a [`Publisher`]): wake (in-process signal, `LISTEN`, or the poll interval) →
//! claim a batch as a lease → deliver with no transaction open → settle only rows still under the
//! lease token ([`settle`](mod@crate::settle) is the rule, and says why an event becomes
//! `FAILED`). The outbox's retention ([`Retencao`]) runs beside the loop, a job of its own.
//!
//! - **The pipe stays full** (issue 17; `BENCHMARKS.md`, "What would close the gap"): the claim
//!   size (`alvo`) adapts between `outbox.lote` (latency, an outbox nearly empty) and `lote-max`
//!   (fewer claim and settle statements through a backlog); a claim goes in chunks the receiver
//!   applies efficiently ([`chunk_size`](crate::delivery::chunk_size)): 50 events are one request,
//!   not 8 of 7; the next claim is made while the previous one's chunks are in flight, once a
//!   request slot (`outbox.concorrencia`) is free and the rows leased stay within
//!   [`MAX_LEASED_CLAIMS`] × `outbox.lote-max`. Each claim is settled on its own, under its own
//!   token, once all its chunks are back; no event is acknowledged before the receiver's commit,
//!   and each is applied under its own inbox row, so overlapping claims order no weaker than the
//!   chunks of one claim.
//! - **Live events never wait behind a backlog** (issue 29): the fresh share of every claim
//!   ([`store::CLAIM`]) puts a live event at the head of the next claim, but through a backlog
//!   that claim waits for room and its requests for slots — up to two claims of `lote-max`. So a
//!   writer's commit that wakes a loop with no room gets an **express claim**: only fresh events
//!   ([`store::CLAIM_FRESCOS`]), at most `outbox.lote`, outside the bound, through the peer's one
//!   express slot ([`Faixa::Expressa`]), which the backlog never takes and which takes none of its
//!   slots. One at a time; none while the peer is unreachable (the probe decides when events go
//!   again), nor with `outbox.parte-fresca = 0` (strictly by due time).
//! - **Backoff from the instant the outcome is known**, not from the claim: a slow round does not
//!   leave the next attempt already in the past.
//! - **Poison rows**: the attempt is counted at the claim, a delivery that panics or outlives
//!   80 % of the lease (counted from its claim, so waiting for a slot counts) is settled as a
//!   transient failure, and a publisher that dies mid-delivery leaves the attempt counted with
//!   the lease as its backoff; a row cannot loop for free.
//! - **A peer that comes back is served at once**: after a round that could not reach it, the
//!   publisher (not the events) knocks on its `/readyz` every [`PROBE_EVERY`]; when it answers —
//!   or a delivery succeeds — the events waiting in backoff are made due now, a batch per round
//!   ([`store::make_due`]), so the backlog drains at the relay's speed.
//! - **`LISTEN`** (separate publishers): re-established with backoff ([`listen`](crate::listen));
//!   the poll interval covers the gap.
//! - **Several replicas**: claims use `FOR UPDATE SKIP LOCKED` and a lease, so replicas never
//!   wait on each other or take a row twice.
//! - **Shutdown**: no new claim once the token is cancelled; the claims in flight are delivered
//!   and settled (each bounded by 80 % of its lease), and the role's `http.prazo-desligamento`
//!   bounds the whole drain — rows it cuts off come back when their lease ends.
//!
//! The claim paths (adaptive size, fresh share, express claim, floors and sweep) are in `claim`;
//! this file is the loop, delivery and settle, and revive.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::backoff;
use crate::delivery::{Faixa, Outcome, Peer};
use crate::retencao::Retencao;
use crate::settle::{self, Decisao};
use crate::store::{self, Claimed, Failure};
use giro_infra::config::{DbConfig, OutboxConfig};
use giro_infra::db::{OutboxSignal, Pool};
use giro_infra::mascara::mask_password;
use giro_infra::supervisor::{Falhas, Vivo};

mod claim;

pub use claim::Claim;
use claim::Modo;

/// At most this many claims of `outbox.lote-max` rows leased and unsettled per publisher: one being
/// delivered and the next one queued behind it, so the pipe never waits for a settle.
pub const MAX_LEASED_CLAIMS: usize = 2;

/// How often a publisher knocks on an unreachable peer's `/readyz`.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

/// Test-only switches (cargo feature `test-hooks`, on in the test build only), read from the
/// environment and absent from `config/giro.toml`.
/// `GIRO_TEST_REENVIAR=1`: deliver every event twice (the inbox must make the second a no-op).
#[cfg(feature = "test-hooks")]
pub const ENV_REENVIAR: &str = "GIRO_TEST_REENVIAR";
/// `GIRO_TEST_PANICO_PUBLICADOR=PATH`: while PATH exists, the publisher loop panics each round.
#[cfg(feature = "test-hooks")]
pub const ENV_PANICO: &str = "GIRO_TEST_PANICO_PUBLICADOR";

/// The test switches as read at construction ([`ENV_REENVIAR`], [`ENV_PANICO`]).
#[cfg(feature = "test-hooks")]
#[derive(Debug, Default)]
pub struct TestHooks {
    pub reenviar: bool,
    pub panico: Option<std::path::PathBuf>,
    /// A sweep waits for this gate to open before its claim (a test's slow sweep).
    pub varredura: Option<tokio::sync::watch::Sender<bool>>,
}

#[cfg(feature = "test-hooks")]
impl TestHooks {
    fn from_env() -> TestHooks {
        TestHooks {
            reenviar: std::env::var(ENV_REENVIAR).is_ok_and(|v| v == "1" || v == "true"),
            panico: std::env::var_os(ENV_PANICO).filter(|v| !v.is_empty()).map(Into::into),
            varredura: None,
        }
    }
}

pub struct Publisher {
    /// Which outbox, for logs (the service that owns it).
    pub nome: String,
    pub pool: Pool,
    pub peer: Arc<Peer>,
    pub cfg: OutboxConfig,
    /// Woken by writers in this process, or by the `LISTEN` task.
    pub signal: Arc<OutboxSignal>,
    /// When set, a `LISTEN` connection to this database wakes the publisher on `NOTIFY`.
    pub listen: Option<DbConfig>,
    #[cfg(feature = "test-hooks")]
    pub hooks: TestHooks,
    /// The last round could not reach the peer: probe it.
    peer_down: AtomicBool,
    /// The peer is back: make waiting events due, a batch per round.
    reviving: AtomicBool,
    last_probe: Mutex<Option<Instant>>,
    /// The next claim's size (`alvo`), between `outbox.lote` and `outbox.lote-max`.
    alvo: AtomicUsize,
    /// Where the next claim's scans start, and when the next sweep (a claim with no floor) is due.
    pisos: Mutex<(store::Pisos, Instant)>,
}

/// The claims a loop has in flight, each delivered and settled in a task of its own, and their
/// row counts. Dropping it (a panic of the loop) aborts them: their rows come back with the lease.
struct InFlight {
    claims: JoinSet<anyhow::Result<Round>>,
    /// The rows of each claim in flight but the express one (the bound counts them).
    leased: HashMap<tokio::task::Id, usize>,
    /// The express claim in flight, if any.
    expressa: Option<tokio::task::Id>,
    /// The sweep in flight, if any (its rows count in `leased`).
    varredura: Option<tokio::task::Id>,
    /// The loop's rounds that fail again and again (its database away), said once: the claims'
    /// settles, and making waiting events due.
    rodadas: Falhas,
    revive: Falhas,
}

impl InFlight {
    fn new(vivo: &Vivo) -> InFlight {
        InFlight {
            claims: JoinSet::new(),
            leased: HashMap::new(),
            expressa: None,
            varredura: None,
            rodadas: vivo.falhas("publisher round failed"),
            revive: vivo.falhas("making waiting events due failed"),
        }
    }

    /// Rows leased by this loop and not settled yet, but the express claim's.
    fn rows(&self) -> usize {
        self.leased.values().sum()
    }

    /// A claim's task ended: its rows are no longer leased.
    fn ended(&mut self, id: tokio::task::Id) {
        self.leased.remove(&id);
        self.expressa = self.expressa.filter(|&e| e != id);
        self.varredura = self.varredura.filter(|&v| v != id);
    }
}

/// What one round did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Round {
    pub claimed: usize,
    pub sent: usize,
    pub transient: usize,
    pub permanent: usize,
    /// Transient failures where the peer's receiver was not reached.
    pub unreachable: usize,
}

impl Publisher {
    /// A publisher of the outbox in `pool`, named `nome` in logs, delivering to `peer` with the
    /// relay settings `cfg`. `listen`: a database to `LISTEN` on for wake-ups (separate
    /// publishers), when `cfg.notify` is on.
    pub fn new(
        nome: impl Into<String>,
        pool: Pool,
        peer: Peer,
        cfg: OutboxConfig,
        signal: Arc<OutboxSignal>,
        listen: Option<DbConfig>,
    ) -> Publisher {
        Publisher {
            nome: nome.into(),
            pool,
            peer: Arc::new(peer),
            listen: listen.filter(|_| cfg.notify),
            alvo: AtomicUsize::new(cfg.lote),
            // The first claims have no floors yet: the first sweep is one interval away.
            pisos: Mutex::new((store::Pisos::default(), Instant::now() + cfg.varredura)),
            cfg,
            signal,
            #[cfg(feature = "test-hooks")]
            hooks: TestHooks::from_env(),
            peer_down: AtomicBool::new(false),
            reviving: AtomicBool::new(false),
            last_probe: Mutex::new(None),
        }
    }

    /// The loop, unsupervised, until `shutdown`.
    pub async fn run(self, shutdown: CancellationToken) {
        Arc::new(self).run_loop(shutdown, Vivo::detached("publisher")).await
    }

    /// The outbox's retention job (`outbox.retencao`), which [`Publisher::run_loop`] runs.
    pub fn retencao(&self) -> Retencao {
        Retencao::outbox(self.nome.clone(), self.pool.clone(), self.cfg.retencao)
    }

    /// The loop, until `shutdown`; `vivo` is told after each pass (the supervisor's health).
    pub async fn run_loop(self: Arc<Self>, shutdown: CancellationToken, vivo: Vivo) {
        // The LISTEN task and the retention job live as long as this run: a restarted loop
        // starts its own.
        let (_stop, retencao) = self.start_tasks(&shutdown, &vivo);
        tracing::info!(outbox = %self.nome, peer = %mask_password(self.peer.base()), lote = self.cfg.lote, lote_max = self.alvo_max(), "publisher started");
        let mut in_flight = InFlight::new(&vivo);
        // Something may be due: true at start, after a wake-up or poll, and while claims come back full.
        let mut more = true;
        // A writer committed since the last claim: live events may be waiting (the express lane's cue).
        let mut live = false;
        while !shutdown.is_cancelled() {
            #[cfg(feature = "test-hooks")]
            self.test_fault();
            // A job of this run that ended before it is no job dying unseen: the loop stops with
            // it, and the supervisor says so and restarts both.
            assert!(!retencao.is_finished(), "outbox {}: the retention job stopped", self.nome);
            self.knock().await;
            let reviving = self.revive_batch(&mut in_flight).await;
            while let Some(done) = in_flight.claims.try_join_next_with_id() {
                self.settled(done, &mut in_flight);
            }
            vivo.ok();
            if self.sweep_due(&in_flight) && self.has_room(&in_flight) {
                self.start_sweep(&mut in_flight);
                continue;
            }
            if (more || reviving) && self.has_room(&in_flight) {
                // Its fresh share takes the live events first.
                live = false;
                more = self.claim_into(&mut in_flight, Modo::Comum).await;
                continue;
            }
            if live && self.express_room(&in_flight) {
                live = self.claim_into(&mut in_flight, Modo::Expressa).await;
                continue;
            }
            let woken;
            (more, woken) = self.wait(&shutdown, &mut in_flight, more, reviving).await;
            live |= woken;
        }
        self.drain(in_flight).await;
    }

    /// Starts the retention job (its handle returned), and the `LISTEN` task when this publisher
    /// has one; they stop when the guard is dropped. The job's rounds do not mark the loop up.
    fn start_tasks(
        &self,
        shutdown: &CancellationToken,
        vivo: &Vivo,
    ) -> (tokio_util::sync::DropGuard, tokio::task::JoinHandle<()>) {
        let tasks = shutdown.child_token();
        let retencao = tokio::spawn(Arc::new(self.retencao()).run_loop(tasks.clone(), vivo.irmao()));
        if let Some(db) = self.listen.clone() {
            tokio::spawn(crate::listen::listen(db, self.signal.clone(), tasks.clone(), self.cfg.timeout));
        }
        (tasks.drop_guard(), retencao)
    }

    /// The test switch [`ENV_PANICO`]: a loop that panics each round while its file exists.
    #[cfg(feature = "test-hooks")]
    fn test_fault(&self) {
        if self.hooks.panico.as_ref().is_some_and(|p| p.exists()) {
            panic!("test fault switch {ENV_PANICO}: publisher loop panics");
        }
    }

    /// Nothing to claim now, or no room: waits for a wake-up, the poll, a free slot or a settled
    /// claim. Returns whether something may be due (`more`, unless woken or polled), and whether
    /// a writer's commit woke it.
    async fn wait(
        &self,
        shutdown: &CancellationToken,
        in_flight: &mut InFlight,
        more: bool,
        reviving: bool,
    ) -> (bool, bool) {
        let idle = !more && !reviving && in_flight.claims.is_empty();
        if idle {
            self.signal.idle.send_replace(true);
            tracing::debug!(outbox = %self.nome, "publisher idle");
        }
        // An unreachable peer is probed every PROBE_EVERY, so the loop comes round that often.
        let pause = if self.peer_down.load(Ordering::SeqCst) {
            self.cfg.intervalo.min(PROBE_EVERY)
        } else {
            self.cfg.intervalo
        };
        let (mut more, mut woken) = (more, false);
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = self.signal.wake.notified() => (more, woken) = (true, true),
            _ = tokio::time::sleep(pause) => more = true,
            _ = self.peer.slot_freed.notified(), if more => {}
            Some(done) = in_flight.claims.join_next_with_id(), if !in_flight.claims.is_empty() => {
                self.settled(done, in_flight);
            }
        }
        if idle {
            self.signal.idle.send_replace(false);
        }
        (more, woken)
    }

    /// Shutdown: no new claim; the ones in flight are delivered and settled.
    async fn drain(&self, mut in_flight: InFlight) {
        if !in_flight.claims.is_empty() {
            tracing::info!(outbox = %self.nome, claims = in_flight.claims.len(), "publisher draining its claims in flight");
        }
        while let Some(done) = in_flight.claims.join_next_with_id().await {
            self.settled(done, &mut in_flight);
        }
        tracing::info!(outbox = %self.nome, "publisher stopped");
    }

    /// A round ended with `r`; a run of failures is said once ([`Falhas`]), naming this outbox.
    fn notar<T>(&self, falhas: &mut Falhas, r: anyhow::Result<T>) -> Option<T> {
        falhas.notar(r.map_err(|e| format!("outbox {}: {e:#}", self.nome)), self.cfg.intervalo)
    }

    /// A claim's task ended: its rows are no longer leased by this loop; failures are logged.
    fn settled(
        &self,
        done: Result<(tokio::task::Id, anyhow::Result<Round>), tokio::task::JoinError>,
        in_flight: &mut InFlight,
    ) {
        match done {
            Ok((id, r)) => {
                in_flight.ended(id);
                self.notar(&mut in_flight.rodadas, r);
            }
            Err(e) => {
                in_flight.ended(e.id());
                // Delivery panics are caught inside; this is the settle itself. The rows come
                // back when their lease ends.
                tracing::error!(outbox = %self.nome, error = %e, "a claim's task failed; its rows come back when the lease ends");
            }
        }
    }

    /// While the peer is unreachable, knocks on its `/readyz` every [`PROBE_EVERY`]; when it
    /// answers, the waiting events are made due.
    async fn knock(&self) {
        if !self.peer_down.load(Ordering::SeqCst) {
            return;
        }
        {
            let Ok(mut last) = self.last_probe.lock() else { return };
            if last.is_some_and(|t| t.elapsed() < PROBE_EVERY) {
                return;
            }
            *last = Some(Instant::now());
        }
        if self.peer.probe().await {
            tracing::info!(outbox = %self.nome, peer = %mask_password(self.peer.base()), "peer answered its readiness probe; events waiting in backoff are due now");
            self.peer_down.store(false, Ordering::SeqCst);
            self.reviving.store(true, Ordering::SeqCst);
        }
    }

    /// When the peer came back, makes one batch of waiting events due now; true while there was
    /// something to release.
    async fn revive_batch(&self, in_flight: &mut InFlight) -> bool {
        if !self.reviving.load(Ordering::SeqCst) {
            return false;
        }
        let released = async {
            let client = self.pool.get().await?;
            anyhow::Ok(store::make_due(&client, self.cfg.lote as i64).await?)
        }
        .await;
        match self.notar(&mut in_flight.revive, released) {
            Some(0) => {
                self.reviving.store(false, Ordering::SeqCst);
                false
            }
            Some(n) => {
                tracing::debug!(outbox = %self.nome, released = n, "waiting events made due");
                metrics::counter!("giro_outbox_revived_total").increment(n);
                true
            }
            None => false,
        }
    }

    /// Delivers a claimed batch in a task of its own, bounded by 80 % of the lease taken at `at`
    /// (time spent waiting for a request slot counts): a delivery that panics or hangs becomes a
    /// transient failure of each event (its attempt counted), settled while the lease still holds.
    async fn deliver(&self, claimed: &[Claimed], at: Instant, faixa: Faixa) -> Vec<Outcome> {
        let peer = self.peer.clone();
        let batch = claimed.to_vec();
        #[cfg(feature = "test-hooks")]
        let twice = self.hooks.reenviar;
        let task = tokio::spawn(async move {
            let outcomes = peer.deliver_in(&batch, faixa).await;
            #[cfg(feature = "test-hooks")]
            if twice {
                return peer.deliver_in(&batch, faixa).await;
            }
            outcomes
        });
        let abort = task.abort_handle();
        let limit = crate::regras::limite_da_entrega(self.cfg.visibilidade);
        let erro = match tokio::time::timeout_at((at + limit).into(), task).await {
            Ok(Ok(outcomes)) if outcomes.len() == claimed.len() => return outcomes,
            Ok(Ok(outcomes)) => {
                format!("a entrega devolveu {} resultados para {} eventos", outcomes.len(), claimed.len())
            }
            Ok(Err(e)) => format!("a entrega falhou: {e}"),
            Err(_) => {
                abort.abort();
                format!("a entrega não terminou em {limit:?}")
            }
        };
        tracing::error!(outbox = %self.nome, eventos = claimed.len(), erro = %erro, "delivery of a batch crashed or hung; each event counts an attempt");
        claimed.iter().map(|_| Outcome::Transient(erro.clone())).collect()
    }

    /// Claims, delivers and settles one batch (the loop's steps, one after another).
    pub async fn round(&self, agora: impl Into<Option<DateTime<Utc>>>) -> anyhow::Result<Round> {
        self.finish(self.claim(agora).await?).await
    }

    /// Delivers a claim and settles it under its own token: one statement for the sent events,
    /// one for the failed ones, whatever the number of chunks (none for an empty claim).
    pub async fn finish(&self, c: Claim) -> anyhow::Result<Round> {
        let Claim { token, claimed, at, faixa, .. } = c;
        if claimed.is_empty() {
            return Ok(Round::default());
        }
        let outcomes = self.deliver(&claimed, at, faixa).await;
        // Outcomes are known now: an event's age is its age at the claim (the database's clock)
        // plus the time since, by this process's monotonic clock; the backoff counts from the
        // settle's `now()`.
        let desde = at.elapsed();
        let mut sent = Vec::new();
        let mut failures = Vec::new();
        let mut r = Round { claimed: claimed.len(), ..Round::default() };
        let cfg = &self.cfg;
        for (e, o) in claimed.iter().zip(outcomes) {
            let idade = e.idade + desde;
            self.count(e, &o, idade, &mut r);
            let fator = backoff::random_factor();
            match settle::decidir(
                &o,
                e.tentativas,
                idade,
                cfg.prazo_entrega,
                cfg.max_tentativas,
                cfg.backoff_maximo,
                fator,
            ) {
                Decisao::Sent => sent.push(e.id),
                Decisao::Retry(espera) => failures.push(self.retry(e, o, espera)),
                Decisao::Failed(why) => failures.push(self.dead_letter(e, o, why)),
            }
        }
        let client = self.pool.get().await?;
        store::mark_sent(&client, &sent, token).await?;
        store::mark_failed(&client, &failures, token).await?;
        drop(client);
        self.after_round(&r);
        Ok(r)
    }

    /// Counts an outcome in the round and in the delivery metrics.
    fn count(&self, e: &Claimed, o: &Outcome, idade: Duration, r: &mut Round) {
        let (n, result) = match o {
            Outcome::Sent => (&mut r.sent, "sent"),
            Outcome::Permanent(_) => (&mut r.permanent, "permanent"),
            Outcome::Transient(_) | Outcome::Unreachable(_) => (&mut r.transient, "transient"),
        };
        *n += 1;
        r.unreachable += usize::from(matches!(o, Outcome::Unreachable(_)));
        if *o == Outcome::Sent {
            metrics::histogram!("giro_outbox_delivery_seconds").record(idade.as_secs_f64());
        }
        metrics::counter!("giro_outbox_deliveries_total", "tipo" => e.tipo.clone(), "result" => result)
            .increment(1);
    }

    /// A transient failure, due again `espera` (the backoff) after the settle.
    fn retry(&self, e: &Claimed, o: Outcome, espera: Duration) -> Failure {
        let erro = o.erro().unwrap_or_default().to_string();
        tracing::warn!(outbox = %self.nome, event_id = %e.id, tipo = %e.tipo, tentativa = e.tentativas, erro = %erro, "delivery failed; will retry");
        Failure { id: e.id, erro, espera: Some(espera) }
    }

    /// A dead letter, logged with why.
    fn dead_letter(&self, e: &Claimed, o: Outcome, why: settle::WhyFailed) -> Failure {
        let erro = o.erro().unwrap_or_default().to_string();
        match why {
            settle::WhyFailed::Refused => {
                tracing::error!(outbox = %self.nome, event_id = %e.id, tipo = %e.tipo, erro = %erro, "the peer's receiver refused the event; event FAILED")
            }
            _ => {
                tracing::error!(outbox = %self.nome, event_id = %e.id, tipo = %e.tipo, tentativa = e.tentativas, erro = %erro, "delivery failed; {}: event FAILED", why.nome())
            }
        }
        Failure { id: e.id, erro, espera: None }
    }

    /// Tracks whether the peer is reachable: a success after failures makes the waiting events
    /// due; a round that reached nobody starts the probes.
    fn after_round(&self, r: &Round) {
        if r.sent > 0 {
            if self.peer_down.swap(false, Ordering::SeqCst) {
                tracing::info!(outbox = %self.nome, peer = %mask_password(self.peer.base()), "the peer is back; events waiting in backoff are due now");
                self.reviving.store(true, Ordering::SeqCst);
            }
        } else if r.unreachable > 0 && !self.peer_down.swap(true, Ordering::SeqCst) {
            tracing::warn!(outbox = %self.nome, peer = %mask_password(self.peer.base()), "the peer cannot be reached; probing its /readyz every {PROBE_EVERY:?}");
        }
    }
}
