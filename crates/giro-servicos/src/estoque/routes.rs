//! estoque's routes (SPEC §6.2), thin: extract, call the module that owns the rule, map the
//! result. `/eventos`, `/sessao`, health and deny-by-default are added by `server::app`.
//!
//! | route | who |
//! |---|---|
//! | `GET /produtos/{sku}` | service token (mercado's product lookup) or operator |
//! | `POST /lotes` | operator + CSRF (CSRF checked first, as Spring does) |
//! | `GET /painel/resumo`, `/painel/demandas`, `/painel/reposicoes?limite=` | operator |
//! | `GET /painel/estoque?busca=&estado=&pagina=&tamanho=`, `GET /painel/estoque/{sku}` | operator |
//! | `POST /painel/estoque/{sku}/lotes/{codigoLote}/baixa` (body optional) | operator + CSRF |
//! | `GET /painel/graficos/latencia-reposicao?horas=`, `GET /painel/graficos/demanda-por-idade` | operator |
//!
//! The summaries (`/painel/resumo`, `/painel/demandas`, `/painel/reposicoes`) may be served by a
//! standby within the bound (`db::leitura`).
//!
//! Errors are problem+json ([`Problem`]): a rule violation 400 (detail = the message), a unique
//! conflict 409, and the database's failures by the one policy ([`super::erro::POLITICA`]: 503
//! when the database is at fault, anything else 500, logged, never sent). The one exception is
//! the original's empty-bodied 404 of an unknown SKU.

use std::sync::Arc;

use axum::extract::State;
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Router};
use serde::{Deserialize, Serialize};

use super::classificacao::ClienteTags;
use super::entrada_lote::{self, EntradaLoteRequest};
use super::erro::POLITICA;
use super::{agora, inventario, painel, produto, ErroEstoque};
use crate::parametro::Pagina;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use giro_contracts::sku_valido;
use giro_http::auth::{self, Principal, Seguranca};
use giro_http::extract::{ler_json, rejeicao_corpo, AppJson, AppPath, AppQuery};
use giro_http::Problem;
use giro_infra::db::Db;

/// What the handlers share.
pub struct Estado {
    pub db: Db,
    pub tags: Arc<ClienteTags>,
}

type St = State<Arc<Estado>>;

/// estoque's OpenAPI document, written by hand (`openapi/estoque.json`).
const OPENAPI: &str = include_str!("../../../../openapi/estoque.json");

pub fn router(estado: Arc<Estado>, seguranca: Arc<Seguranca>) -> Router {
    let produtos = Router::new()
        .route("/produtos/{sku}", get(produto_por_sku))
        .route_layer(from_fn(auth::require_servico_ou_operador));
    let lotes = Router::new()
        .route("/lotes", post(registrar_lote))
        .route("/painel/estoque/{sku}/lotes/{codigoLote}/baixa", post(baixar_lote))
        .route_layer(from_fn(auth::require_operador))
        .route_layer(from_fn_with_state(seguranca, auth::csrf));
    let painel = Router::new()
        .route("/painel/resumo", get(resumo))
        .route("/painel/demandas", get(demandas))
        .route("/painel/reposicoes", get(reposicoes))
        .route("/painel/estoque", get(inventario_listar))
        .route("/painel/estoque/{sku}", get(inventario_detalhe))
        .route("/painel/graficos/latencia-reposicao", get(grafico_latencia))
        .route("/painel/graficos/demanda-por-idade", get(grafico_demanda))
        .route_layer(from_fn(auth::require_operador));
    let openapi = Router::new().route("/openapi.json", get(giro_http::openapi::documento(OPENAPI)));
    produtos.merge(lotes).merge(painel).merge(openapi).with_state(estado)
}

impl IntoResponse for ErroEstoque {
    fn into_response(self) -> Response {
        match self {
            ErroEstoque::Invalido(m) => Problem::bad_request(m).into_response(),
            e @ ErroEstoque::Conflito => Problem::new(StatusCode::CONFLICT, e.to_string()).into_response(),
            ErroEstoque::NaoEncontrado(m) => Problem::new(StatusCode::NOT_FOUND, m).into_response(),
            ErroEstoque::Recusado(m) => Problem::new(StatusCode::CONFLICT, m).into_response(),
            ErroEstoque::Db(e) => POLITICA.responder(&e).into_response(),
            ErroEstoque::Interno(e) => POLITICA.responder_cadeia(&e).into_response(),
        }
    }
}

/// `GET /produtos/{sku}` body.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProdutoResposta {
    sku: String,
    descricao: String,
    ncm: String,
    tags: Option<Vec<String>>,
    categoria: Option<String>,
    /// Valid units only (SPEC §6.2.1): expired units are never shown as balance.
    saldo_disponivel: i32,
    /// Units in expired lots, waiting to be written off.
    saldo_vencido: i32,
}

async fn produto_por_sku(
    State(e): St,
    uri: axum::http::Uri,
    AppPath(sku): AppPath<String>,
) -> Result<Response, ErroEstoque> {
    // `?opcional=true` (issue 39, additive): an unknown SKU is a 204, not a 404 — the dashboard's
    // lookup of a new SKU logs no error in the browser's console.
    let desconhecido = match uri.query().is_some_and(|q| q.split('&').any(|p| p == "opcional=true")) {
        true => StatusCode::NO_CONTENT,
        false => StatusCode::NOT_FOUND,
    };
    // An invalid SKU cannot be registered: it is as unknown as any other.
    if !sku_valido(&sku) {
        return Ok(desconhecido.into_response());
    }
    let client = e.db.client().await?;
    let Some(p) = produto::buscar(&client, &sku).await? else {
        return Ok(desconhecido.into_response());
    };
    let saldos = inventario::saldos(&client, &sku, agora()).await?;
    Ok(AppJson(ProdutoResposta {
        sku: p.sku,
        descricao: p.descricao,
        ncm: p.ncm,
        tags: p.tags,
        categoria: p.categoria,
        saldo_disponivel: saldos.valido,
        saldo_vencido: saldos.vencido,
    })
    .into_response())
}

async fn registrar_lote(
    State(e): St,
    Extension(principal): Extension<Principal>,
    AppJson(req): AppJson<EntradaLoteRequest>,
) -> Result<Response, ErroEstoque> {
    let entrada = req.validar()?;
    let registrado = entrada_lote::registrar(&e.db, &e.tags, entrada, &operador(principal)?).await?;
    Ok((StatusCode::CREATED, AppJson(registrado)).into_response())
}

async fn resumo(State(e): St) -> Result<AppJson<painel::Resumo>, ErroEstoque> {
    let client = e.db.leitura().await?;
    Ok(AppJson(painel::resumo(&client, agora()).await?))
}

async fn demandas(State(e): St) -> Result<AppJson<Vec<painel::DemandaAberta>>, ErroEstoque> {
    let client = e.db.leitura().await?;
    Ok(AppJson(painel::demandas(&client).await?))
}

/// `?limite=`: absent or empty → the default (as Spring's `defaultValue`), else an integer.
#[derive(Deserialize)]
struct LimiteQuery {
    limite: Option<String>,
}

async fn reposicoes(
    State(e): St,
    AppQuery(q): AppQuery<LimiteQuery>,
) -> Result<AppJson<Vec<painel::ReposicaoRecente>>, ErroEstoque> {
    let pedido = match q.limite.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => None,
        Some(s) => Some(s.parse::<i64>().map_err(|_| {
            ErroEstoque::Invalido(format!("parâmetro inválido: limite deve ser um número inteiro: {s}"))
        })?),
    };
    let client = e.db.leitura().await?;
    Ok(AppJson(painel::reposicoes(&client, painel::limite(pedido)).await?))
}

async fn inventario_listar(
    State(e): St,
    AppQuery(q): AppQuery<inventario::FiltroRequest>,
) -> Result<AppJson<Pagina<inventario::ItemInventario>>, ErroEstoque> {
    let filtro = q.validar()?;
    let client = e.db.client().await?;
    Ok(AppJson(inventario::listar(&client, &filtro, agora()).await?))
}

async fn inventario_detalhe(
    State(e): St,
    AppPath(sku): AppPath<String>,
) -> Result<AppJson<inventario::Detalhe>, ErroEstoque> {
    if !sku_valido(&sku) {
        return Err(inventario::sku_desconhecido(&sku));
    }
    let client = e.db.client().await?;
    inventario::detalhe(&client, &sku, agora())
        .await?
        .map(AppJson)
        .ok_or_else(|| inventario::sku_desconhecido(&sku))
}

/// Who answers for a lot entered or written off: require_operador let only an operator through.
fn operador(principal: Principal) -> Result<String, ErroEstoque> {
    match principal {
        Principal::Operador(nome) => Ok(nome),
        _ => Err(ErroEstoque::Interno(anyhow::anyhow!("a lot movement without an operator"))),
    }
}

/// The body is optional (issue 39): none is the whole lot, expired (the original's clients).
async fn baixar_lote(
    State(e): St,
    Extension(principal): Extension<Principal>,
    AppPath((sku, codigo_lote)): AppPath<(String, String)>,
    corpo: Result<Bytes, BytesRejection>,
) -> Result<Response, Response> {
    let corpo = corpo.map_err(|r| rejeicao_corpo(r).into_response())?;
    let pedido = match corpo.iter().all(u8::is_ascii_whitespace) {
        true => inventario::BaixaRequest::default(),
        false => ler_json(&corpo).map_err(IntoResponse::into_response)?,
    };
    let operador = operador(principal).map_err(IntoResponse::into_response)?;
    let baixa = inventario::baixar(&e.db, &sku, &codigo_lote, &pedido, &operador, agora()).await;
    baixa.map(|b| AppJson(b).into_response()).map_err(IntoResponse::into_response)
}

/// A chart's window (`?horas=`), read by hand so a bad value is named in the 400.
#[derive(Deserialize)]
struct Janela {
    horas: Option<String>,
}

async fn grafico_latencia(
    State(e): St,
    AppQuery(q): AppQuery<Janela>,
) -> Result<AppJson<painel::Latencia>, ErroEstoque> {
    let horas = painel::horas(q.horas.as_deref()).map_err(ErroEstoque::Invalido)?;
    let client = e.db.client().await?;
    Ok(AppJson(painel::latencia(&client, agora(), horas).await?))
}

async fn grafico_demanda(State(e): St) -> Result<AppJson<Vec<painel::FaixaDemanda>>, ErroEstoque> {
    let client = e.db.client().await?;
    Ok(AppJson(painel::demanda_por_idade(&client, agora()).await?))
}
