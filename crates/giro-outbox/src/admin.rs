//! `giro outbox status|list|show|retry|discard|redo` (SPEC §9.1): looking into an outbox and
//! acting on its dead letters, with the event console's rules — both call the same functions of
//! [`saida`]:
//!
//! - `retry` replays a `FAILED` event; a `SENT` one, or one older than `inbox.retencao` (the
//!   receiver may have forgotten it and would apply it a second time), only with `--force`; a
//!   `PENDING` one is refused (already on its way). `--failed` replays every dead letter a page
//!   at a time, bounded by `http.timeout-requisicao` like the console's.
//! - `discard` archives a dead letter (`outbox_event_arquivo`: who, when, why) with the service's
//!   repair in the same transaction; `redo` does the same and writes a fresh event instead; `show`
//!   says, per event, what each action will do and what was done before.

use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use giro_infra::db::Sql;
use uuid::Uuid;

use crate::evento::Evento;
use crate::instante;
use crate::saida::{self, Acao, Registro, Reparo, ReparoDe};
use crate::status::Status;
use crate::store;
use futures_util::future::BoxFuture;
use giro_infra::config::DbConfig;
use giro_infra::db::Db;

/// `giro outbox …`: its arguments live here, beside the commands (`cli.rs` only refers to them).
/// `D` names the outboxes `--db` takes (the composition root's choice, e.g. its services); the
/// commands find each among the [`Alvo`]s by that name.
#[derive(Debug, clap::Args)]
pub struct OutboxArgs<D: clap::ValueEnum + Clone + Send + Sync + 'static> {
    #[command(subcommand)]
    pub command: OutboxCommand<D>,
}

#[derive(Debug, clap::Subcommand)]
pub enum OutboxCommand<D: clap::ValueEnum + Clone + Send + Sync + 'static> {
    /// Counts per status, the age of the oldest pending event and each dead letter; exits 1 when
    /// an outbox has a FAILED event or one pending longer than `audit.atraso` (for monitors).
    Status {
        /// Which service's outbox (default: both).
        #[arg(long, value_enum)]
        db: Option<D>,
        /// One JSON object, keyed by service, instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List events, newest first (page on with `--before` the last id shown).
    List {
        /// Which service's outbox (default: both).
        #[arg(long, value_enum)]
        db: Option<D>,
        /// Only events in this status.
        #[arg(long, value_enum)]
        status: Option<StatusFiltro>,
        /// Only events of this type (e.g. ReposicaoSolicitada).
        #[arg(long, value_name = "TIPO")]
        tipo: Option<String>,
        /// Only events created since this instant (RFC 3339) or this long ago (`1h`, `2d`).
        #[arg(long, value_name = "WHEN", value_parser = quando)]
        since: Option<DateTime<Utc>>,
        /// Only events created before this instant (RFC 3339) or this long ago.
        #[arg(long, value_name = "WHEN", value_parser = quando)]
        until: Option<DateTime<Utc>>,
        /// The next page: events older than this one (the last id of the previous page).
        #[arg(long, value_name = "ID")]
        before: Option<uuid::Uuid>,
        /// At most this many rows (per outbox).
        #[arg(long = "limit", alias = "limite", default_value_t = 100)]
        limite: i64,
        /// One JSON array (each row with its `db`) instead of text.
        #[arg(long)]
        json: bool,
    },
    /// One event: its row, what each action on it will do, and the actions taken before.
    Show {
        /// Which service's outbox.
        #[arg(long, value_enum)]
        db: D,
        /// The event id.
        id: uuid::Uuid,
    },
    /// Put a FAILED event (or every one) back to PENDING with its attempts reset.
    Retry {
        /// Which service's outbox.
        #[arg(long, value_enum)]
        db: D,
        /// The event id.
        #[arg(required_unless_present = "failed", conflicts_with = "failed")]
        id: Option<uuid::Uuid>,
        /// Every FAILED event.
        #[arg(long)]
        failed: bool,
        /// Retry even a SENT event or one older than inbox.retencao (the receiver may apply it twice).
        #[arg(long)]
        force: bool,
        /// Why (recorded with the action).
        #[arg(long)]
        motivo: Option<String>,
    },
    /// Archive a FAILED event with the service's repair (see `show`), printing what was done.
    Discard {
        /// Which service's outbox.
        #[arg(long, value_enum)]
        db: D,
        /// The event id.
        id: uuid::Uuid,
        /// Why (recorded with the action).
        #[arg(long)]
        motivo: String,
    },
    /// Archive a FAILED event and have the service write a fresh one in its place (see `show`).
    Redo {
        /// Which service's outbox.
        #[arg(long, value_enum)]
        db: D,
        /// The event id.
        id: uuid::Uuid,
        /// Why (recorded with the action).
        #[arg(long)]
        motivo: String,
    },
}

impl<D: clap::ValueEnum + Clone + Send + Sync + 'static> OutboxArgs<D> {
    /// The outbox the command names with `--db`; `None` when it acts on all of them (`status`
    /// and `list` without `--db`). The composition root needs only those outboxes' settings.
    pub fn db(&self) -> Option<&D> {
        use OutboxCommand as C;
        match &self.command {
            C::Status { db, .. } | C::List { db, .. } => db.as_ref(),
            C::Show { db, .. } | C::Retry { db, .. } | C::Discard { db, .. } | C::Redo { db, .. } => Some(db),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum StatusFiltro {
    Pending,
    Sent,
    Failed,
}

impl From<StatusFiltro> for Status {
    fn from(f: StatusFiltro) -> Status {
        match f {
            StatusFiltro::Pending => Status::Pending,
            StatusFiltro::Sent => Status::Sent,
            StatusFiltro::Failed => Status::Failed,
        }
    }
}

pub use super::store::{linha, Linha};

/// `giro outbox status`: the counts, the oldest pending event, and each dead letter with what it
/// blocks ([`Evento::bloqueio`]) or, when nothing, its aggregate key.
pub async fn status_text<E: Evento>(c: &impl Sql, agora: DateTime<Utc>) -> anyhow::Result<String> {
    let s = crate::store::status(c).await?;
    status_text_de::<E>(c, &s, agora).await
}

/// [`status_text`] from counts already read.
async fn status_text_de<E: Evento>(
    c: &impl Sql,
    s: &store::Contagem,
    agora: DateTime<Utc>,
) -> anyhow::Result<String> {
    let mut out = String::new();
    for (status, n) in [(Status::Pending, s.pending), (Status::Sent, s.sent), (Status::Failed, s.failed)] {
        let _ = writeln!(out, "{status:<7} {n}");
    }
    match s.oldest_pending {
        Some(t) => {
            let _ = writeln!(
                out,
                "oldest pending: {} ({}s ago)",
                instante::formatar(&t),
                // By the database's clock: this terminal's may be off.
                s.oldest_pending_age_s.map_or_else(|| (agora - t).num_seconds().max(0), |a| a as i64)
            );
        }
        None => out.push_str("oldest pending: none\n"),
    }
    // Each dead letter with what it blocks, so the operator knows what `retry` brings back.
    for m in mortas::<E>(c).await? {
        let (id, tipo, erro) = (m.id, &m.tipo, &m.ultimo_erro);
        let bloqueia = match (m.bloqueia, m.chave) {
            (Some(b), _) => format!("; blocks: {b} until `giro outbox retry|discard|redo {id}` (see `show`)"),
            (None, Some(chave)) => format!("; {} {chave}", E::NOME_CHAVE),
            (None, None) => String::new(),
        };
        let _ = writeln!(out, "{} {id} {tipo}{bloqueia}; last error: {erro}", Status::Failed);
    }
    Ok(out)
}

/// A dead letter as `status` shows it: its aggregate key and what it blocks ([`Evento::bloqueio`]).
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Morta {
    id: Uuid,
    tipo: String,
    chave: Option<String>,
    bloqueia: Option<String>,
    ultimo_erro: String,
}

/// The first 50 dead letters, oldest first.
async fn mortas<E: Evento>(c: &impl Sql) -> anyhow::Result<Vec<Morta>> {
    let rows = store::failed_with_key(c, E::CAMINHO_CHAVE, 50).await?;
    let morta = |r: &tokio_postgres::Row| {
        let (tipo, chave): (String, Option<String>) = (r.get(1), r.get(2));
        let bloqueia = chave.as_deref().and_then(|k| E::bloqueio(&tipo, k));
        Morta { id: r.get(0), tipo, chave, bloqueia, ultimo_erro: r.get(3) }
    };
    Ok(rows.iter().map(morta).collect())
}

pub use super::store::Filtro;

pub async fn list(c: &impl Sql, filtro: &Filtro, limite: i64) -> anyhow::Result<Vec<Linha>> {
    Ok(store::list(c, filtro, limite).await?)
}

/// `--since` / `--until`: an RFC 3339 instant, or a duration ago (`90s`, `1h`, `2d`).
fn quando(v: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(d) = giro_infra::config::duration::parse(v) {
        return chrono::Duration::from_std(d).map(|d| Utc::now() - d).map_err(|e| e.to_string());
    }
    DateTime::parse_from_rfc3339(v)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| format!("{v:?} is neither an RFC 3339 instant nor a duration such as 1h"))
}

/// An outbox `giro outbox` acts on, as the composition root hands it: its name (what `--db`
/// says), its database, and what its service does when one of its dead letters is discarded or
/// redone. The crate names no service; the list says which there are.
pub struct Alvo {
    pub nome: String,
    pub db: DbConfig,
    /// Turns a failure to reach `db` into what the operator should read (e.g. which variable).
    pub nomear: Box<dyn Fn(anyhow::Error) -> anyhow::Error + Send + Sync>,
    /// [`executar`] with the outbox's repair, its database's marker erased: one list holds every
    /// outbox.
    executar: Box<dyn Fn(NoEvento, Prazos, Db) -> BoxFuture<'static, anyhow::Result<()>> + Send + Sync>,
}

impl Alvo {
    /// The outbox `nome` in `db`, whose dead letters `reparo` repairs (`S`: its database's marker).
    pub fn new<S: 'static>(
        nome: impl Into<String>,
        db: DbConfig,
        reparo: ReparoDe<S>,
        nomear: impl Fn(anyhow::Error) -> anyhow::Error + Send + Sync + 'static,
    ) -> Alvo {
        let executar = move |cmd, prazos, db| -> BoxFuture<'static, _> {
            let reparo = reparo.clone();
            Box::pin(async move { executar(cmd, &prazos, db, &*reparo).await })
        };
        Alvo { nome: nome.into(), db, nomear: Box::new(nomear), executar: Box::new(executar) }
    }
}

/// The settings `giro outbox` reads (from `db.timeout`, `audit.atraso`, `inbox.retencao` and
/// `http.timeout-requisicao`).
#[derive(Clone, Copy, Debug)]
pub struct Prazos {
    /// How long connecting to an outbox's database may take.
    pub db: std::time::Duration,
    /// `status` reports a `PENDING` event older than this as delayed.
    pub atraso: std::time::Duration,
    /// How long the receiver remembers an event: a retry past it needs `--force`.
    pub inbox_retencao: std::time::Duration,
    /// How long one request may take (`retry --failed` stops in time).
    pub requisicao: std::time::Duration,
}

/// A command on one event of one outbox, its outbox already chosen (`Arquivar`: discard, redo).
enum NoEvento {
    Show { id: Uuid },
    Retry { id: Option<Uuid>, failed: bool, force: bool, motivo: Option<String> },
    Arquivar { id: Uuid, acao: Acao, motivo: String },
}

/// The name `--db` gave.
fn nome<D: clap::ValueEnum>(d: &D) -> String {
    d.to_possible_value().map(|p| p.get_name().to_string()).unwrap_or_default()
}

/// One connection to `alvo`'s database; a failure to reach it is named by the alvo.
async fn conectar(prazos: &Prazos, alvo: &Alvo) -> anyhow::Result<giro_infra::db::Client> {
    let pool = giro_infra::db::pool(&alvo.db, 1, prazos.db)?;
    pool.get().await.map_err(|e| (alvo.nomear)(e.into()))
}

/// The outboxes `db` names: the one of that name, or all of them.
fn escolhidos<'a>(alvos: &'a [Alvo], db: Option<&str>) -> anyhow::Result<Vec<&'a Alvo>> {
    let v: Vec<&Alvo> = alvos.iter().filter(|a| db.is_none_or(|n| a.nome == n)).collect();
    anyhow::ensure!(!v.is_empty(), "no outbox named {}", db.unwrap_or("?"));
    Ok(v)
}

/// One outbox's state as `status --json` prints it.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Situacao {
    pending: i64,
    sent: i64,
    failed: i64,
    oldest_pending_age_s: Option<f64>,
    /// True when nothing is FAILED and nothing has waited longer than `audit.atraso`.
    ok: bool,
    dead_letters: Vec<Morta>,
}

/// `giro outbox status` over one or both outboxes: text or JSON; an error (exit 1) when any
/// has a dead letter or an event pending past `audit.atraso`, so a monitor can run it.
async fn status_de_todos<E: Evento>(
    prazos: &Prazos,
    alvos: &[Alvo],
    db: Option<&str>,
    json: bool,
) -> anyhow::Result<()> {
    let mut problemas = Vec::new();
    let mut todos = serde_json::Map::new();
    for a in escolhidos(alvos, db)? {
        let s = &a.nome;
        let c = &conectar(prazos, a).await?;
        let cont = store::status(c).await?;
        let atraso = prazos.atraso.as_secs_f64();
        let atrasado = cont.oldest_pending_age_s.is_some_and(|a| a > atraso);
        if cont.failed > 0 {
            problemas.push(format!("{s}: {} FAILED", cont.failed));
        }
        if atrasado {
            problemas.push(format!(
                "{s}: an event pending for {:.0}s (audit.atraso {:.0}s)",
                cont.oldest_pending_age_s.unwrap_or_default(),
                atraso
            ));
        }
        if json {
            let sit = Situacao {
                pending: cont.pending,
                sent: cont.sent,
                failed: cont.failed,
                oldest_pending_age_s: cont.oldest_pending_age_s,
                ok: cont.failed == 0 && !atrasado,
                dead_letters: mortas::<E>(c).await?,
            };
            todos.insert(s.clone(), serde_json::to_value(sit)?);
        } else {
            if db.is_none() {
                println!("== {s}");
            }
            print!("{}", status_text_de::<E>(c, &cont, Utc::now()).await?);
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&todos)?);
    }
    anyhow::ensure!(problemas.is_empty(), "{}", problemas.join("; "));
    Ok(())
}

/// `giro outbox list` over one or both outboxes, newest first.
async fn list_de_todos(
    prazos: &Prazos,
    alvos: &[Alvo],
    db: Option<&str>,
    filtro: &Filtro,
    limite: i64,
    json: bool,
) -> anyhow::Result<()> {
    #[derive(serde::Serialize)]
    struct ComDb<'a> {
        db: &'a str,
        #[serde(flatten)]
        linha: &'a Linha,
    }
    let mut todas = Vec::new();
    for a in escolhidos(alvos, db)? {
        let s = &a.nome;
        let client = conectar(prazos, a).await?;
        let linhas = list(&client, filtro, limite).await?;
        if !json {
            if db.is_none() {
                println!("== {s}");
            }
            print!("{}", list_text(&linhas));
            if let Some(l) = linhas.last().filter(|_| linhas.len() as i64 == limite) {
                println!("(more: --db {s} --before {})", l.id);
            }
        }
        todas.push((s.as_str(), linhas));
    }
    if json {
        let v: Vec<ComDb> =
            todas.iter().flat_map(|(db, ls)| ls.iter().map(|l| ComDb { db, linha: l })).collect();
        println!("{}", serde_json::to_string_pretty(&v)?);
    }
    Ok(())
}

pub fn list_text(linhas: &[Linha]) -> String {
    let mut out = String::new();
    for l in linhas {
        let _ = writeln!(
            out,
            "{}  {:<20} {:<7} tentativas={:<3} criado={} {}",
            l.id,
            l.tipo,
            l.status,
            l.tentativas,
            instante::formatar(&l.criado_em),
            l.ultimo_erro.as_deref().map(|e| format!("erro={e}")).unwrap_or_default()
        );
    }
    out
}

/// Who runs `giro outbox`: recorded with each action.
pub fn quem() -> String {
    format!(
        "cli:{}",
        std::env::var("USER").or_else(|_| std::env::var("LOGNAME")).unwrap_or_else(|_| "?".into())
    )
}

/// `giro outbox show`: the event, its actions and its history, as text.
pub async fn show_text<S: 'static>(c: &impl Sql, reparo: &dyn Reparo<S>, id: Uuid) -> anyhow::Result<String> {
    let Some(row) = store::one(c, id).await? else { anyhow::bail!("event {id} not found in this outbox") };
    let l = linha(&row);
    let mut out = list_text(std::slice::from_ref(&l));
    if l.status == Status::Failed {
        for o in reparo.opcoes(&l.tipo) {
            let _ = writeln!(
                out,
                "  {:<9} {}{}",
                o.acao.nome(),
                if o.permitida { "" } else { "(recusado) " },
                o.efeito
            );
        }
    }
    for h in saida::historico(c, id).await? {
        let _ = writeln!(
            out,
            "  {} {} por {}{}{}",
            instante::formatar(&h.em),
            h.acao,
            h.por,
            h.motivo.map(|m| format!(": {m}")).unwrap_or_default(),
            h.resultado.map(|r| format!(" — {r}")).unwrap_or_default()
        );
    }
    Ok(out)
}

/// Runs an admin command against the outboxes it names (all of them for `status` and `list`
/// without `--db`); `E` is the event type stored there, `alvos` the outboxes there are.
pub async fn run<E: Evento, D: clap::ValueEnum + Clone + Send + Sync + 'static>(
    args: OutboxArgs<D>,
    prazos: &Prazos,
    alvos: &[Alvo],
) -> anyhow::Result<()> {
    use OutboxCommand as C;
    let (db, cmd) = match args.command {
        C::Status { db, json } => {
            return status_de_todos::<E>(prazos, alvos, db.as_ref().map(nome).as_deref(), json).await
        }
        C::List { db, status, tipo, since, until, before, limite, json } => {
            let filtro =
                Filtro { status: status.map(Status::from), tipo, desde: since, ate: until, antes: before };
            return list_de_todos(prazos, alvos, db.as_ref().map(nome).as_deref(), &filtro, limite, json)
                .await;
        }
        C::Show { db, id } => (db, NoEvento::Show { id }),
        C::Retry { db, id, failed, force, motivo } => (db, NoEvento::Retry { id, failed, force, motivo }),
        C::Discard { db, id, motivo } => (db, NoEvento::Arquivar { id, acao: Acao::Descartar, motivo }),
        C::Redo { db, id, motivo } => (db, NoEvento::Arquivar { id, acao: Acao::Refazer, motivo }),
    };
    let alvo = escolhidos(alvos, Some(&nome(&db)))?[0];
    let db = Db::new(giro_infra::db::pool(&alvo.db, 1, prazos.db)?, false);
    (alvo.executar)(cmd, *prazos, db).await
}

async fn executar<S: 'static>(
    cmd: NoEvento,
    prazos: &Prazos,
    db: Db,
    reparo: &dyn Reparo<S>,
) -> anyhow::Result<()> {
    use NoEvento as C;
    let agora = Utc::now();
    match cmd {
        C::Show { id } => print!("{}", show_text(&db.client().await?, reparo, id).await?),
        C::Retry { id, failed, force, motivo } => {
            let r = Registro { por: quem(), motivo };
            if failed {
                let prazo = prazos.requisicao;
                let l = saida::reenviar_todos(&db, agora, prazos.inbox_retencao, force, prazo, &r).await?;
                println!("{} event(s) back to PENDING; {} FAILED left", l.feitos, l.restantes);
            } else if let Some(id) = id {
                saida::reenviar(&db, id, agora, prazos.inbox_retencao, force, &r).await?;
                println!("1 event(s) back to PENDING");
            }
        }
        C::Arquivar { id, acao, motivo } => {
            // The archived event and what the service's repair did.
            let r = Registro { por: quem(), motivo: Some(motivo) };
            println!("{}", serde_json::to_string_pretty(&saida::executar(&db, reparo, id, acao, &r).await?)?);
        }
    }
    Ok(())
}
