//! A fake peer on loopback that records every delivery (svix's `TestReceiver`): it answers a
//! chosen status, optionally after a delay or held at a gate until the test releases it, with or
//! without `/eventos/lote`, and counts how many requests are in flight at once.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU16, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::{json, Value};

#[derive(Clone, Debug)]
pub struct Delivery {
    pub tipo: String,
    pub body: Value,
    pub authorization: Option<String>,
    pub via_lote: bool,
}

impl Delivery {
    pub fn event_id(&self) -> String {
        self.body["eventId"].as_str().unwrap_or_default().to_string()
    }
}

/// What the peer does with `/eventos/lote`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lote {
    Supported,
    /// Answers this status (404 or 403 for a peer without the route, as the original).
    Missing(u16),
}

pub struct FakePeer {
    pub addr: SocketAddr,
    pub deliveries: Mutex<Vec<Delivery>>,
    pub status: AtomicU16,
    pub delay_ms: AtomicUsize,
    pub in_flight: AtomicUsize,
    pub max_in_flight: AtomicUsize,
    pub requests: AtomicUsize,
    /// Open (`true`) unless a test holds the requests ([`FakePeer::hold`]).
    gate: tokio::sync::watch::Sender<bool>,
    lote: Lote,
}

impl FakePeer {
    pub async fn start(lote: Lote) -> Arc<FakePeer> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind fake peer");
        let addr = listener.local_addr().expect("addr");
        let peer = Arc::new(FakePeer {
            addr,
            deliveries: Mutex::new(Vec::new()),
            status: AtomicU16::new(204),
            delay_ms: AtomicUsize::new(0),
            in_flight: AtomicUsize::new(0),
            max_in_flight: AtomicUsize::new(0),
            requests: AtomicUsize::new(0),
            gate: tokio::sync::watch::channel(true).0,
            lote,
        });
        let app = Router::new()
            .route("/eventos", post(um))
            .route("/eventos/lote", post(lote_handler))
            .with_state(peer.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        peer
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn set_status(&self, s: u16) {
        self.status.store(s, Ordering::SeqCst);
    }

    pub fn set_delay(&self, d: Duration) {
        self.delay_ms.store(d.as_millis() as usize, Ordering::SeqCst);
    }

    /// Holds every request from now on until [`FakePeer::release`]: unlike a delay, nothing is
    /// answered while the test looks, however slow the machine.
    pub fn hold(&self) {
        self.gate.send_replace(false);
    }

    pub fn release(&self) {
        self.gate.send_replace(true);
    }

    pub fn count(&self) -> usize {
        self.deliveries.lock().expect("lock").len()
    }

    pub fn all(&self) -> Vec<Delivery> {
        self.deliveries.lock().expect("lock").clone()
    }

    async fn enter(&self) {
        self.requests.fetch_add(1, Ordering::SeqCst);
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        let d = self.delay_ms.load(Ordering::SeqCst);
        if d > 0 {
            tokio::time::sleep(Duration::from_millis(d as u64)).await;
        }
        let _ = self.gate.subscribe().wait_for(|aberto| *aberto).await;
    }

    fn leave(&self) {
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn um(State(p): State<Arc<FakePeer>>, headers: HeaderMap, body: Bytes) -> Response {
    p.enter().await;
    let status = p.status.load(Ordering::SeqCst);
    if (200..300).contains(&status) {
        p.deliveries.lock().expect("lock").push(Delivery {
            tipo: headers.get("evento-tipo").and_then(|v| v.to_str().ok()).unwrap_or_default().to_string(),
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
            authorization: headers.get("authorization").and_then(|v| v.to_str().ok()).map(String::from),
            via_lote: false,
        });
    }
    p.leave();
    StatusCode::from_u16(status).unwrap_or(StatusCode::NO_CONTENT).into_response()
}

async fn lote_handler(
    State(p): State<Arc<FakePeer>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    if let Lote::Missing(s) = p.lote {
        return StatusCode::from_u16(s).unwrap_or(StatusCode::NOT_FOUND).into_response();
    }
    p.enter().await;
    let status = p.status.load(Ordering::SeqCst);
    if status >= 500 {
        // The whole request fails, as when the receiver is down behind a proxy.
        p.leave();
        return StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR).into_response();
    }
    let items = body["eventos"].as_array().cloned().unwrap_or_default();
    let mut resultados = Vec::new();
    for item in items {
        let ev = item["evento"].clone();
        if (200..300).contains(&status) {
            p.deliveries.lock().expect("lock").push(Delivery {
                tipo: item["tipo"].as_str().unwrap_or_default().to_string(),
                body: ev.clone(),
                authorization: headers.get("authorization").and_then(|v| v.to_str().ok()).map(String::from),
                via_lote: true,
            });
            resultados.push(json!({"eventId": ev["eventId"], "status": 204}));
        } else {
            resultados.push(json!({"eventId": ev["eventId"], "status": if status == 400 { 400 } else { 500 }, "detalhe": "falhou"}));
        }
    }
    p.leave();
    Json(json!({ "resultados": resultados })).into_response()
}
