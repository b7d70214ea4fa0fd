//! Contract test (SPEC §7.4, issue 6): estoque's tag client — the very `ClienteTags` the service
//! runs — against the real tag-worker, started from `tag-worker/` with uvicorn on a free loopback
//! port. This is the test that caught the original's bug (an h2c upgrade made uvicorn drop the
//! body): the classification coming back proves the body arrived.
//!
//! The interpreter is `$GIRO_TAG_WORKER_PYTHON` (exported by `scripts/test`), else
//! `tag-worker/.venv/bin/python`; when neither exists the test fails saying how to create it —
//! it is never skipped silently.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use giro::config::{Secret, TagsConfig};
use giro::estoque::classificacao::{Classificacao, ClienteTags};

const COCA: &str = "7894900011517";
const TOKEN: &str = "token-do-tag-worker-para-o-teste-de-contrato";

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

/// The real tag-worker as a child process; killed when dropped.
struct Worker {
    child: Child,
    url: String,
    log: PathBuf,
}

impl Worker {
    /// Starts it in keyword mode (no LLM key), with `token` required when given, and waits for
    /// `GET /saude` to answer.
    async fn start(token: Option<&str>) -> Worker {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let log = std::env::temp_dir().join(format!("giro-tag-worker-{}.log", uuid::Uuid::new_v4()));
        let out = std::fs::File::create(&log).unwrap();
        let child = Command::new(python())
            .args(["-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port", &port.to_string()])
            .current_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tag-worker"))
            // The environment wins over the worker's .env files: empty means unset for both.
            .env("GROQ_API_KEY", "")
            .env("TAG_WORKER_TOKEN", token.unwrap_or(""))
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the tag-worker with {}: {e}", python().display()));
        let mut w = Worker { child, url: format!("http://127.0.0.1:{port}"), log };
        w.wait_healthy().await;
        w
    }

    async fn wait_healthy(&mut self) {
        let http = reqwest::Client::builder().timeout(Duration::from_secs(2)).build().unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("the tag-worker exited ({status}) before answering /saude:\n{}", self.log());
            }
            if let Ok(res) = http.get(format!("{}/saude", self.url)).send().await {
                if res.status() == 200 {
                    return;
                }
            }
            assert!(Instant::now() < deadline, "the tag-worker did not answer /saude within 30 s:\n{}", self.log());
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The service's client, configured as estoque configures it.
    fn cliente(&self, token: Option<&str>) -> ClienteTags {
        ClienteTags::new(&TagsConfig {
            worker_url: self.url.clone(),
            worker_token: token.map(Secret::new),
            timeout: Duration::from_secs(2),
            reclassificacao_habilitada: false,
            intervalo_reclassificacao: Duration::from_secs(300),
            lote_reclassificacao: 20,
        })
        .unwrap()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_file(&self.log);
    }
}

fn coca() -> Option<Classificacao> {
    Some(Classificacao {
        tags: vec!["coca".into(), "cola".into(), "2l".into(), "pet".into()],
        categoria: "bebidas".into(),
    })
}

#[tokio::test]
async fn the_estoque_client_classifies_through_the_real_tag_worker() {
    let worker = Worker::start(None).await;
    let cliente = worker.cliente(None);

    assert_eq!(cliente.classificar(COCA, "COCA COLA 2L PET").await, coca(), "{}", worker.log());
    let leite = cliente.classificar("7891000100103", "LEITE INTEGRAL 1L").await;
    assert_eq!(leite.map(|c| c.categoria).as_deref(), Some("laticinios"));
    // A body the worker rejects (422: invalid SKU) is no classification, not an error.
    assert_eq!(cliente.classificar("123", "COCA COLA 2L PET").await, None);
}

#[tokio::test]
async fn with_a_token_on_both_sides_it_works_and_a_client_without_it_gets_nothing() {
    let worker = Worker::start(Some(TOKEN)).await;

    assert_eq!(worker.cliente(Some(TOKEN)).classificar(COCA, "COCA COLA 2L PET").await, coca(), "{}", worker.log());
    assert_eq!(worker.cliente(None).classificar(COCA, "COCA COLA 2L PET").await, None, "401 without the token");
    assert_eq!(worker.cliente(Some("outro-token-qualquer-0123")).classificar(COCA, "COCA COLA 2L PET").await, None);
}
