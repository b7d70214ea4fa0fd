//! Delivering events to the peer over plain HTTP/1.1 (SPEC §5, §9.2): `POST {peer}/eventos` with
//! `Evento-Tipo`, or many at once through `POST {peer}/eventos/lote`, with the peer's token.
//!
//! **Permanent means the receiver said so.** An event is a dead letter at once only when the
//! peer's receiver judged *that event* invalid: a JSON (problem+json) 400, 413, 415 or 422 on
//! `/eventos`, or a per-item 400/422 in a `/eventos/lote` answer. Everything else is transient and
//! retried with backoff until the delivery deadline (`outbox.prazo-entrega`):
//! - 401/403, 408, 429, 500 from the receiver — [`Outcome::Transient`];
//! - no answer (refused, timeout), 502/503/504, a route-level 404/405/410, or any answer that is
//!   not the receiver's (an HTML error page from a proxy or load balancer while a deploy reroutes)
//!   — [`Outcome::Unreachable`]: the peer is not there to judge. 404/405/410 and non-receiver 4xx
//!   are logged and counted as "peer route missing" (`giro_outbox_peer_route_missing_total`).
//!
//! Batch answers are matched to events by `eventId`, never by position: a result whose id matches
//! no event of the request is ignored (logged), and an event without its own result is transient.
//! A whole batch refused as a request (400, 413, 415, 422) is delivered event by event this round,
//! so each event gets its own verdict. A peer that answers 404 or 403 on `/eventos/lote` (the
//! original Java service has no such route) is served through `/eventos` for [`SINGLE_MODE_FOR`],
//! then probed again — decided per peer, re-checked from time to time.
//!
//! **Requests in flight are bounded per peer, not per batch**: each takes one of the
//! `outbox.concorrencia` slots, however the claims overlap, or the **express lane**'s one slot
//! ([`Faixa::Expressa`]), kept for the relay's claims of live events ([`crate::relay`]). **A batch
//! is split only as far as [`CHUNK_MIN`] events a request** ([`chunk_size`]): each `/eventos/lote`
//! request costs the receiver a transaction and a commit flush.
//!
//! **The peer's clock is measured, never trusted** (SPEC §4.7): every answer's `Date` header,
//! against the midpoint of this process's clock around the request, sets
//! `giro_peer_clock_skew_seconds{peer}` (positive = the peer is ahead; the header's 1 s resolution
//! is corrected by half a second). Nothing is decided by it: it is there to be alerted on.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use futures_util::stream::{self, StreamExt};
use reqwest::header::HeaderValue;
use reqwest::StatusCode;
use serde_json::value::RawValue;
use tokio::sync::{Notify, Semaphore, SemaphorePermit};

use crate::lote::{ItemLote, LotePedido, LoteResposta, ResultadoItem};
use crate::store::{truncate, Claimed};
use giro_infra::client::{describe, is_json};
use giro_infra::config::{Secret, Transporte as Transport};

/// How long a peer without `/eventos/lote` is served event by event before probing again.
pub const SINGLE_MODE_FOR: Duration = Duration::from_secs(60);

/// Events per `/eventos/lote` request below which a batch is not split further. The receiver pays
/// a transaction (commit flush, `NOTIFY`) per request; the DB-only limit in `BENCHMARKS.md` shows
/// that cost stops mattering at about 63 events a request, while 7 cost 37 % of the throughput.
pub const CHUNK_MIN: usize = 64;

/// Which request slots a batch's requests take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Faixa {
    /// One of the `outbox.concorrencia` slots every claim shares.
    #[default]
    Comum,
    /// The one slot kept for claims of live events: a request never waits behind the backlog's.
    Expressa,
}

/// Events per request for a batch of `n`: as few requests as keep each at `CHUNK_MIN` or more,
/// at most `concorrencia` of them (more would only queue for a slot), each at most `lote_max`
/// (the receiver refuses more). Chunks are balanced: 130 events are 44 + 44 + 42, not 64 + 64 + 2.
pub fn chunk_size(n: usize, concorrencia: usize, lote_max: usize) -> usize {
    let requests = n.div_ceil(CHUNK_MIN).clamp(1, concorrencia.max(1));
    n.div_ceil(requests).clamp(1, lote_max.max(1))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Sent,
    /// The receiver judged the event invalid: dead letter at once.
    Permanent(String),
    /// The receiver answered but could not take it this time: retried with backoff.
    Transient(String),
    /// The peer's receiver was not reached: retried with backoff, and the publisher probes the
    /// peer to serve the waiting events as soon as it is back.
    Unreachable(String),
}

impl Outcome {
    pub fn erro(&self) -> Option<&str> {
        match self {
            Outcome::Sent => None,
            Outcome::Permanent(e) | Outcome::Transient(e) | Outcome::Unreachable(e) => Some(e),
        }
    }
}

/// What an answer of `/eventos` to one event means.
fn classify(status: StatusCode, receiver: bool, msg: String, peer: &str) -> Outcome {
    let s = status.as_u16();
    let route_missing = matches!(s, 404 | 405 | 410) || ((400..500).contains(&s) && !receiver);
    if route_missing {
        metrics::counter!("giro_outbox_peer_route_missing_total", "peer" => peer.to_string()).increment(1);
        tracing::warn!(
            peer,
            status = s,
            "peer route missing (an answer that is not the receiver's); will retry"
        );
        return Outcome::Unreachable(msg);
    }
    if receiver && is_permanent(status) {
        return Outcome::Permanent(msg);
    }
    if matches!(s, 502..=504) || !receiver {
        return Outcome::Unreachable(msg);
    }
    Outcome::Transient(msg)
}

pub struct Peer {
    base: String,
    token: Secret,
    http: reqwest::Client,
    concorrencia: usize,
    lote_max: usize,
    /// `outbox.concorrencia` request slots, shared by every batch of this peer in flight.
    slots: Semaphore,
    /// The express lane's one slot ([`Faixa::Expressa`]).
    expressa: Semaphore,
    /// Told each time a request gives its slot back: a publisher waiting to claim again wakes.
    pub slot_freed: Notify,
    transport: Transport,
    single_until: Mutex<Option<Instant>>,
    /// The `peer` label of the skew gauge: the peer service's name ([`Peer::named`]), else its
    /// URL without a password.
    nome: String,
}

/// The statuses by which a receiver refuses an event for good (when the answer is its own).
pub fn is_permanent(status: StatusCode) -> bool {
    matches!(status.as_u16(), 400 | 413 | 415 | 422)
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
        let http = giro_infra::client::builder(timeout)
            // One more for the express lane.
            .pool_max_idle_per_host(concorrencia.max(1) + 1)
            .tcp_nodelay(true)
            .build()?;
        Ok(Peer {
            base: base.trim_end_matches('/').to_string(),
            token,
            http,
            concorrencia: concorrencia.max(1),
            lote_max: lote_max.max(1),
            slots: Semaphore::new(concorrencia.max(1)),
            expressa: Semaphore::new(1),
            slot_freed: Notify::new(),
            transport,
            single_until: Mutex::new(None),
            nome: giro_infra::mascara::mask_password(base.trim_end_matches('/')),
        })
    }

    /// Names the peer (`mercado`, `estoque`) in the skew gauge's `peer` label.
    pub fn named(mut self, nome: &str) -> Peer {
        self.nome = nome.to_string();
        self
    }

    /// `POST {peer}{path}` of a JSON body with the peer's token; the answer's `Date` sets the skew.
    async fn post(
        &self,
        path: &str,
        cabecalhos: &[(&str, &str)],
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Result<reqwest::Response> {
        let mut req = self.http.post(format!("{}{path}", self.base)).bearer_auth(self.token.expose());
        for (nome, valor) in [("content-type", "application/json")].iter().chain(cabecalhos) {
            req = req.header(*nome, *valor);
        }
        let enviado = Utc::now();
        let res = req.body(body).send().await?;
        let date = res.headers().get(reqwest::header::DATE);
        if let Some(skew) = skew_do_date(date, enviado, Utc::now()) {
            metrics::gauge!("giro_peer_clock_skew_seconds", "peer" => self.nome.clone()).set(skew);
        }
        Ok(res)
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    fn use_lote(&self) -> bool {
        if self.transport == Transport::Single {
            return false;
        }
        let Ok(mut g) = self.single_until.lock() else { return true };
        if g.is_some_and(|t| Instant::now() < t) {
            return false;
        }
        *g = None;
        true
    }

    fn fall_back_to_single(&self, status: StatusCode) {
        tracing::info!(peer = %self.base, status = status.as_u16(), "peer has no /eventos/lote; delivering event by event");
        if let Ok(mut g) = self.single_until.lock() {
            *g = Some(Instant::now() + SINGLE_MODE_FOR);
        }
    }

    /// `GET {peer}/readyz` (or the original's `/actuator/health`): true when the peer says it is
    /// ready. The light knock that tells a publisher the waiting events can go now.
    pub async fn probe(&self) -> bool {
        for path in ["/readyz", "/actuator/health"] {
            match self.http.get(format!("{}{path}", self.base)).send().await {
                Ok(r) if r.status().is_success() => return true,
                Ok(r) if r.status() == StatusCode::NOT_FOUND => continue,
                _ => return false,
            }
        }
        false
    }

    /// Request slots free right now (a publisher claims again only when one is).
    pub fn free_slots(&self) -> usize {
        self.slots.available_permits()
    }

    /// Whether the express lane's slot is free now.
    pub fn expressa_livre(&self) -> bool {
        self.expressa.available_permits() > 0
    }

    /// Waits for a request slot of `faixa`; it is given back (and [`Peer::slot_freed`] told) on drop.
    async fn slot(&self, faixa: Faixa) -> Slot<'_> {
        let sem = match faixa {
            Faixa::Comum => &self.slots,
            Faixa::Expressa => &self.expressa,
        };
        // The semaphore is never closed: acquire only fails on a closed one.
        Slot { permit: sem.acquire().await.ok(), freed: &self.slot_freed }
    }

    /// Delivers `events` in chunks of [`chunk_size`], each request waiting for one of the peer's
    /// `concorrencia` slots; one outcome per event, in order.
    pub async fn deliver(&self, events: &[Claimed]) -> Vec<Outcome> {
        self.deliver_in(events, Faixa::Comum).await
    }

    /// [`Peer::deliver`] through the slots of `faixa` (the express lane: one request at a time).
    pub async fn deliver_in(&self, events: &[Claimed], faixa: Faixa) -> Vec<Outcome> {
        if events.is_empty() {
            return Vec::new();
        }
        let slots = match faixa {
            Faixa::Comum => self.concorrencia,
            Faixa::Expressa => 1,
        };
        if self.use_lote() {
            let per = chunk_size(events.len(), slots, self.lote_max);
            // Futures collected first: a closure inside the stream trips the Send check of spawn.
            let futs: Vec<_> = events.chunks(per).map(|c| self.send_lote(c, faixa)).collect();
            // All at once: the slots decide how many are on the wire, in the order they asked.
            let results: Vec<Option<Vec<Outcome>>> = futures_util::future::join_all(futs).await;
            if results.iter().all(Option::is_some) {
                return results.into_iter().flatten().flatten().collect();
            }
            // The peer refused the route: this round goes event by event.
        }
        let futs: Vec<_> = events.iter().map(|e| self.send_one_in(e, faixa)).collect();
        stream::iter(futs).buffered(slots).collect().await
    }

    /// `POST /eventos` for one event.
    async fn send_one_in(&self, e: &Claimed, faixa: Faixa) -> Outcome {
        let _slot = self.slot(faixa).await;
        let mut cabecalhos = vec![("Evento-Tipo", e.tipo.as_str())];
        cabecalhos.extend(e.traceparent.as_deref().map(|tp| ("traceparent", tp)));
        match self.post("/eventos", &cabecalhos, e.payload.clone()).await {
            Ok(res) if res.status().is_success() => Outcome::Sent,
            Ok(res) => {
                let status = res.status();
                let receiver = is_json(res.headers());
                let body = res.text().await.unwrap_or_default();
                let msg =
                    format!("envio de {} {} falhou: HTTP {status}: {}", e.tipo, e.id, truncate(&body, 200));
                classify(status, receiver, msg, &self.base)
            }
            Err(err) => {
                Outcome::Unreachable(format!("envio de {} {} falhou: {}", e.tipo, e.id, describe(&err)))
            }
        }
    }

    /// `POST /eventos/lote` for a chunk; `None` when it is to be sent event by event instead
    /// (the peer has no such route, or refused the request as a whole).
    async fn send_lote(&self, chunk: &[Claimed], faixa: Faixa) -> Option<Vec<Outcome>> {
        // A stored payload that is not JSON cannot happen (JSONB); send one by one to isolate it.
        let body = lote_body(chunk)?;
        let all = |o: Outcome| Some(vec![o; chunk.len()]);
        // Held until the answer is read: a slot is a request the peer is working on.
        let _slot = self.slot(faixa).await;
        let res = match self.post("/eventos/lote", &[], body).await {
            Ok(r) => r,
            Err(err) => {
                let erro = format!("envio de lote de {} eventos falhou: {}", chunk.len(), describe(&err));
                return all(Outcome::Unreachable(erro));
            }
        };
        match self.read_lote(res).await {
            Lido::Itens(r) => Some(self.per_event(chunk, r)),
            Lido::EventoAEvento => None,
            Lido::Todos(o) => all(o),
        }
    }

    /// What a `/eventos/lote` answer says as a whole, before its items.
    async fn read_lote(&self, res: reqwest::Response) -> Lido {
        let status = res.status();
        if matches!(status.as_u16(), 403..=405) {
            self.fall_back_to_single(status);
            return Lido::EventoAEvento;
        }
        if status.is_client_error() && is_json(res.headers()) && is_permanent(status) {
            // The request as a whole was refused: each event gets its own verdict through /eventos.
            return Lido::EventoAEvento;
        }
        if !status.is_success() {
            let receiver = is_json(res.headers());
            let body = res.text().await.unwrap_or_default();
            let msg = format!("envio de lote falhou: HTTP {status}: {}", truncate(&body, 200));
            return Lido::Todos(classify(status, receiver, msg, &self.base));
        }
        match res.json::<LoteResposta>().await {
            Ok(r) => Lido::Itens(r),
            Err(err) => Lido::Todos(Outcome::Transient(format!("resposta de lote ilegível: {err}"))),
        }
    }

    /// Each event's outcome from the answer's items, matched by `eventId`, never by position: an
    /// item for no event of the request is ignored, an event without an item is transient.
    fn per_event(&self, chunk: &[Claimed], r: LoteResposta) -> Vec<Outcome> {
        if r.resultados.len() != chunk.len() {
            tracing::warn!(peer = %self.base, resultados = r.resultados.len(), eventos = chunk.len(), "batch answer has another number of results than events; matching by eventId");
        }
        let mut by_id = std::collections::HashMap::with_capacity(r.resultados.len());
        for res in r.resultados {
            match res.event_id {
                Some(id) if chunk.iter().any(|e| e.id == id) => {
                    by_id.entry(id).or_insert(res);
                }
                other => {
                    tracing::warn!(peer = %self.base, event_id = ?other, status = res.status, "batch result for no event of the request; ignored")
                }
            }
        }
        chunk
            .iter()
            .map(|e| match by_id.remove(&e.id) {
                None => {
                    tracing::warn!(peer = %self.base, event_id = %e.id, "batch answer has no result for this event; will retry");
                    Outcome::Transient(format!(
                        "envio de {} {} falhou: a resposta do lote não trouxe resultado para este evento",
                        e.tipo, e.id
                    ))
                }
                Some(r) => item_outcome(e, &r),
            })
            .collect()
    }
}

/// What a `/eventos/lote` answer says as a whole ([`Peer::send_lote`]).
enum Lido {
    /// One result per event, to be matched.
    Itens(LoteResposta),
    /// No such route, or the request refused as a whole: this round goes through `/eventos`.
    EventoAEvento,
    /// The same outcome for every event of the request.
    Todos(Outcome),
}

/// The body of `POST /eventos/lote`: each stored payload as it is, with its type and trace;
/// `None` if one is not JSON.
fn lote_body(chunk: &[Claimed]) -> Option<Vec<u8>> {
    let item = |e: &Claimed| {
        let evento = RawValue::from_string(e.payload.clone()).ok()?;
        Some(ItemLote { tipo: e.tipo.clone(), evento, traceparent: e.traceparent.clone() })
    };
    serde_json::to_vec(&LotePedido { eventos: chunk.iter().map(item).collect::<Option<_>>()? }).ok()
}

/// One event's outcome from its own item of a batch answer.
fn item_outcome(e: &Claimed, r: &ResultadoItem) -> Outcome {
    let detalhe = r.detalhe.as_deref().unwrap_or_default();
    let msg = format!("envio de {} {} falhou: item {}: {detalhe}", e.tipo, e.id, r.status);
    match r.status {
        200..=299 => Outcome::Sent,
        400 | 422 => Outcome::Permanent(msg),
        // The receiver's database is in trouble: wait for its readiness probe.
        503 => Outcome::Unreachable(msg),
        _ => Outcome::Transient(msg),
    }
}

/// One request slot held ([`Peer::slot`]).
struct Slot<'a> {
    permit: Option<SemaphorePermit<'a>>,
    freed: &'a Notify,
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        // The permit goes back first, so the woken publisher finds the slot free.
        drop(self.permit.take());
        self.freed.notify_one();
    }
}

/// The peer's clock minus ours, in seconds, from a `Date` header read between `enviado` and
/// `recebido`: the header is truncated to the second, so half a second is added back; `None` when
/// there is no readable header.
pub fn skew_do_date(
    date: Option<&HeaderValue>,
    enviado: DateTime<Utc>,
    recebido: DateTime<Utc>,
) -> Option<f64> {
    let texto = date?.to_str().ok()?;
    let deles = DateTime::parse_from_rfc2822(texto).ok()?.with_timezone(&Utc);
    let meio = enviado + (recebido - enviado) / 2;
    Some((deles - meio).num_milliseconds() as f64 / 1000.0 + 0.5)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skew_is_the_peers_date_against_the_midpoint_of_the_request() {
        let t = |s: &str| chrono::DateTime::parse_from_rfc3339(s).map(|t| t.with_timezone(&chrono::Utc)).ok();
        let (Some(enviado), Some(recebido)) = (t("2026-12-04T12:00:00Z"), t("2026-12-04T12:00:00.200Z"))
        else {
            panic!("instants")
        };
        let date = |v: &'static str| reqwest::header::HeaderValue::from_static(v);
        // Two days ahead: 172800 s, give or take the header's truncation.
        let s = skew_do_date(Some(&date("Sun, 06 Dec 2026 12:00:00 GMT")), enviado, recebido);
        assert_eq!(s, Some(172_800.4));
        let s = skew_do_date(Some(&date("Wed, 02 Dec 2026 12:00:00 GMT")), enviado, recebido);
        assert_eq!(s, Some(-172_799.6));
        assert_eq!(skew_do_date(Some(&date("ontem")), enviado, recebido), None);
        assert_eq!(skew_do_date(None, enviado, recebido), None);
    }

    fn requests(n: usize, concorrencia: usize, lote_max: usize) -> Vec<usize> {
        let per = chunk_size(n, concorrencia, lote_max);
        (0..n).collect::<Vec<_>>().chunks(per).map(<[usize]>::len).collect()
    }

    #[test]
    fn a_claim_at_the_shipped_size_is_one_request_not_eight_of_seven() {
        assert_eq!(requests(50, 8, 500), vec![50]);
        assert_eq!(requests(1, 8, 500), vec![1]);
        assert_eq!(requests(64, 8, 500), vec![64]);
    }

    #[test]
    fn larger_claims_are_split_in_balanced_chunks_up_to_one_per_slot() {
        assert_eq!(requests(130, 8, 500), vec![44, 44, 42]);
        assert_eq!(requests(500, 8, 500).len(), 8);
        assert!(requests(500, 8, 500).iter().all(|&n| (59..=63).contains(&n)));
        assert_eq!(requests(200, 1, 500), vec![200], "one slot: one request");
    }

    #[test]
    fn no_request_exceeds_lote_max_even_beyond_one_per_slot() {
        let r = requests(1000, 2, 100);
        assert_eq!(r.len(), 10);
        assert!(r.iter().all(|&n| n <= 100));
        assert_eq!(requests(0, 8, 500), Vec::<usize>::new());
    }
}
