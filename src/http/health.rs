//! Health endpoints, open to anyone (SPEC §6.1, §9.3): `/actuator/health` (the original's,
//! `{"status":"UP"}`), `/healthz` (the process is up) and `/readyz` (503 while the database does not
//! answer, 200 again once it does, without a restart).

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use crate::db::{self, Pool};

const READY_TIMEOUT: Duration = Duration::from_secs(2);

pub fn router(pool: Pool) -> Router {
    Router::new()
        .route("/actuator/health", get(up))
        .route("/actuator/health/{*componente}", get(up))
        .route("/healthz", get(up))
        .route("/readyz", get(ready))
        .with_state(pool)
}

async fn up() -> Json<serde_json::Value> {
    Json(json!({"status": "UP"}))
}

async fn ready(State(pool): State<Pool>) -> Response {
    match db::ping(&pool, READY_TIMEOUT).await {
        Ok(()) => Json(json!({"status": "UP"})).into_response(),
        Err(e) => {
            tracing::warn!(error = %e, "readiness check failed: database unreachable");
            (StatusCode::SERVICE_UNAVAILABLE, Json(json!({"status": "DOWN", "database": "unreachable"})))
                .into_response()
        }
    }
}
