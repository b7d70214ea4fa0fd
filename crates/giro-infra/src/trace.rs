//! Trace context that travels with an event (SPEC §9.2): a W3C `traceparent`
//! (`00-<trace-id>-<parent-id>-<flags>`) taken from the incoming request (or started there), kept
//! in a task-local for the request, stored in each outbox row written under it, sent with the
//! event (header on `/eventos`, item field on `/eventos/lote`), and taken up again by the
//! receiver, so one trace id follows a restock from the checkout to the shelf credit. Every
//! request's log span carries the `trace_id`.

use std::fmt;
use std::time::SystemTime;

use crate::otlp::{self, Kind};

#[cfg(feature = "axum")]
use axum::extract::Request;
#[cfg(feature = "axum")]
use axum::middleware::Next;
#[cfg(feature = "axum")]
use axum::response::Response;
use tracing::Instrument;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Traceparent {
    pub trace_id: u128,
    pub parent_id: u64,
    pub flags: u8,
}

tokio::task_local! {
    static CURRENT: Traceparent;
}

fn random_u128() -> u128 {
    loop {
        let v = uuid::Uuid::new_v4().as_u128();
        if v != 0 {
            return v;
        }
    }
}

impl Traceparent {
    /// A new trace.
    pub fn root() -> Traceparent {
        Traceparent { trace_id: random_u128(), parent_id: fastrand::u64(1..), flags: 1 }
    }

    /// The same trace, a new span id: what an event written under this context carries.
    pub fn child(&self) -> Traceparent {
        Traceparent { parent_id: fastrand::u64(1..), ..*self }
    }

    /// Parses a version-00 `traceparent`; anything else is `None` (and a new trace starts).
    pub fn parse(s: &str) -> Option<Traceparent> {
        let mut parts = s.trim().split('-');
        let (v, t, p, f) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || v != "00" || t.len() != 32 || p.len() != 16 || f.len() != 2 {
            return None;
        }
        let hex = |x: &str| x.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !(hex(t) && hex(p) && hex(f)) {
            return None;
        }
        let tp = Traceparent {
            trace_id: u128::from_str_radix(t, 16).ok()?,
            parent_id: u64::from_str_radix(p, 16).ok()?,
            flags: u8::from_str_radix(f, 16).ok()?,
        };
        (tp.trace_id != 0 && tp.parent_id != 0).then_some(tp)
    }

    pub fn trace_id_hex(&self) -> String {
        format!("{:032x}", self.trace_id)
    }
}

impl fmt::Display for Traceparent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "00-{:032x}-{:016x}-{:02x}", self.trace_id, self.parent_id, self.flags)
    }
}

/// The context of the running task, if any.
pub fn current() -> Option<Traceparent> {
    CURRENT.try_with(|t| *t).ok()
}

/// What an outbox row written now carries: a child of the current context, or a new trace.
/// With OTLP export on, that child is a producer span of its own.
pub fn for_event() -> Traceparent {
    let parent = current();
    let tp = parent.map(|t| t.child()).unwrap_or_else(Traceparent::root);
    if otlp::enabled() {
        exportar(tp, parent, "outbox registrar".into(), Kind::Producer, SystemTime::now(), vec![], false);
    }
    tp
}

/// Exports the span `ctx` (a child of `parent`) that began at `start` and ends now.
fn exportar(
    ctx: Traceparent,
    parent: Option<Traceparent>,
    name: String,
    kind: Kind,
    start: SystemTime,
    attributes: Vec<(&'static str, String)>,
    error: bool,
) {
    let (trace_id, span_id, parent) = (ctx.trace_id, ctx.parent_id, parent.map(|p| p.parent_id));
    let end = SystemTime::now();
    otlp::export(otlp::Span { trace_id, span_id, parent, name, kind, start, end, attributes, error });
}

/// Runs `fut` — receiving and applying one event of type `tipo` — as a consumer span of the
/// event's context `tp` (or of the current one); what it writes carries this span. Without OTLP
/// export it is [`scope`].
pub async fn consume<F: std::future::Future<Output = Result<T, E>>, T, E>(
    tp: Option<Traceparent>,
    tipo: &str,
    fut: F,
) -> F::Output {
    let parent = tp.or_else(current);
    if !otlp::enabled() {
        return scope(parent, fut).await;
    }
    let ctx = parent.map(|p| p.child()).unwrap_or_else(Traceparent::root);
    let start = SystemTime::now();
    let out = scope(Some(ctx), fut).await;
    let atributos = vec![("giro.evento.tipo", tipo.to_string())];
    exportar(ctx, parent, format!("receber {tipo}"), Kind::Consumer, start, atributos, out.is_err());
    out
}

/// Runs `fut` under `tp` (a received event's context).
pub async fn scope<F: std::future::Future>(tp: Option<Traceparent>, fut: F) -> F::Output {
    match tp {
        Some(tp) => {
            CURRENT
                .scope(tp, fut.instrument(tracing::info_span!("evento", trace_id = %tp.trace_id_hex())))
                .await
        }
        None => fut.await,
    }
}

/// Middleware: the request's context from its `traceparent` header, or a new one. With OTLP
/// export on, the request is a server span of its own, the parent of what it writes. (Feature
/// `axum`, which giro-http turns on.)
#[cfg(feature = "axum")]
pub async fn layer(req: Request, next: Next) -> Response {
    let incoming =
        req.headers().get("traceparent").and_then(|v| v.to_str().ok()).and_then(Traceparent::parse);
    let tp = incoming.unwrap_or_else(Traceparent::root);
    let span = tracing::info_span!("trace", trace_id = %tp.trace_id_hex());
    if !otlp::enabled() {
        return CURRENT.scope(tp, next.run(req).instrument(span)).await;
    }
    let ctx = match incoming {
        Some(p) => p.child(),
        None => tp,
    };
    let route = req
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map(|m| m.as_str().to_owned())
        .unwrap_or_else(|| req.uri().path().to_owned());
    let method = req.method().to_string();
    let start = SystemTime::now();
    let res = CURRENT.scope(ctx, next.run(req).instrument(span)).await;
    let (status, name) = (res.status(), format!("{method} {route}"));
    let atributos = vec![
        ("http.request.method", method),
        ("http.route", route),
        ("http.response.status_code", status.as_u16().to_string()),
    ];
    exportar(ctx, incoming, name, Kind::Server, start, atributos, status.is_server_error());
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_w3c_traceparent() {
        let s = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let tp = Traceparent::parse(s).unwrap_or_else(Traceparent::root);
        assert_eq!(tp.to_string(), s);
        assert_eq!(tp.child().trace_id, tp.trace_id);
        for bad in [
            "",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf9-00f067aa0ba902b7-01",
        ] {
            assert!(Traceparent::parse(bad).is_none(), "{bad}");
        }
    }
}
