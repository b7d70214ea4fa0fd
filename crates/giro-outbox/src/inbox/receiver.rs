//! `POST /eventos` (SPEC §4.5) and `POST /eventos/lote` (SPEC §9.2), the same on every service
//! that mounts them.
//!
//! Validation, the inbox row and the transaction live here, once; the effect of each event type
//! is the service's [`Consumidor`]. Only the peer service may call (the service token; an operator
//! session gets 403); CSRF does not apply.
//!
//! `/eventos`: 204 for a new event and for a duplicate, 400 problem+json for a missing
//! `Evento-Tipo`, a type this service does not accept, an unreadable body or a contract
//! violation (the detail names the field), 5xx when the effect fails (the sender retries): 503
//! when the database is at fault, 500 otherwise. Every 4xx here is the receiver's verdict on the
//! event, as `application/problem+json`: that is what makes a sender dead-letter it
//! (`outbox::delivery`), while a 404/HTML page from something else in between is retried.
//! `/eventos/lote`: up to `outbox.lote-max` items (more → 413), one result per item in order,
//! applied together in one transaction (falling back to one transaction each when any fails):
//! 204 applied or duplicate, 400 invalid, 500 failed, 503 failed because of the database (both
//! transient for the sender; a 503 also tells it to wait for this service's readiness).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::from_fn;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use futures_util::future::BoxFuture;
use serde::Deserialize;

use crate::evento::Evento;
use crate::lote::{LotePedido, LoteResposta, ResultadoItem};
use giro_http::{auth, Problem};
use giro_infra::db::{Db, Tx};
use giro_infra::trace;

/// Body limit of `/eventos/lote` (SPEC §9.2).
pub const LOTE_BODY_LIMIT: usize = 8 * 1024 * 1024;

/// A service's effects for the events it accepts, in a transaction of its database `S` (a marker
/// type naming the database, so a `Tx` of another one does not type-check).
pub trait Consumidor<S>: Send + Sync + 'static {
    /// The event type this service receives.
    type Evento: Evento;

    /// The `Evento-Tipo`s this service accepts; any other is a 400.
    fn aceitos(&self) -> &'static [&'static str];

    /// Applies the effect of a new event inside `tx`; the inbox row is already written there.
    /// An error rolls both back and the sender retries.
    fn aplicar<'a>(
        &'a self,
        tx: &'a Tx<'_, S>,
        evento: &'a Self::Evento,
    ) -> BoxFuture<'a, anyhow::Result<()>>;

    /// Runs `aplicar` — the [`aplicar`](Consumidor::aplicar)s of a batch's new `eventos`, one by
    /// one in this (key) order, inside `tx` — and may prepare them in `tx` first, in a statement
    /// for the batch instead of one per event (e.g. lock, in key order, the rows they will take).
    /// By default it only runs it.
    fn em_lote<'a>(
        &'a self,
        tx: &'a Tx<'_, S>,
        eventos: &'a [&'a Self::Evento],
        aplicar: BoxFuture<'a, anyhow::Result<()>>,
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        let _ = (tx, eventos);
        aplicar
    }
}

/// A consumer behind an `Arc`, as the routes hold it.
pub type ConsumidorDe<S, E> = Arc<dyn Consumidor<S, Evento = E>>;

/// An event its effect refuses for good — its data breaks a rule, whatever the moment — which a
/// consumer returns so the answer is 400 (permanent: the sender dead-letters it) instead of 500.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct EventoInvalido(pub String);

/// The detail of a 400 when applying failed for good: a consumer's [`EventoInvalido`], or a value
/// the database cannot hold (SQLSTATE class 22) or a CHECK it refuses (23514). `None` = transient.
pub fn permanente(e: &anyhow::Error) -> Option<String> {
    if let Some(inv) = e.chain().find_map(|c| c.downcast_ref::<EventoInvalido>()) {
        return Some(inv.0.clone());
    }
    let pg = giro_http::pg::no_erro(e)?.as_db_error()?;
    let code = pg.code().code();
    (code.starts_with("22") || code == "23514").then(|| giro_http::pg::DADO_INVALIDO.to_string())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recebido {
    Novo,
    Duplicado,
}

struct Receptor<S, E> {
    db: Db,
    consumidor: ConsumidorDe<S, E>,
    lote_max: usize,
}

pub fn router<S: 'static, E: Evento>(db: Db, consumidor: ConsumidorDe<S, E>, lote_max: usize) -> Router {
    let state = Arc::new(Receptor { db, consumidor, lote_max });
    Router::new()
        .route("/eventos", post(um::<S, E>))
        .route("/eventos/lote", post(lote::<S, E>).layer(DefaultBodyLimit::max(LOTE_BODY_LIMIT)))
        .route_layer(from_fn(auth::require_servico))
        .with_state(state)
}

/// Parses, validates and applies one event with the inbox guarantee.
pub async fn receber<S: 'static, E: Evento>(
    db: &Db,
    consumidor: &dyn Consumidor<S, Evento = E>,
    evento: &E,
) -> anyhow::Result<Recebido> {
    let mut client = db.client().await?;
    let tx = Tx::<S>::begin(db, &mut client).await?;
    if !crate::inbox::registrar_se_novo(&tx, evento.event_id()).await? {
        tx.rollback().await?;
        contar(evento.tipo(), Recebido::Duplicado);
        tracing::info!(event_id = %evento.event_id(), tipo = evento.tipo(), "duplicate event ignored");
        return Ok(Recebido::Duplicado);
    }
    consumidor.aplicar(&tx, evento).await?;
    tx.commit().await?;
    contar(evento.tipo(), Recebido::Novo);
    Ok(Recebido::Novo)
}

/// `giro_inbox_events_total`: one more event of `tipo` received new or as a duplicate.
fn contar(tipo: &'static str, r: Recebido) {
    let result = if r == Recebido::Novo { "new" } else { "duplicate" };
    metrics::counter!("giro_inbox_events_total", "tipo" => tipo, "result" => result).increment(1);
}

/// Applies a batch in one transaction — one commit for many events, one statement for the inbox
/// rows and one for the answers the effects write to the outbox, the inbox guarantee per event
/// unchanged (each inbox row commits with its effect, since they all commit together). Events are
/// applied in the order of their aggregate key ([`Evento::chave`], stable), so concurrent batches
/// lock rows in one order and do not deadlock; the consumer may take what they lock in one
/// statement first ([`Consumidor::em_lote`]). If any event fails, the whole transaction is rolled
/// back and each event is applied in a transaction of its own, so one bad event never takes the
/// others with it.
pub async fn receber_lote<S: 'static, E: Evento>(
    db: &Db,
    consumidor: &dyn Consumidor<S, Evento = E>,
    eventos: &[&E],
    traces: &[Option<trace::Traceparent>],
) -> Vec<anyhow::Result<Recebido>> {
    let mut ordem: Vec<usize> = (0..eventos.len()).collect();
    ordem.sort_by(|a, b| eventos[*a].chave().cmp(eventos[*b].chave()));
    match juntos(db, consumidor, eventos, traces, &ordem).await {
        Ok(resultados) => {
            for (e, r) in eventos.iter().zip(&resultados) {
                contar(e.tipo(), *r);
            }
            resultados.into_iter().map(Ok).collect()
        }
        Err(e) => {
            tracing::info!(eventos = eventos.len(), error = %format!("{e:#}"), "batch transaction failed; applying its events one by one");
            let mut out = Vec::with_capacity(eventos.len());
            for (i, e) in eventos.iter().enumerate() {
                let pai = traces.get(i).copied().flatten();
                out.push(trace::consume(pai, e.tipo(), receber(db, consumidor, e)).await);
            }
            out
        }
    }
}

async fn juntos<S: 'static, E: Evento>(
    db: &Db,
    consumidor: &dyn Consumidor<S, Evento = E>,
    eventos: &[&E],
    traces: &[Option<trace::Traceparent>],
    ordem: &[usize],
) -> anyhow::Result<Vec<Recebido>> {
    let mut client = db.client().await?;
    let tx = Tx::<S>::begin(db, &mut client).await?;
    // One statement records every new id; an id twice in the batch counts once.
    let ids: Vec<uuid::Uuid> = ordem.iter().map(|&i| eventos[i].event_id()).collect();
    let mut novos = crate::inbox::registrar_novos(&tx, &ids).await?;
    let novos: Vec<usize> = ordem.iter().copied().filter(|&i| novos.remove(&eventos[i].event_id())).collect();
    let a_aplicar: Vec<&E> = novos.iter().map(|&i| eventos[i]).collect();
    let mut resultados = vec![Recebido::Duplicado; eventos.len()];
    // The answers the effects write go to the outbox in one statement after them (issue 30):
    // one round trip for the chunk instead of one per answer.
    let aplicar = Box::pin(async {
        for &i in &novos {
            // Events written by the effect carry the received event's trace.
            let pai = traces.get(i).copied().flatten();
            trace::consume(pai, eventos[i].tipo(), consumidor.aplicar(&tx, eventos[i])).await?;
            resultados[i] = Recebido::Novo;
        }
        anyhow::Ok(())
    });
    let (aplicados, respostas) = crate::store::adiando(consumidor.em_lote(&tx, &a_aplicar, aplicar)).await;
    aplicados?;
    crate::store::gravar_adiados(&tx, &respostas).await?;
    tx.commit().await?;
    Ok(resultados)
}

/// A received body as an event the consumer accepts; the error is the 400's detail.
fn ler<S: 'static, E: Evento>(
    consumidor: &dyn Consumidor<S, Evento = E>,
    tipo: &str,
    body: &[u8],
) -> Result<E, String> {
    if !consumidor.aceitos().contains(&tipo) {
        return Err(format!("tipo de evento não aceito: {tipo}"));
    }
    E::ler(tipo, body).map_err(|e| e.to_string())
}

/// The request's body when it was read whole and is declared JSON; else the answer to give.
fn corpo_json(headers: &HeaderMap, body: Result<Bytes, BytesRejection>) -> Result<Bytes, Problem> {
    let body = body.map_err(giro_http::extract::rejeicao_corpo)?;
    if !giro_http::extract::is_json(headers) {
        return Err(Problem::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Content-Type deve ser application/json",
        ));
    }
    Ok(body)
}

async fn um<S: 'static, E: Evento>(
    State(r): State<Arc<Receptor<S, E>>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let body = corpo_json(&headers, body)?;
    let Some(tipo) = headers.get("evento-tipo").and_then(|v| v.to_str().ok()).map(str::trim) else {
        return Err(Problem::bad_request("cabeçalho Evento-Tipo ausente"));
    };
    let evento = ler(r.consumidor.as_ref(), tipo, &body).map_err(Problem::bad_request)?;
    // Applied in a task of its own, to the end: hyper drops a handler whose connection closed
    // (a publisher killed mid-delivery), and a dropped handler could stop between an event's
    // commit and its count. The task keeps the request's trace context.
    let (db, consumidor) = (r.db.clone(), r.consumidor.clone());
    let aplicado = tokio::spawn(trace::scope(trace::current(), async move {
        let res = trace::consume(None, evento.tipo(), receber(&db, consumidor.as_ref(), &evento)).await;
        (evento, res)
    }));
    match aplicado.await {
        Ok((_, Ok(_))) => Ok(StatusCode::NO_CONTENT.into_response()),
        Ok((evento, Err(e))) => Err(falha(&evento, &e)),
        Err(e) => {
            tracing::error!(error = %e, "applying an event panicked");
            Err(Problem::internal())
        }
    }
}

async fn lote<S: 'static, E: Evento>(
    State(r): State<Arc<Receptor<S, E>>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, Problem> {
    let body = corpo_json(&headers, body)?;
    let pedido: LotePedido = serde_json::from_slice(&body).map_err(|e| {
        Problem::bad_request(format!("lote ilegível: {}", giro_http::extract::traduzir(&e.to_string())))
    })?;
    if pedido.eventos.len() > r.lote_max {
        return Err(Problem::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("lote com {} eventos; o máximo é {}", pedido.eventos.len(), r.lote_max),
        ));
    }
    // Applied in a task of its own, to the end, like `/eventos`.
    match tokio::spawn(trace::scope(trace::current(), aplicar_lote(r.clone(), pedido))).await {
        Ok(resultados) => Ok(Json(LoteResposta { resultados }).into_response()),
        Err(e) => {
            tracing::error!(error = %e, "applying a batch panicked");
            Err(Problem::internal())
        }
    }
}

async fn aplicar_lote<S: 'static, E: Evento>(
    r: Arc<Receptor<S, E>>,
    pedido: LotePedido,
) -> Vec<ResultadoItem> {
    let lidos: Vec<Result<E, (Option<uuid::Uuid>, String)>> = pedido
        .eventos
        .iter()
        .map(|item| {
            let raw = item.evento.get().as_bytes();
            ler(r.consumidor.as_ref(), item.tipo.trim(), raw).map_err(|e| (event_id_de(raw), e))
        })
        .collect();
    let validos: Vec<&E> = lidos.iter().filter_map(|l| l.as_ref().ok()).collect();
    let traces: Vec<Option<trace::Traceparent>> = pedido
        .eventos
        .iter()
        .zip(&lidos)
        .filter(|(_, l)| l.is_ok())
        .map(|(item, _)| item.traceparent.as_deref().and_then(trace::Traceparent::parse))
        .collect();
    let mut aplicados = receber_lote(&r.db, r.consumidor.as_ref(), &validos, &traces).await.into_iter();
    let mut resultados = Vec::with_capacity(lidos.len());
    for lido in &lidos {
        resultados.push(match lido {
            Err((event_id, detalhe)) => {
                ResultadoItem { event_id: *event_id, status: 400, detalhe: Some(detalhe.clone()) }
            }
            Ok(evento) => {
                let (status, detalhe) = match aplicados.next() {
                    Some(Ok(_)) => (204, None),
                    Some(Err(e)) => match (falha(evento, &e), permanente(&e)) {
                        (p, Some(_)) => (400, p.detail),
                        // A 503 tells the sender to wait for this service's readiness.
                        (p, None) => (p.status.as_u16(), Some("falha ao aplicar; tente novamente".into())),
                    },
                    None => (500, Some("falha ao aplicar; tente novamente".into())),
                };
                ResultadoItem { event_id: Some(evento.event_id()), status, detalhe }
            }
        });
    }
    resultados
}

/// The answer to a failure to apply `evento`, logged: 400 when it is refused for good
/// ([`permanente`], the detail names why), else — the sender retries either way — by the one
/// database-error policy ([`giro_http::pg`]): 503 when the database, not the event, is at fault,
/// 500 otherwise.
fn falha<E: Evento>(evento: &E, e: &anyhow::Error) -> Problem {
    let (id, tipo, erro) = (evento.event_id(), evento.tipo(), format!("{e:#}"));
    if let Some(detalhe) = permanente(e) {
        tracing::warn!(event_id = %id, tipo, error = %erro, "event refused for good");
        return Problem::bad_request(format!("{tipo} inválido: {detalhe}"));
    }
    tracing::error!(event_id = %id, tipo, error = %erro, "applying an event failed");
    const POLITICA: giro_http::pg::Politica = giro_http::pg::Politica::sem_restricoes("inbox");
    POLITICA.classificar_cadeia(e).map_or_else(Problem::internal, |c| POLITICA.problema(c))
}

/// The `eventId` of an item that did not validate, when it has a readable one.
fn event_id_de(raw: &[u8]) -> Option<uuid::Uuid> {
    #[derive(Deserialize)]
    struct SoId {
        #[serde(rename = "eventId")]
        event_id: Option<uuid::Uuid>,
    }
    serde_json::from_slice::<SoId>(raw).ok().and_then(|s| s.event_id)
}
