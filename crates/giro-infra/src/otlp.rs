//! OTLP/HTTP trace export (issue 18), on when the standard `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, off otherwise (and with `OTEL_SDK_DISABLED=true`
//! or `OTEL_TRACES_EXPORTER=none`).
//!
//! The spans are the ones [`crate::trace`] already delimits — a request served, an event written
//! to the outbox, an event received and applied — so a restock is one trace from the checkout, across
//! the publisher's HTTP hop (the event's `traceparent`), to the shelf credit. They are sent in
//! batches as OTLP's JSON encoding (`POST <endpoint>/v1/traces`, `application/json`) by a
//! background task, with the HTTP client already in the build: no OpenTelemetry crates, no build
//! cost. A full queue or a collector that does not answer drops spans, never slows a request.

use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use tokio::sync::mpsc;

const QUEUE: usize = 8192;
const BATCH: usize = 512;
const FLUSH: Duration = Duration::from_millis(500);

/// OTLP `SpanKind`.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    Server = 2,
    Producer = 4,
    Consumer = 5,
}

/// A finished span.
#[derive(Clone, Debug)]
pub struct Span {
    pub trace_id: u128,
    pub span_id: u64,
    pub parent: Option<u64>,
    pub name: String,
    pub kind: Kind,
    pub start: SystemTime,
    pub end: SystemTime,
    pub attributes: Vec<(&'static str, String)>,
    pub error: bool,
}

static SENDER: OnceLock<Option<mpsc::Sender<Span>>> = OnceLock::new();

/// The traces URL the environment names, if export is on.
pub fn endpoint_from(env: impl Fn(&str) -> Option<String>) -> Option<String> {
    let set = |k: &str| env(k).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
    if set("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true"))
        || set("OTEL_TRACES_EXPORTER").is_some_and(|v| v.eq_ignore_ascii_case("none"))
    {
        return None;
    }
    set("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").or_else(|| {
        set("OTEL_EXPORTER_OTLP_ENDPOINT").map(|b| format!("{}/v1/traces", b.trim_end_matches('/')))
    })
}

/// Starts the exporter of this process when the environment asks for one (once; needs a Tokio
/// runtime). `service` names the process in the spans' resource unless `OTEL_SERVICE_NAME` does.
pub fn init(service: &str) {
    SENDER.get_or_init(|| {
        let url = endpoint_from(|k| std::env::var(k).ok())?;
        let name = std::env::var("OTEL_SERVICE_NAME")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| service.to_string());
        let client = reqwest::Client::builder().timeout(Duration::from_secs(5)).build().ok()?;
        let (tx, rx) = mpsc::channel(QUEUE);
        tracing::info!(endpoint = %url, service = %name, "exporting traces over OTLP/HTTP");
        tokio::spawn(run(rx, client, url, name));
        Some(tx)
    });
}

/// Whether spans are exported (callers skip building them otherwise).
pub fn enabled() -> bool {
    matches!(SENDER.get(), Some(Some(_)))
}

pub fn export(span: Span) {
    if let Some(Some(tx)) = SENDER.get() {
        // Full: the span is dropped rather than the request slowed.
        let _ = tx.try_send(span);
    }
}

async fn run(mut rx: mpsc::Receiver<Span>, client: reqwest::Client, url: String, service: String) {
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        let deadline = tokio::time::Instant::now() + FLUSH;
        while batch.len() < BATCH {
            match tokio::time::timeout_at(deadline, rx.recv()).await {
                Ok(Some(s)) => batch.push(s),
                _ => break,
            }
        }
        let body = encode(&service, &batch);
        match client.post(&url).json(&body).send().await {
            Ok(res) if res.status().is_success() => {}
            Ok(res) => tracing::warn!(
                status = res.status().as_u16(),
                spans = batch.len(),
                "OTLP collector refused spans"
            ),
            Err(e) => {
                tracing::warn!(error = %e, spans = batch.len(), "OTLP collector unreachable; spans dropped")
            }
        }
    }
}

fn nanos(t: SystemTime) -> String {
    t.duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0).to_string()
}

/// OTLP's JSON encoding of `ExportTraceServiceRequest` (ids in hex, times as strings).
pub fn encode(service: &str, spans: &[Span]) -> Value {
    let spans: Vec<Value> = spans
        .iter()
        .map(|s| {
            let mut v = json!({
                "traceId": format!("{:032x}", s.trace_id),
                "spanId": format!("{:016x}", s.span_id),
                "name": s.name,
                "kind": s.kind as u8,
                "startTimeUnixNano": nanos(s.start),
                "endTimeUnixNano": nanos(s.end),
                "attributes": s.attributes.iter()
                    .map(|(k, v)| json!({"key": k, "value": {"stringValue": v}}))
                    .collect::<Vec<_>>(),
                "status": {"code": if s.error { 2 } else { 1 }},
            });
            if let Some(p) = s.parent {
                v["parentSpanId"] = json!(format!("{p:016x}"));
            }
            v
        })
        .collect();
    json!({"resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]},
        "scopeSpans": [{"scope": {"name": "giro", "version": env!("CARGO_PKG_VERSION")}, "spans": spans}],
    }]})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_endpoint_follows_the_standard_variables() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
        };
        assert_eq!(endpoint_from(env(&[])), None);
        assert_eq!(
            endpoint_from(env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318/")])).as_deref(),
            Some("http://c:4318/v1/traces")
        );
        assert_eq!(
            endpoint_from(env(&[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c:4318"),
                ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://t/x")
            ]))
            .as_deref(),
            Some("http://t/x")
        );
        assert_eq!(
            endpoint_from(env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", "http://c"), ("OTEL_SDK_DISABLED", "true")])),
            None
        );
    }

    #[test]
    fn spans_are_encoded_as_otlp_json() {
        let t = UNIX_EPOCH + Duration::from_secs(1);
        let s = Span {
            trace_id: 0x4bf92f3577b34da6a3ce929d0e0e4736,
            span_id: 0xf067aa0ba902b7,
            parent: Some(1),
            name: "POST /pedidos".into(),
            kind: Kind::Server,
            start: t,
            end: t,
            attributes: vec![("http.route", "/pedidos".into())],
            error: false,
        };
        let v = encode("giro-mercado", &[s]);
        let span = &v["resourceSpans"][0]["scopeSpans"][0]["spans"][0];
        assert_eq!(span["traceId"], "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(span["spanId"], "00f067aa0ba902b7");
        assert_eq!(span["parentSpanId"], "0000000000000001");
        assert_eq!(span["kind"], 2);
        assert_eq!(span["startTimeUnixNano"], "1000000000");
        assert_eq!(
            v["resourceSpans"][0]["resource"]["attributes"][0]["value"]["stringValue"],
            "giro-mercado"
        );
    }
}
