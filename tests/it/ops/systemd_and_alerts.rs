//! Operations (issue 10): systemd readiness on a notify socket the test provides, JSON logs that
//! parse and hold no secret, one log line per request, `giro migrate --esperar`, the separate
//! publisher's metrics, the systemd units (`systemd-analyze` when present) and the alert rules
//! (`promtool` when present).

use std::collections::BTreeMap;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use giro_infra::db::Db;
use giro_servicos::config::Servico;
use serde_json::Value;

use crate::outbox::publisher::{solicitada, write};
use crate::support::chaos;
use crate::support::process::{command, env_base, scratch_dir, Giro};
use crate::support::{wait_until, TestDb, ESTOQUE_TOKEN, MERCADO_TOKEN, OPERADOR, SENHA};

/// A notification socket like systemd's: every datagram received, in order.
struct NotifySocket {
    path: PathBuf,
    received: Arc<Mutex<Vec<String>>>,
}

impl NotifySocket {
    fn bind() -> NotifySocket {
        let path = scratch_dir().join("notify.sock");
        let sock = UnixDatagram::bind(&path).unwrap();
        sock.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let r = received.clone();
        // Ends with the test process; a detached reader is enough.
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            loop {
                if let Ok(n) = sock.recv(&mut buf) {
                    r.lock().unwrap().push(String::from_utf8_lossy(&buf[..n]).into_owned());
                }
            }
        });
        NotifySocket { path, received }
    }

    fn messages(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }

    /// Whether some datagram carries the assignment `line` (e.g. `READY=1`).
    fn has(&self, line: &str) -> bool {
        self.messages().iter().any(|m| m.lines().any(|l| l == line))
    }

    async fn wait_for(&self, line: &str, timeout: Duration) {
        wait_until(timeout, line, || async { self.has(line).then_some(()) }).await;
    }
}

fn service_env(db_url: String) -> BTreeMap<&'static str, String> {
    env_base([
        ("MERCADO_DB_URL", db_url),
        ("MERCADO_PORTA", "0".to_string()),
        ("GIRO_DB_TIMEOUT", "1s".to_string()),
        // Nothing listens there: deliveries fail, and must be logged without a secret.
        ("ESTOQUE_EVENTOS_URL", "http://127.0.0.1:9".to_string()),
        ("ESTOQUE_URL", "http://127.0.0.1:9".to_string()),
    ])
}

#[tokio::test]
async fn mercado_sends_ready_only_once_its_database_answers_and_stopping_on_sigterm() {
    let db = TestDb::new(Servico::Mercado).await;
    let (proxy, url) = chaos::in_front_of(&db).await;
    proxy.cut();
    let notify = NotifySocket::bind();
    let mut env = service_env(url);
    env.insert("NOTIFY_SOCKET", notify.path.display().to_string());
    let mut giro = Giro::spawn(&["mercado", "serve"], &env);
    let addr = giro.wait_listening().await;

    // Listening, but the database does not answer: no READY=1, only a status saying why.
    notify.wait_for("STATUS=mercado: waiting for the database", Duration::from_secs(10)).await;
    let http = reqwest::Client::new();
    assert_eq!(http.get(format!("http://{addr}/readyz")).send().await.unwrap().status(), 503);
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert!(!notify.has("READY=1"), "READY=1 before the database answered: {:?}", notify.messages());

    proxy.restore();
    let restored = Instant::now();
    notify.wait_for("READY=1", Duration::from_secs(20)).await;
    let ready_after = restored.elapsed();
    // READY=1 says one check passed; the probe itself may still meet start-up's reconnections.
    wait_until(Duration::from_secs(20), "readyz 200 after READY=1", || async {
        let r = http.get(format!("http://{addr}/readyz")).send().await.ok()?;
        (r.status() == 200).then_some(())
    })
    .await;
    assert!(!notify.has("STOPPING=1"));

    giro.signal("TERM");
    notify.wait_for("STOPPING=1", Duration::from_secs(15)).await;
    let status = giro.wait_exit(Duration::from_secs(15)).await.expect("giro did not stop after SIGTERM");
    assert!(status.success(), "exit status {status}");
    let m = notify.messages();
    let ready = m.iter().position(|m| m.lines().any(|l| l == "READY=1")).unwrap();
    let stopping = m.iter().position(|m| m.lines().any(|l| l == "STOPPING=1")).unwrap();
    assert!(ready < stopping, "{m:?}");
    eprintln!("READY=1 {ready_after:?} after the database came back; notifications: {m:?}");
}

#[tokio::test]
async fn a_separate_publisher_sends_ready_once_its_database_answers_and_serves_its_delivery_counters() {
    let db = TestDb::new(Servico::Mercado).await;
    let notify = NotifySocket::bind();
    let mut env = service_env(db.url());
    env.insert("NOTIFY_SOCKET", notify.path.display().to_string());
    env.insert("GIRO_PUBLISHER_PORTA_METRICAS", "0".to_string());
    let mut giro = Giro::spawn(&["publisher", "--db", "mercado"], &env);
    let addr = giro.wait_listening().await;
    notify.wait_for("READY=1", Duration::from_secs(15)).await;

    let dbh = Db::new(db.pool(), true);
    let evento = solicitada(3);
    write(&dbh, std::slice::from_ref(&evento)).await;
    let http = reqwest::Client::new();
    let line = "giro_outbox_deliveries_total{tipo=\"ReposicaoSolicitada\",result=\"transient\"}";
    wait_until(
        Duration::from_secs(15),
        "the failed delivery counted on the publisher's /metrics",
        || async {
            let text = http.get(format!("http://{addr}/metrics")).send().await.ok()?.text().await.ok()?;
            text.contains(line).then_some(())
        },
    )
    .await;
    assert_eq!(http.get(format!("http://{addr}/healthz")).send().await.unwrap().status(), 200);
    giro.wait_for_line(&evento.event_id().to_string(), Duration::from_secs(15)).await;

    giro.signal("TERM");
    notify.wait_for("STOPPING=1", Duration::from_secs(15)).await;
    let status =
        giro.wait_exit(Duration::from_secs(15)).await.expect("the publisher did not stop after SIGTERM");
    assert!(status.success(), "exit status {status}");
}

/// A login role with a password of its own (so the test can look for it in the log), allowed to
/// use `db`'s tables; dropped at the end.
struct Role {
    name: String,
    password: String,
}

impl Role {
    async fn create(db: &TestDb) -> Role {
        let id = uuid::Uuid::new_v4().simple().to_string();
        let role = Role { name: format!("giro_ops_{}", &id[..12]), password: format!("db-senha-{id}") };
        let admin = crate::support::db::admin().await;
        admin
            .batch_execute(&format!("CREATE ROLE {} LOGIN PASSWORD '{}'", role.name, role.password))
            .await
            .unwrap();
        db.client()
            .await
            .batch_execute(&format!(
                "GRANT USAGE ON SCHEMA public TO {r}; \
                 GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {r}; \
                 GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {r};",
                r = role.name
            ))
            .await
            .unwrap();
        role
    }

    fn url(&self, db: &TestDb) -> String {
        let cfg = &db.pg;
        let host = match cfg.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
            _ => "127.0.0.1".to_string(),
        };
        let port = cfg.get_ports().first().copied().unwrap_or(5432);
        format!("postgres://{}:{}@{host}:{port}/{}", self.name, self.password, db.name)
    }

    async fn drop_in(self, db: &TestDb) {
        db.client().await.batch_execute(&format!("DROP OWNED BY {}", self.name)).await.unwrap();
        crate::support::db::admin().await.batch_execute(&format!("DROP ROLE {}", self.name)).await.unwrap();
    }
}

/// The wrong credentials the test tries; they must not be logged either.
const WRONG_TOKEN: &str = "wrong-token-ffffffffffffffffffffffffffffffff";
const WRONG_SENHA: &str = "senha-errada-do-operador-99";

#[tokio::test]
async fn json_logs_parse_line_by_line_carry_route_status_and_latency_and_hold_no_secret() {
    let db = TestDb::new(Servico::Mercado).await;
    let role = Role::create(&db).await;
    let giro_env = service_env(role.url(&db));
    let mut giro = Giro::spawn(&["--log-format", "json", "mercado", "serve"], &giro_env);
    let addr = giro.wait_listening().await;
    let base = format!("http://{addr}");
    let http = reqwest::Client::new();
    let csrf = "csrf-do-teste-0123456789";

    // (method, route, status) of each request, in order.
    let mut expected: Vec<(&str, &str, u16)> = Vec::new();
    let mut check = |method, route, res: &reqwest::Response, status| {
        assert_eq!(res.status().as_u16(), status, "{method} {route}");
        expected.push((method, route, status));
    };
    let res = http.get(format!("{base}/healthz")).send().await.unwrap();
    check("GET", "/healthz", &res, 200);
    let res = wait_until(Duration::from_secs(10), "readyz 200", || async {
        let r = http.get(format!("{base}/readyz")).send().await.ok()?;
        (r.status() == 200).then_some(r)
    })
    .await;
    check("GET", "/readyz", &res, 200);
    let res = http
        .post(format!("{base}/eventos"))
        .bearer_auth(WRONG_TOKEN)
        .header("Evento-Tipo", "ReposicaoNegada")
        .body("{}")
        .send()
        .await
        .unwrap();
    check("POST", "/eventos", &res, 401);
    let login = |senha: &'static str| {
        http.post(format!("{base}/sessao"))
            .header("cookie", format!("XSRF-MERCADO={csrf}"))
            .header("x-xsrf-token", csrf)
            .form(&[("usuario", OPERADOR), ("senha", senha)])
            .send()
    };
    let res = login(WRONG_SENHA).await.unwrap();
    check("POST", "/sessao", &res, 401);
    let res = login(SENHA).await.unwrap();
    check("POST", "/sessao", &res, 204);
    let sessao = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| {
            v.to_str().ok()?.split(';').next()?.strip_prefix("MERCADO_SESSAO=").map(str::to_string)
        })
        .next()
        .expect("a session cookie");
    let res = http
        .get(format!("{base}/sessao"))
        .header("cookie", format!("MERCADO_SESSAO={sessao}"))
        .send()
        .await
        .unwrap();
    check("GET", "/sessao", &res, 200);
    let res = http.get(format!("{base}/nada-aqui?token={WRONG_TOKEN}")).send().await.unwrap();
    check("GET", "unmatched", &res, 401);
    let res = http
        .post(format!("{base}/eventos"))
        .bearer_auth(MERCADO_TOKEN)
        .header("content-type", "application/json")
        .header("Evento-Tipo", "ReposicaoNegada")
        .body(r#"{"eventId":"nao-e-uuid"}"#)
        .send()
        .await
        .unwrap();
    check("POST", "/eventos", &res, 400);

    // An event for estoque, whose address answers nothing: a logged delivery failure.
    let dbh = Db::new(db.pool(), false);
    let evento = solicitada(2);
    write(&dbh, std::slice::from_ref(&evento)).await;
    let event_id = evento.event_id().to_string();
    giro.wait_for_line(&event_id, Duration::from_secs(10)).await;

    giro.signal("TERM");
    let status = giro.wait_exit(Duration::from_secs(15)).await.expect("giro did not stop");
    assert!(status.success(), "exit status {status}");
    let log = giro.log();

    let lines: Vec<Value> = log
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}"));
            assert!(
                v.is_object()
                    && v["timestamp"].is_string()
                    && v["level"].is_string()
                    && v["message"].is_string(),
                "{l}"
            );
            v
        })
        .collect();
    let requests: Vec<&Value> = lines.iter().filter(|v| v["message"] == "request").collect();
    let got: Vec<(String, String, u64)> = requests
        .iter()
        .map(|v| {
            assert!(v["latency_ms"].as_f64().is_some_and(|ms| ms >= 0.0), "latency_ms in {v}");
            (
                v["method"].as_str().unwrap_or("?").to_string(),
                v["route"].as_str().unwrap_or("?").to_string(),
                v["status"].as_u64().unwrap_or(0),
            )
        })
        // The readiness poll may see 503 before the database answers; each of those is a request
        // line too, but how many there are depends on the machine's speed.
        .filter(|(m, r, s)| !(m == "GET" && r == "/readyz" && *s == 503))
        .collect();
    let expected: Vec<(String, String, u64)> =
        expected.iter().map(|(m, r, s)| (m.to_string(), r.to_string(), u64::from(*s))).collect();
    assert_eq!(got, expected, "exactly one request line per request, with method, route and status");

    let failure = lines
        .iter()
        .find(|v| v["event_id"] == event_id.as_str())
        .unwrap_or_else(|| panic!("no log line for the failed delivery of {event_id}:\n{log}"));
    assert_eq!(failure["tipo"], "ReposicaoSolicitada", "{failure}");
    assert!(failure["message"].as_str().unwrap_or("").starts_with("delivery failed"), "{failure}");
    assert!(
        lines.iter().any(|v| v["message"] == "invalid service token"),
        "the wrong token is noticed:\n{log}"
    );
    assert!(
        lines.iter().any(|v| v["message"] == "operator login refused"),
        "the wrong password is noticed:\n{log}"
    );

    for secret in [
        MERCADO_TOKEN,
        ESTOQUE_TOKEN,
        SENHA,
        WRONG_TOKEN,
        WRONG_SENHA,
        role.password.as_str(),
        sessao.as_str(),
    ] {
        assert!(!log.contains(secret), "a secret ({secret}) is in the log:\n{log}");
    }
    role.drop_in(&db).await;
}

#[tokio::test]
async fn human_logs_have_one_line_per_request_with_route_status_and_latency() {
    let db = TestDb::new(Servico::Mercado).await;
    let mut giro = Giro::spawn(&["mercado", "serve"], &service_env(db.url()));
    let addr = giro.wait_listening().await;
    let http = reqwest::Client::new();
    for path in ["/healthz", "/healthz", "/nada-aqui"] {
        http.get(format!("http://{addr}{path}")).send().await.unwrap();
    }
    giro.signal("TERM");
    giro.wait_exit(Duration::from_secs(15)).await.expect("giro did not stop");
    let log = giro.log();
    let requests: Vec<&str> = log.lines().filter(|l| l.contains(" request method=")).collect();
    assert_eq!(requests.len(), 3, "{log}");
    for (line, (route, status)) in
        requests.iter().zip([("/healthz", 200), ("/healthz", 200), ("unmatched", 401)])
    {
        assert!(line.contains(&format!("route={route} status={status} latency_ms=")), "{line}");
        assert!(serde_json::from_str::<Value>(line).is_err(), "human, not JSON: {line}");
    }
}

#[test]
fn migrate_esperar_waits_for_the_database_then_gives_up_with_an_error() {
    // A port nobody listens on.
    let port = crate::support::free_port();
    let env: BTreeMap<&str, String> = [
        ("MERCADO_DB_URL", format!("postgres://mercado:senha-do-banco-ops@127.0.0.1:{port}/mercado")),
        ("GIRO_DB_TIMEOUT", "500ms".into()),
    ]
    .into_iter()
    .collect();
    let started = Instant::now();
    let out = command(&["migrate", "--db", "mercado", "--esperar", "2s"], &env).output().unwrap();
    let took = started.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // It waited its --wait (given as the old --esperar, still accepted) (the outcome, an error naming it, is asserted below).
    assert!(took >= Duration::from_secs(2), "{took:?}");
    assert!(stderr.contains("the database did not answer within --wait 2s"), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "waiting for the mercado database mercado on 127.0.0.1:{port} as role mercado (MERCADO_DB_URL)"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("senha-do-banco-ops"), "{stderr}");
}

#[tokio::test]
async fn migrate_esperar_migrates_as_soon_as_the_database_answers() {
    let db = TestDb::new(Servico::Mercado).await;
    let env: BTreeMap<&str, String> = [("MERCADO_DB_URL", db.url())].into_iter().collect();
    let out = command(&["migrate", "--db", "mercado", "--esperar", "30s"], &env).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

// ---- files under config/ ----

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

const UNITS: [&str; 4] =
    ["giro-mercado.service", "giro-estoque.service", "giro-migrate@.service", "giro-publisher@.service"];

/// `Key=value` assignments of a unit file, in order (comments and sections skipped).
fn assignments(text: &str) -> Vec<(String, String)> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with('['))
        .filter_map(|l| l.split_once('=').map(|(k, v)| (k.trim().to_string(), v.trim().to_string())))
        .collect()
}

fn seconds(v: &str) -> u64 {
    let v = v.trim();
    if let Some(m) = v.strip_suffix("min") {
        m.parse::<u64>().unwrap() * 60
    } else {
        v.trim_end_matches('s').parse().unwrap_or_else(|_| panic!("a duration in seconds or minutes: {v}"))
    }
}

#[test]
fn the_systemd_units_carry_readiness_restart_sandboxing_and_a_stop_timeout_above_the_grace_period() {
    let defaults = giro_servicos::config::Config::load(&giro_servicos::config::Sources {
        cwd: scratch_dir(),
        ..Default::default()
    })
    .unwrap();
    let grace = defaults.prazo_desligamento.as_secs();
    for unit in UNITS {
        let text = std::fs::read_to_string(repo(&format!("config/systemd/{unit}"))).unwrap();
        let a = assignments(&text);
        let get = |k: &str| a.iter().filter(|(key, _)| key == k).map(|(_, v)| v.as_str()).collect::<Vec<_>>();
        let one = |k: &str| get(k).first().copied().unwrap_or_else(|| panic!("{unit}: no {k}="));
        for (k, v) in [
            ("DynamicUser", "yes"),
            ("ProtectSystem", "strict"),
            ("ProtectHome", "yes"),
            ("NoNewPrivileges", "yes"),
            ("PrivateTmp", "yes"),
            ("ProtectKernelTunables", "yes"),
            ("ProtectKernelModules", "yes"),
            ("ProtectKernelLogs", "yes"),
            ("RestrictAddressFamilies", "AF_INET AF_INET6 AF_UNIX"),
            ("CapabilityBoundingSet", ""),
            ("SystemCallFilter", "@system-service"),
        ] {
            assert!(get(k).contains(&v), "{unit}: {k}={v} missing");
        }
        assert!(get("EnvironmentFile").contains(&"/etc/giro/giro.env"), "{unit}");
        assert!(one("ExecStart").starts_with("/usr/local/bin/giro "), "{unit}");
        if unit.starts_with("giro-migrate@") {
            assert_eq!(one("Type"), "oneshot");
            assert_eq!(one("RemainAfterExit"), "yes");
            assert!(one("ExecStart").contains("migrate --db %i --wait"), "{unit}");
            continue;
        }
        assert_eq!(one("Type"), "notify", "{unit}");
        assert_eq!(one("Restart"), "on-failure", "{unit}");
        assert_eq!(one("RestartPreventExitStatus"), "2", "{unit}: a configuration error is not retried");
        assert_eq!(get("WantedBy"), ["multi-user.target"], "{unit}");
        let stop = seconds(one("TimeoutStopSec"));
        if unit.starts_with("giro-publisher@") {
            assert!(stop > grace, "{unit}: TimeoutStopSec={stop}s must exceed the {grace}s grace period");
            assert!(one("Environment").starts_with("GIRO_PUBLISHER_PORTA_METRICAS=1909%i"), "{unit}");
        } else {
            // The HTTP drain, then the background tasks, each within the grace period.
            assert!(
                stop > 2 * grace,
                "{unit}: TimeoutStopSec={stop}s must exceed twice the {grace}s grace period"
            );
            let servico = unit.trim_start_matches("giro-").trim_end_matches(".service");
            let migrate = format!("giro-migrate@{servico}.service");
            assert_eq!(get("Requires"), [migrate.as_str()], "{unit}");
            assert!(one("After").split_whitespace().any(|u| u == migrate), "{unit}: ordered after {migrate}");
            assert_eq!(one("ExecStart"), format!("/usr/local/bin/giro {servico} serve"));
        }
    }
}

/// Issue 37 §3: the schema owner's URL (`GIRO_<DB>_DB_URL_DDL`) lives in
/// `/etc/giro/migrate-<db>.env`, which only `giro-migrate@` reads: no service or publisher unit
/// names that file, and no settings example the services read sets the variable — so it never
/// reaches `/proc/<pid>/environ` of a running service.
#[test]
fn only_the_migrate_unit_reads_the_file_that_holds_the_ddl_url() {
    for unit in UNITS {
        let text = std::fs::read_to_string(repo(&format!("config/systemd/{unit}"))).unwrap();
        let files: Vec<String> = assignments(&text)
            .into_iter()
            .filter(|(k, _)| k == "EnvironmentFile")
            .map(|(_, v)| v.trim_start_matches('-').to_string())
            .collect();
        let ddl: Vec<&String> = files.iter().filter(|f| f.contains("migrate")).collect();
        if unit.starts_with("giro-migrate@") {
            assert_eq!(ddl, ["/etc/giro/migrate-%i.env"], "{unit}: {files:?}");
            assert_eq!(
                files.last(),
                Some(&"/etc/giro/migrate-%i.env".to_string()),
                "{unit}: read last, so it wins"
            );
        } else {
            assert!(ddl.is_empty(), "{unit} reads the migrations' file: {files:?}");
        }
    }
    let exemplos = [
        "config/systemd/giro.env.example",
        "packaging/deb/mercado.env.example",
        "packaging/deb/estoque.env.example",
        "packaging/deb/migrate-mercado.env.example",
        "packaging/deb/migrate-estoque.env.example",
    ];
    for exemplo in exemplos {
        let text = std::fs::read_to_string(repo(exemplo)).unwrap_or_else(|e| panic!("{exemplo}: {e}"));
        // A setting, commented out or not: `VAR=value` at the start of a line.
        let define = |var: &str| {
            text.lines().any(|l| l.trim_start_matches(['#', ' ']).starts_with(&format!("{var}=")))
        };
        for (db, var) in [("mercado", "GIRO_MERCADO_DB_URL_DDL"), ("estoque", "GIRO_ESTOQUE_DB_URL_DDL")] {
            let seu = exemplo.ends_with(&format!("migrate-{db}.env.example"));
            assert_eq!(define(var), seu, "{exemplo}: {var} belongs in migrate-{db}.env only");
        }
    }
    // The package installs the examples, and the operator's guide installs them root-only.
    let package = std::fs::read_to_string(repo("scripts/package")).unwrap();
    let guia = std::fs::read_to_string(repo("docs/operations.md")).unwrap();
    for db in ["mercado", "estoque"] {
        let exemplo = format!("etc/giro/migrate-{db}.env.example");
        assert!(package.contains(&exemplo), "scripts/package neither packs nor checks /{exemplo}");
        let passo = format!("install -m 0600 migrate-{db}.env.example migrate-{db}.env");
        assert!(guia.contains(&passo), "docs/operations.md lacks {passo:?}");
    }
}

/// Copies of the units whose `ExecStart` runs the binary under test (verify checks it exists).
fn units_for_verify() -> PathBuf {
    let dir = scratch_dir();
    for unit in UNITS {
        let text = std::fs::read_to_string(repo(&format!("config/systemd/{unit}"))).unwrap();
        std::fs::write(dir.join(unit), text.replace("/usr/local/bin/giro", crate::support::process::bin()))
            .unwrap();
    }
    dir
}

fn tool(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join(name)).find(|p| p.is_file())
}

#[test]
fn systemd_analyze_verifies_the_units_when_it_is_installed() {
    let Some(analyze) = tool("systemd-analyze") else {
        eprintln!("note: systemd-analyze not on PATH; the units were checked textually only");
        return;
    };
    let dir = units_for_verify();
    let args: Vec<String> = UNITS.iter().map(|u| dir.join(u).display().to_string()).collect();
    let out = std::process::Command::new(&analyze).arg("verify").args(&args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Warnings (an unknown key, a missing dependency) leave the exit code 0: any line about our
    // units fails the test.
    let ours: Vec<&str> = stderr.lines().filter(|l| l.contains("giro")).collect();
    assert!(out.status.success() && ours.is_empty(), "systemd-analyze verify:\n{stderr}");
    // Exposure as `systemd-analyze security` scores it (0 = locked down, 10 = exposed).
    for unit in [
        "giro-mercado.service",
        "giro-estoque.service",
        "giro-migrate@mercado.service",
        "giro-publisher@1.service",
    ] {
        let out = std::process::Command::new(&analyze)
            .args(["security", "--offline=yes", "--threshold=20"])
            .arg(dir.join(unit))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let overall = text.lines().find(|l| l.contains("Overall exposure level")).unwrap_or("").to_string();
        assert!(out.status.success(), "{unit}: exposure above 2.0: {overall}\n{text}");
        eprintln!("{overall}");
    }
}

/// Every `giro_*` metric name that /metrics exports (SPEC §9.3), with the histogram suffixes.
const METRICS: [&str; 14] = [
    "giro_outbox_events",
    "giro_outbox_oldest_pending_seconds",
    "giro_outbox_deliveries_total",
    "giro_outbox_delivery_seconds",
    "giro_inbox_events_total",
    "giro_http_requests_total",
    "giro_http_request_seconds",
    "giro_supervisor_loop_up",
    "giro_supervisor_restarts_total",
    "giro_supervisor_round_failures_total",
    "giro_outbox_peer_route_missing_total",
    "giro_outbox_listen_reconnects_total",
    "giro_outbox_revived_total",
    "giro_peer_clock_skew_seconds",
];

#[test]
fn the_alert_rules_watch_pending_age_dead_letters_and_delivery_errors_with_names_that_exist() {
    let text = std::fs::read_to_string(repo("config/prometheus-alerts.yml")).unwrap();
    for needle in [
        "max by (job) (giro_outbox_oldest_pending_seconds) >",
        "max by (job) (giro_outbox_events{status=\"FAILED\"}) > 0",
        "rate(giro_outbox_deliveries_total{result=~\"transient|permanent\"}",
    ] {
        assert!(text.contains(needle), "config/prometheus-alerts.yml: {needle}");
    }
    // Every alert has a runbook, and it is a section of docs/runbooks.md.
    let runbooks = std::fs::read_to_string(repo("docs/runbooks.md")).unwrap();
    let alerts: Vec<&str> = text.lines().filter_map(|l| l.trim().strip_prefix("- alert: ")).collect();
    assert!(alerts.len() >= 10, "{alerts:?}");
    for a in &alerts {
        let url = format!("runbook_url: \"docs/runbooks.md#{}\"", a.to_lowercase());
        assert!(text.contains(&url), "{a} has no {url}");
        assert!(runbooks.lines().any(|l| l == format!("## {a}")), "docs/runbooks.md has no section for {a}");
    }
    // Only names /metrics has.
    for (i, _) in text.match_indices("giro_") {
        let name: String = text[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if text[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.') {
            continue; // part of a longer word (a job name, `giro-publisher@`, a path)
        }
        let known = METRICS
            .iter()
            .any(|m| name == *m || ["_bucket", "_sum", "_count"].iter().any(|s| name == format!("{m}{s}")));
        assert!(known, "config/prometheus-alerts.yml names {name}, which /metrics does not export");
    }

    if let Some(promtool) = std::env::var_os("GIRO_PROMTOOL").map(PathBuf::from).or_else(|| tool("promtool"))
    {
        for args in [
            &["check", "rules", "prometheus-alerts.yml"][..],
            &["test", "rules", "prometheus-alerts.test.yml"],
        ] {
            let out = std::process::Command::new(&promtool)
                .args(args)
                .current_dir(repo("config"))
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "promtool {args:?}:\n{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        return;
    }
    // Without promtool: the YAML's shape, through the tag-worker's Python (PyYAML comes with uvicorn[standard]).
    let python = std::env::var("GIRO_TAG_WORKER_PYTHON").ok().filter(|p| Path::new(p).is_file());
    let check = r#"
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
rules = [r for g in doc["groups"] for r in g["rules"]]
assert all(g["name"] for g in doc["groups"])
for r in rules:
    assert set(r) <= {"alert", "expr", "for", "labels", "annotations"}, r
    assert r["alert"] and r["expr"].strip() and r["labels"]["severity"] in ("warning", "critical"), r
    assert r["annotations"]["summary"], r
print(len(rules))
"#;
    match python.map(|p| {
        std::process::Command::new(p).arg("-c").arg(check).arg(repo("config/prometheus-alerts.yml")).output()
    }) {
        Some(Ok(out)) if !String::from_utf8_lossy(&out.stderr).contains("No module named 'yaml'") => {
            assert!(out.status.success(), "the alert rules' YAML:\n{}", String::from_utf8_lossy(&out.stderr));
            eprintln!(
                "note: promtool not on PATH; checked the YAML's shape ({} rules) with PyYAML",
                String::from_utf8_lossy(&out.stdout).trim()
            );
        }
        _ => eprintln!(
            "note: neither promtool nor PyYAML available; the alert rules were checked textually only"
        ),
    }
}
