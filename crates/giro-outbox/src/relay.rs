//! The relay loop (a [`Publisher`]): wake (in-process signal, `LISTEN`, or the poll interval) → claim a batch as
//! a lease → deliver with no transaction open → settle only rows still under the lease token.
//! Retention runs between claims, in small batches. Claims in flight are drained on shutdown.
//!
//! - **The pipe stays full** (issue 17; `BENCHMARKS.md`, "What would close the gap"):
//!   - the claim size (`alvo`) adapts to the backlog: it starts at `outbox.lote`, doubles when a
//!     claim comes back full, up to `outbox.lote-max`, and halves when one comes back less than
//!     half full, never below `outbox.lote` — small claims while the outbox is nearly empty
//!     (latency), large ones through a backlog (fewer claim and settle statements);
//!   - a claim is delivered in chunks the receiver applies efficiently
//!     ([`chunk_size`](crate::delivery::chunk_size)): a 50-event claim is one request, not 8 of 7;
//!   - claims overlap within a bound: the next claim is made while the previous one's chunks are
//!     in flight, as soon as one of the peer's `outbox.concorrencia` request slots is free and the
//!     rows leased and unsettled would stay within [`MAX_LEASED_CLAIMS`] × `outbox.lote-max`.
//!     Each claim keeps its own fencing token and is settled on its own, one statement per
//!     outcome, when all its chunks are back; no event is acknowledged before the receiver's
//!     commit, and the receiver applies each event independently under its inbox row, so the
//!     order between overlapping claims is no weaker than between the chunks of one claim.
//! - **Why an event becomes `FAILED`**: the peer's receiver refused it ([`Outcome::Permanent`]),
//!   or it was still undelivered `outbox.prazo-entrega` after its creation (default 3 d, refused at
//!   start unless shorter than `inbox.retencao`), or — only when `outbox.max-tentativas` is set —
//!   it ran out of attempts. Transient failures are otherwise retried at most every
//!   `outbox.backoff-maximo`, however long the outage.
//! - **Backoff from the instant the outcome is known**, not from the claim: a slow round does not
//!   leave the next attempt already in the past.
//! - **Poison rows**: the attempt is counted at the claim, a delivery that panics or outlives
//!   80 % of the lease (counted from its claim, so waiting for a slot counts) is settled as a
//!   transient failure, and a publisher that dies mid-delivery leaves the attempt counted with
//!   the lease as its backoff; a row cannot loop for free.
//! - **A peer that comes back is served at once**: after a round where the peer could not be
//!   reached, the publisher knocks on the peer's `/readyz` every [`PROBE_EVERY`] (the probe, not
//!   the events, knocks); when it answers — or a delivery succeeds — the events waiting in backoff
//!   are made due now, [`store::make_due`] a batch per round, so the backlog drains at the relay's
//!   speed. Each publisher, embedded or separate, does this for its own outbox.
//! - **`LISTEN`** (separate publishers): its connection has a connect timeout and TCP keepalive,
//!   and is re-established with backoff (logged, `giro_outbox_listen_reconnects_total`); the poll
//!   interval covers the gap.
//! - **Several replicas**: claims use `FOR UPDATE SKIP LOCKED` and a lease; the retention sweep
//!   deletes `… FOR UPDATE SKIP LOCKED` in small batches, so replicas never wait on each other or
//!   delete a row twice.
//! - **Shutdown**: no new claim once the token is cancelled; the claims in flight are delivered
//!   and settled (each bounded by 80 % of its lease), and the role's `http.prazo-desligamento`
//!   bounds the whole drain — rows it cuts off come back when their lease ends.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use tokio::task::JoinSet;
use tokio_postgres::{AsyncMessage, NoTls};
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::backoff;
use crate::delivery::{Outcome, Peer};
use crate::store::{self, Claimed, Failure};
use giro_infra::config::{Config, DbConfig, OutboxConfig, Servico};
use giro_infra::db::{OutboxSignal, Pool};
use giro_infra::supervisor::Vivo;

/// Rows deleted per retention statement: small, so the sweep never holds many locks.
const PRUNE_BATCH: i64 = 1000;

/// At most this many claims of `outbox.lote-max` rows leased and unsettled per publisher: one being
/// delivered and the next one queued behind it, so the pipe never waits for a settle.
pub const MAX_LEASED_CLAIMS: usize = 2;

/// How often a publisher knocks on an unreachable peer's `/readyz`.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

/// Test-only switches, read from the environment and absent from `config/giro.toml`.
/// `GIRO_TEST_REENVIAR=1`: deliver every event twice (the inbox must make the second a no-op).
pub const ENV_REENVIAR: &str = "GIRO_TEST_REENVIAR";
/// `GIRO_TEST_PANICO_PUBLICADOR=PATH`: while PATH exists, the publisher loop panics each round.
pub const ENV_PANICO: &str = "GIRO_TEST_PANICO_PUBLICADOR";

pub struct Publisher {
    /// Which outbox (`mercado` or `estoque`), for logs.
    pub nome: String,
    pub pool: Pool,
    pub peer: Arc<Peer>,
    pub cfg: OutboxConfig,
    pub inbox_retencao: Duration,
    /// Woken by writers in this process, or by the `LISTEN` task.
    pub signal: Arc<OutboxSignal>,
    /// When set, a `LISTEN` connection to this database wakes the publisher on `NOTIFY`.
    pub listen: Option<DbConfig>,
    /// Test hook ([`ENV_REENVIAR`]).
    pub reenviar: bool,
    /// Test hook ([`ENV_PANICO`]).
    pub panico: Option<PathBuf>,
    /// The last round could not reach the peer: probe it.
    peer_down: AtomicBool,
    /// The peer is back: make waiting events due, a batch per round.
    reviving: AtomicBool,
    last_probe: Mutex<Option<Instant>>,
    /// The next claim's size (`alvo`), between `outbox.lote` and `outbox.lote-max`.
    alvo: AtomicUsize,
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
    /// The publisher of `servico`'s outbox: it delivers to the peer's events URL with the peer's
    /// token. `listen` = wake on `NOTIFY` (separate publishers).
    pub fn for_service(
        config: &Config,
        servico: Servico,
        pool: Pool,
        signal: Arc<OutboxSignal>,
        listen: bool,
    ) -> anyhow::Result<Publisher> {
        let par = servico.par();
        let cfg = config.outbox.clone();
        let cfg_lote = cfg.lote;
        let peer = Peer::new(
            &config.servico(par).eventos_url,
            config.token_servico(par)?.clone(),
            cfg.timeout,
            cfg.concorrencia,
            cfg.lote_max,
            cfg.transporte,
        )?;
        Ok(Publisher {
            nome: servico.nome().to_string(),
            pool,
            peer: Arc::new(peer),
            reenviar: std::env::var(ENV_REENVIAR).is_ok_and(|v| v == "1" || v == "true"),
            panico: std::env::var_os(ENV_PANICO).filter(|v| !v.is_empty()).map(PathBuf::from),
            listen: (listen && cfg.notify).then(|| config.servico(servico).db.clone()),
            cfg,
            inbox_retencao: config.inbox_retencao,
            signal,
            peer_down: AtomicBool::new(false),
            reviving: AtomicBool::new(false),
            last_probe: Mutex::new(None),
            alvo: AtomicUsize::new(cfg_lote),
        })
    }

    /// The loop, unsupervised, until `shutdown`.
    pub async fn run(self, shutdown: CancellationToken) {
        Arc::new(self).run_loop(shutdown, Vivo::detached("publisher")).await
    }

    /// The next claim's size.
    pub fn alvo(&self) -> usize {
        self.alvo.load(Ordering::SeqCst)
    }

    /// The largest claim: `outbox.lote-max`, or `outbox.lote` when that was set higher.
    fn alvo_max(&self) -> usize {
        self.cfg.lote_max.max(self.cfg.lote)
    }

    /// A claim of `asked` rows brought `got`: a full one doubles the next claim (a backlog), one
    /// less than half full halves it (the outbox is draining), within `outbox.lote`..`lote-max`.
    fn adapt(&self, asked: usize, got: usize) {
        let next = if got >= asked {
            (asked * 2).min(self.alvo_max())
        } else if got < asked / 2 {
            (asked / 2).max(self.cfg.lote)
        } else {
            asked
        };
        self.alvo.store(next, Ordering::SeqCst);
    }

    /// The loop, until `shutdown`; `vivo` is told after each pass (the supervisor's health).
    pub async fn run_loop(self: Arc<Self>, shutdown: CancellationToken, vivo: Vivo) {
        // The LISTEN task lives as long as this run: a restarted loop starts its own.
        let listening = shutdown.child_token();
        let _stop_listening = listening.clone().drop_guard();
        if let Some(db) = self.listen.clone() {
            tokio::spawn(listen(db, self.signal.clone(), listening.clone(), self.cfg.timeout));
        }
        tracing::info!(outbox = %self.nome, peer = %giro_infra::config::report::mask_password(self.peer.base()), lote = self.cfg.lote, lote_max = self.alvo_max(), "publisher started");
        let prune_every = self
            .cfg
            .retencao
            .min(self.inbox_retencao)
            .div_f64(2.0)
            .clamp(Duration::from_secs(1), Duration::from_secs(60));
        let mut last_prune = Instant::now();
        // Claims being delivered or settled, each in a task of its own, and their row counts.
        // Dropping the set (a panic of this loop) aborts them: their rows come back with the lease.
        let mut claims: JoinSet<anyhow::Result<Round>> = JoinSet::new();
        let mut leased: HashMap<tokio::task::Id, usize> = HashMap::new();
        let max_leased = MAX_LEASED_CLAIMS * self.alvo_max();
        // Something may be due: true at start, after a wake-up or poll, and while claims come back full.
        let mut more = true;
        while !shutdown.is_cancelled() {
            if let Some(p) = &self.panico {
                if p.exists() {
                    panic!("test fault switch {ENV_PANICO}: publisher loop panics");
                }
            }
            self.knock().await;
            let reviving = self.revive_batch(Utc::now()).await;
            while let Some(done) = claims.try_join_next_with_id() {
                self.settled(done, &mut leased);
            }
            vivo.ok();
            if last_prune.elapsed() >= prune_every {
                last_prune = Instant::now();
                if let Err(e) = self.prune(Utc::now()).await {
                    giro_infra::db::note_chain(&e);
                    tracing::warn!(outbox = %self.nome, error = %format!("{e:#}"), "retention sweep failed");
                }
            }
            let in_flight: usize = leased.values().sum();
            let room = in_flight + self.alvo() <= max_leased && self.peer.free_slots() > 0;
            if (more || reviving) && room {
                match self.claim(Utc::now()).await {
                    Ok(c) => {
                        more = c.full;
                        if !c.claimed.is_empty() {
                            let n = c.claimed.len();
                            let me = self.clone();
                            let task = claims.spawn(async move { me.finish(c).await });
                            leased.insert(task.id(), n);
                        }
                    }
                    Err(e) => {
                        more = false;
                        giro_infra::db::note_chain(&e);
                        tracing::warn!(outbox = %self.nome, error = %format!("{e:#}"), "publisher round failed");
                    }
                }
                continue;
            }
            // Nothing to claim now, or no room: wait for a wake-up, the poll, a free slot or a
            // settled claim.
            let idle = !more && !reviving && claims.is_empty();
            if idle {
                self.signal.idle.send_replace(true);
                tracing::debug!(outbox = %self.nome, "publisher idle");
            }
            let pause = if self.peer_down.load(Ordering::SeqCst) {
                self.cfg.intervalo.min(PROBE_EVERY)
            } else {
                self.cfg.intervalo
            };
            tokio::select! {
                _ = shutdown.cancelled() => {}
                _ = self.signal.wake.notified() => more = true,
                _ = tokio::time::sleep(pause) => more = true,
                _ = self.peer.slot_freed.notified(), if more => {}
                Some(done) = claims.join_next_with_id(), if !claims.is_empty() => {
                    self.settled(done, &mut leased);
                }
            }
            if idle {
                self.signal.idle.send_replace(false);
            }
        }
        // Shutdown: no new claim; the ones in flight are delivered and settled.
        if !claims.is_empty() {
            tracing::info!(outbox = %self.nome, claims = claims.len(), "publisher draining its claims in flight");
        }
        while let Some(done) = claims.join_next_with_id().await {
            self.settled(done, &mut leased);
        }
        tracing::info!(outbox = %self.nome, "publisher stopped");
    }

    /// A claim's task ended: its rows are no longer leased by this loop; failures are logged.
    fn settled(
        &self,
        done: Result<(tokio::task::Id, anyhow::Result<Round>), tokio::task::JoinError>,
        leased: &mut HashMap<tokio::task::Id, usize>,
    ) {
        match done {
            Ok((id, r)) => {
                leased.remove(&id);
                if let Err(e) = r {
                    giro_infra::db::note_chain(&e);
                    tracing::warn!(outbox = %self.nome, error = %format!("{e:#}"), "publisher round failed");
                }
            }
            Err(e) => {
                leased.remove(&e.id());
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
            tracing::info!(outbox = %self.nome, peer = %giro_infra::config::report::mask_password(self.peer.base()), "peer answered its readiness probe; events waiting in backoff are due now");
            self.peer_down.store(false, Ordering::SeqCst);
            self.reviving.store(true, Ordering::SeqCst);
        }
    }

    /// When the peer came back, makes one batch of waiting events due now; true while there was
    /// something to release.
    async fn revive_batch(&self, agora: DateTime<Utc>) -> bool {
        if !self.reviving.load(Ordering::SeqCst) {
            return false;
        }
        let released = async {
            let client = self.pool.get().await?;
            anyhow::Ok(store::make_due(&**client, agora, self.cfg.lote as i64).await?)
        }
        .await;
        match released {
            Ok(0) => {
                self.reviving.store(false, Ordering::SeqCst);
                false
            }
            Ok(n) => {
                tracing::debug!(outbox = %self.nome, released = n, "waiting events made due");
                metrics::counter!("giro_outbox_revived_total").increment(n);
                true
            }
            Err(e) => {
                tracing::warn!(outbox = %self.nome, error = %format!("{e:#}"), "making waiting events due failed");
                false
            }
        }
    }

    /// Delivers a claimed batch in a task of its own, bounded by 80 % of the lease taken at `at`
    /// (time spent waiting for a request slot counts): a delivery that panics or hangs becomes a
    /// transient failure of each event (its attempt counted), settled while the lease still holds.
    async fn deliver(&self, claimed: &[Claimed], at: Instant) -> Vec<Outcome> {
        let peer = self.peer.clone();
        let batch = claimed.to_vec();
        let twice = self.reenviar;
        let task = tokio::spawn(async move {
            let mut outcomes = peer.deliver(&batch).await;
            if twice {
                outcomes = peer.deliver(&batch).await;
            }
            outcomes
        });
        let abort = task.abort_handle();
        let limit = self.cfg.visibilidade.mul_f64(0.8);
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

    /// Claims up to [`Publisher::alvo`] due events under a new lease and token (committed at
    /// once), and adapts the next claim's size to what came back.
    pub async fn claim(&self, agora: DateTime<Utc>) -> anyhow::Result<Claim> {
        let token = Uuid::new_v4();
        let lease_until = agora + chrono::Duration::from_std(self.cfg.visibilidade)?;
        let asked = self.alvo();
        let at = Instant::now();
        let claimed = {
            let client = self.pool.get().await?;
            store::claim(&**client, agora, asked as i64, lease_until, token).await?
            // The connection goes back to the pool here: none is held while delivering.
        };
        self.adapt(asked, claimed.len());
        let full = claimed.len() >= asked;
        Ok(Claim { token, claimed, full, at })
    }

    /// Claims, delivers and settles one batch (the loop's steps, one after another).
    pub async fn round(&self, agora: DateTime<Utc>) -> anyhow::Result<Round> {
        let c = self.claim(agora).await?;
        if c.claimed.is_empty() {
            return Ok(Round::default());
        }
        self.finish(c).await
    }

    /// Delivers a claim and settles it under its own token: one statement for the sent events,
    /// one for the failed ones, whatever the number of chunks.
    pub async fn finish(&self, c: Claim) -> anyhow::Result<Round> {
        let Claim { token, claimed, at, .. } = c;
        let outcomes = self.deliver(&claimed, at).await;
        // Outcomes are known now: backoff and deadlines count from here.
        let done = Utc::now();
        let prazo = done - chrono::Duration::from_std(self.cfg.prazo_entrega)?;
        let mut sent = Vec::new();
        let mut failures = Vec::new();
        let mut r = Round { claimed: claimed.len(), ..Round::default() };
        for (e, o) in claimed.iter().zip(outcomes) {
            let tipo = e.tipo.clone();
            match o {
                Outcome::Sent => {
                    r.sent += 1;
                    sent.push(e.id);
                    metrics::counter!("giro_outbox_deliveries_total", "tipo" => tipo, "result" => "sent")
                        .increment(1);
                    let secs = (done - e.criado_em).num_microseconds().unwrap_or(0).max(0) as f64 / 1e6;
                    metrics::histogram!("giro_outbox_delivery_seconds").record(secs);
                }
                o @ (Outcome::Transient(_) | Outcome::Unreachable(_)) => {
                    if matches!(o, Outcome::Unreachable(_)) {
                        r.unreachable += 1;
                    }
                    let erro = o.erro().unwrap_or_default().to_string();
                    r.transient += 1;
                    let n = e.tentativas;
                    let espera = backoff::with_jitter(n, self.cfg.backoff_maximo, backoff::random_factor());
                    let proxima = done + chrono::Duration::from_std(espera)?;
                    let sem_tentativas = self.cfg.max_tentativas.is_some_and(|max| n >= max);
                    let vencido = e.criado_em <= prazo;
                    let proxima = if sem_tentativas || vencido {
                        let why = if vencido {
                            "delivery deadline (outbox.prazo-entrega) passed"
                        } else {
                            "attempts exhausted (outbox.max-tentativas)"
                        };
                        tracing::error!(outbox = %self.nome, event_id = %e.id, tipo = %e.tipo, tentativa = n, erro = %erro, "delivery failed; {why}: event FAILED");
                        None
                    } else {
                        tracing::warn!(outbox = %self.nome, event_id = %e.id, tipo = %e.tipo, tentativa = n, erro = %erro, "delivery failed; will retry");
                        Some(proxima)
                    };
                    metrics::counter!("giro_outbox_deliveries_total", "tipo" => tipo, "result" => "transient").increment(1);
                    failures.push(Failure { id: e.id, erro, proxima });
                }
                Outcome::Permanent(erro) => {
                    r.permanent += 1;
                    tracing::error!(outbox = %self.nome, event_id = %e.id, tipo = %e.tipo, erro = %erro, "the peer's receiver refused the event; event FAILED");
                    metrics::counter!("giro_outbox_deliveries_total", "tipo" => tipo, "result" => "permanent").increment(1);
                    failures.push(Failure { id: e.id, erro, proxima: None });
                }
            }
        }
        let client = self.pool.get().await?;
        store::mark_sent(&**client, &sent, token, done).await?;
        store::mark_failed(&**client, &failures, token).await?;
        drop(client);
        self.after_round(&r);
        Ok(r)
    }

    /// Tracks whether the peer is reachable: a success after failures makes the waiting events
    /// due; a round that reached nobody starts the probes.
    fn after_round(&self, r: &Round) {
        if r.sent > 0 {
            if self.peer_down.swap(false, Ordering::SeqCst) {
                tracing::info!(outbox = %self.nome, peer = %giro_infra::config::report::mask_password(self.peer.base()), "the peer is back; events waiting in backoff are due now");
                self.reviving.store(true, Ordering::SeqCst);
            }
        } else if r.unreachable > 0 && !self.peer_down.swap(true, Ordering::SeqCst) {
            tracing::warn!(outbox = %self.nome, peer = %giro_infra::config::report::mask_password(self.peer.base()), "the peer cannot be reached; probing its /readyz every {PROBE_EVERY:?}");
        }
    }

    /// Deletes `SENT` rows past `outbox.retencao` and inbox rows past `inbox.retencao`.
    pub async fn prune(&self, agora: DateTime<Utc>) -> anyhow::Result<(u64, u64)> {
        let client = self.pool.get().await?;
        let outbox_antes = agora - chrono::Duration::from_std(self.cfg.retencao)?;
        let inbox_antes = agora - chrono::Duration::from_std(self.inbox_retencao)?;
        let (mut sent, mut inbox) = (0, 0);
        // Bounded: at most 100 batches per sweep, the rest next time.
        for _ in 0..100 {
            let n = store::prune_sent(&**client, outbox_antes, PRUNE_BATCH).await?;
            sent += n;
            if n < PRUNE_BATCH as u64 {
                break;
            }
        }
        for _ in 0..100 {
            let n = crate::inbox::prune(&**client, inbox_antes, PRUNE_BATCH).await?;
            inbox += n;
            if n < PRUNE_BATCH as u64 {
                break;
            }
        }
        if sent + inbox > 0 {
            tracing::info!(outbox = %self.nome, sent, inbox, "retention: old rows deleted");
        }
        Ok((sent, inbox))
    }
}

/// Keeps a `LISTEN` connection open and turns each notification into a wake-up. The connection
/// has a connect timeout and TCP keepalive (a silent partition is noticed), and is re-established
/// with backoff (250 ms doubling to 5 s) after any failure, logged and counted; the poll interval
/// covers the gap, and a wake-up right after each (re)connection catches commits made meanwhile.
async fn listen(db: DbConfig, signal: Arc<OutboxSignal>, shutdown: CancellationToken, timeout: Duration) {
    const FIRST: Duration = Duration::from_millis(250);
    const MAX: Duration = Duration::from_secs(5);
    let mut pg = db.pg.clone();
    pg.connect_timeout(timeout.max(Duration::from_secs(1)));
    pg.keepalives(true);
    pg.keepalives_idle(Duration::from_secs(10));
    pg.keepalives_interval(Duration::from_secs(5));
    pg.keepalives_retries(3);
    let mut pause = FIRST;
    let mut connected_before = false;
    while !shutdown.is_cancelled() {
        let attempt = tokio::time::timeout(timeout.max(Duration::from_secs(1)) * 2, pg.connect(NoTls)).await;
        match attempt {
            Ok(Ok((client, mut connection))) => {
                let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
                let driver = tokio::spawn(async move {
                    let mut messages = futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                    use futures_util::StreamExt;
                    while let Some(m) = messages.next().await {
                        match m {
                            Ok(AsyncMessage::Notification(_)) => {
                                let _ = tx.send(());
                            }
                            Ok(_) => {}
                            Err(_) => break,
                        }
                    }
                });
                let listened = tokio::time::timeout(
                    timeout.max(Duration::from_secs(1)),
                    client.batch_execute(&format!("LISTEN {}", store::CHANNEL)),
                )
                .await;
                match listened {
                    Ok(Ok(())) => {
                        if connected_before {
                            metrics::counter!("giro_outbox_listen_reconnects_total").increment(1);
                            tracing::info!("LISTEN re-established");
                        } else {
                            tracing::info!("LISTEN connected");
                        }
                        connected_before = true;
                        pause = FIRST;
                        // Something may have committed before LISTEN took effect.
                        signal.wake.notify_one();
                        loop {
                            tokio::select! {
                                _ = shutdown.cancelled() => break,
                                m = rx.recv() => match m {
                                    Some(()) => signal.wake.notify_one(),
                                    None => break,
                                },
                            }
                        }
                        if !shutdown.is_cancelled() {
                            tracing::warn!(
                                "LISTEN connection lost; re-establishing (polling covers the gap)"
                            );
                        }
                    }
                    Ok(Err(e)) => tracing::warn!(error = %e, "LISTEN failed; retrying"),
                    Err(_) => tracing::warn!("LISTEN did not answer in time; retrying"),
                }
                drop(client);
                driver.abort();
            }
            Ok(Err(e)) => tracing::warn!(error = %e, "LISTEN connection failed; retrying"),
            Err(_) => tracing::warn!("LISTEN connection timed out; retrying"),
        }
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = tokio::time::sleep(pause) => {}
        }
        pause = (pause * 2).min(MAX);
    }
}
