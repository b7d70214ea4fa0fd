//! `GET /metrics` (Prometheus text, SPEC §9.3) and the request metrics layer.
//!
//! Counters and histograms go through the `metrics` facade into one process-wide Prometheus
//! recorder ([`install`]). The outbox gauges are read from the database at scrape time, so they
//! are exact whichever process (service or separate publisher) moved the rows.
//!
//! Beside them, written at render time ([`process_text`]): the standard `process_*` series (CPU,
//! memory, file descriptors, threads, start time; read from `/proc` on Linux), `giro_build_info`,
//! and `giro_db_pool_connections{pool,state}` for every named pool the renderer is handed.
//!
//! Names: `giro_outbox_events{status}`, `giro_outbox_oldest_pending_seconds`,
//! `giro_outbox_deliveries_total{tipo,result}`, `giro_outbox_delivery_seconds`,
//! `giro_inbox_events_total{tipo,result}`, `giro_http_requests_total{route,status}`,
//! `giro_http_request_seconds`.

use std::sync::OnceLock;
use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use giro_infra::db::Pool;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

const SECONDS_BUCKETS: &[f64] =
    &[0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0];

/// Installs the process-wide recorder (once; later calls return the same handle).
pub fn install() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
                .ok()?;
            match builder.install_recorder() {
                Ok(h) => {
                    describe();
                    upkeep(h.clone());
                    Some(h)
                }
                Err(e) => {
                    tracing::warn!(error = %e, "metrics recorder not installed");
                    None
                }
            }
        })
        .as_ref()
}

/// A series a service emits beyond the machinery's: its name, kind and help.
pub struct Serie {
    pub nome: &'static str,
    pub tipo: Tipo,
    pub ajuda: &'static str,
}

pub enum Tipo {
    Contador,
    Histograma,
}

/// Describes a service's own series to the recorder ([`install`] first).
pub fn descrever(series: &[Serie]) {
    for s in series {
        match s.tipo {
            Tipo::Contador => metrics::describe_counter!(s.nome, s.ajuda),
            Tipo::Histograma => metrics::describe_histogram!(s.nome, s.ajuda),
        }
    }
}

/// How often the recorder's upkeep runs.
const UPKEEP_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// The recorder's upkeep on its own thread: installed with `install_recorder`, the exporter runs
/// none, and histogram samples pile up until a scrape drains them — without bound in a process
/// nothing scrapes (~23 bytes a request measured). A panic in one round is logged and the next
/// round runs: the loop cannot die silently.
fn upkeep(h: PrometheusHandle) {
    let spawned = std::thread::Builder::new().name("metrics-upkeep".into()).spawn(move || loop {
        std::thread::sleep(UPKEEP_EVERY);
        if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| h.run_upkeep())).is_err() {
            tracing::error!("metrics upkeep panicked; trying again next round");
        }
    });
    if let Err(e) = spawned {
        tracing::error!(error = %e, "metrics upkeep thread not started: histograms grow until scraped");
    }
}

fn describe() {
    metrics::describe_counter!(
        "giro_outbox_deliveries_total",
        "Outbox delivery attempts by event type and result (sent|transient|permanent)"
    );
    metrics::describe_histogram!(
        "giro_outbox_delivery_seconds",
        "Time from an event's commit to the receiver's 2xx"
    );
    metrics::describe_counter!(
        "giro_inbox_events_total",
        "Received events by type and result (new|duplicate)"
    );
    metrics::describe_counter!("giro_http_requests_total", "HTTP requests by route and status");
    metrics::describe_histogram!("giro_http_request_seconds", "HTTP request latency");
    metrics::describe_counter!(
        "giro_db_leituras_total",
        "Public reads by the pool that served them (leitura: the read copy, primario: the primary)"
    );
    metrics::describe_gauge!(
        "giro_db_atraso_leitura_segundos",
        "The read copy's replay lag last measured, in seconds (-1: it did not answer)"
    );
    metrics::describe_counter!(
        "giro_http_reexecucoes_total",
        "Requests run a second time after their database session was lost before any COMMIT, by outcome"
    );
    // At 0 from the start: a dashboard reads "none", not "no data", until the first failover
    // or the first public read.
    for resultado in ["sucesso", "falha"] {
        metrics::counter!("giro_http_reexecucoes_total", "resultado" => resultado).increment(0);
    }
    for pool in ["leitura", "primario"] {
        metrics::counter!("giro_db_leituras_total", "pool" => pool).increment(0);
    }
}

/// What a separate `giro publisher` serves (`publisher.porta-metricas`): its own counters
/// (`giro_outbox_deliveries_total`, `giro_outbox_delivery_seconds`) and its `pools`' gauges at
/// `/metrics`, and `/healthz`. The outbox gauges come from the services' `/metrics`, which read
/// them from the database, so they are not repeated here.
pub fn publisher_router(pools: Vec<Pool>) -> Router {
    Router::new()
        .route("/metrics", get(move || async move { resposta(String::new(), &pools) }))
        .route("/healthz", get(|| async { axum::Json(serde_json::json!({"status": "UP"})) }))
}

/// A `/metrics` answer: `antes` (series read at scrape time), then [`process_text`] of `pools`
/// and the recorder's counters and histograms; 503 without a recorder.
pub fn resposta(antes: String, pools: &[Pool]) -> Response {
    match install() {
        Some(h) => {
            let text = antes + &process_text(pools) + &h.render();
            ([(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")], text).into_response()
        }
        None => (StatusCode::SERVICE_UNAVAILABLE, "metrics unavailable").into_response(),
    }
}

/// Middleware: counts and times every request by matched route.
pub async fn track(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string())
        .unwrap_or_else(|| "unmatched".into());
    let start = Instant::now();
    let res = next.run(req).await;
    let status = res.status().as_u16().to_string();
    metrics::counter!("giro_http_requests_total", "route" => route.clone(), "status" => status).increment(1);
    metrics::histogram!("giro_http_request_seconds", "route" => route).record(start.elapsed().as_secs_f64());
    res
}

/// The series computed when `/metrics` is read rather than recorded: `process_*` as the
/// Prometheus client libraries name them, `giro_build_info`, and the occupation of each of
/// `pools` that has a name ([`Pool::nomeado`]).
pub fn process_text(pools: &[Pool]) -> String {
    let mut t = String::new();
    processo::escrever(&mut t);
    t.push_str(
        "# HELP giro_build_info The running build: version and profile\n# TYPE giro_build_info gauge\n",
    );
    t.push_str(&format!(
        "giro_build_info{{version=\"{}\",profile=\"{}\"}} 1\n",
        env!("CARGO_PKG_VERSION"),
        if cfg!(debug_assertions) { "debug" } else { "release" }
    ));
    let pools: Vec<_> = pools.iter().filter_map(|p| Some((p.nome()?, p.status()))).collect();
    if !pools.is_empty() {
        t.push_str("# HELP giro_db_pool_connections Database pool connections: open (size), idle (available), requests waiting, and the maximum\n# TYPE giro_db_pool_connections gauge\n");
        for (nome, s) in pools {
            for (estado, n) in
                [("size", s.size), ("available", s.available), ("waiting", s.waiting), ("max", s.max_size)]
            {
                t.push_str(&format!("giro_db_pool_connections{{pool=\"{nome}\",state=\"{estado}\"}} {n}\n"));
            }
        }
    }
    t
}

/// `process_*` from `/proc/self` (Linux); elsewhere nothing is written.
mod processo {
    use std::fmt::Write as _;

    /// Clock ticks per second and page size: the kernel's units in `/proc/self/stat`. 100 and
    /// 4096 on every Linux Girô targets (x86-64, arm64); reading them would need libc.
    const TICKS: f64 = 100.0;
    const PAGINA: f64 = 4096.0;

    pub fn escrever(t: &mut String) {
        let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else { return };
        // Fields after the command name (which may hold spaces, inside parentheses).
        let Some(resto) = stat.rsplit_once(')').map(|(_, r)| r) else { return };
        let f: Vec<&str> = resto.split_whitespace().collect();
        let campo = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok());
        // With the state as index 0: utime 11, stime 12, num_threads 17, starttime 19, vsize 20, rss 21.
        let (Some(utime), Some(stime), Some(threads), Some(start), Some(vsize), Some(rss)) =
            (campo(11), campo(12), campo(17), campo(19), campo(20), campo(21))
        else {
            return;
        };
        let boot = std::fs::read_to_string("/proc/stat")
            .ok()
            .and_then(|s| {
                s.lines().find_map(|l| l.strip_prefix("btime ").and_then(|v| v.trim().parse::<f64>().ok()))
            })
            .unwrap_or(0.0);
        let fds = std::fs::read_dir("/proc/self/fd").map(|d| d.count()).unwrap_or(0);
        let max_fds = std::fs::read_to_string("/proc/self/limits")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("Max open files"))
                    .and_then(|l| l.split_whitespace().nth(3).and_then(|v| v.parse::<f64>().ok()))
            })
            .unwrap_or(0.0);
        for (nome, tipo, ajuda, valor) in [
            (
                "process_cpu_seconds_total",
                "counter",
                "Total user and system CPU time spent in seconds.",
                (utime + stime) / TICKS,
            ),
            ("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", rss * PAGINA),
            ("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", vsize),
            ("process_open_fds", "gauge", "Number of open file descriptors.", fds as f64),
            ("process_max_fds", "gauge", "Maximum number of open file descriptors.", max_fds),
            ("process_threads", "gauge", "Number of OS threads in the process.", threads),
            (
                "process_start_time_seconds",
                "gauge",
                "Start time of the process since unix epoch in seconds.",
                boot + start / TICKS,
            ),
        ] {
            let _ = write!(t, "# HELP {nome} {ajuda}\n# TYPE {nome} {tipo}\n{nome} {valor}\n");
        }
    }
}
