//! The dead letters' ways out (issue 30): what an operator may do with a `FAILED` event, the
//! same from the event console ([`console`](crate::console)) and `giro outbox …`
//! ([`admin`](crate::admin)), each action recorded (who, when, why) in `outbox_event_arquivo`.
//!
//! Three actions, whatever the service:
//! - **reenviar** — the event back to `PENDING` as it is ([`reenviar`], [`reenviar_todos`]); the
//!   row stays, the action is recorded beside it;
//! - **descartar** — the event leaves the outbox for the archive, and the service's repair runs
//!   in the same transaction so its own state stays consistent ([`executar`], [`descartar_todos`]);
//! - **refazer** — the same, and the service writes a fresh event in that transaction (a new id
//!   and instant) instead of the dead one.
//!
//! The outbox does not know what an event means: a service supplies a [`Reparo`] — which actions
//! each of its event types offers, what each will do in words for the operator (shown before it is
//! confirmed), and the domain side of a discard or redo. A type whose discard would leave the
//! peer inconsistent says so and refuses it ([`Opcao::permitida`]).
//!
//! The bulk actions walk the dead letters a page at a time ([`PAGINA`]), oldest first, each page
//! one set-based statement (a discard: the service's repair, then one archiving statement) in its
//! own transaction, until none is left or `prazo` runs out; they answer how many were done and how
//! many are left.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use giro_infra::db::Sql;
use serde::Serialize;
use uuid::Uuid;

use crate::status::Status;
use crate::store::{self, Linha, COLS};
use giro_infra::db::{Db, DbError, Tx};

/// Dead letters per page of a bulk action: one statement over this many rows stays far below a
/// statement timeout, and a page's transaction holds its rows' locks briefly.
pub const PAGINA: i64 = 5_000;

giro_infra::nomes! {
    /// An operator action on a dead letter; its name is the archive's `acao` column and the JSON's.
    #[derive(Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Acao {
        Reenviar = "reenviar",
        Descartar = "descartar",
        Refazer = "refazer",
    }
}

/// One action as offered for a type of dead letter: what the console shows before confirming.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Opcao {
    pub acao: Acao,
    /// The button's label (pt-BR).
    pub rotulo: String,
    /// What it will do, here and on the peer (pt-BR).
    pub efeito: String,
    /// False when the action would leave the domain inconsistent: `efeito` says why and what to
    /// do instead.
    pub permitida: bool,
}

impl Opcao {
    pub fn nova(acao: Acao, rotulo: &str, efeito: impl Into<String>) -> Opcao {
        Opcao { acao, rotulo: rotulo.into(), efeito: efeito.into(), permitida: true }
    }

    pub fn recusada(acao: Acao, rotulo: &str, efeito: impl Into<String>) -> Opcao {
        Opcao { acao, rotulo: rotulo.into(), efeito: efeito.into(), permitida: false }
    }
}

/// A service's side of the dead letters' actions, for its database `S`.
pub trait Reparo<S>: Send + Sync + 'static {
    /// The actions a dead letter of type `tipo` offers, each with what it will do (pt-BR).
    fn opcoes(&self, tipo: &str) -> Vec<Opcao>;

    /// The domain side of discarding (`Descartar`) or redoing (`Refazer`) `eventos` — dead letters
    /// all of one action, already locked — inside `tx`, before they are archived there; returns
    /// what it did, in words for the operator (kept in the archive). An error rolls it all back.
    fn aplicar<'a>(
        &'a self,
        tx: &'a Tx<'_, S>,
        acao: Acao,
        eventos: &'a [Linha],
    ) -> BoxFuture<'a, anyhow::Result<String>>;
}

/// The repair of a service whose events nothing depends on: replay and discard, nothing else.
pub struct SemReparo;

impl<S> Reparo<S> for SemReparo {
    fn opcoes(&self, _tipo: &str) -> Vec<Opcao> {
        vec![
            Opcao::nova(Acao::Reenviar, "Reenviar", "O evento volta à fila e é entregue de novo como está."),
            Opcao::nova(
                Acao::Descartar,
                "Descartar",
                "O evento sai da fila e fica arquivado (quem, quando, por quê); o destino não o recebe.",
            ),
        ]
    }

    fn aplicar<'a>(
        &'a self,
        _tx: &'a Tx<'_, S>,
        _acao: Acao,
        _eventos: &'a [Linha],
    ) -> BoxFuture<'a, anyhow::Result<String>> {
        Box::pin(async { Ok(String::new()) })
    }
}

/// What a repair returns when the action cannot be done on this event (its payload unreadable,
/// say): answered 409 with this text, nothing changed. Any other error is the database's (the
/// policy answers it) or a bug (500).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Recusa(pub String);

/// A repair behind an `Arc`, as the console and the CLI hold it.
pub type ReparoDe<S> = Arc<dyn Reparo<S>>;

/// Who acts and why: what the archive records beside the event.
#[derive(Clone, Debug)]
pub struct Registro {
    /// The operator's login (console) or `cli:<user>` (`giro outbox`).
    pub por: String,
    pub motivo: Option<String>,
}

impl Registro {
    /// `por` and `motivo` cut to the archive's `VARCHAR(200)` and `VARCHAR(500)`.
    fn colunas(&self) -> (String, Option<String>) {
        (store::truncate(&self.por, 200), self.motivo.as_deref().map(|m| store::truncate(m, 500)))
    }
}

/// Why an action on a dead letter was not taken.
#[derive(Debug, thiserror::Error)]
pub enum SaidaErro {
    #[error("event {0} not found")]
    NaoEncontrado(Uuid),
    #[error("event {id} is {status}: only FAILED events can be {} (a SENT one to retry with --force)", acao.nome())]
    NaoFalhou { id: Uuid, status: Status, acao: Acao },
    #[error("{tipo} {id}: {acao:?} is not allowed: {efeito}")]
    Recusada { id: Uuid, tipo: String, acao: Acao, efeito: String },
    #[error("event {id} was created {age_days} days ago, beyond inbox.retencao ({limit_days} days): the receiver may have forgotten it and would apply it again; use --force to retry anyway")]
    Antigo { id: Uuid, age_days: i64, limit_days: i64 },
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("the service's repair failed: {0:#}")]
    Reparo(anyhow::Error),
}

impl From<tokio_postgres::Error> for SaidaErro {
    fn from(e: tokio_postgres::Error) -> Self {
        SaidaErro::Db(e.into())
    }
}

/// What one action did.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Feito {
    pub acao: Acao,
    /// The event as it was (its fields at the top level of the JSON).
    #[serde(flatten)]
    pub evento: Linha,
    /// The service's repair, in words (empty when none).
    pub resultado: String,
}

/// What a bulk action did.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Lote {
    /// Dead letters acted on.
    pub feitos: u64,
    /// Dead letters this action may take still left (the time budget ran out, or others failed
    /// meanwhile); 0 when done.
    pub restantes: i64,
    /// Dead letters of types this action refuses (left as they are).
    pub recusados: i64,
}

/// The action record of `ids` (their current rows), in one statement.
const REGISTRAR_REENVIO: &str = "INSERT INTO outbox_event_arquivo \
        (event_id, tipo, payload, status, criado_em, tentativas, ultimo_erro, acao, por, motivo) \
     SELECT id, tipo, payload, status, criado_em, tentativas, ultimo_erro, 'reenviar', $2, $3 \
       FROM outbox_event WHERE id = ANY($1)";

/// Moves the dead letters `ids` into the archive, with the action and its result.
/// The event's attempt history goes with it (the archive keeps its count and last error).
const ARQUIVAR: &str = "WITH d AS (DELETE FROM outbox_event WHERE id = ANY($1) AND status = 'FAILED' \
        RETURNING id, tipo, payload, status, criado_em, tentativas, ultimo_erro), \
          t AS (DELETE FROM outbox_tentativa WHERE event_id IN (SELECT id FROM d)) \
     INSERT INTO outbox_event_arquivo \
        (event_id, tipo, payload, status, criado_em, tentativas, ultimo_erro, acao, por, motivo, resultado) \
     SELECT id, tipo, payload, status, criado_em, tentativas, ultimo_erro, $2, $3, $4, $5 FROM d";

/// The row back to PENDING, attempts reset, due now by the database's clock.
pub const DE_VOLTA: &str =
    "UPDATE outbox_event SET status = 'PENDING', tentativas = 0, proxima_tentativa_em = now(), \
        lease_token = NULL, enviado_em = NULL WHERE id = ANY($1) AND status <> 'PENDING'";

/// The replay rule, one for the console and the CLI: a `FAILED` event may be replayed; a `SENT`
/// one only when forced (the receiver's inbox absorbs it while it remembers the event, past
/// `inbox.retencao` it would apply it twice); a `PENDING` one is already on its way; an event
/// older than `inbox.retencao` only when forced.
pub fn pode_reenviar(
    l: &Linha,
    agora: DateTime<Utc>,
    inbox_retencao: Duration,
    forcar: bool,
) -> Result<(), SaidaErro> {
    match l.status {
        Status::Failed => {}
        Status::Sent if forcar => {}
        status => return Err(SaidaErro::NaoFalhou { id: l.id, status, acao: Acao::Reenviar }),
    }
    let limite = agora - chrono::Duration::from_std(inbox_retencao).unwrap_or(chrono::Duration::MAX);
    if l.criado_em < limite && !forcar {
        return Err(antigo(l.id, l.criado_em, agora, inbox_retencao));
    }
    Ok(())
}

/// The refusal of replaying `id`, created at `criado_em`, beyond `inbox_retencao`.
fn antigo(id: Uuid, criado_em: DateTime<Utc>, agora: DateTime<Utc>, inbox_retencao: Duration) -> SaidaErro {
    let limit_days = (inbox_retencao.as_secs() / 86_400) as i64;
    SaidaErro::Antigo { id, age_days: (agora - criado_em).num_days(), limit_days }
}

async fn travar(c: &impl Sql, id: Uuid) -> Result<Linha, SaidaErro> {
    let sql = format!("SELECT {COLS} FROM outbox_event WHERE id = $1 FOR UPDATE");
    let row = c.query_opt(&sql, &[&id]).await?.ok_or(SaidaErro::NaoEncontrado(id))?;
    Ok(store::linha(&row))
}

/// Replays one event under `pode_reenviar`'s rule, recording who and why.
pub async fn reenviar(
    db: &Db,
    id: Uuid,
    agora: DateTime<Utc>,
    inbox_retencao: Duration,
    forcar: bool,
    r: &Registro,
) -> Result<Feito, SaidaErro> {
    let mut client = db.client().await?;
    let tx = db.begin(&mut client).await?;
    let l = travar(&tx, id).await?;
    pode_reenviar(&l, agora, inbox_retencao, forcar)?;
    let ids = [id];
    let (por, motivo) = r.colunas();
    tx.execute(REGISTRAR_REENVIO, &[&&ids[..], &por, &motivo]).await?;
    tx.execute(DE_VOLTA, &[&&ids[..]]).await?;
    tx.commit().await?;
    db.signal.wake.notify_one();
    Ok(Feito { acao: Acao::Reenviar, evento: l, resultado: String::new() })
}

/// The oldest dead letter older than `inbox_retencao`, if any: what refuses an unforced replay-all.
async fn mais_antigo(
    c: &impl Sql,
    agora: DateTime<Utc>,
    inbox_retencao: Duration,
) -> Result<Option<(Uuid, DateTime<Utc>)>, tokio_postgres::Error> {
    let limite = agora - chrono::Duration::from_std(inbox_retencao).unwrap_or(chrono::Duration::MAX);
    let sql = "SELECT id, criado_em FROM outbox_event WHERE status = 'FAILED' AND criado_em < $1 \
               ORDER BY criado_em LIMIT 1";
    Ok(c.query_opt(sql, &[&limite]).await?.map(|r| (r.get(0), r.get(1))))
}

/// Replays every dead letter, a page per statement and transaction, until none is left or
/// `prazo` has passed: refused as a whole (nothing replayed) when one is older than
/// `inbox_retencao` and not `forcar`.
pub async fn reenviar_todos(
    db: &Db,
    agora: DateTime<Utc>,
    inbox_retencao: Duration,
    forcar: bool,
    prazo: Duration,
    r: &Registro,
) -> Result<Lote, SaidaErro> {
    let inicio = Instant::now();
    let client = db.client().await?;
    if !forcar {
        if let Some((id, criado)) = mais_antigo(&client, agora, inbox_retencao).await? {
            return Err(antigo(id, criado, agora, inbox_retencao));
        }
    }
    let (por, motivo) = r.colunas();
    // One statement per page: pick the page (skipping rows another operator holds), record it,
    // put it back to PENDING. The INSERT reads the rows as they were (FAILED).
    let stmt = "WITH p AS (SELECT id FROM outbox_event WHERE status = 'FAILED' ORDER BY criado_em LIMIT $1 FOR UPDATE SKIP LOCKED), \
                  a AS (INSERT INTO outbox_event_arquivo \
                           (event_id, tipo, payload, status, criado_em, tentativas, ultimo_erro, acao, por, motivo) \
                        SELECT o.id, o.tipo, o.payload, o.status, o.criado_em, o.tentativas, o.ultimo_erro, 'reenviar', $2, $3 \
                          FROM outbox_event o JOIN p USING (id)) \
             UPDATE outbox_event o SET status = 'PENDING', tentativas = 0, proxima_tentativa_em = now(), \
                    lease_token = NULL, enviado_em = NULL \
               FROM p WHERE o.id = p.id";
    let mut lote = Lote::default();
    // Rows replayed here may fail again while this runs; at most the initial count's pages are
    // walked, so a receiver refusing everything cannot keep it looping.
    let total = store::count(&client, Status::Failed).await?;
    let mut paginas = total / PAGINA + 1;
    while paginas > 0 && inicio.elapsed() < prazo {
        paginas -= 1;
        let n = client.execute(stmt, &[&PAGINA, &por, &motivo]).await?;
        lote.feitos += n;
        if n > 0 {
            db.signal.wake.notify_one();
        }
        if (n as i64) < PAGINA {
            break;
        }
    }
    lote.restantes = store::count(&client, Status::Failed).await?;
    Ok(lote)
}

/// Discards or redoes one dead letter: the service's repair and the move to the archive in one
/// transaction.
pub async fn executar<S: 'static>(
    db: &Db,
    reparo: &dyn Reparo<S>,
    id: Uuid,
    acao: Acao,
    r: &Registro,
) -> Result<Feito, SaidaErro> {
    debug_assert!(acao != Acao::Reenviar, "a replay is reenviar()");
    let mut client = db.client().await?;
    let tx = Tx::<S>::begin(db, &mut client).await?;
    let l = travar(&tx, id).await?;
    if l.status != Status::Failed {
        return Err(SaidaErro::NaoFalhou { id, status: l.status, acao });
    }
    let opcao = reparo.opcoes(&l.tipo).into_iter().find(|o| o.acao == acao);
    if !opcao.as_ref().is_some_and(|o| o.permitida) {
        let efeito = opcao.map_or_else(|| format!("{} não oferece esta ação", l.tipo), |o| o.efeito);
        return Err(SaidaErro::Recusada { id, tipo: l.tipo, acao, efeito });
    }
    let linhas = [l];
    let resultado = reparo.aplicar(&tx, acao, &linhas).await.map_err(SaidaErro::Reparo)?;
    arquivar(&tx, &[id], acao, r, &resultado).await?;
    tx.commit().await?;
    let [l] = linhas;
    Ok(Feito { acao, evento: l, resultado })
}

async fn arquivar(
    c: &impl Sql,
    ids: &[Uuid],
    acao: Acao,
    r: &Registro,
    resultado: &str,
) -> Result<u64, tokio_postgres::Error> {
    let (por, motivo) = r.colunas();
    let resultado = (!resultado.is_empty()).then(|| store::truncate(resultado, 1000)); // VARCHAR(1000)
    c.execute(ARQUIVAR, &[&ids, &acao.nome(), &por, &motivo, &resultado]).await
}

#[cfg(feature = "operador")]
/// Discards every dead letter whose type allows it, a page per transaction (the service's repair
/// for the page, then one archiving statement), until none is left or `prazo` has passed.
pub async fn descartar_todos<S: 'static>(
    db: &Db,
    reparo: &dyn Reparo<S>,
    tipos: &[&str],
    prazo: Duration,
    r: &Registro,
) -> Result<Lote, SaidaErro> {
    let inicio = Instant::now();
    let permitidos: Vec<&str> = tipos
        .iter()
        .copied()
        .filter(|t| reparo.opcoes(t).iter().any(|o| o.acao == Acao::Descartar && o.permitida))
        .collect();
    let mut client = db.client().await?;
    let mut lote = Lote::default();
    let pagina = format!(
        "SELECT {COLS} FROM outbox_event WHERE status = 'FAILED' AND tipo = ANY($1) \
         ORDER BY criado_em LIMIT $2 FOR UPDATE SKIP LOCKED"
    );
    while inicio.elapsed() < prazo {
        let tx = Tx::<S>::begin(db, &mut client).await?;
        let linhas: Vec<Linha> =
            tx.query(&pagina, &[&permitidos, &PAGINA]).await?.iter().map(store::linha).collect();
        if linhas.is_empty() {
            break;
        }
        let resultado = reparo.aplicar(&tx, Acao::Descartar, &linhas).await.map_err(SaidaErro::Reparo)?;
        let ids: Vec<Uuid> = linhas.iter().map(|l| l.id).collect();
        lote.feitos += arquivar(&tx, &ids, Acao::Descartar, r, &resultado).await?;
        tx.commit().await?;
        if (linhas.len() as i64) < PAGINA {
            break;
        }
    }
    let contagem =
        "SELECT count(*) FILTER (WHERE tipo = ANY($1)), count(*) FILTER (WHERE NOT tipo = ANY($1)) \
                    FROM outbox_event WHERE status = 'FAILED'";
    let r = client.query_one(contagem, &[&permitidos]).await?;
    (lote.restantes, lote.recusados) = (r.get(0), r.get(1));
    Ok(lote)
}

/// Of `ids`, those discarded or redone (archived out of the outbox): an audit reads a missing
/// outbox row as "pruned after delivery" unless it is here.
pub async fn arquivados(
    c: &impl Sql,
    ids: &[Uuid],
) -> Result<std::collections::HashSet<Uuid>, tokio_postgres::Error> {
    let sql = "SELECT event_id FROM outbox_event_arquivo WHERE acao <> 'reenviar' AND event_id = ANY($1)";
    Ok(giro_infra::db::por_partes(c, sql, &[], ids).await?.iter().map(|r| r.get(0)).collect())
}

#[cfg(feature = "operador")]
/// The actions recorded for an event, newest first: (acao, por, motivo, resultado, em).
pub async fn historico(c: &impl Sql, id: Uuid) -> Result<Vec<Registrado>, tokio_postgres::Error> {
    let sql = "SELECT acao, por, motivo, resultado, em FROM outbox_event_arquivo WHERE event_id = $1 \
               ORDER BY em DESC, id DESC";
    giro_infra::da_linhas!(c.query(sql, &[&id]).await?, Registrado { acao, por, motivo, resultado, em })
}

#[cfg(feature = "operador")]
/// One recorded action.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Registrado {
    pub acao: String,
    pub por: String,
    pub motivo: Option<String>,
    pub resultado: Option<String>,
    #[serde(serialize_with = "crate::instante::serialize")]
    pub em: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn linha(status: Status, idade_dias: i64, agora: DateTime<Utc>) -> Linha {
        Linha {
            id: Uuid::nil(),
            tipo: "T".into(),
            status,
            tentativas: 1,
            criado_em: agora - chrono::Duration::days(idade_dias),
            proxima_tentativa_em: agora,
            enviado_em: None,
            ultimo_erro: None,
            payload: serde_json::json!({}),
        }
    }

    #[test]
    fn the_replay_rule_is_one_for_the_console_and_the_cli() {
        let agora = Utc::now();
        let ret = Duration::from_secs(30 * 86_400);
        let ok = |s, d, f| pode_reenviar(&linha(s, d, agora), agora, ret, f).is_ok();
        assert!(ok(Status::Failed, 0, false), "a dead letter");
        assert!(!ok(Status::Sent, 0, false) && ok(Status::Sent, 0, true), "SENT only forced");
        assert!(!ok(Status::Pending, 0, false) && !ok(Status::Pending, 0, true), "PENDING never");
        assert!(!ok(Status::Failed, 40, false) && ok(Status::Failed, 40, true), "too old only forced");
        assert!(matches!(
            pode_reenviar(&linha(Status::Failed, 40, agora), agora, ret, false),
            Err(SaidaErro::Antigo { age_days: 40, limit_days: 30, .. })
        ));
    }
}
