//! The real `giro` binary as a child process, its log collected line by line.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_giro")
}

/// A `Command` for `giro` with a clean environment: only what the test passes (plus PATH/HOME),
/// run in an empty directory so no `config/giro.toml` or `.env` of the checkout is read.
pub fn command(args: &[&str], env: &BTreeMap<&str, String>) -> Command {
    let mut c = Command::new(bin());
    c.args(args).env_clear().current_dir(scratch_dir());
    for var in ["PATH", "HOME"] {
        if let Ok(v) = std::env::var(var) {
            c.env(var, v);
        }
    }
    c.env("RUST_LOG", "info");
    for (k, v) in env {
        c.env(k, v);
    }
    c
}

/// An empty directory of the test's own.
pub fn scratch_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("giro-test-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

pub struct Giro {
    pub child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Giro {
    pub fn spawn(args: &[&str], env: &BTreeMap<&str, String>) -> Giro {
        Self::spawn_command(command(args, env))
    }

    pub fn spawn_command(mut c: Command) -> Giro {
        c.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::null());
        let mut child = c.spawn().expect("spawn giro");
        let lines = Arc::new(Mutex::new(Vec::new()));
        for out in [
            child.stdout.take().map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child.stderr.take().map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(out).lines().map_while(Result::ok) {
                    lines.lock().expect("lines").push(line);
                }
            });
        }
        Giro { child, lines }
    }

    pub fn log(&self) -> String {
        self.lines.lock().expect("lines").join("\n")
    }

    /// Waits for a log line containing `needle`; returns it.
    pub fn wait_for_line(&mut self, needle: &str, timeout: Duration) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(l) = self.lines.lock().expect("lines").iter().find(|l| l.contains(needle)) {
                return l.clone();
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                // Give the reader threads a moment to drain the pipes before reporting.
                std::thread::sleep(Duration::from_millis(100));
                panic!("giro exited ({status}) before logging {needle:?}; log:\n{}", self.log());
            }
            if Instant::now() > deadline {
                panic!("giro did not log {needle:?} within {timeout:?}; log:\n{}", self.log());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Waits for the "listening on http://ADDR" line and returns ADDR.
    pub fn wait_listening(&mut self) -> SocketAddr {
        let line = self.wait_for_line("listening on http://", Duration::from_secs(30));
        let start = line.find("listening on http://").map(|i| i + "listening on http://".len()).unwrap_or(0);
        // Human or JSON lines: the address ends at the first character an address cannot have.
        let addr: String = line[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | ':' | '[' | ']'))
            .collect();
        addr.parse().unwrap_or_else(|e| panic!("bad address {addr:?} in {line:?}: {e}"))
    }

    pub fn signal(&self, sig: &str) {
        let status = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("kill");
        assert!(status.success(), "kill -{sig} failed");
    }

    /// Waits for the process to exit within `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(s)) = self.child.try_wait() {
                return Some(s);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Giro {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
