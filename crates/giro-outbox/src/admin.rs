//! `giro outbox status|list|retry|discard` (SPEC §9.1): looking into an outbox and acting on its
//! dead letters.
//!
//! `retry` refuses an event older than `inbox.retencao` without `--force`: the receiver may have
//! forgotten it (its inbox row pruned) and would apply it a second time.

use std::fmt::Write as _;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio_postgres::GenericClient;
use uuid::Uuid;

use crate::evento::Evento;
use crate::instante;
use crate::status::Status;
use crate::store;
use giro_infra::config::Servico;

/// `giro outbox …`: its arguments live here, beside the commands (`cli.rs` only refers to them).
#[derive(Debug, clap::Args)]
pub struct OutboxArgs {
    #[command(subcommand)]
    pub command: OutboxCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum OutboxCommand {
    /// Counts per status and the age of the oldest pending event.
    Status {
        /// Which service's outbox.
        #[arg(long, value_enum)]
        db: Servico,
    },
    /// List events, oldest first.
    List {
        /// Which service's outbox.
        #[arg(long, value_enum)]
        db: Servico,
        /// Only events in this status.
        #[arg(long, value_enum)]
        status: Option<StatusFiltro>,
        /// At most this many rows.
        #[arg(long, default_value_t = 100)]
        limite: i64,
        /// One JSON array instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Put an event (or every FAILED one) back to PENDING with its attempts reset.
    Retry {
        /// Which service's outbox.
        #[arg(long, value_enum)]
        db: Servico,
        /// The event id.
        #[arg(required_unless_present = "failed", conflicts_with = "failed")]
        id: Option<uuid::Uuid>,
        /// Every FAILED event.
        #[arg(long)]
        failed: bool,
        /// Retry even an event older than inbox.retencao (the receiver may apply it twice).
        #[arg(long)]
        force: bool,
    },
    /// Delete a FAILED event, printing it as JSON first.
    Discard {
        /// Which service's outbox.
        #[arg(long, value_enum)]
        db: Servico,
        /// The event id.
        id: uuid::Uuid,
    },
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
pub async fn status_text<E: Evento>(c: &impl GenericClient, agora: DateTime<Utc>) -> anyhow::Result<String> {
    let s = crate::store::status(c).await?;
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
                (agora - t).num_seconds().max(0)
            );
        }
        None => out.push_str("oldest pending: none\n"),
    }
    // Each dead letter with what it blocks, so the operator knows what `retry` brings back.
    for r in store::failed_with_key(c, E::CAMINHO_CHAVE, 50).await? {
        let (id, tipo, chave, erro): (Uuid, String, Option<String>, String) =
            (r.get(0), r.get(1), r.get(2), r.get(3));
        let bloqueia = match chave {
            Some(chave) => match E::bloqueio(&tipo, &chave) {
                Some(b) => format!("; blocks: {b} until `giro outbox retry {id}`"),
                None => format!("; {} {chave}", E::NOME_CHAVE),
            },
            None => String::new(),
        };
        let _ = writeln!(out, "{} {id} {tipo}{bloqueia}; last error: {erro}", Status::Failed);
    }
    Ok(out)
}

pub async fn list(
    c: &impl GenericClient,
    status: Option<StatusFiltro>,
    limite: i64,
) -> anyhow::Result<Vec<Linha>> {
    Ok(store::list(c, status.map(Status::from), limite).await?)
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

#[derive(Debug, thiserror::Error)]
pub enum RetryError {
    #[error("event {0} not found")]
    NotFound(Uuid),
    #[error("event {id} was created {age_days} days ago, beyond inbox.retencao ({limit_days} days): the receiver may have forgotten it and would apply it again; use --force to retry anyway")]
    TooOld { id: Uuid, age_days: i64, limit_days: i64 },
    #[error(transparent)]
    Db(#[from] tokio_postgres::Error),
}

/// Puts `ids` back to `PENDING` with attempts reset, due now. Refuses events older than
/// `inbox_retencao` unless `force`. Returns how many rows changed.
pub async fn retry(
    c: &impl GenericClient,
    ids: &[Uuid],
    agora: DateTime<Utc>,
    inbox_retencao: Duration,
    force: bool,
) -> Result<u64, RetryError> {
    let limite = agora - chrono::Duration::from_std(inbox_retencao).unwrap_or(chrono::Duration::MAX);
    for id in ids {
        let criado = store::criado_em(c, *id).await?.ok_or(RetryError::NotFound(*id))?;
        if criado < limite && !force {
            return Err(RetryError::TooOld {
                id: *id,
                age_days: (agora - criado).num_days(),
                limit_days: (inbox_retencao.as_secs() / 86_400) as i64,
            });
        }
    }
    Ok(store::back_to_pending(c, ids, agora).await?)
}

pub async fn failed_ids(c: &impl GenericClient) -> Result<Vec<Uuid>, tokio_postgres::Error> {
    store::failed_ids(c).await
}

/// Deletes a `FAILED` event and returns it (printed as JSON before it goes).
pub async fn discard(c: &impl GenericClient, id: Uuid) -> anyhow::Result<Linha> {
    match store::discard_failed(c, id).await? {
        Some(l) => Ok(l),
        None => anyhow::bail!(
            "event {id} is not a FAILED event of this outbox; only dead letters can be discarded"
        ),
    }
}

/// Runs an admin command against the outbox of the database it names; `E` is the event type
/// stored there.
pub async fn run<E: Evento>(args: OutboxArgs, config: &giro_infra::config::Config) -> anyhow::Result<()> {
    use OutboxCommand as C;
    let cmd = args.command;
    let db = match &cmd {
        C::Status { db } | C::List { db, .. } | C::Retry { db, .. } | C::Discard { db, .. } => *db,
    };
    let pool = giro_infra::db::pool(&config.servico(db).db, 1, config.db_timeout)?;
    let client = pool.get().await?;
    let c = &**client;
    let agora = Utc::now();
    match cmd {
        C::Status { .. } => print!("{}", status_text::<E>(c, agora).await?),
        C::List { status, limite, json, .. } => {
            let linhas = list(c, status, limite).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&linhas)?);
            } else {
                print!("{}", list_text(&linhas));
            }
        }
        C::Retry { id, failed, force, .. } => {
            let ids = if failed { failed_ids(c).await? } else { id.into_iter().collect() };
            let n = retry(c, &ids, agora, config.inbox_retencao, force).await?;
            println!("{n} event(s) back to PENDING");
        }
        C::Discard { id, .. } => {
            let l = discard(c, id).await?;
            println!("{}", serde_json::to_string_pretty(&l)?);
        }
    }
    Ok(())
}
