//! The HA PostgreSQL of `scripts/pg-ha` (issue 28) for a test: etcd, three Patroni members,
//! HAProxy by Patroni's REST API and PgBouncer, on ports of the test's own, in a folder of its own;
//! stopped (and deleted, its logs kept in a file when the test failed) on drop.

use std::collections::BTreeMap;
use std::process::Command;
use std::time::Duration;

use giro_servicos::config::Servico;
use serde::Deserialize;

use super::e2e::{blocking, free_port};
use super::wait_until;

/// `scripts/pg-ha status --json`.
#[derive(Clone, Debug, Deserialize)]
pub struct Estado {
    pub primary_url: String,
    pub replica_url: String,
    pub pgbouncer_url: String,
    pub stats_url: String,
    pub members: Vec<Membro>,
}

/// One Patroni member as `status --json` shows it.
#[derive(Clone, Debug, Deserialize)]
pub struct Membro {
    pub name: String,
    /// `leader`, `sync_standby`, `replica` (as the DCS has it), or `stopped`.
    pub role: String,
    pub state: String,
    pub pg_port: u16,
    pub rest_port: u16,
    pub postgres_pid: Option<u32>,
    pub patroni_pid: Option<u32>,
}

impl Estado {
    /// The member holding the leader key, if any.
    pub fn lider(&self) -> Option<&Membro> {
        self.members.iter().find(|m| m.role == "leader")
    }

    pub fn membro(&self, nome: &str) -> &Membro {
        self.members.iter().find(|m| m.name == nome).unwrap_or_else(|| panic!("member {nome} in {self:?}"))
    }

    /// A leader, a synchronous standby, and every member running with both its processes.
    pub fn inteiro(&self) -> bool {
        let n = |r: &str| self.members.iter().filter(|m| m.role == r).count();
        n("leader") == 1
            && n("sync_standby") == 1
            && self
                .members
                .iter()
                // "running" in Patroni 3.0; later versions say "streaming" for a replica.
                .all(|m| {
                    ["running", "streaming"].contains(&m.state.as_str())
                        && m.postgres_pid.is_some()
                        && m.patroni_pid.is_some()
                })
    }
}

/// A running `scripts/pg-ha` cluster.
pub struct PgHa {
    dir: String,
    env: BTreeMap<&'static str, String>,
    /// The status printed by `start`.
    pub inicio: Estado,
}

fn script() -> String {
    format!("{}/scripts/pg-ha", env!("CARGO_MANIFEST_DIR"))
}

impl PgHa {
    /// Installs the packages when missing (`scripts/pg-ha setup`); false, with the reason on
    /// stderr, when they cannot be installed on this machine (not root, no apt-get): the caller
    /// skips.
    pub fn disponivel() -> bool {
        let out = Command::new(script()).arg("setup").output().expect("scripts/pg-ha setup");
        if !out.status.success() {
            eprintln!(
                "SKIPPED: the HA cluster's packages (patroni, etcd, haproxy, pgbouncer) are missing and \
                 cannot be installed here (scripts/pg-ha setup: {})",
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        out.status.success()
    }

    /// Starts a new cluster on free ports in a new folder and waits until it is whole (the
    /// script's own wait: a leader, a synchronous standby, three members, the services' databases).
    pub async fn start() -> PgHa {
        let dir = std::env::temp_dir().join(format!("giro-pgha-test-{}", uuid::Uuid::new_v4()));
        let ports = |n: usize| (0..n).map(|_| free_port().to_string()).collect::<Vec<_>>().join(" ");
        let env: BTreeMap<&'static str, String> = [
            ("GIRO_PGHA_DIR", dir.display().to_string()),
            ("GIRO_PGHA_PRIMARY_PORT", free_port().to_string()),
            ("GIRO_PGHA_REPLICA_PORT", free_port().to_string()),
            ("GIRO_PGHA_PGBOUNCER_PORT", free_port().to_string()),
            ("GIRO_PGHA_STATS_PORT", free_port().to_string()),
            ("GIRO_PGHA_ETCD_PORT", free_port().to_string()),
            ("GIRO_PGHA_ETCD_PEER_PORT", free_port().to_string()),
            ("GIRO_PGHA_PG_PORTS", ports(3)),
            ("GIRO_PGHA_REST_PORTS", ports(3)),
        ]
        .into_iter()
        .collect();
        let mut ha = PgHa { dir: dir.display().to_string(), env, inicio: vazio() };
        let out = blocking(|| ha.run(&["start", "--json"]));
        assert!(
            out.status.success(),
            "scripts/pg-ha start: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        ha.inicio = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("start --json: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        ha
    }

    /// The cluster's folder (its logs: pgN/patroni.log, haproxy.log, …).
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// Runs `scripts/pg-ha ARGS` on this cluster.
    pub fn run(&self, args: &[&str]) -> std::process::Output {
        Command::new(script()).args(args).envs(&self.env).output().expect("scripts/pg-ha")
    }

    /// `status --json` now.
    pub fn estado(&self) -> Estado {
        let out = blocking(|| self.run(&["status", "--json"]));
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("status --json: {e}: {}", String::from_utf8_lossy(&out.stdout)))
    }

    /// Polls `status --json` until `ok` holds (or panics after `timeout` naming `what`), at most
    /// every 200 ms: each poll is a script and a Python process, on a machine under load.
    pub async fn esperar(&self, timeout: Duration, what: &str, ok: impl Fn(&Estado) -> bool) -> Estado {
        let (mut primeira, ok) = (true, &ok);
        wait_until(timeout, what, || {
            let pausa = if primeira { Duration::ZERO } else { Duration::from_millis(200) };
            primeira = false;
            async move {
                tokio::time::sleep(pausa).await;
                let e = self.estado();
                ok(&e).then_some(e)
            }
        })
        .await
    }

    /// The URL a service is given: its own role and database through HAProxy's primary port,
    /// refusing a server that is not read-write (a member being promoted, or demoted).
    pub fn url(&self, s: Servico) -> String {
        format!(
            "postgres://{n}:{n}@127.0.0.1:{}/{n}?target_session_attrs=read-write",
            self.env["GIRO_PGHA_PRIMARY_PORT"],
            n = s.nome()
        )
    }

    /// A superuser connection straight to one member's PostgreSQL (no balancer).
    pub async fn membro(&self, pg_port: u16, db: &str) -> tokio_postgres::Client {
        let cfg: tokio_postgres::Config =
            format!("postgres://postgres:postgres@127.0.0.1:{pg_port}/{db}").parse().expect("url");
        super::db::connect(&cfg).await
    }

    /// HAProxy's statistics for server `srv` of the `primary` section: (status, times it went
    /// from UP to DOWN).
    pub async fn no_balanceador(&self, srv: &str) -> (String, u64) {
        let csv = reqwest::get(format!("{};csv", self.inicio.stats_url))
            .await
            .expect("haproxy stats")
            .text()
            .await
            .expect("stats text");
        let mut lines = csv.lines();
        let header: Vec<&str> = lines.next().unwrap_or("").trim_start_matches("# ").split(',').collect();
        let col = |n: &str| header.iter().position(|h| *h == n).expect("stats column");
        let (px, sv, st, cd) = (col("pxname"), col("svname"), col("status"), col("chkdown"));
        lines
            .map(|l| l.split(',').collect::<Vec<_>>())
            .find(|f| f.len() > cd && f[px] == "primary" && f[sv] == srv)
            .map(|f| (f[st].to_string(), f[cd].parse().unwrap_or(0)))
            .unwrap_or_else(|| panic!("server {srv} of section primary in {csv}"))
    }

    /// `kill -9` of a process of the cluster (a machine loss, with [`PgHa::estado`]'s pids).
    pub fn kill9(pids: &[u32]) {
        let st = Command::new("kill").arg("-9").args(pids.iter().map(u32::to_string)).status().expect("kill");
        assert!(st.success(), "kill -9 {pids:?}");
    }
}

fn vazio() -> Estado {
    Estado {
        primary_url: String::new(),
        replica_url: String::new(),
        pgbouncer_url: String::new(),
        stats_url: String::new(),
        members: Vec::new(),
    }
}

impl Drop for PgHa {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let path = std::env::temp_dir().join(format!("giro-pgha-{}.log", uuid::Uuid::new_v4()));
            let mut text = String::new();
            for f in [
                "etcd.log",
                "haproxy.log",
                "pgbouncer.log",
                "pg1/patroni.log",
                "pg2/patroni.log",
                "pg3/patroni.log",
            ] {
                let body = std::fs::read_to_string(format!("{}/{f}", self.dir)).unwrap_or_default();
                text.push_str(&format!("===== {f}\n{body}\n"));
            }
            let _ = std::fs::write(&path, text);
            eprintln!(
                "logs of the HA cluster (etcd, Patroni and PostgreSQL, HAProxy, PgBouncer): {}",
                path.display()
            );
        }
        let out = self.run(&["stop", "--purge"]);
        if !out.status.success() {
            eprintln!("scripts/pg-ha stop --purge: {}", String::from_utf8_lossy(&out.stderr));
        }
    }
}
