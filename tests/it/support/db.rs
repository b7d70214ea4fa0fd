//! A fresh database per test, cloned from a migrated template.
//!
//! The template of each service (`giro_template_<service>_<hash of its migrations>`) is migrated
//! once — under an advisory lock, so concurrent test processes agree — and never connected to
//! again (PostgreSQL refuses to clone a template in use). Each test then gets
//! `CREATE DATABASE giro_t_<pid>_<n> TEMPLATE … STRATEGY FILE_COPY`, which costs milliseconds
//! whatever the number of migrations, and drops it when the [`TestDb`] is dropped.
//!
//! The cluster is shared by several checkouts (branches with other migrations, so other
//! templates) whose tests run at the same time. The sweep, once per test process, therefore drops
//! only what nobody can be using, and never `WITH (FORCE)`: test databases whose creating process
//! is gone (or is no test binary: the pid was reused) and templates unused for a day.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use giro_infra::config::DbConfig;
use giro_infra::db::{self, Pool};
use giro_servicos::config::Servico;
use tokio_postgres::types::{FromSql, ToSql};
use tokio_postgres::NoTls;

static COUNTER: AtomicUsize = AtomicUsize::new(0);
/// Whether this process has swept leftovers (once, at its first test database).
static SWEPT: AtomicBool = AtomicBool::new(false);
/// Templates this process has marked as used (once each).
static TOUCHED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
/// A template no test process has used for this long is dropped by the sweep.
const TEMPLATE_UNUSED: Duration = Duration::from_secs(24 * 3600);

/// The cluster's superuser URL: `GIRO_TEST_PG_URL`, set by `scripts/test`, or the private cluster.
pub fn admin_url() -> String {
    std::env::var("GIRO_TEST_PG_URL")
        .unwrap_or_else(|_| "postgres://postgres:postgres@127.0.0.1:15432/postgres".to_string())
}

pub fn admin_config() -> tokio_postgres::Config {
    admin_url().parse().unwrap_or_else(|e| panic!("GIRO_TEST_PG_URL is not a valid URL: {e}"))
}

pub async fn admin() -> tokio_postgres::Client {
    connect(&admin_config()).await
}

pub async fn connect(cfg: &tokio_postgres::Config) -> tokio_postgres::Client {
    let (client, conn) = cfg.connect(NoTls).await.unwrap_or_else(|e| {
        panic!("cannot connect to the test cluster ({}): {e}; run scripts/pg start", admin_url())
    });
    tokio::spawn(async move {
        let _ = conn.await;
    });
    client
}

/// FNV-1a of the service's migration files, so a changed migration gets a new template.
fn migrations_hash(s: Servico) -> String {
    let dir = format!("{}/migrations/{}", env!("CARGO_MANIFEST_DIR"), s.nome());
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    let mut h: u64 = 0xcbf29ce484222325;
    for p in entries {
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let body = std::fs::read(&p).unwrap_or_default();
        for b in name.as_bytes().iter().chain(body.iter()) {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x100000001b3);
        }
    }
    format!("{:012x}", h & 0xffff_ffff_ffff)
}

fn template_name(s: Servico) -> String {
    format!("giro_template_{}_{}", s.nome(), migrations_hash(s))
}

async fn ensure_template(s: Servico) -> String {
    let name = template_name(s);
    let admin = admin().await;
    admin.execute("SELECT pg_advisory_lock(7354221)", &[]).await.expect("advisory lock");
    let exists = admin
        .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
        .await
        .expect("query pg_database")
        .is_some();
    if !SWEPT.swap(true, Ordering::SeqCst) {
        sweep(&admin).await;
    }
    if !exists {
        admin.batch_execute(&format!("CREATE DATABASE {name}")).await.expect("create template");
        let mut cfg = admin_config();
        cfg.dbname(&name);
        let mut client = connect(&cfg).await;
        giro_servicos::migrate::run_on(s, &mut client).await.expect("migrate template");
        drop(client);
        // Wait for the migration connection to be gone: a template in use cannot be cloned.
        wait_no_connections(&admin, &name).await;
        admin
            .batch_execute(&format!("ALTER DATABASE {name} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"))
            .await
            .expect("mark template");
    }
    let first_use = {
        let mut touched = TOUCHED.lock().expect("touched");
        let first = !touched.contains(&name);
        if first {
            touched.push(name.clone());
        }
        first
    };
    if first_use {
        // When it was last used, for the sweep of other checkouts (see the module doc).
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        admin
            .batch_execute(&format!(
                "COMMENT ON DATABASE {name} IS 'giro test template; used {}'",
                now.as_secs()
            ))
            .await
            .expect("mark template used");
    }
    admin.execute("SELECT pg_advisory_unlock(7354221)", &[]).await.expect("advisory unlock");
    name
}

async fn wait_no_connections(admin: &tokio_postgres::Client, name: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let n: i64 = admin
            .query_one("SELECT count(*) FROM pg_stat_activity WHERE datname = $1", &[&name])
            .await
            .expect("pg_stat_activity")
            .get(0);
        if n == 0 || tokio::time::Instant::now() > deadline {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Drops leftovers nobody can be using (see the module doc); what is still in use stays: a
/// `DROP DATABASE` without `FORCE` fails on a database with connections, and that is fine.
async fn sweep(admin: &tokio_postgres::Client) {
    let rows = admin
        .query(
            "SELECT d.datname, shobj_description(d.oid, 'pg_database') \
             FROM pg_database d \
             WHERE d.datname LIKE 'giro\\_t\\_%' OR d.datname LIKE 'giro\\_template\\_%'",
            &[],
        )
        .await
        .expect("list databases");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    for r in rows {
        let name: String = r.get(0);
        let comment: Option<String> = r.get(1);
        let stale = if let Some(rest) = name.strip_prefix("giro_t_") {
            rest.split('_')
                .next()
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| !test_process_alive(pid))
        } else {
            // A template: stale when unused for a day (no mark: made by older code; leave it).
            comment
                .as_deref()
                .and_then(|c| c.rsplit("used ").next())
                .and_then(|t| t.trim().parse::<u64>().ok())
                .is_some_and(|used| now.as_secs().saturating_sub(used) > TEMPLATE_UNUSED.as_secs())
        };
        if stale {
            if name.starts_with("giro_template_") {
                let _ = admin.batch_execute(&format!("ALTER DATABASE {name} WITH IS_TEMPLATE false")).await;
            }
            let _ = admin.batch_execute(&format!("DROP DATABASE IF EXISTS {name}")).await;
        }
    }
}

/// Whether `pid` is a live integration-test process (the `it-<hash>` binary). A pid that was
/// reused by another program counts as dead; an unreadable one as alive (never drop in doubt).
fn test_process_alive(pid: u32) -> bool {
    match std::fs::read_link(format!("/proc/{pid}/exe")) {
        Ok(exe) => exe.file_name().is_some_and(|n| n.to_string_lossy().starts_with("it-")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => false,
        Err(_) => true,
    }
}

/// A database of the test's own, dropped at the end.
pub struct TestDb {
    pub name: String,
    pub pg: tokio_postgres::Config,
}

impl TestDb {
    /// A clone of the migrated template of `s`.
    pub async fn new(s: Servico) -> TestDb {
        let template = ensure_template(s).await;
        Self::create(&format!("TEMPLATE {template} STRATEGY FILE_COPY")).await
    }

    /// An empty database (for the migration tests themselves).
    pub async fn empty() -> TestDb {
        Self::create("").await
    }

    async fn create(options: &str) -> TestDb {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let name = format!("giro_t_{}_{n}", std::process::id());
        let admin = admin().await;
        admin
            .batch_execute(&format!("CREATE DATABASE {name} {options}"))
            .await
            .expect("create test database");
        let mut pg = admin_config();
        pg.dbname(&name);
        TestDb { name, pg }
    }

    pub fn db_config(&self) -> DbConfig {
        DbConfig { pg: self.pg.clone() }
    }

    /// A URL for a `giro` process (the cluster's superuser: tests own their database).
    pub fn url(&self) -> String {
        let admin = admin_url();
        match admin.rfind('/') {
            Some(i) => format!("{}/{}", &admin[..i], self.name),
            None => admin,
        }
    }

    #[allow(dead_code)]
    pub fn pool(&self) -> Pool {
        db::pool(&self.db_config(), 8, Duration::from_secs(5)).expect("pool")
    }

    pub async fn client(&self) -> tokio_postgres::Client {
        connect(&self.pg).await
    }

    /// The one value `sql` reads (a count, a status), on a connection of its own.
    pub async fn valor<T: for<'a> FromSql<'a>>(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> T {
        self.client().await.query_one(sql, params).await.unwrap_or_else(|e| panic!("{sql}: {e}")).get(0)
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Drop cannot be async; a short-lived thread with its own runtime drops the database.
        let _ = std::thread::spawn(move || {
            if let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() {
                rt.block_on(async move {
                    if let Ok((c, conn)) = admin_config().connect(NoTls).await {
                        tokio::spawn(conn);
                        let _ =
                            c.batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)")).await;
                    }
                });
            }
        })
        .join();
    }
}
