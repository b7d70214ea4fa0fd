//! `config/haproxy/giro.cfg` (embedded) rewritten for loopback ports, and a foreground HAProxy
//! running it: what `giro bench checkout --replicas N` puts in front of its replicas, and what the
//! replica tests run. The file is used as written except for the addresses: each `bind` of a
//! frontend or listen section becomes `127.0.0.1:<port>`, each backend's `server` lines become the
//! given servers (with the first line's options, its name in `track backend/name` replaced), the
//! process settings that need root (user, group, chroot, daemon) are dropped, and a section given
//! neither a port nor servers is left out.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use anyhow::Context;

/// The reference configuration.
pub const GIRO_CFG: &str = include_str!("../../../config/haproxy/giro.cfg");

/// `GIRO_CFG` with the given listen ports (`binds`, per frontend/listen name) and servers (per backend).
pub fn config(
    binds: &BTreeMap<String, u16>,
    servers: &BTreeMap<String, Vec<(String, SocketAddr)>>,
) -> String {
    let mut out = String::new();
    let (mut kind, mut name) = (String::new(), String::new());
    let (mut skip, mut servers_done) = (false, false);
    for line in GIRO_CFG.lines() {
        let t = line.trim();
        if !line.starts_with(char::is_whitespace) && !t.is_empty() && !t.starts_with('#') {
            let mut w = t.split_whitespace();
            kind = w.next().unwrap_or("").to_string();
            name = w.next().unwrap_or("").to_string();
            skip = match kind.as_str() {
                "frontend" | "listen" => !binds.contains_key(&name),
                "backend" => !servers.contains_key(&name),
                _ => false,
            };
            servers_done = false;
        }
        if skip {
            continue;
        }
        let word = t.split_whitespace().next().unwrap_or("");
        match (kind.as_str(), word) {
            ("global", "user" | "group" | "chroot" | "daemon") => continue,
            ("frontend" | "listen", "bind") => {
                out.push_str(&format!("    bind 127.0.0.1:{}\n", binds[&name]));
                continue;
            }
            ("backend", "server") => {
                if !servers_done {
                    let mut w = t.split_whitespace().skip(1);
                    let first = w.next().unwrap_or("");
                    let opts: Vec<&str> = w.skip(1).collect();
                    for (srv, addr) in &servers[&name] {
                        let o = opts.join(" ").replace(&format!("/{first}"), &format!("/{srv}"));
                        out.push_str(&format!("    server {srv} {addr} {o}\n"));
                    }
                    servers_done = true;
                }
                continue;
            }
            _ => {}
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The haproxy binary (PATH, then Debian's /usr/sbin); `scripts/haproxy-setup` installs it.
pub fn binary() -> anyhow::Result<String> {
    if let Ok(path) = std::env::var("PATH") {
        for d in std::env::split_paths(&path) {
            let p = d.join("haproxy");
            if p.is_file() {
                return Ok(p.display().to_string());
            }
        }
    }
    let p = "/usr/sbin/haproxy";
    anyhow::ensure!(
        std::path::Path::new(p).is_file(),
        "haproxy not found: install it (scripts/haproxy-setup does, with apt-get)"
    );
    Ok(p.to_string())
}

/// A HAProxy in the foreground (`-db`) on `cfg`, killed when dropped.
pub struct Haproxy {
    pub child: tokio::process::Child,
    _dir: std::path::PathBuf,
}

impl Haproxy {
    /// Checks `cfg` (`haproxy -c`), starts it, and waits until `port` accepts connections.
    pub async fn start(cfg: &str, port: u16) -> anyhow::Result<Haproxy> {
        let bin = binary()?;
        let dir = std::env::temp_dir().join(format!("giro-haproxy-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("giro.cfg");
        std::fs::write(&path, cfg)?;
        let check = tokio::process::Command::new(&bin).arg("-c").arg("-f").arg(&path).output().await?;
        anyhow::ensure!(check.status.success(), "haproxy -c: {}", String::from_utf8_lossy(&check.stderr));
        let child = tokio::process::Command::new(&bin)
            .arg("-db")
            .arg("-f")
            .arg(&path)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("starting haproxy")?;
        let t0 = Instant::now();
        while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
            anyhow::ensure!(t0.elapsed() < Duration::from_secs(20), "haproxy did not listen on {port}");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(Haproxy { child, _dir: dir })
    }
}

impl Drop for Haproxy {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self._dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_is_rewritten_for_loopback_and_unlisted_sections_are_left_out() {
        let binds: BTreeMap<String, u16> =
            [("mercado_api".to_string(), 4000), ("stats".to_string(), 4001)].into_iter().collect();
        let a: SocketAddr = "127.0.0.1:5001".parse().unwrap_or_else(|_| unreachable!());
        let b: SocketAddr = "127.0.0.1:5002".parse().unwrap_or_else(|_| unreachable!());
        let servers: BTreeMap<String, Vec<(String, SocketAddr)>> = [
            ("mercado_api".to_string(), vec![("m1".to_string(), a), ("m2".to_string(), b)]),
            ("mercado_servicos".to_string(), vec![("m1".to_string(), a), ("m2".to_string(), b)]),
        ]
        .into_iter()
        .collect();
        let c = config(&binds, &servers);
        assert!(c.contains("    bind 127.0.0.1:4000\n") && c.contains("    bind 127.0.0.1:4001\n"), "{c}");
        assert!(c.contains("    server m2 127.0.0.1:5002 \n"), "{c}");
        assert!(c.contains("    server m2 127.0.0.1:5002 no-check track mercado_api/m2\n"), "{c}");
        assert!(!c.contains("10.0.0.") && !c.contains("backend estoque") && !c.contains("    chroot"), "{c}");
        assert!(c.contains("http-check send meth GET uri /readyz"), "{c}");
    }
}
