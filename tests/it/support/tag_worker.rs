//! The real tag-worker (keyword classifier, no LLM key) as a child process on a free loopback
//! port, for the contract test and the end-to-end market; killed when dropped.
//!
//! The interpreter is `$GIRO_TAG_WORKER_PYTHON` (exported by `scripts/test`), else
//! `tag-worker/.venv/bin/python`; when neither exists the test fails saying how to create it —
//! it is never skipped silently.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn python() -> PathBuf {
    let path = match std::env::var_os("GIRO_TAG_WORKER_PYTHON") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tag-worker/.venv/bin/python"),
    };
    assert!(
        path.exists(),
        "the tag-worker's Python is missing at {}: run scripts/tag-worker-setup (or scripts/test, which does) \
         or set GIRO_TAG_WORKER_PYTHON",
        path.display()
    );
    path
}

pub struct TagWorker {
    child: Child,
    pub url: String,
    log: PathBuf,
}

impl TagWorker {
    /// Starts it with `token` required when given, and waits for `GET /saude` to answer.
    pub async fn start(token: Option<&str>) -> TagWorker {
        let port = super::free_port();
        let log = std::env::temp_dir().join(format!("giro-tag-worker-{}.log", uuid::Uuid::new_v4()));
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(python())
            .args([
                // The console script, as the systemd unit runs it: with its connection bounds.
                "-m",
                "app.cli",
                "--host",
                "127.0.0.1",
                "--port",
                &port.to_string(),
                "--log-level",
                "warning",
            ])
            .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tag-worker"))
            // The environment wins over the worker's .env files: empty means unset for both.
            .env("GROQ_API_KEY", "")
            .env("TAG_WORKER_TOKEN", token.unwrap_or(""))
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the tag-worker with {}: {e}", python().display()));
        let mut w = TagWorker { child, url: format!("http://127.0.0.1:{port}"), log };
        let http = reqwest::Client::builder().timeout(Duration::from_secs(2)).build().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(status)) = w.child.try_wait() {
                panic!("the tag-worker exited ({status}) before answering /saude:\n{}", w.log());
            }
            if let Ok(res) = http.get(format!("{}/saude", w.url)).send().await {
                if res.status() == 200 {
                    return w;
                }
            }
            assert!(
                Instant::now() < deadline,
                "the tag-worker did not answer /saude within 30 s:\n{}",
                w.log()
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for TagWorker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}
