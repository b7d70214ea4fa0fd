//! What the estoque tests share: the app with a tag-worker address that answers nothing unless a
//! test gives one, a stand-in tag-worker ([`FakeWorker`]: 200, 503 or 3 s late, counting calls),
//! seeding of products and lots by SQL (expiry relative to today in `America/Sao_Paulo`), sending
//! a `ReposicaoSolicitada` as mercado does, and reading the outbox.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use chrono::NaiveDate;
use giro_servicos::config::Servico;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::support::app::{spawn_app, TestApp};

pub const COCA: &str = "7894900011517";
pub const BANANA: &str = "2000000000114";

/// estoque in-process; unless `env` names one, the tag-worker is an address where nothing listens
/// (so no test depends on a worker someone runs on the default port).
pub async fn estoque(env: &[(&str, &str)]) -> TestApp {
    let mut vars: Vec<(&str, &str)> = vec![("TAG_WORKER_URL", "http://127.0.0.1:9")];
    vars.extend_from_slice(env);
    spawn_app(Servico::Estoque, &vars).await
}

/// How the stand-in answers `POST /classificar`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Modo {
    /// 200: tags = the description's words in lowercase; `bebidas` when one is "coca", else `outros`.
    Ok = 0,
    /// 503, as the worker when its classifier is unavailable.
    Indisponivel = 1,
    /// 200, but only after 3 s.
    Lento = 2,
}

#[derive(Default)]
struct Estado {
    modo: AtomicU8,
    chamadas: AtomicUsize,
    pedidos: Mutex<Vec<PedidoRecebido>>,
}

/// One call the stand-in received.
#[derive(Clone, Debug)]
pub struct PedidoRecebido {
    pub authorization: Option<String>,
    pub content_type: Option<String>,
    pub corpo: Value,
}

/// A stand-in tag-worker on 127.0.0.1:0.
pub struct FakeWorker {
    pub url: String,
    estado: Arc<Estado>,
    task: tokio::task::JoinHandle<()>,
}

impl FakeWorker {
    pub async fn start(modo: Modo) -> FakeWorker {
        let estado = Arc::new(Estado::default());
        estado.modo.store(modo as u8, Ordering::SeqCst);
        let app = Router::new().route("/classificar", post(classificar)).with_state(estado.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeWorker { url, estado, task }
    }

    pub fn set(&self, modo: Modo) {
        self.estado.modo.store(modo as u8, Ordering::SeqCst);
    }

    pub fn chamadas(&self) -> usize {
        self.estado.chamadas.load(Ordering::SeqCst)
    }

    pub fn pedidos(&self) -> Vec<PedidoRecebido> {
        self.estado.pedidos.lock().unwrap().clone()
    }
}

impl Drop for FakeWorker {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn classificar(State(e): State<Arc<Estado>>, headers: HeaderMap, body: Bytes) -> Response {
    e.chamadas.fetch_add(1, Ordering::SeqCst);
    let header = |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).map(String::from);
    let corpo: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    e.pedidos.lock().unwrap().push(PedidoRecebido {
        authorization: header("authorization"),
        content_type: header("content-type"),
        corpo: corpo.clone(),
    });
    let modo = e.modo.load(Ordering::SeqCst);
    if modo == Modo::Indisponivel as u8 {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            axum::Json(json!({"detail": "classificador indisponível"})),
        )
            .into_response();
    }
    if modo == Modo::Lento as u8 {
        // Never answers: a caller that returns at all gave up on its own timeout.
        std::future::pending::<()>().await;
    }
    let descricao = corpo["descricao"].as_str().unwrap_or_default().to_lowercase();
    let tags: Vec<&str> = descricao.split_whitespace().collect();
    let categoria = if tags.contains(&"coca") { "bebidas" } else { "outros" };
    axum::Json(json!({"tags": tags, "categoria": categoria})).into_response()
}

/// Today in `America/Sao_Paulo` plus `dias`, as the database computes it.
pub async fn hoje_mais(app: &TestApp, dias: i32) -> NaiveDate {
    let c = app.db.client().await;
    c.query_one("SELECT (now() AT TIME ZONE 'America/Sao_Paulo')::date + $1::int", &[&dias])
        .await
        .unwrap()
        .get(0)
}

/// A product with no lots (balance 0), optionally classified.
pub async fn produto(app: &TestApp, sku: &str, descricao: &str, tags: Option<&[&str]>) {
    let c = app.db.client().await;
    let tags = tags.map(|t| json!(t));
    let categoria = tags.as_ref().map(|_| "bebidas");
    c.execute(
        "INSERT INTO produto_estoque (sku, descricao, ncm, tags, categoria) VALUES ($1, $2, '22021000', $3, $4)",
        &[&sku, &descricao, &tags, &categoria],
    )
    .await
    .unwrap();
}

/// A lot of `qtd` units received now (each call at least 1 ms after the previous), expiring in
/// `validade_dias` days from today (`None`: no expiry); the product's balance goes up with it.
/// Returns the lot's id.
pub async fn lote(app: &TestApp, sku: &str, codigo: &str, qtd: i32, validade_dias: Option<i32>) -> i64 {
    let c = app.db.client().await;
    let id: i64 = c
        .query_one(
            "INSERT INTO lote (sku, codigo_lote, quantidade, validade, recebido_em, quantidade_disponivel) \
             VALUES ($1, $2, $3, (now() AT TIME ZONE 'America/Sao_Paulo')::date + $4::int, \
                     GREATEST(clock_timestamp() - interval '1 hour', \
                              (SELECT max(recebido_em) + interval '1 millisecond' FROM lote)), $3) \
             RETURNING id",
            &[&sku, &codigo, &qtd, &validade_dias],
        )
        .await
        .unwrap()
        .get(0);
    c.execute(
        "UPDATE produto_estoque SET saldo_disponivel = saldo_disponivel + $2 WHERE sku = $1",
        &[&sku, &qtd],
    )
    .await
    .unwrap();
    id
}

/// POSTs a `ReposicaoSolicitada` to `/eventos` with mercado's credentials; returns the status.
pub async fn solicitar(app: &TestApp, event_id: Uuid, sku: &str, qtd: i32) -> u16 {
    let body =
        json!({"eventId": event_id, "sku": sku, "qtdFaltante": qtd, "ocorridoEm": "2026-09-25T12:00:00Z"});
    app.as_servico(app.http.post(app.url("/eventos")))
        .header("Evento-Tipo", "ReposicaoSolicitada")
        .json(&body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// The outbox rows, oldest first: (tipo, payload).
pub async fn outbox(app: &TestApp) -> Vec<(String, Value)> {
    let c = app.db.client().await;
    c.query("SELECT tipo, payload FROM outbox_event ORDER BY criado_em, id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect()
}

pub async fn saldo(app: &TestApp, sku: &str) -> i32 {
    let c = app.db.client().await;
    c.query_one("SELECT saldo_disponivel FROM produto_estoque WHERE sku = $1", &[&sku]).await.unwrap().get(0)
}

pub async fn disponivel(app: &TestApp, lote_id: i64) -> i32 {
    let c = app.db.client().await;
    c.query_one("SELECT quantidade_disponivel FROM lote WHERE id = $1", &[&lote_id]).await.unwrap().get(0)
}

/// Open demands: (qtd_solicitada, solicitacao_original).
pub async fn demandas_abertas(app: &TestApp, sku: &str) -> Vec<(i32, Uuid)> {
    let c = app.db.client().await;
    c.query(
        "SELECT qtd_solicitada, solicitacao_original FROM demanda_reprimida WHERE sku = $1 AND NOT atendida ORDER BY registrado_em, id",
        &[&sku],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1)))
    .collect()
}

/// POSTs `body` to `/lotes` as the logged-in operator; returns (status, body).
pub async fn registrar_lote(app: &TestApp, op: &crate::support::app::Operador, body: Value) -> (u16, Value) {
    let res = op.on(app.http.post(app.url("/lotes"))).json(&body).send().await.unwrap();
    let status = res.status().as_u16();
    let text = res.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
}
