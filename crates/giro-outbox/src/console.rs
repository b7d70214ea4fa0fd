//! The event console (issue 18): the operator's view of a service's outbox over HTTP, under
//! `/operacao/outbox`, on every service that mounts it. It is `giro outbox
//! status|list|retry|discard` for a browser, with the same rules (one implementation: the
//! [`admin`] and [`store`] functions):
//!
//! | route | what |
//! |---|---|
//! | `GET /operacao/outbox` | counts per status, the oldest pending event and its age, whether the peer answers |
//! | `GET /operacao/outbox/eventos?status=&tipo=&busca=&pagina=&tamanho=` | a page, newest first, each event with its aggregate key and what it blocks |
//! | `GET /operacao/outbox/serie?minutos=` | events sent and dead-lettered per minute over the last `minutos` (5–240) |
//! | `GET /operacao/outbox/eventos/{id}` | one event, what each action on it will do (`opcoes`), the actions taken (`historico`), its delivery attempts (`tentativas`) |
//! | `POST /operacao/outbox/eventos/{id}/reenvio?forcar=&motivo=` | one `FAILED` event back to `PENDING` |
//! | `POST /operacao/outbox/reenvio?forcar=&motivo=` | every `FAILED` event back to `PENDING`, a page at a time: `{reenviados, restantes}` |
//! | `DELETE /operacao/outbox/eventos/{id}?motivo=` | archives one `FAILED` event with the service's repair, answering it and `resultado` |
//! | `POST /operacao/outbox/eventos/{id}/refazer?motivo=` | the same, and the service writes a fresh event in its place |
//! | `POST /operacao/outbox/descarte?motivo=` | discards every `FAILED` event whose type allows it, a page at a time: `{descartados, restantes, recusados}` |
//!
//! Operator session only; the writes need CSRF, and a discard or redo needs `motivo` (recorded
//! with the operator's login in `outbox_event_arquivo`). The rules are [`saida`]'s, as for `giro
//! outbox`; a refusal is a 409 whose `detail` says why (a replay past `inbox.retencao` or of a
//! `SENT` event needs `forcar=true`). The bulk actions stop within a budget under
//! `http.timeout-requisicao` and say how many are left.
//!
//! Decisions of the console's reads (issues 26, 39):
//!
//! - `busca` is an event's id (a UUID: its index serves it) or its aggregate key
//!   ([`Evento::CAMINHO_CHAVE`], the SKU: a scan of the filtered rows, few in an outbox). Also,
//!   additively: 4 or more hex digits and dashes (as copied from a log) are an id prefix, any
//!   fragment a part of the key and, when the service names its products
//!   ([`Ajustes::busca_produto`]), every word a part of the product's name, accents and case aside
//!   ("coca" finds the events of `7894900011517`).
//! - "What it blocks" is [`Evento::bloqueio_para_operador`], the CLI's rule in the console's words.
//! - The peer is "sem resposta" while events wait for a retry (`PENDING`, a failed attempt) and
//!   every attempt since its last answer (a delivery, or any status but a gateway's 502/503/504)
//!   got none (refused, timed out, or 502/503/504): since the first of those. A 500 of the peer's
//!   own says nothing of it (issue 39: a false alarm while it was up). From the rows alone, by the
//!   database's clock, so every replica says the same; the front decides how long before it says so.
//! - Dead letters per minute are counted at their last attempt: a `FAILED` row keeps the
//!   `proxima_tentativa_em` of the attempt that failed for good (the relay does not move it).

use std::sync::Arc;
use std::time::Duration;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::routing::{get, post};
use axum::Extension;
use axum::Router;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::admin::{self, Linha};
use super::saida::{self, Acao, Opcao, Registro, ReparoDe, SaidaErro, SemReparo};
use super::store;
use crate::evento::Evento;
use crate::instante;
use crate::status::Status;
use giro_http::auth::{self, Principal, Seguranca};
use giro_http::extract::{AppJson, AppQuery};
use giro_http::pg::Politica;
use giro_http::Problem;
use giro_infra::db::{Db, DbError, Param};

/// Page size when `tamanho` is absent, and the largest one allowed.
const TAMANHO_PADRAO: i64 = 50;
const TAMANHO_MAX: i64 = 200;

struct Estado<S> {
    db: Db,
    /// How long a bulk action may run: half the request timeout, so it still answers in time.
    prazo_lote: Duration,
    ajustes: Ajustes<S>,
}

type St<S> = State<Arc<Estado<S>>>;

/// What the console needs besides its database: the replay rule's window, the request timeout
/// its bulk actions stay within, and the service's repair of its dead letters.
pub struct Ajustes<S> {
    pub inbox_retencao: Duration,
    pub timeout_requisicao: Duration,
    pub reparo: ReparoDe<S>,
    /// The keys (SKUs) of the service's products whose name holds a word, `$1` (text): what the
    /// list's `busca` also matches. `None`: the key and the id only.
    pub busca_produto: Option<&'static str>,
}

/// The console of an outbox whose events are `E`, with no repair ([`SemReparo`]) and the default
/// request timeout: for an outbox whose events nothing else depends on.
pub fn router<E: Evento>(db: Db, seguranca: Arc<Seguranca>, inbox_retencao: Duration) -> Router {
    let reparo = Arc::new(SemReparo);
    let ajustes =
        Ajustes { inbox_retencao, timeout_requisicao: Duration::from_secs(60), reparo, busca_produto: None };
    router_com::<E, giro_infra::db::AnyDb>(db, seguranca, ajustes)
}

/// The console of an outbox whose events are `E` (the type filter accepts [`Evento::TIPOS`]) in
/// the database of service `S`, whose repairs `ajustes.reparo` runs.
pub fn router_com<E: Evento, S: 'static>(db: Db, seguranca: Arc<Seguranca>, ajustes: Ajustes<S>) -> Router {
    let estado = Arc::new(Estado { db, prazo_lote: ajustes.timeout_requisicao / 2, ajustes });
    Router::new()
        .route("/operacao/outbox", get(resumo::<S>))
        .route("/operacao/outbox/eventos", get(eventos::<E, S>))
        .route("/operacao/outbox/serie", get(serie::<S>))
        .route("/operacao/outbox/eventos/{id}", get(um::<S>).delete(acao::<S, false>))
        .route("/operacao/outbox/eventos/{id}/reenvio", post(reenviar::<S>))
        .route("/operacao/outbox/eventos/{id}/refazer", post(acao::<S, true>))
        .route("/operacao/outbox/reenvio", post(reenviar_falhos::<S>))
        .route("/operacao/outbox/descarte", post(descartar_falhos::<E, S>))
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
    /// `PENDING` events that have failed at least one attempt (waiting for the next one).
    pub esperando_nova_tentativa: i64,
    /// The last successful delivery still on record.
    #[serde(serialize_with = "instante::opcional::serialize")]
    pub ultimo_envio_em: Option<DateTime<Utc>>,
    /// Since when the peer has not answered (see the module's decisions), and for how long.
    #[serde(serialize_with = "instante::opcional::serialize")]
    pub sem_resposta_desde: Option<DateTime<Utc>>,
    pub sem_resposta_segundos: Option<i64>,
}

async fn resumo<S: 'static>(State(e): St<S>) -> Result<AppJson<Resumo>, Problem> {
    let client = e.db.client().await.map_err(db_problem)?;
    let s = store::status(&client).await.map_err(db_problem)?;
    let sql = "WITH f AS (SELECT count(*) AS n FROM outbox_event WHERE status = 'PENDING' AND tentativas > 0), \
                    u AS (SELECT max(enviado_em) AS em FROM outbox_event WHERE status = 'SENT'), \
                    r AS (SELECT max(em) AS em FROM outbox_tentativa \
                           WHERE resultado = 'enviado' OR status_http NOT IN (502, 503, 504)), \
                    s AS (SELECT min(t.em) AS desde FROM outbox_tentativa t, u, r \
                           WHERE t.resultado <> 'enviado' AND (t.status_http IS NULL OR t.status_http IN (502, 503, 504)) \
                             AND t.em > coalesce(greatest(u.em, r.em), '-infinity')), \
                    d AS (SELECT f.n, u.em AS ultimo, CASE WHEN f.n > 0 THEN s.desde END AS desde FROM f, u, s) \
               SELECT n, ultimo, desde, \
                      (CASE WHEN desde IS NOT NULL THEN greatest(floor(extract(epoch FROM now() - desde)), 0) END)::bigint AS segundos \
                 FROM d";
    let par = client.query_one(sql, &[]).await.map_err(db_problem)?;
    let agora = Utc::now();
    Ok(AppJson(Resumo {
        pendentes: s.pending,
        enviados: s.sent,
        falhos: s.failed,
        pendente_mais_antigo_em: s.oldest_pending,
        // By the database's clock, like the metric: this replica's may be off.
        pendente_mais_antigo_segundos: s
            .oldest_pending_age_s
            .map(|a| a as i64)
            .or_else(|| s.oldest_pending.map(|t| (agora - t).num_seconds().max(0))),
        retencao_inbox_segundos: e.ajustes.inbox_retencao.as_secs(),
        esperando_nova_tentativa: par.get("n"),
        ultimo_envio_em: par.get("ultimo"),
        sem_resposta_desde: par.get("desde"),
        sem_resposta_segundos: par.get("segundos"),
    }))
}

/// The list's query; every value read by hand so a bad one is named in the 400.
#[derive(Deserialize)]
struct Filtros {
    status: Option<String>,
    tipo: Option<String>,
    busca: Option<String>,
    pagina: Option<String>,
    tamanho: Option<String>,
}

/// The longest `busca` (an id is 36 characters, a SKU 14).
const BUSCA_MAX: usize = 100;

/// An event as the console lists it: the row, its aggregate key (the SKU) and, for a dead
/// letter, what it blocks.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinhaConsole {
    #[serde(flatten)]
    pub evento: Linha,
    pub chave: Option<String>,
    pub bloqueia: Option<String>,
}

fn presente(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

fn invalido(param: &str, regra: &str, valor: &str) -> Problem {
    Problem::bad_request(format!("parâmetro inválido: {param} {regra}: {valor}"))
}

/// `v`, if it has at most `max` characters.
fn curto<'a>(param: &str, v: Option<&'a str>, max: usize) -> Result<Option<&'a str>, Problem> {
    match v.map(|v| v.chars().count()) {
        Some(n) if n > max => {
            Err(invalido(param, &format!("deve ter no máximo {max} caracteres"), &format!("{n} caracteres")))
        }
        _ => Ok(v),
    }
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
    pub eventos: Vec<LinhaConsole>,
    pub pagina: i64,
    pub tamanho: i64,
    pub total: i64,
    /// For each type on the page, what each action on one of its dead letters will do.
    pub opcoes_por_tipo: std::collections::BTreeMap<String, Vec<Opcao>>,
}

async fn eventos<E: Evento, S: 'static>(
    State(e): St<S>,
    AppQuery(f): AppQuery<Filtros>,
) -> Result<AppJson<Pagina>, Problem> {
    let status = presente(&f.status)
        .map(|s| Status::parse(s).ok_or_else(|| invalido("status", "deve ser PENDING, SENT ou FAILED", s)))
        .transpose()?;
    let tipo = match presente(&f.tipo) {
        Some(t) if !E::TIPOS.contains(&t) => {
            return Err(invalido("tipo", &format!("deve ser um de {}", E::TIPOS.join(", ")), t))
        }
        t => t.map(str::to_string),
    };
    let busca = curto("busca", presente(&f.busca), BUSCA_MAX)?;
    // A UUID is an event id; anything else an aggregate key, or a part of one, of an id (hex
    // digits and dashes) or of the product's name.
    let (por_id, por_chave, prefixo, palavras) = match busca {
        None => (None, None, None, None),
        Some(b) => match Uuid::parse_str(b) {
            Ok(id) => (Some(id), None, None, None),
            Err(_) => {
                let hex = b.len() >= 4 && b.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
                let prefixo = hex.then(|| format!("{}%", b.to_ascii_lowercase()));
                let palavras: Vec<String> = b
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(|w| format!("%{}%", w.replace(['%', '_'], "")))
                    .collect();
                (None, Some(b.to_string()), prefixo, Some(palavras))
            }
        },
    };
    let fragmento = por_chave
        .as_ref()
        .map(|b| b.replace(['%', '_', '\\'], ""))
        .filter(|b| !b.is_empty())
        .map(|b| format!("%{b}%"));
    let pagina = inteiro("pagina", &f.pagina, 1, 1_000_000, 1)?;
    let tamanho = inteiro("tamanho", &f.tamanho, 1, TAMANHO_MAX, TAMANHO_PADRAO)?;
    let caminho: Vec<&str> = E::CAMINHO_CHAVE.to_vec();
    let client = e.db.client().await.map_err(db_problem)?;
    // $4: the search as typed; $6: it as a part of a key; $7: a prefix of an id; $8: its words,
    // each a part of the product's name (every one must match).
    let produto = match e.ajustes.busca_produto {
        Some(sql) => format!(
            " OR (cardinality($8::text[]) > 0 AND payload #>> $5::text[] IN ({}))",
            sql.replace("$1", "$8")
        ),
        None => " OR ($8::text[] IS NULL AND false)".to_string(),
    };
    let filtro = format!(
        "($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR tipo = $2) \
         AND ($3::uuid IS NULL OR id = $3) \
         AND ($4::text IS NULL OR payload #>> $5::text[] = $4 OR payload #>> $5::text[] LIKE $6 \
              OR ($7::text IS NOT NULL AND id::text LIKE $7){produto})"
    );
    let p: [&dyn Param; 8] = [&status, &tipo, &por_id, &por_chave, &caminho, &fragmento, &prefixo, &palavras];
    let offset = (pagina - 1) * tamanho;
    let sql = format!(
        "SELECT {}, payload #>> $5::text[] AS chave FROM outbox_event WHERE {filtro} \
         ORDER BY criado_em DESC, id LIMIT $9 OFFSET $10",
        store::COLS
    );
    let todos = [&p[..], &[&tamanho as &dyn Param, &offset]].concat();
    let rows = client.query(&sql, &todos).await.map_err(db_problem)?;
    let contagem = format!("SELECT count(*) FROM outbox_event WHERE {filtro}");
    let total: i64 = client.query_one(&contagem, &p).await.map_err(db_problem)?.get(0);
    let eventos: Vec<LinhaConsole> = rows
        .iter()
        .map(|r| {
            let evento = admin::linha(r);
            let chave: Option<String> = r.get("chave");
            let bloqueia = match (&chave, evento.status) {
                (Some(k), Status::Failed) => E::bloqueio_para_operador(&evento.tipo, k),
                _ => None,
            };
            LinhaConsole { evento, chave, bloqueia }
        })
        .collect();
    let opcoes_por_tipo =
        eventos.iter().map(|l| (l.evento.tipo.clone(), e.ajustes.reparo.opcoes(&l.evento.tipo))).collect();
    Ok(AppJson(Pagina { eventos, pagina, tamanho, total, opcoes_por_tipo }))
}

/// The series' window when `minutos` is absent, and its bounds.
const MINUTOS_PADRAO: i64 = 60;
const MINUTOS_MIN: i64 = 5;
const MINUTOS_MAX: i64 = 240;

#[derive(Deserialize)]
struct JanelaSerie {
    minutos: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PontoSerie {
    #[serde(serialize_with = "instante::serialize")]
    pub minuto: DateTime<Utc>,
    pub enviados: i64,
    /// Events that became dead letters in the minute (their last attempt).
    pub falhos: i64,
}

/// `GET /operacao/outbox/serie`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Serie {
    pub minutos: i64,
    pub pontos: Vec<PontoSerie>,
}

async fn serie<S: 'static>(
    State(e): St<S>,
    AppQuery(q): AppQuery<JanelaSerie>,
) -> Result<AppJson<Serie>, Problem> {
    let minutos = inteiro("minutos", &q.minutos, MINUTOS_MIN, MINUTOS_MAX, MINUTOS_PADRAO)?;
    let client = e.db.client().await.map_err(db_problem)?;
    // Every minute of the window, the current one last, zero where nothing happened; each count
    // one range scan (sent rows through ix_outbox_event_enviado).
    let sql = "WITH m AS (SELECT generate_series(date_trunc('minute', now()) - make_interval(mins => $1::int - 1), \
                                                 date_trunc('minute', now()), interval '1 minute') AS minuto), \
                    s AS (SELECT date_trunc('minute', enviado_em) AS minuto, count(*) AS n FROM outbox_event \
                           WHERE status = 'SENT' AND enviado_em >= (SELECT min(minuto) FROM m) GROUP BY 1), \
                    f AS (SELECT date_trunc('minute', proxima_tentativa_em) AS minuto, count(*) AS n FROM outbox_event \
                           WHERE status = 'FAILED' AND proxima_tentativa_em >= (SELECT min(minuto) FROM m) GROUP BY 1) \
               SELECT m.minuto, coalesce(s.n, 0) AS enviados, coalesce(f.n, 0) AS falhos \
                 FROM m LEFT JOIN s USING (minuto) LEFT JOIN f USING (minuto) ORDER BY m.minuto";
    let rows = client.query(sql, &[&(minutos as i32)]).await.map_err(db_problem)?;
    let pontos = rows
        .iter()
        .map(|r| PontoSerie { minuto: r.get("minuto"), enviados: r.get("enviados"), falhos: r.get("falhos") })
        .collect();
    Ok(AppJson(Serie { minutos, pontos }))
}

/// A write's query: `forcar` (replays), `motivo` (recorded; required to discard or redo).
#[derive(Deserialize)]
struct Escrita {
    forcar: Option<String>,
    motivo: Option<String>,
}

fn forcar(f: &Escrita) -> Result<bool, Problem> {
    match presente(&f.forcar) {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(s) => Err(invalido("forcar", "deve ser true ou false", s)),
    }
}

/// The archive keeps 500 characters of it.
const MOTIVO_MAX: usize = 500;

fn motivo(f: &Escrita, obrigatorio: bool) -> Result<Option<String>, Problem> {
    match curto("motivo", presente(&f.motivo), MOTIVO_MAX)? {
        None if obrigatorio => Err(Problem::bad_request(
            "parâmetro inválido: motivo é obrigatório para descartar ou refazer um evento (fica registrado)",
        )),
        m => Ok(m.map(str::to_string)),
    }
}

/// Who acts: the operator's login (the routes require an operator session).
fn registro(p: &Principal, motivo: Option<String>) -> Registro {
    let por = match p {
        Principal::Operador(u) => u.clone(),
        _ => "?".to_string(),
    };
    Registro { por, motivo }
}

fn id(p: Result<Path<String>, PathRejection>) -> Result<Uuid, Problem> {
    let raw = p.map(|Path(s)| s).unwrap_or_default();
    Uuid::parse_str(&raw).map_err(|_| invalido("id", "deve ser um UUID", &raw))
}

fn nao_encontrado(id: Uuid) -> Problem {
    Problem::new(StatusCode::NOT_FOUND, format!("evento {id} não existe neste outbox"))
}

fn verbo(acao: Acao) -> &'static str {
    match acao {
        Acao::Reenviar => "reenviados",
        Acao::Descartar => "descartados",
        Acao::Refazer => "refeitos",
    }
}

fn saida_problem(e: SaidaErro) -> Problem {
    match e {
        SaidaErro::NaoEncontrado(id) => nao_encontrado(id),
        SaidaErro::NaoFalhou { id, status, acao } => {
            let extra = if acao == Acao::Reenviar && status == Status::Sent {
                " (um evento SENT só com forcar=true: o destino o ignora se ainda o lembrar)"
            } else {
                ""
            };
            Problem::new(
                StatusCode::CONFLICT,
                format!("o evento {id} está {status}: só eventos FAILED podem ser {}{extra}", verbo(acao)),
            )
            .with("statusEvento", status.nome())
        }
        SaidaErro::Recusada { id, tipo, acao, efeito } => {
            Problem::new(StatusCode::CONFLICT, format!("{tipo} {id} não pode ser {}: {efeito}", verbo(acao).trim_end_matches('s')))
                .with_title("Ação recusada")
                .with("acao", acao.nome())
        }
        SaidaErro::Antigo { id, age_days, limit_days } => Problem::new(
            StatusCode::CONFLICT,
            format!(
                "o evento {id} foi criado há {age_days} dias, além de inbox.retencao ({limit_days} dias): \
                 o destino pode tê-lo esquecido e o aplicaria de novo; reenvie com forcar=true para reenviar mesmo assim"
            ),
        )
        .with_title("Evento antigo demais")
        .with("id", id.to_string()),
        SaidaErro::Db(e) => db_problem(e),
        // A repair that cannot act on this event says why (409); its database errors go through
        // the policy like any other (503 while it is down).
        SaidaErro::Reparo(e) => match e.chain().find_map(|c| c.downcast_ref::<saida::Recusa>()) {
            Some(r) => Problem::new(StatusCode::CONFLICT, r.0.clone()).with_title("Ação recusada"),
            None => POLITICA.responder_cadeia(&e),
        },
    }
}

/// `GET /operacao/outbox/eventos/{id}`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Detalhe {
    pub evento: Linha,
    /// What each action will do (only for a dead letter; empty otherwise).
    pub opcoes: Vec<Opcao>,
    pub historico: Vec<saida::Registrado>,
    /// Its delivery attempts on record, newest first, at most [`store::TENTATIVAS_GUARDADAS`]
    /// (every failure, and the success that followed failures: [`store`]'s decisions).
    pub tentativas: Vec<store::Tentativa>,
}

async fn um<S: 'static>(
    State(e): St<S>,
    p: Result<Path<String>, PathRejection>,
) -> Result<AppJson<Detalhe>, Problem> {
    let id = id(p)?;
    let client = e.db.client().await.map_err(db_problem)?;
    let row = store::one(&client, id).await.map_err(db_problem)?.ok_or_else(|| nao_encontrado(id))?;
    let evento = admin::linha(&row);
    let opcoes =
        if evento.status == Status::Failed { e.ajustes.reparo.opcoes(&evento.tipo) } else { Vec::new() };
    let historico = saida::historico(&client, id).await.map_err(db_problem)?;
    let tentativas = store::tentativas(&client, id).await.map_err(db_problem)?;
    Ok(AppJson(Detalhe { evento, opcoes, historico, tentativas }))
}

/// The answer of a replay.
#[derive(Serialize)]
pub struct Reenvio {
    pub reenviados: u64,
    /// Dead letters left (a replay-all that ran out of time; 0 for one event).
    pub restantes: i64,
}

/// `POST /operacao/outbox/eventos/{id}/reenvio`.
async fn reenviar<S: 'static>(
    State(e): St<S>,
    Extension(quem): Extension<Principal>,
    p: Result<Path<String>, PathRejection>,
    AppQuery(q): AppQuery<Escrita>,
) -> Result<AppJson<Reenvio>, Problem> {
    let id = id(p)?;
    let forcar = forcar(&q)?;
    let r = registro(&quem, motivo(&q, false)?);
    saida::reenviar(&e.db, id, Utc::now(), e.ajustes.inbox_retencao, forcar, &r)
        .await
        .map_err(saida_problem)?;
    tracing::info!(event_id = %id, forced = forcar, por = %r.por, "event console: dead letter replayed");
    Ok(AppJson(Reenvio { reenviados: 1, restantes: 0 }))
}

/// `POST /operacao/outbox/reenvio`: every `FAILED` event, or none when one is too old.
async fn reenviar_falhos<S: 'static>(
    State(e): St<S>,
    Extension(quem): Extension<Principal>,
    AppQuery(q): AppQuery<Escrita>,
) -> Result<AppJson<Reenvio>, Problem> {
    let forcar = forcar(&q)?;
    let r = registro(&quem, motivo(&q, false)?);
    let l = saida::reenviar_todos(&e.db, Utc::now(), e.ajustes.inbox_retencao, forcar, e.prazo_lote, &r)
        .await
        .map_err(saida_problem)?;
    tracing::info!(count = l.feitos, left = l.restantes, forced = forcar, por = %r.por, "event console: dead letters replayed");
    Ok(AppJson(Reenvio { reenviados: l.feitos, restantes: l.restantes }))
}

/// `DELETE /operacao/outbox/eventos/{id}` (`REFAZER` false: discard) and
/// `POST /operacao/outbox/eventos/{id}/refazer`: answers the archived event and what the repair
/// did.
async fn acao<S: 'static, const REFAZER: bool>(
    State(e): St<S>,
    Extension(quem): Extension<Principal>,
    p: Result<Path<String>, PathRejection>,
    AppQuery(q): AppQuery<Escrita>,
) -> Result<AppJson<saida::Feito>, Problem> {
    let acao = if REFAZER { Acao::Refazer } else { Acao::Descartar };
    let id = id(p)?;
    let r = registro(&quem, motivo(&q, true)?);
    let f = saida::executar(&e.db, &*e.ajustes.reparo, id, acao, &r).await.map_err(saida_problem)?;
    tracing::info!(event_id = %id, tipo = %f.evento.tipo, acao = acao.nome(), por = %r.por, "event console: dead letter archived");
    Ok(AppJson(f))
}

/// The answer of a discard-all.
#[derive(Serialize)]
pub struct Descarte {
    pub descartados: u64,
    pub restantes: i64,
    /// Dead letters of types whose discard is refused (left as they are).
    pub recusados: i64,
}

/// `POST /operacao/outbox/descarte`.
async fn descartar_falhos<E: Evento, S: 'static>(
    State(e): St<S>,
    Extension(quem): Extension<Principal>,
    AppQuery(q): AppQuery<Escrita>,
) -> Result<AppJson<Descarte>, Problem> {
    let r = registro(&quem, motivo(&q, true)?);
    let l = saida::descartar_todos(&e.db, &*e.ajustes.reparo, E::TIPOS, e.prazo_lote, &r)
        .await
        .map_err(saida_problem)?;
    tracing::info!(count = l.feitos, left = l.restantes, refused = l.recusados, por = %r.por, "event console: dead letters discarded");
    Ok(AppJson(Descarte { descartados: l.feitos, restantes: l.restantes, recusados: l.recusados }))
}
