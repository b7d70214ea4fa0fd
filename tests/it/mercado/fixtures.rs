//! What the mercado tests share: the app (with an estoque address that answers nothing unless a
//! test gives one), a stand-in estoque for the product lookup ([`FakeEstoque`]: 200 with a body,
//! 404, 503 or 3 s late, recording each call), seeding products by SQL, checkout and events over
//! HTTP, and reading the tables a rule writes (shelf, requests, outbox, orders, reservations).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Router;
use giro_servicos::config::Servico;
use serde_json::{json, Value};
use uuid::Uuid;

use crate::support::app::{spawn_app, TestApp};

pub const COCA: &str = "7894900011517";
pub const BANANA: &str = "2000000000114";
pub const DETERGENTE: &str = "7891022100105";
pub const LEITE: &str = "7891000100103";

/// mercado in-process; unless `env` names one, estoque is an address where nothing listens.
pub async fn mercado(env: &[(&str, &str)]) -> TestApp {
    let mut vars: Vec<(&str, &str)> = vec![("ESTOQUE_URL", "http://127.0.0.1:9")];
    vars.extend_from_slice(env);
    spawn_app(Servico::Mercado, &vars).await
}

/// Puts a product on the shelf directly (no trigger runs): `preco` is SQL numeric text.
pub async fn produto(
    app: &TestApp,
    sku: &str,
    nome: &str,
    preco: &str,
    prateleira: i32,
    minimo: i32,
    ideal: i32,
) {
    let status = if prateleira > 0 { "DISPONIVEL" } else { "ESGOTADO" };
    app.db
        .client()
        .await
        .execute(
            "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
             VALUES ($1, $2, $3::text::numeric, $4, $5, $6, $7)",
            &[&sku, &nome, &preco, &prateleira, &minimo, &ideal, &status],
        )
        .await
        .unwrap();
}

pub async fn classificar_no_banco(app: &TestApp, sku: &str, tags: Value, categoria: &str) {
    app.db
        .client()
        .await
        .execute(
            "UPDATE produto_vitrine SET tags = $2, categoria = $3, classificado_em = now() WHERE sku = $1",
            &[&sku, &tags, &categoria],
        )
        .await
        .unwrap();
}

/// `POST /pedidos` with `(sku, qtd)` items, anonymous and without CSRF, as the storefront does.
pub async fn comprar(app: &TestApp, itens: &[(&str, i32)]) -> reqwest::Response {
    let itens: Vec<Value> = itens.iter().map(|(sku, qtd)| json!({"sku": sku, "qtd": qtd})).collect();
    app.http.post(app.url("/pedidos")).json(&json!({ "itens": itens })).send().await.unwrap()
}

/// A checkout that must succeed; returns the order id.
pub async fn comprar_ok(app: &TestApp, itens: &[(&str, i32)]) -> Uuid {
    let res = comprar(app, itens).await;
    assert_eq!(res.status(), 201, "checkout of {itens:?}");
    let body: Value = res.json().await.unwrap();
    body["pedidoId"].as_str().unwrap().parse().unwrap()
}

/// `POST /eventos` with the service token (what estoque's publisher sends).
pub async fn evento(app: &TestApp, tipo: &str, body: &Value) -> u16 {
    app.as_servico(app.http.post(app.url("/eventos")))
        .header("evento-tipo", tipo)
        .json(body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// (shelf, status) of a product.
pub async fn prateleira(app: &TestApp, sku: &str) -> (i32, String) {
    let r = app
        .db
        .client()
        .await
        .query_one("SELECT estoque_prateleira, status FROM produto_vitrine WHERE sku = $1", &[&sku])
        .await
        .unwrap();
    (r.get(0), r.get(1))
}

#[derive(Debug, Clone, PartialEq)]
pub struct Solicitacao {
    pub event_id: Uuid,
    pub qtd: i32,
    pub status: String,
}

/// The SKU's restock requests, oldest first.
pub async fn solicitacoes(app: &TestApp, sku: &str) -> Vec<Solicitacao> {
    app.db
        .client()
        .await
        .query(
            "SELECT event_id, qtd_solicitada, status FROM solicitacao_reposicao WHERE sku = $1 ORDER BY id",
            &[&sku],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| Solicitacao { event_id: r.get(0), qtd: r.get(1), status: r.get(2) })
        .collect()
}

/// Payloads of the outbox rows of `tipo` about `sku`, oldest first.
pub async fn outbox(app: &TestApp, tipo: &str, sku: &str) -> Vec<Value> {
    app.db
        .client()
        .await
        .query(
            "SELECT payload FROM outbox_event WHERE tipo = $1 AND payload->>'sku' = $2 ORDER BY criado_em, id",
            &[&tipo, &sku],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

pub async fn contar(app: &TestApp, tabela: &str) -> i64 {
    app.db.client().await.query_one(&format!("SELECT count(*) FROM {tabela}"), &[]).await.unwrap().get(0)
}

pub async fn status_pedido(app: &TestApp, id: Uuid) -> String {
    app.db.client().await.query_one("SELECT status FROM pedido WHERE id = $1", &[&id]).await.unwrap().get(0)
}

/// Statuses of an order's reservations, by SKU.
pub async fn reservas(app: &TestApp, id: Uuid) -> Vec<String> {
    app.db
        .client()
        .await
        .query("SELECT status FROM reserva WHERE pedido_id = $1 ORDER BY sku", &[&id])
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

pub fn reposicao_enviada(correlation_id: Uuid, sku: &str, qtd: i32) -> Value {
    reposicao_enviada_do_lote(correlation_id, sku, qtd, "L-TESTE-01")
}

/// A `ReposicaoEnviada` from lot `lote`, under a fresh event id.
pub fn reposicao_enviada_do_lote(correlation_id: Uuid, sku: &str, qtd: i32, lote: &str) -> Value {
    json!({"eventId": Uuid::new_v4(), "correlationId": correlation_id, "sku": sku, "qtd": qtd,
           "lote": lote, "ocorridoEm": "2026-09-25T12:00:05Z"})
}

pub fn reposicao_negada(correlation_id: Uuid, sku: &str, motivo: &str) -> Value {
    json!({"eventId": Uuid::new_v4(), "correlationId": correlation_id, "sku": sku, "motivo": motivo,
           "ocorridoEm": "2026-09-25T12:00:05Z"})
}

pub fn produto_classificado(sku: &str, tags: &[&str], categoria: &str, ocorrido_em: &str) -> Value {
    json!({"eventId": Uuid::new_v4(), "sku": sku, "tags": tags, "categoria": categoria, "ocorridoEm": ocorrido_em})
}

/// How the stand-in estoque answers `GET /produtos/{sku}`.
#[derive(Clone, Debug)]
pub enum Resposta {
    Ok(Value),
    NaoEncontrado,
    Indisponivel,
    /// Never answers (a caller must give up on its own timeout).
    Lenta,
}

/// One call the stand-in received.
#[derive(Clone, Debug)]
pub struct Chamada {
    pub metodo: String,
    pub caminho: String,
    pub autorizacao: Option<String>,
    pub versao: String,
}

struct Estado {
    resposta: Resposta,
    chamadas: Mutex<Vec<Chamada>>,
}

/// A stand-in estoque on 127.0.0.1:0, answering every request with one [`Resposta`].
pub struct FakeEstoque {
    pub url: String,
    estado: Arc<Estado>,
    task: tokio::task::JoinHandle<()>,
}

impl FakeEstoque {
    pub async fn start(resposta: Resposta) -> FakeEstoque {
        let estado = Arc::new(Estado { resposta, chamadas: Mutex::new(Vec::new()) });
        let app = Router::new().fallback(responder).with_state(estado.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        FakeEstoque { url, estado, task }
    }

    pub fn chamadas(&self) -> Vec<Chamada> {
        self.estado.chamadas.lock().unwrap().clone()
    }
}

impl Drop for FakeEstoque {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn responder(State(e): State<Arc<Estado>>, req: Request) -> Response {
    e.chamadas.lock().unwrap().push(Chamada {
        metodo: req.method().to_string(),
        caminho: req.uri().path().to_string(),
        autorizacao: req.headers().get("authorization").and_then(|v| v.to_str().ok()).map(str::to_string),
        versao: format!("{:?}", req.version()),
    });
    match &e.resposta {
        Resposta::Ok(body) => axum::Json(body.clone()).into_response(),
        Resposta::NaoEncontrado => StatusCode::NOT_FOUND.into_response(),
        Resposta::Indisponivel => StatusCode::SERVICE_UNAVAILABLE.into_response(),
        Resposta::Lenta => {
            // Never answers: a caller that returns at all gave up on its own timeout.
            std::future::pending::<()>().await;
            StatusCode::GATEWAY_TIMEOUT.into_response()
        }
    }
}

/// What estoque answers for a classified product.
pub fn no_estoque(sku: &str, tags: Option<&[&str]>, categoria: Option<&str>) -> Value {
    json!({"sku": sku, "descricao": "COCA COLA 2L PET", "ncm": "22021000", "tags": tags, "categoria": categoria,
           "saldoDisponivel": 60})
}
