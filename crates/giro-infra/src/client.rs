//! The outgoing HTTP client, one recipe for the three peers Girô calls (the outbox's delivery to
//! the other service, estoque's tag-worker client, mercado's estoque catalogue look-up): HTTP/1.1
//! only (no h2c upgrade), the connection and each read bounded by `timeout`, and one description
//! of a failed request for logs and `ultimo_erro`.

use std::time::Duration;

/// A client builder with HTTP/1.1 only and `timeout` on connecting, on each read and on the whole
/// exchange (so a peer that trickles bytes cannot hold a request); callers may widen the total
/// with `.timeout(…)` or add pool settings.
pub fn builder(timeout: Duration) -> reqwest::ClientBuilder {
    reqwest::Client::builder().http1_only().connect_timeout(timeout).read_timeout(timeout).timeout(timeout)
}

/// Whether `headers` say JSON (problem+json or plain JSON): a receiver's body or answer, never a
/// proxy's error page.
pub fn is_json(headers: &reqwest::header::HeaderMap) -> bool {
    headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| {
            let m = m.trim().to_ascii_lowercase();
            m == "application/json" || (m.starts_with("application/") && m.ends_with("+json"))
        })
}

/// A failed request in words: what kind of failure (timeout, refused or unreachable, transport),
/// then reqwest's message and its causes. Tokens travel in a header; a password in the peer's URL
/// (which reqwest's message carries) is masked.
pub fn describe(err: &reqwest::Error) -> String {
    let kind = if err.is_timeout() {
        "timeout"
    } else if err.is_connect() {
        "conexão recusada ou inalcançável"
    } else {
        "erro de transporte"
    };
    let mut msg = format!("{kind}: {err}");
    let mut src = std::error::Error::source(err);
    while let Some(s) = src {
        msg.push_str(&format!(": {s}"));
        src = s.source();
    }
    crate::mascara::mask_password(&msg)
}
