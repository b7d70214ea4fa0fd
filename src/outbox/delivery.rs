//! Delivering events to the peer over plain HTTP/1.1 (SPEC §5, §9.2): `POST {peer}/eventos` with
//! `Evento-Tipo`, or many at once through `POST {peer}/eventos/lote`, with the peer's token.
//!
//! Outcomes: 2xx → sent; 400, 404, 410, 413, 415, 422 → permanent (dead letter at once); anything
//! else (401/403, 408, 429, 5xx, timeout, refused connection) → transient (retried with backoff).
//! A peer that answers 404 or 403 on `/eventos/lote` (the original Java service has no such route)
//! is served through `/eventos` for a while, then probed again.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use futures_util::stream::{self, StreamExt};
use reqwest::StatusCode;
use serde::Serialize;
use serde_json::value::RawValue;

use crate::config::{Secret, Transporte as Transport};
use crate::inbox::receiver::LoteResposta;
use crate::outbox::store::Claimed;

/// How long a peer without `/eventos/lote` is served event by event before probing again.
const SINGLE_MODE_FOR: Duration = Duration::from_secs(300);

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Sent,
    Permanent(String),
    Transient(String),
}

pub struct Peer {
    base: String,
    token: Secret,
    http: reqwest::Client,
    concorrencia: usize,
    lote_max: usize,
    transport: Transport,
    single_until: Mutex<Option<Instant>>,
}

pub fn is_permanent(status: StatusCode) -> bool {
    matches!(status.as_u16(), 400 | 404 | 410 | 413 | 415 | 422)
}

impl Peer {
    pub fn new(
        base: &str,
        token: Secret,
        timeout: Duration,
        concorrencia: usize,
        lote_max: usize,
        transport: Transport,
    ) -> anyhow::Result<Peer> {
        let http = reqwest::Client::builder()
            .http1_only()
            .connect_timeout(timeout)
            .timeout(timeout)
            .pool_max_idle_per_host(concorrencia.max(1))
            .tcp_nodelay(true)
            .build()?;
        Ok(Peer {
            base: base.trim_end_matches('/').to_string(),
            token,
            http,
            concorrencia: concorrencia.max(1),
            lote_max: lote_max.max(1),
            transport,
            single_until: Mutex::new(None),
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    fn use_lote(&self) -> bool {
        if self.transport == Transport::Single {
            return false;
        }
        match self.single_until.lock() {
            Ok(mut g) => match *g {
                Some(t) if Instant::now() < t => false,
                Some(_) => {
                    *g = None;
                    true
                }
                None => true,
            },
            Err(_) => true,
        }
    }

    fn fall_back_to_single(&self, status: StatusCode) {
        tracing::info!(peer = %crate::report::mask_password(&self.base), status = status.as_u16(), "peer has no /eventos/lote; delivering event by event");
        if let Ok(mut g) = self.single_until.lock() {
            *g = Some(Instant::now() + SINGLE_MODE_FOR);
        }
    }

    /// Delivers `events` with up to `concorrencia` requests in flight; one outcome per event, in order.
    pub async fn deliver(&self, events: &[Claimed]) -> Vec<Outcome> {
        if events.is_empty() {
            return Vec::new();
        }
        if self.use_lote() {
            // Split so the peer applies chunks in parallel; each chunk within the peer's limit.
            let per = events.len().div_ceil(self.concorrencia).clamp(1, self.lote_max);
            let chunks: Vec<&[Claimed]> = events.chunks(per).collect();
            // Futures collected first: a closure inside the stream trips the Send check of spawn.
            let mut futs = Vec::with_capacity(chunks.len());
            for c in &chunks {
                futs.push(self.send_lote(c));
            }
            let results: Vec<Option<Vec<Outcome>>> =
                stream::iter(futs).buffered(self.concorrencia).collect().await;
            if results.iter().all(Option::is_some) {
                return results.into_iter().flatten().flatten().collect();
            }
            // The peer refused the route: this round goes event by event.
        }
        let mut futs = Vec::with_capacity(events.len());
        for e in events {
            futs.push(self.send_one(e));
        }
        stream::iter(futs).buffered(self.concorrencia).collect().await
    }

    /// `POST /eventos` for one event.
    pub async fn send_one(&self, e: &Claimed) -> Outcome {
        let mut req = self
            .http
            .post(format!("{}/eventos", self.base))
            .bearer_auth(self.token.expose())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("Evento-Tipo", &e.tipo)
            .body(e.payload.clone());
        if let Some(tp) = &e.traceparent {
            req = req.header("traceparent", tp);
        }
        match req.send().await {
            Ok(res) if res.status().is_success() => Outcome::Sent,
            Ok(res) => {
                let status = res.status();
                let body = res.text().await.unwrap_or_default();
                let msg = format!("envio de {} {} falhou: HTTP {status}: {}", e.tipo, e.id, excerpt(&body));
                if is_permanent(status) {
                    Outcome::Permanent(msg)
                } else {
                    Outcome::Transient(msg)
                }
            }
            Err(err) => {
                Outcome::Transient(format!("envio de {} {} falhou: {}", e.tipo, e.id, describe(&err)))
            }
        }
    }

    /// `POST /eventos/lote` for a chunk; `None` when the peer has no such route.
    async fn send_lote(&self, chunk: &[Claimed]) -> Option<Vec<Outcome>> {
        #[derive(Serialize)]
        struct Item<'a> {
            tipo: &'a str,
            evento: &'a RawValue,
            #[serde(skip_serializing_if = "Option::is_none")]
            traceparent: Option<&'a str>,
        }
        #[derive(Serialize)]
        struct Body<'a> {
            eventos: Vec<Item<'a>>,
        }
        let mut items = Vec::with_capacity(chunk.len());
        let mut raws = Vec::with_capacity(chunk.len());
        for e in chunk {
            match RawValue::from_string(e.payload.clone()) {
                Ok(r) => raws.push(Some(r)),
                Err(_) => raws.push(None),
            }
        }
        for (e, raw) in chunk.iter().zip(&raws) {
            if let Some(raw) = raw {
                items.push(Item { tipo: &e.tipo, evento: raw, traceparent: e.traceparent.as_deref() });
            }
        }
        if items.len() != chunk.len() {
            // A stored payload that is not JSON cannot happen (JSONB); send one by one to isolate it.
            return None;
        }
        let all = |o: Outcome| Some(vec![o; chunk.len()]);
        let body = match serde_json::to_vec(&Body { eventos: items }) {
            Ok(b) => b,
            Err(_) => return None,
        };
        let res = self
            .http
            .post(format!("{}/eventos/lote", self.base))
            .bearer_auth(self.token.expose())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body)
            .send()
            .await;
        let res = match res {
            Ok(r) => r,
            Err(err) => {
                return all(Outcome::Transient(format!(
                    "envio de lote de {} eventos falhou: {}",
                    chunk.len(),
                    describe(&err)
                )))
            }
        };
        let status = res.status();
        if status == StatusCode::NOT_FOUND || status == StatusCode::FORBIDDEN {
            self.fall_back_to_single(status);
            return None;
        }
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            return None;
        }
        if !status.is_success() {
            let body = res.text().await.unwrap_or_default();
            return all(Outcome::Transient(format!(
                "envio de lote falhou: HTTP {status}: {}",
                excerpt(&body)
            )));
        }
        let parsed: Result<LoteResposta, _> = res.json().await;
        match parsed {
            Ok(r) if r.resultados.len() == chunk.len() => Some(
                chunk
                    .iter()
                    .zip(r.resultados)
                    .map(|(e, r)| {
                        let msg = || {
                            format!(
                                "envio de {} {} falhou: item {}: {}",
                                e.tipo,
                                e.id,
                                r.status,
                                r.detalhe.clone().unwrap_or_default()
                            )
                        };
                        match r.status {
                            200..=299 => Outcome::Sent,
                            s if is_permanent(StatusCode::from_u16(s).unwrap_or(StatusCode::BAD_REQUEST)) => {
                                Outcome::Permanent(msg())
                            }
                            _ => Outcome::Transient(msg()),
                        }
                    })
                    .collect(),
            ),
            Ok(r) => all(Outcome::Transient(format!(
                "resposta de lote com {} resultados para {} eventos",
                r.resultados.len(),
                chunk.len()
            ))),
            Err(err) => all(Outcome::Transient(format!("resposta de lote ilegível: {err}"))),
        }
    }
}

fn excerpt(body: &str) -> String {
    body.chars().take(200).collect()
}

fn describe(err: &reqwest::Error) -> String {
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
    // reqwest's message carries the URL, with any password the peer URL has.
    crate::report::mask_password(&msg)
}
