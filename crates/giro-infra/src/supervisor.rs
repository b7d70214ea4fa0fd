//! Supervised background loops: the outbox publisher (with its retention sweep), mercado's
//! reservation expiry sweep, estoque's re-classification job.
//!
//! Each loop runs in a task of its own. When it panics, or returns while the process is not
//! shutting down, the supervisor logs the cause, counts the restart
//! (`giro_supervisor_restarts_total{loop}`), marks the loop down (`giro_supervisor_loop_up{loop}`
//! 0) and starts it again after a backoff (1 s doubling to 30 s, back to 1 s once a run lasted a
//! minute). A loop is up again once its new run completes a round ([`Vivo::ok`]).
//!
//! **Restart in-process and answer `/readyz` 503 while a required loop is down, rather than exit
//! for systemd to restart.** A loop failure is almost always about one round (a poison row, a
//! bug on one path), not the process: the HTTP API keeps serving checkouts and events meanwhile,
//! and an exit would drop every in-flight request to restart what one task can. The 503 takes the
//! replica out of a load balancer while it cannot do its background work, and the counter and
//! the alert rule tell the operator when a loop keeps failing.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

const FIRST_PAUSE: Duration = Duration::from_secs(1);
const MAX_PAUSE: Duration = Duration::from_secs(30);
/// A run this long resets the restart backoff.
const HEALTHY_RUN: Duration = Duration::from_secs(60);

/// One supervised loop's state.
#[derive(Debug)]
pub struct Estado {
    pub nome: &'static str,
    /// Required loops make `/readyz` 503 while they are down.
    pub obrigatorio: bool,
    up: AtomicBool,
}

impl Estado {
    pub fn up(&self) -> bool {
        self.up.load(Ordering::SeqCst)
    }
}

/// Handed to a loop: it calls [`Vivo::ok`] after each completed round.
#[derive(Clone, Debug)]
pub struct Vivo(Arc<Estado>);

impl Vivo {
    /// The loop completed a round: it is up.
    pub fn ok(&self) {
        if !self.0.up.swap(true, Ordering::SeqCst) {
            tracing::info!(r#loop = self.0.nome, "background loop is up again");
            metrics::gauge!("giro_supervisor_loop_up", "loop" => self.0.nome).set(1.0);
        }
    }

    /// The said-once log of one kind of this loop's rounds ([`Falhas`]).
    pub fn falhas(&self, o_que: &'static str) -> Falhas {
        Falhas::new(self.0.nome, o_que)
    }

    /// A handle for a task the loop starts: its failures are said under the loop's name, its
    /// rounds do not mark the loop up.
    pub fn irmao(&self) -> Vivo {
        Vivo::detached(self.0.nome)
    }

    /// A handle for code outside the supervisor (tests).
    pub fn detached(nome: &'static str) -> Vivo {
        Vivo(Arc::new(Estado { nome, obrigatorio: false, up: AtomicBool::new(true) }))
    }
}

/// The loops of one process.
#[derive(Debug, Default)]
pub struct Supervisor {
    loops: Mutex<Vec<Arc<Estado>>>,
}

impl Supervisor {
    pub fn new() -> Arc<Supervisor> {
        Arc::new(Supervisor::default())
    }

    /// The required loops that are down, by name (empty = all up).
    pub fn down(&self) -> Vec<&'static str> {
        self.loops
            .lock()
            .map(|l| l.iter().filter(|e| e.obrigatorio && !e.up()).map(|e| e.nome).collect())
            .unwrap_or_default()
    }

    /// Runs `make(vivo)` on `tasks` under supervision until `shutdown`.
    pub fn spawn<F, Fut>(
        self: &Arc<Self>,
        tasks: &TaskTracker,
        nome: &'static str,
        obrigatorio: bool,
        shutdown: CancellationToken,
        make: F,
    ) where
        F: Fn(Vivo) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let estado = Arc::new(Estado { nome, obrigatorio, up: AtomicBool::new(true) });
        if let Ok(mut l) = self.loops.lock() {
            l.push(estado.clone());
        }
        metrics::gauge!("giro_supervisor_loop_up", "loop" => nome).set(1.0);
        metrics::counter!("giro_supervisor_restarts_total", "loop" => nome).increment(0);
        tasks.spawn(async move {
            let mut pause = FIRST_PAUSE;
            loop {
                let started = Instant::now();
                let run = tokio::spawn(std::panic::AssertUnwindSafe(make(Vivo(estado.clone()))).catch_unwind());
                let cause = match run.await {
                    Ok(Ok(())) if shutdown.is_cancelled() => break,
                    Ok(Ok(())) => "returned while the process is running".to_string(),
                    Ok(Err(panic)) => format!("panicked: {}", panic_message(&panic)),
                    Err(e) => format!("task failed: {e}"),
                };
                if shutdown.is_cancelled() {
                    break;
                }
                if started.elapsed() >= HEALTHY_RUN {
                    pause = FIRST_PAUSE;
                }
                estado.up.store(false, Ordering::SeqCst);
                metrics::gauge!("giro_supervisor_loop_up", "loop" => nome).set(0.0);
                metrics::counter!("giro_supervisor_restarts_total", "loop" => nome).increment(1);
                tracing::error!(r#loop = nome, cause = %cause, restart_in_ms = pause.as_millis() as u64, "background loop failed; restarting");
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    _ = tokio::time::sleep(pause) => {}
                }
                pause = (pause * 2).min(MAX_PAUSE);
            }
        });
    }
}

/// How often a failure that goes on is summed up in the log.
const RESUMO: Duration = Duration::from_secs(60);

/// A loop's round that fails again and again (its database away for a minute, a sweep every
/// 300 ms), said once (issue 37 §3) instead of once a round: the first failure is logged with
/// when the loop tries again; the next are counted (`giro_supervisor_round_failures_total{loop}`)
/// and summed up in one line a minute while they last; the first success after them says how many
/// there were. Readiness says the rest (`/readyz` 503 while the database is away). Each loop
/// holds one per kind of round.
#[derive(Debug)]
pub struct Falhas {
    r#loop: &'static str,
    o_que: &'static str,
    n: u64,
    desde: Option<Instant>,
    dito: Option<Instant>,
}

impl Falhas {
    /// `o_que` names the round in the log ("reservation expiry round failed").
    pub fn new(r#loop: &'static str, o_que: &'static str) -> Falhas {
        metrics::counter!("giro_supervisor_round_failures_total", "loop" => r#loop).increment(0);
        Falhas { r#loop, o_que, n: 0, desde: None, dito: None }
    }

    /// A round failed with `erro`; the loop tries again in `de_novo_em`.
    pub fn falhou(&mut self, erro: &dyn std::fmt::Display, de_novo_em: Duration) {
        metrics::counter!("giro_supervisor_round_failures_total", "loop" => self.r#loop).increment(1);
        self.n += 1;
        let agora = Instant::now();
        let desde = *self.desde.get_or_insert(agora);
        if self.dito.is_some_and(|d| agora.duration_since(d) < RESUMO) {
            return;
        }
        self.dito = Some(agora);
        tracing::warn!(
            r#loop = self.r#loop,
            error = %erro,
            falhas = self.n,
            desde_s = agora.duration_since(desde).as_secs(),
            retry_in_ms = de_novo_em.as_millis() as u64,
            "{}; said again in a minute if it goes on",
            self.o_que
        );
    }

    /// A round ended with `r`: [`Falhas::ok`] or [`Falhas::falhou`]; its value, if it succeeded.
    pub fn notar<T, E: std::fmt::Display>(&mut self, r: Result<T, E>, de_novo_em: Duration) -> Option<T> {
        match &r {
            Ok(_) => self.ok(),
            Err(e) => self.falhou(e, de_novo_em),
        }
        r.ok()
    }

    /// A round succeeded: a run of failures before it ends, said with its count.
    pub fn ok(&mut self) {
        if let Some(desde) = self.desde.take() {
            tracing::info!(
                r#loop = self.r#loop,
                falhas = self.n,
                durou_s = desde.elapsed().as_secs(),
                "{} no longer: rounds succeed again",
                self.o_que
            );
            (self.n, self.dito) = (0, None);
        }
    }
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "(no message)".into())
}

/// Keys a loop's round failed on, left out of its next rounds until their retry instant: a pause
/// of `primeira` doubling with each failure up to `maxima`. An entry whose pause ended stays
/// `memoria` longer, so a new failure pauses longer.
#[derive(Debug)]
pub struct Pausas<K> {
    primeira: Duration,
    maxima: Duration,
    memoria: Duration,
    ate: HashMap<K, (Instant, u32)>,
}

impl<K: Eq + Hash + Clone> Pausas<K> {
    pub fn new(primeira: Duration, maxima: Duration, memoria: Duration) -> Pausas<K> {
        Pausas { primeira, maxima, memoria, ate: HashMap::new() }
    }

    pub fn falhou(&mut self, k: K) {
        let n = self.ate.get(&k).map_or(0, |(_, n)| *n) + 1;
        let pausa = self.primeira.saturating_mul(1 << (n.min(12) - 1)).min(self.maxima);
        self.ate.insert(k, (Instant::now() + pausa, n));
    }

    pub fn ok(&mut self, k: &K) {
        self.ate.remove(k);
    }

    /// The keys to leave out now.
    pub fn ativos(&mut self) -> Vec<K> {
        let agora = Instant::now();
        let memoria = self.memoria;
        self.ate.retain(|_, (t, _)| *t + memoria > agora);
        self.ate.iter().filter(|(_, (t, _))| *t > agora).map(|(k, _)| k.clone()).collect()
    }
}
