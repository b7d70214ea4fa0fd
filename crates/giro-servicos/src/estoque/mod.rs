//! estoque, the warehouse: lots with FEFO, serving restock requests, pent-up demand, lot intake,
//! product classification through the tag-worker, and the dashboard API.
//!
//! This module is the role's composition root; it never imports `mercado`. Its parts, each owning
//! its table's SQL:
//!
//! - [`produto`] — `produto_estoque`: the product, its balance and its classification; a locked
//!   row ([`produto::Bloqueado`]) is what every write of a product takes.
//! - [`lote`] — `lote`: receiving a lot, FEFO selection, taking units out of a lot.
//! - [`expedicao`] — one shipment from the FEFO lot: `ReposicaoEnviada` + `reposicao_expedida`.
//! - [`demanda`] — `demanda_reprimida`: requests that found no shippable lot, served on intake.
//! - [`atendimento`] — the effect of a `ReposicaoSolicitada` (SPEC §3.12), the `/eventos` consumer.
//! - [`entrada_lote`] — `POST /lotes` (SPEC §3.13).
//! - [`classificacao`] — the tag-worker client (SPEC §7.4) and applying a classification;
//!   [`reclassificacao`] — the job that classifies untagged products later (SPEC §3.14).
//! - [`painel`] — the dashboard's read-only queries (SPEC §6.2); [`inventario`] — the inventory
//!   (per SKU: valid and expired balance, lots, history) and the write-off of an expired lot
//!   (`baixa_lote`, SPEC §6.2.1); [`routes`] — the thin handlers;
//!   [`erro`] — its constraints by name.
//! - [`Tx`] — a transaction in estoque's database, what every write above takes; a mercado
//!   transaction does not compile there.
//!
//! Time: every function that decides something by the clock takes `agora` (an instant); the civil
//! date "today" for lot expiry is computed from it in SQL, in `America/Sao_Paulo`, so tests can
//! drive the clock. Entry points pass [`agora`].

/// `$texto` in lower case without accents, as SQL (a literal, for `concat!`): the warehouse's
/// database has no `unaccent`, so its searches fold by hand, both sides alike — the console's
/// product search and the inventory's (issue 39 §6).
macro_rules! sem_acentos {
    ($texto:literal) => {
        concat!(
            "translate(lower(",
            $texto,
            "), 'áàâãäéèêëíìîïóòôõöúùûüçÁÀÂÃÄÉÈÊËÍÌÎÏÓÒÔÕÖÚÙÛÜÇ', 'aaaaaeeeeiiiiooooouuuucaaaaaeeeeiiiiooooouuuuc')"
        )
    };
}

pub mod atendimento;
pub mod classificacao;
pub mod demanda;
pub mod entrada_lote;
pub mod erro;
pub mod expedicao;
pub mod inventario;
pub mod lote;
pub mod painel;
pub mod produto;
pub mod reclassificacao;
pub mod routes;
pub mod saida;

use std::sync::Arc;

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

use crate::config::{Config, Servico};
use crate::server::{self, Contexto, Role};
use giro_contracts::{EventoIntegracao, TipoEvento};
use giro_infra::db::DbError;
use giro_outbox::inbox::{Consumidor, EventoInvalido};

pub async fn serve(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    server::run(Servico::Estoque, config, build, shutdown).await
}

/// The role: its routes, its `/eventos` consumer, and the re-classification job (when enabled).
pub fn build(ctx: &Contexto) -> anyhow::Result<Role<Estoque>> {
    let tags = Arc::new(classificacao::ClienteTags::new(&ctx.config.tags)?);
    iniciar_reclassificacao(ctx, tags.clone());
    let estado = Arc::new(routes::Estado { db: ctx.db.clone(), tags });
    Ok(Role {
        router: routes::router(estado, ctx.seguranca.clone()),
        consumidor: Arc::new(ConsumidorEstoque),
        metricas: Some(demanda::metricas),
        series: &[],
        reparo: Arc::new(saida::ReparoEstoque),
        // Accents aside by hand: the warehouse's database has no `unaccent`.
        busca_produto: Some(concat!(
            "SELECT sku FROM produto_estoque WHERE (SELECT bool_and(",
            sem_acentos!("descricao"),
            " LIKE ",
            sem_acentos!("w"),
            ") FROM unnest($1::text[]) AS w)"
        )),
    })
}

/// Spawns the re-classification job under the supervisor when enabled; it stops on
/// `ctx.shutdown`.
fn iniciar_reclassificacao(ctx: &Contexto, cliente: Arc<classificacao::ClienteTags>) {
    let cfg = &ctx.config.tags;
    if !cfg.reclassificacao_habilitada {
        tracing::info!("re-classification job disabled");
        return;
    }
    let (db, intervalo, limite) = (ctx.db.clone(), cfg.intervalo_reclassificacao, cfg.lote_reclassificacao);
    ctx.supervisionar("reclassificacao", true, move |vivo, shutdown| {
        let (db, cliente) = (db.clone(), cliente.clone());
        async move { reclassificacao::job(db, cliente, intervalo, limite, shutdown, vivo).await }
    });
}

pub use giro_infra::db::agora;

/// A transaction in estoque's database: what every estoque write takes. Opened with
/// `Tx::begin(&db, &mut client)`; a mercado function does not accept it ([`giro_infra::db::Tx`]).
pub type Tx<'a> = giro_infra::db::Tx<'a, Estoque>;

/// estoque's database: the marker of its transactions ([`Tx`]) and of its outbox's repairs.
#[derive(Debug)]
pub enum Estoque {}

/// The warehouse's errors, each with its HTTP status in [`routes`].
#[derive(Debug, thiserror::Error)]
pub enum ErroEstoque {
    /// A rule violation (the original's `IllegalArgumentException`) → 400, detail = the message.
    #[error("{0}")]
    Invalido(String),
    /// A unique constraint (repeated lot code, the same new SKU created in parallel) → 409.
    #[error("{}", erro::CONFLITO)]
    Conflito,
    /// The SKU or lot the path names does not exist → 404, detail = the message.
    #[error("{0}")]
    NaoEncontrado(String),
    /// A request the current state refuses (a write-off of a lot still valid, a lot code already
    /// used) → 409, detail = the message.
    #[error("{0}")]
    Recusado(String),
    /// A database failure (no connection from the pool, a statement the database refused for
    /// its own reasons) → by the database-error policy ([`erro::POLITICA`]): 503 when the
    /// database is at fault, else 500, logged.
    #[error(transparent)]
    Db(#[from] DbError),
    /// A broken invariant → 500, logged.
    #[error(transparent)]
    Interno(anyhow::Error),
}

impl From<tokio_postgres::Error> for ErroEstoque {
    fn from(e: tokio_postgres::Error) -> Self {
        match erro::POLITICA.recusa(&e) {
            Some(giro_http::pg::Restricao::Conflito) => ErroEstoque::Conflito,
            Some(giro_http::pg::Restricao::Invalido(m)) => ErroEstoque::Invalido(m.to_string()),
            // Answered by the policy itself, where its log line is written.
            None => ErroEstoque::Db(DbError::Pg(e)),
        }
    }
}

/// The effect of the events estoque accepts: a `ReposicaoSolicitada` is served (SPEC §3.12) in
/// the transaction that already holds its inbox row.
struct ConsumidorEstoque;

impl Consumidor<Estoque> for ConsumidorEstoque {
    type Evento = EventoIntegracao;

    fn aceitos(&self) -> &'static [&'static str] {
        const { &[TipoEvento::ReposicaoSolicitada.nome()] }
    }

    fn aplicar<'a>(
        &'a self,
        tx: &'a Tx<'_>,
        evento: &'a EventoIntegracao,
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            let EventoIntegracao::ReposicaoSolicitada(pedido) = evento else {
                anyhow::bail!("estoque does not consume {}", evento.tipo())
            };
            match atendimento::atender(tx, pedido, agora()).await {
                // A rule the event's data breaks: permanent, the sender dead-letters it.
                Err(ErroEstoque::Invalido(m)) => Err(EventoInvalido(m).into()),
                other => Ok(other.map(drop)?),
            }
        })
    }

    /// A batch's products locked in one statement, in the order its events are applied.
    fn em_lote<'a>(
        &'a self,
        tx: &'a Tx<'_>,
        eventos: &'a [&'a EventoIntegracao],
        aplicar: BoxFuture<'a, anyhow::Result<()>>,
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        let skus: Vec<&str> = eventos
            .iter()
            .filter_map(|e| match e {
                EventoIntegracao::ReposicaoSolicitada(p) => Some(p.sku.as_str()),
                _ => None,
            })
            .collect();
        Box::pin(async move { produto::bloqueando(tx, &skus, aplicar).await? })
    }
}
