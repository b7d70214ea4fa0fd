//! Debian's PgBouncer in **transaction** mode in front of the test cluster (issue 28.2), as
//! `scripts/pg-ha` writes it: a userlist with the cluster superuser's password, SCRAM both ways,
//! `pool_mode = transaction`, and PgBouncer's defaults for everything else — in particular no
//! `ignore_startup_parameters` and no `max_prepared_statements` (1.18 has none), so a startup
//! `options` or a named prepared statement fails as it would for an operator. The pool per
//! database and user is small (`default_pool_size`), so clients share server connections.
//!
//! Run as the `postgres` user when the test runs as root (PgBouncer refuses root); killed when
//! dropped. [`Pgbouncer::start`] returns `None`, with a message on stderr, when the binary is
//! missing and cannot be installed (`scripts/pg-ha setup`).

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use super::db::admin_config;
use super::e2e::{blocking, free_port};
use super::process::{scratch_dir, Giro};
use super::wait_until;

pub struct Pgbouncer {
    pub proc: Giro,
    pub port: u16,
    pub dir: PathBuf,
}

/// The pgbouncer binary, installed by `scripts/pg-ha setup` when missing (root only).
fn bin() -> Option<String> {
    let find = || {
        ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].into_iter().find(|p| std::path::Path::new(p).exists())
    };
    if let Some(p) = find() {
        return Some(p.to_string());
    }
    let script = format!("{}/scripts/pg-ha", env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(&script).arg("setup").output().ok()?;
    if !out.status.success() {
        eprintln!("scripts/pg-ha setup failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    find().map(str::to_string)
}

/// The uid and gid of `postgres`, when this process is root.
fn postgres_ids() -> Option<(u32, u32)> {
    // SAFETY-free: ask id(1) rather than libc.
    let root = Command::new("id").arg("-u").output().ok()?;
    if String::from_utf8_lossy(&root.stdout).trim() != "0" {
        return None;
    }
    let id = |flag: &str| -> Option<u32> {
        let o = Command::new("id").arg(flag).arg("postgres").output().ok()?;
        String::from_utf8_lossy(&o.stdout).trim().parse().ok()
    };
    Some((id("-u")?, id("-g")?))
}

impl Pgbouncer {
    /// PgBouncer in transaction mode on a free port, forwarding every database to the test
    /// cluster; `pool` server connections per database and user.
    pub async fn start(pool: u32) -> Option<Pgbouncer> {
        let Some(bin) = blocking(bin) else {
            eprintln!("SKIPPED: pgbouncer is not installed and could not be (scripts/pg-ha setup needs root and apt-get)");
            return None;
        };
        let admin = admin_config();
        let host = match admin.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
            _ => "127.0.0.1".to_string(),
        };
        let pg_port = admin.get_ports().first().copied().unwrap_or(5432);
        let user = admin.get_user().unwrap_or("postgres").to_string();
        let password = String::from_utf8_lossy(admin.get_password().unwrap_or(b"postgres")).into_owned();
        let port = free_port();
        let dir = scratch_dir();
        let ini = format!(
            "; tests/it/support/pgbouncer.rs: transaction mode, PgBouncer's defaults otherwise\n\
             [databases]\n\
             * = host={host} port={pg_port}\n\n\
             [pgbouncer]\n\
             listen_addr = 127.0.0.1\n\
             listen_port = {port}\n\
             unix_socket_dir =\n\
             auth_type = scram-sha-256\n\
             auth_file = {}/userlist.txt\n\
             admin_users = {user}\n\
             pool_mode = transaction\n\
             default_pool_size = {pool}\n\
             max_client_conn = 500\n",
            dir.display()
        );
        std::fs::write(dir.join("pgbouncer.ini"), ini).expect("write pgbouncer.ini");
        std::fs::write(dir.join("userlist.txt"), format!("\"{user}\" \"{password}\"\n"))
            .expect("write userlist");
        let mut c = Command::new(&bin);
        c.arg(dir.join("pgbouncer.ini")).current_dir("/");
        if let Some((uid, gid)) = postgres_ids() {
            for f in ["", "pgbouncer.ini", "userlist.txt"] {
                std::os::unix::fs::chown(dir.join(f), Some(uid), Some(gid)).expect("chown to postgres");
            }
            c.uid(uid).gid(gid);
        }
        let proc = Giro::spawn_command(c);
        let mut cfg = admin.clone();
        cfg.host("127.0.0.1").port(port).connect_timeout(Duration::from_secs(2));
        wait_until(Duration::from_secs(20), "pgbouncer to answer", || {
            let cfg = cfg.clone();
            async move {
                let (c, conn) = cfg.connect(tokio_postgres::NoTls).await.ok()?;
                tokio::spawn(conn);
                c.simple_query("SELECT 1").await.ok().map(|_| ())
            }
        })
        .await;
        Some(Pgbouncer { proc, port, dir })
    }

    /// `url` (a test database's) with PgBouncer's host and port instead of the cluster's.
    pub fn url(&self, url: &str) -> String {
        let direct = admin_config();
        let pg_port = direct.get_ports().first().copied().unwrap_or(5432);
        let swapped = url.replacen(&format!(":{pg_port}/"), &format!(":{}/", self.port), 1);
        assert_ne!(swapped, url, "{url} does not name the test cluster's port {pg_port}");
        swapped
    }

    /// PgBouncer's `SHOW POOLS` through its admin console: (database, user, sv_active + sv_idle + sv_used).
    pub async fn servidores(&self, database: &str) -> i64 {
        let mut cfg = admin_config();
        cfg.host("127.0.0.1").port(self.port).dbname("pgbouncer");
        let (c, conn) = cfg.connect(tokio_postgres::NoTls).await.expect("pgbouncer admin console");
        tokio::spawn(conn);
        let mut n = 0;
        for m in c.simple_query("SHOW POOLS").await.expect("SHOW POOLS") {
            if let tokio_postgres::SimpleQueryMessage::Row(r) = m {
                if r.get("database") == Some(database) {
                    for col in ["sv_active", "sv_idle", "sv_used", "sv_tested", "sv_login"] {
                        n += r.get(col).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
                    }
                }
            }
        }
        n
    }
}
