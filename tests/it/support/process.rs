//! The real `giro` binary as a child process, its log collected line by line.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::{ESTOQUE_TOKEN, MERCADO_TOKEN, OPERADOR, SENHA};

/// The environment every `giro` process of the tests starts from — the service tokens, the
/// operator's login, listening on loopback only — with `vars` over it (a later key wins).
pub fn env_base(vars: impl IntoIterator<Item = (&'static str, String)>) -> BTreeMap<&'static str, String> {
    let mut env: BTreeMap<&'static str, String> = [
        ("MERCADO_TOKEN_SERVICO", MERCADO_TOKEN.to_string()),
        ("ESTOQUE_TOKEN_SERVICO", ESTOQUE_TOKEN.to_string()),
        ("OPERADOR_USUARIO", OPERADOR.to_string()),
        ("OPERADOR_SENHA", SENHA.to_string()),
        ("GIRO_HTTP_ENDERECO", "127.0.0.1".to_string()),
    ]
    .into_iter()
    .collect();
    env.extend(vars);
    env
}

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
    log: Arc<Log>,
    readers: Vec<std::thread::JoinHandle<()>>,
}

/// The secrets a process was configured with (tokens, the operator password): every line it
/// writes is checked for them, so no test run of the real binary can log one unnoticed.
fn configured_secrets(c: &Command) -> Vec<String> {
    c.get_envs()
        .filter_map(|(k, v)| {
            let k = k.to_string_lossy();
            let secret = k.contains("TOKEN") || k.contains("SENHA") || k.contains("PASSWORD");
            let v = v?.to_string_lossy().into_owned();
            (secret && v.len() >= 8).then_some(v)
        })
        .collect()
}

/// The child's output so far, and a signal on every new line and on each pipe's end.
struct Log {
    state: Mutex<LogState>,
    /// Bumped on every line and every pipe closed; waiters wake on it (no polling).
    changed: tokio::sync::watch::Sender<u64>,
}

#[derive(Default)]
struct LogState {
    lines: Vec<String>,
    /// Lines that contained a configured secret (see [`configured_secrets`]).
    leaks: Vec<String>,
    /// stdout and stderr still open; 0 = the process (and anything it passed them to) is gone.
    open: usize,
}

impl Log {
    fn touch(&self) {
        self.changed.send_modify(|n| *n += 1);
    }
}

impl Giro {
    pub fn spawn(args: &[&str], env: &BTreeMap<&str, String>) -> Giro {
        Self::spawn_command(command(args, env))
    }

    pub fn spawn_command(mut c: Command) -> Giro {
        c.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::null());
        let secrets = Arc::new(configured_secrets(&c));
        let mut child = c.spawn().expect("spawn giro");
        let pipes: Vec<Box<dyn std::io::Read + Send>> = [
            child.stdout.take().map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
            child.stderr.take().map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        ]
        .into_iter()
        .flatten()
        .collect();
        let log = Arc::new(Log {
            state: Mutex::new(LogState { lines: Vec::new(), leaks: Vec::new(), open: pipes.len() }),
            changed: tokio::sync::watch::Sender::new(0),
        });
        let readers = pipes
            .into_iter()
            .map(|out| {
                let log = log.clone();
                let secrets = secrets.clone();
                std::thread::spawn(move || {
                    for line in BufReader::new(out).lines().map_while(Result::ok) {
                        let mut state = log.state.lock().expect("log");
                        if secrets.iter().any(|s| line.contains(s.as_str())) {
                            state.leaks.push(line.clone());
                        }
                        state.lines.push(line);
                        drop(state);
                        log.touch();
                    }
                    log.state.lock().expect("log").open -= 1;
                    log.touch();
                })
            })
            .collect();
        Giro { child, log, readers }
    }

    pub fn log(&self) -> String {
        self.log.state.lock().expect("log").lines.join("\n")
    }

    /// Waits until `found` returns something for the output so far, or the output ends (both
    /// pipes closed: `Err(())`), or `timeout` passes (`Ok(None)`), waking on each new line.
    async fn wait_on_log<T>(
        &mut self,
        timeout: Duration,
        mut found: impl FnMut(&LogState) -> Option<T>,
    ) -> Result<Option<T>, ()> {
        let deadline = tokio::time::Instant::now() + timeout;
        // Subscribed before looking, so a line pushed after the look still wakes us.
        let mut changed = self.log.changed.subscribe();
        loop {
            {
                let state = self.log.state.lock().expect("log");
                if let Some(t) = found(&state) {
                    return Ok(Some(t));
                }
                if state.open == 0 {
                    drop(state);
                    self.join_readers();
                    return Err(());
                }
            }
            if tokio::time::timeout_at(deadline, changed.changed()).await.is_err() {
                return Ok(None);
            }
        }
    }

    /// The reader threads have seen both pipes end: join them, so the log is complete.
    fn join_readers(&mut self) {
        for r in self.readers.drain(..) {
            r.join().expect("log reader thread");
        }
    }

    /// Waits for a log line containing `needle`; returns it.
    pub async fn wait_for_line(&mut self, needle: &str, timeout: Duration) -> String {
        let got = self.wait_on_log(timeout, |s| s.lines.iter().find(|l| l.contains(needle)).cloned()).await;
        match got {
            Ok(Some(line)) => line,
            Ok(None) => panic!("giro did not log {needle:?} within {timeout:?}; log:\n{}", self.log()),
            Err(()) => {
                let status = self.child.wait().expect("wait");
                panic!("giro exited ({status}) before logging {needle:?}; log:\n{}", self.log())
            }
        }
    }

    /// Waits for a log line for which `matches` holds; returns it. (A line logged while a request
    /// is answered may reach the log reader after the answer: look with this, not with `log()`.)
    pub async fn wait_for_line_where(
        &mut self,
        what: &str,
        matches: impl Fn(&str) -> bool,
        timeout: Duration,
    ) -> String {
        let got = self.wait_on_log(timeout, |s| s.lines.iter().find(|l| matches(l)).cloned()).await;
        match got {
            Ok(Some(line)) => line,
            _ => panic!("giro did not log {what} within {timeout:?}; log:\n{}", self.log()),
        }
    }

    /// Waits for a log line containing `needle` that comes after the first line containing
    /// `after`; returns it.
    pub async fn wait_for_line_after(&mut self, after: &str, needle: &str, timeout: Duration) -> String {
        let got = self
            .wait_on_log(timeout, |s| {
                let i = s.lines.iter().position(|l| l.contains(after))?;
                s.lines[i + 1..].iter().find(|l| l.contains(needle)).cloned()
            })
            .await;
        match got {
            Ok(Some(line)) => line,
            _ => {
                panic!("giro did not log {needle:?} after {after:?} within {timeout:?}; log:\n{}", self.log())
            }
        }
    }

    /// Waits for the "listening on http://ADDR" line and returns ADDR.
    pub async fn wait_listening(&mut self) -> SocketAddr {
        let line = self.wait_for_line("listening on http://", Duration::from_secs(30)).await;
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

    /// Waits for the process to exit within `timeout`: its output ends, then its status is read.
    /// The log is complete when this returns.
    pub async fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        match self.wait_on_log(timeout, |_| None::<()>).await {
            Err(()) => Some(self.child.wait().expect("wait")),
            // Something it started may hold its output open: the status tells whether it ended.
            Ok(_) => self.child.try_wait().ok().flatten(),
        }
    }
}

impl Drop for Giro {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let leaks = self.log.state.lock().map(|s| s.leaks.clone()).unwrap_or_default();
        if !leaks.is_empty() && !std::thread::panicking() {
            panic!("giro logged a configured secret:\n{}", leaks.join("\n"));
        }
    }
}
