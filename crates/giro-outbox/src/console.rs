//! The event console (issue 18): the operator's view of a service's outbox over HTTP, under
//! `/operacao/outbox`, on every service that mounts it. It is `giro outbox
//! status|list|retry|discard` for a browser, with the same rules (one implementation: the
//! [`admin`] and [`store`] functions):
//!
//! | route | what |
//! |---|---|
//! | `GET /operacao/outbox` | counts per status, the oldest pending event and its age |
//! | `GET /operacao/outbox/eventos?status=&tipo=&pagina=&tamanho=` | a page, newest first |
//! | `POST /operacao/outbox/eventos/{id}/reenvio?forcar=` | one `FAILED` event back to `PENDING` |
//! | `POST /operacao/outbox/reenvio?forcar=` | every `FAILED` event back to `PENDING` |
//! | `DELETE /operacao/outbox/eventos/{id}` | deletes one `FAILED` event, answering it |
//!
//! Operator session only; the writes need CSRF. A replay of an event older than `inbox.retencao`
//! is refused (409, the reason in `detail`) unless `forcar=true`: the receiver may have forgotten
//! it and would apply it a second time. Replays wake the embedded publisher at once.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{delete, get, post};
use axum::Router;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::admin::{self, Linha, RetryError};
use super::store;
use crate::evento::Evento;
use crate::instante;
use crate::status::Status;
use giro_http::auth::{self, Seguranca};
use giro_http::extract::{AppJson, AppQuery};
use giro_http::pg::Politica;
use giro_http::Problem;
use giro_infra::db::{Db, DbError};

/// Page size when `tamanho` is absent, and the largest one allowed.
const TAMANHO_PADRAO: i64 = 50;
const TAMANHO_MAX: i64 = 200;

struct Estado {
    db: Db,
    inbox_retencao: Duration,
}

type St = State<Arc<Estado>>;

/// The console of an outbox whose events are `E` (the type filter accepts [`Evento::TIPOS`]).
pub fn router<E: Evento>(db: Db, seguranca: Arc<Seguranca>, inbox_retencao: Duration) -> Router {
    let estado = Arc::new(Estado { db, inbox_retencao });
    Router::new()
        .route("/operacao/outbox", get(resumo))
        .route("/operacao/outbox/eventos", get(eventos::<E>))
        .route("/operacao/outbox/eventos/{id}", delete(descartar))
        .route("/operacao/outbox/eventos/{id}/reenvio", post(reenviar))
        .route("/operacao/outbox/reenvio", post(reenviar_falhos))
        // Layers run bottom-up: CSRF is checked first (as Spring's filter chain does), then the role.
        .route_layer(from_fn(auth::require_operador))
        .route_layer(from_fn_with_state(seguranca, auth::csrf))
        .with_state(estado)
}

/// The console's database errors go through the one policy of every route: 503 while the
/// database is unavailable, never a 500 for a restart.
const POLITICA: Politica = Politica::sem_restricoes("event console");

fn db_problem(e: impl Into<DbError>) -> Problem {
    POLITICA.responder(&e.into())
}

/// `GET /operacao/outbox`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Resumo {
    pub pendentes: i64,
    pub enviados: i64,
    pub falhos: i64,
    /// When the oldest `PENDING` event was created, and how long ago (seconds), if any.
    #[serde(serialize_with = "instante::opcional::serialize")]
    pub pendente_mais_antigo_em: Option<DateTime<Utc>>,
    pub pendente_mais_antigo_segundos: Option<i64>,
    /// `inbox.retencao` in seconds: replays of older events need `forcar=true`.
    pub retencao_inbox_segundos: u64,
}

async fn resumo(State(e): St) -> Result<AppJson<Resumo>, Problem> {
    let client = e.db.client().await.map_err(db_problem)?;
    let s = store::status(&**client).await.map_err(db_problem)?;
    let agora = Utc::now();
    Ok(AppJson(Resumo {
        pendentes: s.pending,
        enviados: s.sent,
        falhos: s.failed,
        pendente_mais_antigo_em: s.oldest_pending,
        pendente_mais_antigo_segundos: s.oldest_pending.map(|t| (agora - t).num_seconds().max(0)),
        retencao_inbox_segundos: e.inbox_retencao.as_secs(),
    }))
}

/// The list's query; every value read by hand so a bad one is named in the 400.
#[derive(Deserialize)]
struct Filtros {
    status: Option<String>,
    tipo: Option<String>,
    pagina: Option<String>,
    tamanho: Option<String>,
}

fn presente(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

fn invalido(param: &str, regra: &str, valor: &str) -> Problem {
    Problem::bad_request(format!("parâmetro inválido: {param} {regra}: {valor}"))
}

fn inteiro(param: &str, v: &Option<String>, min: i64, max: i64, padrao: i64) -> Result<i64, Problem> {
    match presente(v) {
        None => Ok(padrao),
        Some(s) => match s.parse::<i64>() {
            Ok(n) if (min..=max).contains(&n) => Ok(n),
            _ => Err(invalido(param, &format!("deve ser um número inteiro entre {min} e {max}"), s)),
        },
    }
}

/// `GET /operacao/outbox/eventos`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pagina {
    pub eventos: Vec<Linha>,
    pub pagina: i64,
    pub tamanho: i64,
    pub total: i64,
}

async fn eventos<E: Evento>(
    State(e): St,
    AppQuery(f): AppQuery<Filtros>,
) -> Result<AppJson<Pagina>, Problem> {
    let status = match presente(&f.status) {
        None => None,
        Some(s) => match Status::parse(s) {
            Some(v) => Some(v),
            None => return Err(invalido("status", "deve ser PENDING, SENT ou FAILED", s)),
        },
    };
    let tipo = match presente(&f.tipo) {
        None => None,
        Some(t) if E::TIPOS.contains(&t) => Some(t.to_string()),
        Some(t) => return Err(invalido("tipo", &format!("deve ser um de {}", E::TIPOS.join(", ")), t)),
    };
    let pagina = inteiro("pagina", &f.pagina, 1, 1_000_000, 1)?;
    let tamanho = inteiro("tamanho", &f.tamanho, 1, TAMANHO_MAX, TAMANHO_PADRAO)?;
    let client = e.db.client().await.map_err(db_problem)?;
    let (rows, total) = store::page(&**client, status, tipo.as_deref(), tamanho, (pagina - 1) * tamanho)
        .await
        .map_err(db_problem)?;
    Ok(AppJson(Pagina { eventos: rows.iter().map(admin::linha).collect(), pagina, tamanho, total }))
}

#[derive(Deserialize)]
struct Forcar {
    forcar: Option<String>,
}

fn forcar(f: &Forcar) -> Result<bool, Problem> {
    match presente(&f.forcar) {
        None => Ok(false),
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(s) => Err(invalido("forcar", "deve ser true ou false", s)),
    }
}

fn id(p: Result<Path<String>, PathRejection>) -> Result<Uuid, Problem> {
    let raw = p.map(|Path(s)| s).unwrap_or_default();
    Uuid::parse_str(&raw).map_err(|_| invalido("id", "deve ser um UUID", &raw))
}

fn nao_encontrado(id: Uuid) -> Problem {
    Problem::new(StatusCode::NOT_FOUND, format!("evento {id} não existe neste outbox"))
}

fn nao_falhou(id: Uuid, status: &str, acao: &str) -> Problem {
    Problem::new(
        StatusCode::CONFLICT,
        format!("o evento {id} está {status}: só eventos FAILED podem ser {acao}"),
    )
    .with("statusEvento", status)
}

fn retry_problem(e: RetryError) -> Problem {
    match e {
        RetryError::NotFound(id) => nao_encontrado(id),
        RetryError::TooOld { id, age_days, limit_days } => Problem::new(
            StatusCode::CONFLICT,
            format!(
                "o evento {id} foi criado há {age_days} dias, além de inbox.retencao ({limit_days} dias): \
                 o destino pode tê-lo esquecido e o aplicaria de novo; reenvie com forcar=true para reenviar mesmo assim"
            ),
        )
        .with_title("Evento antigo demais")
        .with("id", id.to_string()),
        RetryError::Db(e) => db_problem(e),
    }
}

/// The answer of a replay.
#[derive(Serialize)]
pub struct Reenvio {
    pub reenviados: u64,
}

/// `POST /operacao/outbox/eventos/{id}/reenvio`.
async fn reenviar(
    State(e): St,
    p: Result<Path<String>, PathRejection>,
    AppQuery(q): AppQuery<Forcar>,
) -> Result<AppJson<Reenvio>, Problem> {
    let id = id(p)?;
    let forcar = forcar(&q)?;
    let client = e.db.client().await.map_err(db_problem)?;
    let row = store::one(&**client, id).await.map_err(db_problem)?.ok_or_else(|| nao_encontrado(id))?;
    let atual = admin::linha(&row);
    if atual.status != Status::Failed {
        return Err(nao_falhou(id, atual.status.as_str(), "reenviados"));
    }
    let n =
        admin::retry(&**client, &[id], Utc::now(), e.inbox_retencao, forcar).await.map_err(retry_problem)?;
    e.db.signal.wake.notify_one();
    tracing::info!(event_id = %id, forced = forcar, "event console: dead letter replayed");
    Ok(AppJson(Reenvio { reenviados: n }))
}

/// `POST /operacao/outbox/reenvio`: every `FAILED` event, or none when one is too old.
async fn reenviar_falhos(State(e): St, AppQuery(q): AppQuery<Forcar>) -> Result<AppJson<Reenvio>, Problem> {
    let forcar = forcar(&q)?;
    let client = e.db.client().await.map_err(db_problem)?;
    let ids = admin::failed_ids(&**client).await.map_err(db_problem)?;
    let n =
        admin::retry(&**client, &ids, Utc::now(), e.inbox_retencao, forcar).await.map_err(retry_problem)?;
    if n > 0 {
        e.db.signal.wake.notify_one();
    }
    tracing::info!(count = n, forced = forcar, "event console: dead letters replayed");
    Ok(AppJson(Reenvio { reenviados: n }))
}

/// `DELETE /operacao/outbox/eventos/{id}`: answers the deleted event.
async fn descartar(State(e): St, p: Result<Path<String>, PathRejection>) -> Result<AppJson<Linha>, Problem> {
    let id = id(p)?;
    let client = e.db.client().await.map_err(db_problem)?;
    let row = store::one(&**client, id).await.map_err(db_problem)?.ok_or_else(|| nao_encontrado(id))?;
    let atual = admin::linha(&row);
    if atual.status != Status::Failed {
        return Err(nao_falhou(id, atual.status.as_str(), "descartados"));
    }
    match admin::discard(&**client, id).await {
        Ok(l) => {
            tracing::info!(event_id = %id, tipo = %l.tipo, "event console: dead letter discarded");
            Ok(AppJson(l))
        }
        // A database error is answered as such (a pool timeout is no conflict) ...
        Err(e) if POLITICA.classificar_cadeia(&e).is_some() => Err(POLITICA.responder_cadeia(&e)),
        // ... and only a row no longer FAILED, replayed or discarded by someone else between
        // the two statements, is the 409.
        Err(_) => Err(nao_falhou(id, "fora de FAILED", "descartados")),
    }
}
