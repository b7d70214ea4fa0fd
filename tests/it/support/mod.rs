//! Test support: fresh databases ([`db`]), the real `giro` binary as a child process
//! ([`process`]), a TCP proxy that can cut the database ([`chaos`]), `/metrics` read and summed
//! ([`metrics`]), and polling with a deadline.

pub mod app;
pub mod cenarios;
pub mod chaos;
pub mod db;
pub mod e2e;
pub mod lb;
pub mod market;
pub mod metrics;
pub mod peer;
pub mod process;
pub mod real;
pub mod receiver;
pub mod tag_worker;

use std::future::Future;
use std::time::Duration;

pub use db::TestDb;

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
