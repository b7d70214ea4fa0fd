//! Health endpoints, open to anyone (SPEC §6.1, §9.3): `/actuator/health` (the original's,
//! `{"status":"UP"}`) and its known components ([`COMPONENTES`]), `/healthz` (the process is up)
//! and `/readyz`.
//!
//! `/readyz` is 200 only when the service can do its work: a pooled session answers and can
//! write (not read-only, not a standby), a newly opened session can write too (a database made
//! read-only affects new sessions first), and no required background loop is down (see
//! [`giro_infra::supervisor`]). Otherwise 503 with what is wrong; 200 again once it heals, without a
//! restart. The new-session check is cached for [`FRESH_EVERY`], so a probe storm opens few
//! connections.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::StatusCode;
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
    last_fresh: Mutex<Option<(Instant, Result<(), String>)>>,
}

impl Prontidao {
    pub fn new(pool: Pool, fresh: bool, supervisor: Arc<Supervisor>) -> Arc<Prontidao> {
        Arc::new(Prontidao { pool, fresh, supervisor, last_fresh: Mutex::new(None) })
    }

    /// Ok when the database can take writes (see the module doc).
    pub async fn database(&self) -> Result<(), String> {
        db::ready(&self.pool, false, READY_TIMEOUT).await.map_err(|e| format!("{e:#}"))?;
        if !self.fresh {
            return Ok(());
        }
        if let Ok(g) = self.last_fresh.lock() {
            if let Some((t, r)) = g.as_ref() {
                if t.elapsed() < FRESH_EVERY {
                    return r.clone();
                }
            }
        }
        let r = db::ready(&self.pool, true, READY_TIMEOUT).await.map_err(|e| format!("{e:#}"));
        if let Ok(mut g) = self.last_fresh.lock() {
            *g = Some((Instant::now(), r.clone()));
        }
        r
    }
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
pub const COMPONENTES: [&str; 4] = ["liveness", "ping", "readiness", "db"];

async fn componente(State(p): State<Arc<Prontidao>>, uri: axum::http::Uri) -> Response {
    match uri.path().strip_prefix("/actuator/health/") {
        Some("liveness" | "ping") => up().await.into_response(),
        Some("readiness" | "db") => ready(State(p)).await,
        _ => crate::Problem::new(StatusCode::NOT_FOUND, "componente de saúde desconhecido")
            .into_response_at(None),
    }
}

async fn ready(State(p): State<Arc<Prontidao>>) -> Response {
    let down = p.supervisor.down();
    let database = p.database().await;
    if database.is_ok() && down.is_empty() {
        return Json(json!({"status": "UP"})).into_response();
    }
    let mut body = json!({"status": "DOWN"});
    if let Err(e) = &database {
        tracing::warn!(error = %e, "readiness check failed: the database cannot take writes");
        body["database"] = json!(e);
    }
    if !down.is_empty() {
        tracing::warn!(loops = ?down, "readiness check failed: a required background loop is down");
        body["loops"] = json!(down);
    }
    (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
}
