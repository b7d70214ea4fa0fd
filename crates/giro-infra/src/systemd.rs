//! systemd readiness notification (`Type=notify`), the `sd_notify` protocol without a crate: one
//! datagram with `KEY=VALUE` lines to the Unix socket named by `NOTIFY_SOCKET` (a path, or a name
//! in the abstract namespace when it starts with `@`). Without `NOTIFY_SOCKET` (not started by
//! systemd) nothing is sent.
//!
//! What Girô announces ([`lifecycle`]): `READY=1` once every database of the role answered a
//! `SELECT 1` (retried with backoff, so a service started before its database becomes ready when
//! the database does) — the listener is already bound by then —, `STATUS=` lines while it waits,
//! and `STOPPING=1` as soon as shutdown begins.

use std::io;
use std::os::unix::net::UnixDatagram;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::db::{self, Pool};

/// Sends `state` to the socket named by `NOTIFY_SOCKET`; `Ok(false)` when it is not set.
pub fn notify(state: &str) -> io::Result<bool> {
    match std::env::var_os("NOTIFY_SOCKET") {
        Some(path) if !path.is_empty() => notify_to(&path.to_string_lossy(), state).map(|()| true),
        _ => Ok(false),
    }
}

/// Sends `state` to the notification socket `socket` (a path, or `@name` for the abstract namespace).
pub fn notify_to(socket: &str, state: &str) -> io::Result<()> {
    let sock = UnixDatagram::unbound()?;
    let sent = match socket.strip_prefix('@') {
        Some(name) => send_abstract(&sock, name.as_bytes(), state.as_bytes())?,
        None => sock.send_to(state.as_bytes(), socket)?,
    };
    if sent != state.len() {
        return Err(io::Error::new(io::ErrorKind::WriteZero, "notification datagram truncated"));
    }
    Ok(())
}

#[cfg(target_os = "linux")]
fn send_abstract(sock: &UnixDatagram, name: &[u8], msg: &[u8]) -> io::Result<usize> {
    use std::os::linux::net::SocketAddrExt;
    let addr = std::os::unix::net::SocketAddr::from_abstract_name(name)?;
    sock.send_to_addr(msg, &addr)
}

#[cfg(not(target_os = "linux"))]
fn send_abstract(_: &UnixDatagram, _: &[u8], _: &[u8]) -> io::Result<usize> {
    Err(io::Error::new(io::ErrorKind::Unsupported, "abstract socket names exist only on Linux"))
}

/// [`notify`], logging (never failing) when the socket cannot be reached.
fn announce(state: &str) {
    if let Err(e) = notify(state) {
        tracing::warn!(error = %e, "systemd notification failed");
    }
}

/// The readiness life cycle of a role whose listener (if any) is bound: `READY=1` once `pools`
/// answer, `STOPPING=1` once `shutdown` fires. Spawn it on the role's task tracker.
/// Each pool comes with what it reaches ([`db::descrever`]).
pub async fn lifecycle(
    what: &'static str,
    pools: Vec<(Pool, String)>,
    timeout: Duration,
    shutdown: CancellationToken,
) {
    announce(&format!("STATUS={what}: waiting for the database"));
    if db::wait_for(what, &pools, timeout, &shutdown).await {
        tracing::info!(role = what, "ready: the database answered");
        announce(&format!("READY=1\nSTATUS={what}: ready"));
        shutdown.cancelled().await;
    }
    announce(&format!("STOPPING=1\nSTATUS={what}: stopping"));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn receive(sock: &UnixDatagram) -> String {
        let mut buf = [0u8; 512];
        let n = sock.recv(&mut buf).unwrap_or(0);
        String::from_utf8_lossy(&buf[..n]).into_owned()
    }

    #[test]
    fn a_datagram_reaches_a_socket_named_by_path() -> io::Result<()> {
        let dir = std::env::temp_dir().join(format!("giro-notify-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("notify.sock");
        let sock = UnixDatagram::bind(&path)?;
        sock.set_read_timeout(Some(Duration::from_secs(2)))?;
        notify_to(&path.to_string_lossy(), "READY=1\nSTATUS=ok")?;
        assert_eq!(receive(&sock), "READY=1\nSTATUS=ok");
        std::fs::remove_dir_all(&dir)
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_name_starting_with_at_is_in_the_abstract_namespace() -> io::Result<()> {
        use std::os::linux::net::SocketAddrExt;
        let name = format!("giro-notify-{}", uuid::Uuid::new_v4());
        let sock =
            UnixDatagram::bind_addr(&std::os::unix::net::SocketAddr::from_abstract_name(name.as_bytes())?)?;
        sock.set_read_timeout(Some(Duration::from_secs(2)))?;
        notify_to(&format!("@{name}"), "STOPPING=1")?;
        assert_eq!(receive(&sock), "STOPPING=1");
        Ok(())
    }

    #[test]
    fn a_missing_socket_is_an_error_not_a_panic() {
        assert!(notify_to("/nonexistent/giro/notify.sock", "READY=1").is_err());
    }
}
