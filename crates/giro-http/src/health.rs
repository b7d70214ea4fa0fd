//! Health endpoints, open to anyone (SPEC §6.1, §9.3): `/actuator/health` (the original's,
//! `{"status":"UP"}`) and its known components (`liveness`, `ping`, `readiness`, `db`),
//! `/healthz` (the process is up) and `/readyz`.
//!
//! `/readyz` is 200 only when the service can do its work (issue 30.4): a pooled session answers
//! and can write (not read-only, not a standby); a newly opened session is not read-only (a
//! database made read-only affects new sessions first); after a statement failed because the
//! database ran out of disk or memory (SQLSTATE 53100, 53200, [`giro_infra::db::Saude::exaustao`]) a write
//! goes through again (a probe that has to allocate a new block: a temporary table created and
//! rolled back); and no required background loop is down (see [`giro_infra::supervisor`]).
//! Otherwise 503 with what is wrong and `Retry-After`; 200 again once it heals, without a restart.
//! While the process drains on SIGTERM ([`crate::drenagem`]) it is 503 `{"drenando": true}`, so
//! the balancer takes the replica out before its listener closes.
//!
//! What does **not** make it 503: a new session refused for lack of connection slots
//! (`max_connections` taken by another client, SQLSTATE 53300) while the pool holds sessions —
//! those keep serving, and a balancer that took the replica out would refuse traffic it can
//! serve. The new-session check is cached for [`FRESH_EVERY`], so a probe storm opens few
//! connections; the write probe runs only after an exhaustion was seen. That mark is the
//! pool's ([`giro_infra::db::Saude`]): the probe runs on the same pool, so once its database
//! takes writes again the mark clears.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use giro_infra::db::{self, Pool};
use giro_infra::supervisor::Supervisor;

const READY_TIMEOUT: Duration = Duration::from_secs(2);
/// How long a new-session check's result is reused.
pub const FRESH_EVERY: Duration = Duration::from_secs(1);

pub struct Prontidao {
    pub pool: Pool,
    /// Also open a new session to check it can write.
    pub fresh: bool,
    pub supervisor: Arc<Supervisor>,
    /// While the process drains on SIGTERM, `/readyz` is 503 ([`crate::drenagem`]).
    pub drenagem: crate::drenagem::Drenagem,
    last_fresh: Mutex<Option<(Instant, Result<(), String>)>>,
}

impl Prontidao {
    /// The readiness of `pool` (with a new session's check when `fresh`) and of `supervisor`'s
    /// loops, answering 503 while `drenagem` is on.
    pub fn drenando_com(
        pool: Pool,
        fresh: bool,
        supervisor: Arc<Supervisor>,
        drenagem: crate::drenagem::Drenagem,
    ) -> Arc<Prontidao> {
        Arc::new(Prontidao { pool, fresh, supervisor, drenagem, last_fresh: Mutex::new(None) })
    }

    /// Ok when the database can take writes (see the module doc).
    pub async fn database(&self) -> Result<(), String> {
        match db::ready(&self.pool, false, READY_TIMEOUT).await {
            Ok(()) => {}
            // Every pooled session busy and no slot for another: the pooled ones still serve.
            Err(e) if sem_vaga(&e) && self.pool.status().size > 0 => {}
            Err(e) => return Err(format!("{e:#}")),
        }
        if let Some((marca, sqlstate)) = self.pool.saude().exaustao() {
            match tokio::time::timeout(READY_TIMEOUT, self.sonda_escrita()).await {
                Ok(Ok(())) => self.pool.saude().exaustao_superada(marca),
                Ok(Err(e)) => {
                    return Err(format!(
                        "the database refuses writes for lack of resources (SQLSTATE {sqlstate}): {e:#}"
                    ))
                }
                Err(_) => return Err(format!("the write probe did not finish within {READY_TIMEOUT:?}")),
            }
        }
        if !self.fresh {
            return Ok(());
        }
        let guardado = self.last_fresh.lock().ok().and_then(|g| g.clone());
        if let Some((_, r)) = guardado.filter(|(t, _)| t.elapsed() < FRESH_EVERY) {
            return r;
        }
        let r = match db::ready(&self.pool, true, READY_TIMEOUT).await {
            // A new session refused for lack of slots says nothing of the pooled ones, which
            // just answered: not a reason to take the replica out.
            Err(e) if sem_vaga(&e) => Ok(()),
            r => r.map_err(|e| format!("{e:#}")),
        };
        if let Ok(mut g) = self.last_fresh.lock() {
            *g = Some((Instant::now(), r.clone()));
        }
        r
    }

    /// A write that must allocate a new block (a temporary table filled, then rolled back): fails
    /// while the database is out of disk, unlike a `SELECT` or an update in place.
    async fn sonda_escrita(&self) -> anyhow::Result<()> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        let sql = "CREATE TEMP TABLE giro_sonda_prontidao ON COMMIT DROP AS SELECT g FROM generate_series(1, 2000) g";
        tx.batch_execute(sql).await?;
        tx.rollback().await?;
        Ok(())
    }
}

/// The error is a new session refused because the server has no connection slot left
/// (SQLSTATE 53300 `too_many_connections`).
fn sem_vaga(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        let codigo = db::driver(c).and_then(|pg| pg.code());
        codigo.is_some_and(|c| *c == tokio_postgres::error::SqlState::TOO_MANY_CONNECTIONS)
    })
}

pub fn router(estado: Arc<Prontidao>) -> Router {
    Router::new()
        .route("/actuator/health", get(up))
        .route("/actuator/health/{*componente}", get(componente))
        .route("/healthz", get(up))
        .route("/readyz", get(ready))
        .with_state(estado)
}

async fn up() -> Json<serde_json::Value> {
    Json(json!({"status": "UP"}))
}

/// The sub-routes of `/actuator/health` a Spring Boot client knows (SPEC §6.1's
/// `/actuator/health/**`): `liveness` and `ping` are the process (`/healthz`), `readiness` and
/// `db` the service's readiness (`/readyz`). Any other sub-path is 404 under the input policy
/// (issue 25: `/actuator/health/%00` answered 200), matched on the raw path, never decoded.
async fn componente(State(p): State<Arc<Prontidao>>, uri: axum::http::Uri) -> Response {
    match uri.path().strip_prefix("/actuator/health/") {
        Some("liveness" | "ping") => up().await.into_response(),
        Some("readiness" | "db") => ready(State(p)).await,
        _ => crate::Problem::new(StatusCode::NOT_FOUND, "componente de saúde desconhecido")
            .into_response_at(None),
    }
}

async fn ready(State(p): State<Arc<Prontidao>>) -> Response {
    let mut body = json!({"status": "DOWN"});
    if p.drenagem.ativa() {
        body["drenando"] = json!(true);
    } else {
        let down = p.supervisor.down();
        let database = p.database().await;
        if database.is_ok() && down.is_empty() {
            return Json(json!({"status": "UP"})).into_response();
        }
        if let Err(e) = &database {
            tracing::warn!(error = %e, "readiness check failed: the database cannot take writes");
            body["database"] = json!(e);
        }
        if !down.is_empty() {
            tracing::warn!(loops = ?down, "readiness check failed: a required background loop is down");
            body["loops"] = json!(down);
        }
    }
    let mut res = (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response();
    res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static(crate::problem::RETRY_AFTER));
    res
}
