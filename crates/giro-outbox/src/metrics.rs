//! `GET /metrics` of a service: the outbox gauges, read from the database at scrape time (exact
//! whichever process moved the rows), followed by the process-wide recorder's counters and
//! histograms ([`giro_http::metrics`]).

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use crate::status::Status;
use giro_infra::db::Db;

/// Series a service adds, read at scrape time on the same connection (business gauges such as
/// estoque's open demand by age): Prometheus text, `# HELP`/`# TYPE` included.
pub type Extra = for<'a> fn(&'a giro_infra::db::Client) -> futures_util::future::BoxFuture<'a, String>;

/// The `/metrics` route of the service whose database is `db`: the outbox's gauges, read at
/// scrape time, its pools' gauges, the process's histograms, and the service's own scrape-time
/// series (`extra`).
pub fn router_com(db: &Db, extra: Option<Extra>) -> Router {
    Router::new().route("/metrics", get(scrape)).with_state((db.clone(), extra))
}

async fn scrape(State((db, extra)): State<(Db, Option<Extra>)>) -> Response {
    let mut text =
        String::from("# HELP giro_outbox_events Outbox rows by status\n# TYPE giro_outbox_events gauge\n");
    text.push_str("# HELP giro_outbox_oldest_pending_seconds Age of the oldest PENDING outbox row\n# TYPE giro_outbox_oldest_pending_seconds gauge\n");
    match db.pool.get().await {
        Ok(client) => match crate::store::status(&client).await {
            Ok(s) => {
                if let Some(f) = extra {
                    text.push_str(&f(&client).await);
                }
                for (status, n) in
                    [(Status::Pending, s.pending), (Status::Sent, s.sent), (Status::Failed, s.failed)]
                {
                    text.push_str(&format!("giro_outbox_events{{status=\"{status}\"}} {n}\n"));
                }
                // By the database's clock, like the row's criado_em (SPEC §4.7).
                let age = s.oldest_pending_age_s.unwrap_or(0.0);
                text.push_str(&format!("giro_outbox_oldest_pending_seconds {age}\n"));
            }
            Err(e) => tracing::warn!(error = %e, "metrics: outbox status query failed"),
        },
        Err(e) => tracing::warn!(error = %e, "metrics: database unavailable"),
    }
    giro_http::metrics::resposta(text, &db.pools())
}
