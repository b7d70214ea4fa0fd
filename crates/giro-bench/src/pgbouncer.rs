//! PgBouncer in transaction mode in front of a bench's scratch database (`giro bench checkout
//! --pgbouncer`): the same checkout load through it, under `db.pooler = "transacao"`, beside the
//! direct run. Debian's `pgbouncer` (`scripts/pg-ha setup` installs it), PgBouncer's defaults but
//! `pool_mode = transaction`; run as the `postgres` user when the bench runs as root (PgBouncer
//! refuses root); killed when dropped.

use std::os::unix::fs::chown;
use std::process::Stdio;

use anyhow::Context;
use tokio::process::{Child, Command};

use giro_infra::config::DbConfig;

pub struct Pgbouncer {
    _child: Child,
    pub port: u16,
}

/// The uid and gid of `postgres` when this process is root (`id(1)`, no libc).
fn postgres_ids() -> Option<(u32, u32)> {
    let id = |args: &[&str]| -> Option<u32> {
        let o = std::process::Command::new("id").args(args).output().ok()?;
        String::from_utf8_lossy(&o.stdout).trim().parse().ok()
    };
    (id(&["-u"])? == 0).then_some(())?;
    Some((id(&["-u", "postgres"])?, id(&["-g", "postgres"])?))
}

impl Pgbouncer {
    /// Starts PgBouncer on a free port in front of `db`'s server (its default pool: 20 server
    /// connections per database and user); waits until it answers.
    pub async fn start(db: &DbConfig) -> anyhow::Result<Pgbouncer> {
        let bin = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
            .context("pgbouncer is not installed (scripts/pg-ha setup installs it)")?;
        let pg = &db.pg;
        let host = match pg.get_hosts().first() {
            Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
            _ => "127.0.0.1".into(),
        };
        let pg_port = pg.get_ports().first().copied().unwrap_or(5432);
        let user = pg.get_user().unwrap_or("postgres");
        let pw = pg.get_password().map(|p| String::from_utf8_lossy(p).into_owned()).unwrap_or_default();
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let dir = std::env::temp_dir().join(format!("giro-bench-pgbouncer-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir)?;
        let ini = dir.join("pgbouncer.ini");
        let users = dir.join("userlist.txt");
        std::fs::write(
            &ini,
            format!(
                "[databases]\n* = host={host} port={pg_port}\n\n[pgbouncer]\nlisten_addr = 127.0.0.1\n\
                 listen_port = {port}\nunix_socket_dir =\nauth_type = scram-sha-256\nauth_file = {}\n\
                 pool_mode = transaction\nmax_client_conn = 10000\n",
                users.display()
            ),
        )?;
        std::fs::write(&users, format!("\"{user}\" \"{pw}\"\n"))?;
        let mut c = Command::new(bin);
        c.arg(&ini).current_dir("/").stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        c.kill_on_drop(true);
        if let Some((uid, gid)) = postgres_ids() {
            for f in [&dir, &ini, &users] {
                chown(f, Some(uid), Some(gid))?;
            }
            c.uid(uid).gid(gid);
        }
        let child = c.spawn().context("cannot start pgbouncer")?;
        let mut cfg = pg.clone();
        cfg.host("127.0.0.1").port(port);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            if let Ok((client, conn)) = cfg.connect(tokio_postgres::NoTls).await {
                tokio::spawn(conn);
                if client.simple_query("SELECT 1").await.is_ok() {
                    break;
                }
            }
            anyhow::ensure!(std::time::Instant::now() < deadline, "pgbouncer did not answer within 20 s");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        Ok(Pgbouncer { _child: child, port })
    }

    /// `url` with PgBouncer's port instead of the server's.
    pub fn url(&self, url: &str, pg_port: u16) -> String {
        url.replacen(&format!(":{pg_port}/"), &format!(":{}/", self.port), 1)
    }
}
