//! Test support: fresh databases ([`db`]), the real `giro` binary as a child process
//! ([`process`]), a TCP proxy that can cut the database ([`chaos`]), `/metrics` read and summed
//! ([`metrics`]), and polling with a deadline.

pub mod app;
pub mod cenarios;
pub mod chaos;
pub mod db;
pub mod e2e;
pub mod historia;
pub mod lb;
pub mod market;
pub mod metrics;
pub mod patroni;
pub mod peer;
pub mod pgbouncer;
pub mod process;
pub mod real;
pub mod receiver;
pub mod relogio;
pub mod tag_worker;

use std::future::Future;
use std::time::Duration;

pub use db::TestDb;

/// A free loopback port for a process started later, when the port must be known first (HAProxy's
/// configuration, a peer's URL, a replica restarted where the balancer expects it).
///
/// Taken below the kernel's ephemeral range (`ip_local_port_range`, 32768–60999 by default): a
/// port from `bind(0)` lies in that range, and between the pick and the process's own bind any
/// outgoing connection — every parallel test's PostgreSQL connections — may be given it, and the
/// process dies with "Address already in use" (seen once in ten runs). Below the range the kernel
/// hands nothing out by itself; a process-wide counter with a per-process start keeps picks
/// distinct, and a bind check skips ports somebody holds. Falls back to `bind(0)` when the range
/// starts too low to leave room.
pub fn free_port() -> u16 {
    use std::sync::atomic::{AtomicU32, Ordering};
    const FIRST: u32 = 20_000;
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let ephemeral_low: u32 = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|v| v.parse().ok()))
        .unwrap_or(32_768);
    let span = ephemeral_low.saturating_sub(FIRST);
    if span >= 1_000 {
        // u64: a pid times the stride overflows u32 once pids pass ~540 000 (pid_max is 4 194 304).
        let start = (u64::from(std::process::id()) * 7_919 % u64::from(span)) as u32;
        for _ in 0..span {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let port = FIRST + (start + n) % span;
            if std::net::TcpListener::bind(("127.0.0.1", port as u16)).is_ok() {
                return port as u16;
            }
        }
    }
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Service tokens and operator login that satisfy validation; tests check none of them leaks.
pub const MERCADO_TOKEN: &str = "mercado-token-0123456789abcdef0123456789abcdef";
pub const ESTOQUE_TOKEN: &str = "estoque-token-0123456789abcdef0123456789abcdef";
pub const OPERADOR: &str = "operador";
pub const SENHA: &str = "senha-do-operador-42";

/// Polls `check` until it returns `Some`, or panics with `what` after `timeout`.
pub async fn wait_until<T, F, Fut>(timeout: Duration, what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        if tokio::time::Instant::now() >= deadline {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Polls `measure` until it reaches `target`; panics with `what` only when it stops moving for
/// `still` — a stalled pipeline fails, a slow machine only takes longer.
pub async fn wait_progress<F, Fut>(still: Duration, what: &str, target: i64, mut measure: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = i64>,
{
    let (mut last, mut since) = (i64::MIN, tokio::time::Instant::now());
    loop {
        let now = measure().await;
        if now >= target {
            return;
        }
        if now != last {
            (last, since) = (now, tokio::time::Instant::now());
        } else if since.elapsed() >= still {
            panic!("{what}: stuck at {now} of {target} for {still:?}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
