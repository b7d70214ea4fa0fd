//! `giro audit` (SPEC §9.3): reads both databases and reports, per SKU, every disagreement
//! within the retention window. Exit 0 when all agree, 1 when not, 2 when a database cannot be
//! read; `--json` for machines.
//!
//! The kinds, each a name in the JSON (`tipo`) and a line in the text report:
//! - `solicitacao_nao_recebida` — mercado sent a `ReposicaoSolicitada` (its outbox row is `SENT`,
//!   or gone by retention) that estoque's inbox never recorded;
//! - `resposta_nao_aplicada` — estoque sent an answer (`SENT`, or pruned with a delivery instant on
//!   `reposicao_expedida`) that mercado's inbox never recorded;
//! - `evento_falhou` — an event in either outbox is a dead letter (`FAILED`), with what it blocks
//!   (a `ReposicaoSolicitada` keeps its request open: that SKU's restocks wait);
//! - `evento_atrasado` — an event in either outbox is still `PENDING` but older than
//!   `audit.atraso` (default 5 min) or has failed [`TENTATIVAS_ATRASO`] attempts or more: the
//!   pipeline is stalled (peer down, a receiver refusing, a database read-only), with the last
//!   error. In normal operation an event is delivered within a second of its commit;
//! - `solicitacao_aberta_sem_evento` — a request is open (PENDENTE / AGUARDANDO_LOTE) with no event
//!   in flight either way and no open pent-up demand in estoque: nothing will ever close it;
//! - `conservacao_lotes` — lots received ≠ units still in lots + units shipped + units written off
//!   (`baixa_lote`), or the product's `saldo_disponivel` ≠ the sum of its lots;
//! - `conservacao_prateleira` — units shipped ≠ units on the shelf and in reservations (active or
//!   paid) + units still in flight to mercado.
//!
//! "Within the retention window": events older than `inbox.retencao` are not checked against an
//! inbox (the receiver may have pruned them), and unit conservation assumes products were
//! registered through the API (a new product starts with an empty shelf).
//!
//! What it reads of the outboxes comes from [`giro_outbox::operador`] (every `outbox_event`
//! statement lives there); the roles' tables are read here and matched with it by event id.

use std::collections::{BTreeMap, HashMap, HashSet};

use chrono::{DateTime, Utc};
use giro_infra::db::Client;
use serde::Serialize;
use uuid::Uuid;

use crate::config::{Config, Servico};
use crate::mercado::reposicao::StatusSolicitacao;
use crate::mercado::reserva::StatusReserva;
use giro_contracts::{EventoIntegracao, TipoEvento};
use giro_outbox::{operador, Evento as _, Status};

/// Where the SKU is in a stored payload (the events' aggregate key).
const SKU: &[&str] = EventoIntegracao::CAMINHO_CHAVE;

/// Attempts after which a `PENDING` event is reported as delayed whatever its age.
pub const TENTATIVAS_ATRASO: i32 = 5;

#[derive(Clone, Debug, Serialize, PartialEq, Eq, PartialOrd, Ord)]
pub struct Divergencia {
    pub sku: String,
    pub tipo: &'static str,
    pub detalhe: String,
}

impl Divergencia {
    fn new(sku: impl Into<String>, tipo: &'static str, detalhe: String) -> Divergencia {
        Divergencia { sku: sku.into(), tipo, detalhe }
    }
}

#[derive(Debug, Serialize)]
pub struct Relatorio {
    pub concorda: bool,
    pub divergencias: Vec<Divergencia>,
}

#[derive(Debug, thiserror::Error)]
#[error("cannot read the {db} database: {source}")]
pub struct Ilegivel {
    pub db: &'static str,
    #[source]
    pub source: anyhow::Error,
}

/// One connection with the services' own settings (`db.pooler` included: the audit reads
/// through the same pooler the services write through).
async fn connect(config: &Config, servico: Servico) -> Result<Client, Ilegivel> {
    let db = config.db(servico).map_err(|e| Ilegivel { db: servico.nome(), source: e.into() })?;
    let erro = |e: anyhow::Error| Ilegivel {
        db: servico.nome(),
        // Names the database, its host and variable, and the cause, once.
        source: giro_infra::db::nomear_conexao(e, servico.nome(), servico.var_db_url(), db),
    };
    let pool = giro_infra::db::pool_with(db, 1, config.db_timeout, config.db_limites).map_err(erro)?;
    pool.get().await.map_err(|e| erro(e.into()))
}

/// Ids of `ids` that `sql` (`… = ANY($1)`) finds in the other database.
async fn presentes(c: &Client, sql: &str, ids: &[Uuid]) -> Result<HashSet<Uuid>, tokio_postgres::Error> {
    Ok(giro_infra::db::por_partes(c, sql, &[], ids).await?.iter().map(|r| r.get(0)).collect())
}

/// A database error of one side as the audit reports it.
fn falha(db: &'static str) -> impl Fn(tokio_postgres::Error) -> Ilegivel {
    move |source| Ilegivel { db, source: source.into() }
}

/// Every check, read-only, on both databases at `agora`; the divergences sorted.
pub async fn auditar(config: &Config, agora: DateTime<Utc>) -> Result<Relatorio, Ilegivel> {
    let m = connect(config, Servico::Mercado).await?;
    let e = connect(config, Servico::Estoque).await?;
    let janela = agora - chrono::Duration::from_std(config.inbox_retencao).unwrap_or(chrono::Duration::MAX);
    let atraso = agora - chrono::Duration::from_std(config.audit_atraso).unwrap_or(chrono::Duration::MAX);
    let mut d = Vec::new();
    // Progress on stderr (the report is stdout): on a large shop each step takes seconds, and an
    // operator watching a nightly run sees which one it is in.
    let t0 = std::time::Instant::now();
    let passo = |n: usize, o_que: &str, d: &[Divergencia]| {
        eprintln!(
            "audit: {n}/6 {o_que} ({:.1} s, {} disagreement(s) so far)",
            t0.elapsed().as_secs_f64(),
            d.len()
        )
    };
    eventos_parados(&m, "mercado", agora, atraso, &mut d).await?;
    eventos_parados(&e, "estoque", agora, atraso, &mut d).await?;
    passo(1, "dead and late events read", &d);
    solicitacoes(&m, &e, janela, &mut d).await?;
    passo(2, "restock requests matched with estoque's inbox", &d);
    respostas(&m, &e, janela, &mut d).await?;
    passo(3, "answers matched with mercado's inbox", &d);
    conservacao_lotes(&e, &mut d).await?;
    passo(4, "units in lots conserved", &d);
    conservacao_prateleira(&m, &e, &mut d).await?;
    passo(5, "units on shelves conserved", &d);
    d.sort();
    d.dedup();
    passo(6, "done", &d);
    Ok(Relatorio { concorda: d.is_empty(), divergencias: d })
}

/// Dead letters of one side's outbox (and what each blocks), and events still `PENDING` created
/// before `atraso` or attempted [`TENTATIVAS_ATRASO`] times.
async fn eventos_parados(
    c: &Client,
    lado: &'static str,
    agora: DateTime<Utc>,
    atraso: DateTime<Utc>,
    d: &mut Vec<Divergencia>,
) -> Result<(), Ilegivel> {
    for r in operador::failed_with_key(c, SKU, i64::MAX).await.map_err(falha(lado))? {
        let (id, tipo, sku, erro): (Uuid, String, Option<String>, String) =
            (r.get(0), r.get(1), r.get(2), r.get(3));
        let bloqueia = match (TipoEvento::de_nome(&tipo), &sku) {
            (Some(TipoEvento::ReposicaoSolicitada), Some(sku)) => {
                format!(" (a solicitação fica aberta: as reposições do SKU {sku} esperam até `giro outbox retry|discard|redo {id}` ou o console de eventos)")
            }
            _ => String::new(),
        };
        d.push(Divergencia::new(
            sku.unwrap_or_default(),
            "evento_falhou",
            format!("{tipo} {id} do {lado} está FAILED: {erro}{bloqueia}"),
        ));
    }
    for r in operador::delayed(c, SKU, atraso, TENTATIVAS_ATRASO).await.map_err(falha(lado))? {
        let (id, tipo, sku, erro): (Uuid, String, Option<String>, String) =
            (r.get(0), r.get(1), r.get(2), r.get(3));
        let (criado, tentativas): (DateTime<Utc>, i32) = (r.get(4), r.get(5));
        let erro = if erro.is_empty() { "nenhum".to_string() } else { erro };
        let idade = (agora - criado).num_seconds().max(0);
        d.push(Divergencia::new(
            sku.unwrap_or_default(),
            "evento_atrasado",
            format!("{tipo} {id} do {lado} está PENDING há {idade}s após {tentativas} tentativa(s); último erro: {erro}"),
        ));
    }
    Ok(())
}

/// mercado's restock requests against estoque: each one sent within `janela` was received, and
/// each open one has an event in flight (its own, or an answer) or open demand.
async fn solicitacoes(
    m: &Client,
    e: &Client,
    janela: DateTime<Utc>,
    d: &mut Vec<Divergencia>,
) -> Result<(), Ilegivel> {
    // (event_id, sku, status, criado_em), and their events' status in mercado's outbox (no row:
    // pruned after SENT).
    let pedidos = m
        .query("SELECT event_id, sku, status, criado_em FROM solicitacao_reposicao", &[])
        .await
        .map_err(falha("mercado"))?;
    let ids: Vec<Uuid> = pedidos.iter().map(|r| r.get(0)).collect();
    let no_outbox = operador::statuses(m, &ids).await.map_err(falha("mercado"))?;
    // A row gone from the outbox was pruned after delivery, unless an operator archived it
    // (discarded or redone: never sent).
    let arquivadas = operador::arquivados(m, &ids).await.map_err(falha("mercado"))?;
    let recebidas = presentes(e, "SELECT event_id FROM inbox_event WHERE event_id = ANY($1)", &ids)
        .await
        .map_err(falha("estoque"))?;
    let demanda_aberta =
        presentes(e, "SELECT solicitacao_original FROM demanda_reprimida WHERE NOT atendida AND solicitacao_original = ANY($1)", &ids)
            .await
            .map_err(falha("estoque"))?;
    // An answer carries its request's id as `correlationId`.
    let respostas_em_voo = operador::pending_referencing(
        e,
        &[TipoEvento::ReposicaoEnviada.nome(), TipoEvento::ReposicaoNegada.nome()],
        &["correlationId"],
        &ids,
    )
    .await
    .map_err(falha("estoque"))?;
    for r in &pedidos {
        let (id, sku, status, criado): (Uuid, String, String, DateTime<Utc>) =
            (r.get(0), r.get(1), r.get(2), r.get(3));
        let outbox = no_outbox.get(&id).copied();
        let enviada = outbox.is_none_or(|s| s == Status::Sent) && !arquivadas.contains(&id);
        if enviada && criado >= janela && !recebidas.contains(&id) {
            d.push(Divergencia::new(
                sku.clone(),
                "solicitacao_nao_recebida",
                format!(
                    "ReposicaoSolicitada {id} ({status}) enviada pelo mercado e não recebida pelo estoque"
                ),
            ));
        }
        let aberta = StatusSolicitacao::de_texto(&status).is_ok_and(StatusSolicitacao::em_aberto);
        let em_voo = outbox == Some(Status::Pending) || respostas_em_voo.contains(&id);
        if aberta && !em_voo && !demanda_aberta.contains(&id) {
            d.push(Divergencia::new(
                sku,
                "solicitacao_aberta_sem_evento",
                format!("solicitação {id} está {status} sem evento em trânsito nem demanda reprimida aberta"),
            ));
        }
    }
    Ok(())
}

/// estoque's answers within `janela` against mercado: each one sent was applied. The answers are
/// the SENT outbox rows and the delivered shipments whose row was pruned since (read after the
/// SENT rows, so a row pruned in between is in one list or both: by id, once).
async fn respostas(
    m: &Client,
    e: &Client,
    janela: DateTime<Utc>,
    d: &mut Vec<Divergencia>,
) -> Result<(), Ilegivel> {
    let mut respostas: BTreeMap<Uuid, (String, Option<String>)> = BTreeMap::new();
    for r in operador::sent_since(e, SKU, janela).await.map_err(falha("estoque"))? {
        respostas.insert(r.get(0), (r.get(1), r.get(2)));
    }
    let sql =
        "SELECT event_id, sku FROM reposicao_expedida WHERE entregue_em IS NOT NULL AND expedido_em >= $1";
    let entregues = e.query(sql, &[&janela]).await.map_err(falha("estoque"))?;
    let ids: Vec<Uuid> = entregues.iter().map(|r| r.get(0)).collect();
    let ainda_no_outbox = operador::statuses(e, &ids).await.map_err(falha("estoque"))?;
    for r in &entregues {
        let id: Uuid = r.get(0);
        if !ainda_no_outbox.contains_key(&id) {
            respostas
                .entry(id)
                .or_insert_with(|| (TipoEvento::ReposicaoEnviada.nome().into(), Some(r.get(1))));
        }
    }
    let ids: Vec<Uuid> = respostas.keys().copied().collect();
    let aplicadas = presentes(m, "SELECT event_id FROM inbox_event WHERE event_id = ANY($1)", &ids)
        .await
        .map_err(falha("mercado"))?;
    for (id, (tipo, sku)) in respostas {
        if !aplicadas.contains(&id) {
            d.push(Divergencia::new(
                sku.unwrap_or_default(),
                "resposta_nao_aplicada",
                format!("{tipo} {id} enviada pelo estoque e não aplicada pelo mercado"),
            ));
        }
    }
    Ok(())
}

/// Units in the warehouse, per product: received = in lots + shipped; saldo = Σ lots. One pass
/// over each table (aggregated by SKU, then joined), not a sub-query per product.
async fn conservacao_lotes(e: &Client, d: &mut Vec<Divergencia>) -> Result<(), Ilegivel> {
    let sql = "SELECT p.sku, p.saldo_disponivel, coalesce(l.recebido, 0), coalesce(l.em_lotes, 0), \
                      coalesce(x.expedido, 0) + coalesce(b.baixado, 0) \
                 FROM produto_estoque p \
                 LEFT JOIN (SELECT sku, sum(quantidade)::bigint AS recebido, sum(quantidade_disponivel)::bigint AS em_lotes \
                              FROM lote GROUP BY sku) l ON l.sku = p.sku \
                 LEFT JOIN (SELECT sku, sum(qtd)::bigint AS expedido FROM reposicao_expedida GROUP BY sku) x ON x.sku = p.sku \
                 LEFT JOIN (SELECT sku, sum(qtd)::bigint AS baixado FROM baixa_lote GROUP BY sku) b ON b.sku = p.sku";
    let linhas = e.query(sql, &[]).await.map_err(falha("estoque"))?;
    for r in linhas {
        let (sku, saldo, recebido, em_lotes, expedido): (String, i32, i64, i64, i64) =
            (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4));
        if recebido != em_lotes + expedido {
            d.push(Divergencia::new(
                sku.clone(),
                "conservacao_lotes",
                format!("recebido {recebido} ≠ em lotes {em_lotes} + expedido ou baixado {expedido}"),
            ));
        }
        if i64::from(saldo) != em_lotes {
            d.push(Divergencia::new(
                sku,
                "conservacao_lotes",
                format!("saldo_disponivel {saldo} ≠ soma dos lotes {em_lotes}"),
            ));
        }
    }
    Ok(())
}

/// Units shipped to the market, per SKU = on its shelf and in its reservations + in flight.
async fn conservacao_prateleira(m: &Client, e: &Client, d: &mut Vec<Divergencia>) -> Result<(), Ilegivel> {
    let mut expedido: BTreeMap<String, i64> = BTreeMap::new();
    let mut em_voo: HashMap<String, i64> = HashMap::new();
    let expedicoes = e
        .query("SELECT event_id, sku, qtd::bigint FROM reposicao_expedida", &[])
        .await
        .map_err(falha("estoque"))?;
    let ids: Vec<Uuid> = expedicoes.iter().map(|r| r.get(0)).collect();
    let status_envio = operador::statuses(e, &ids).await.map_err(falha("estoque"))?;
    for r in &expedicoes {
        let (id, sku, qtd): (Uuid, String, i64) = (r.get(0), r.get(1), r.get(2));
        *expedido.entry(sku.clone()).or_default() += qtd;
        if status_envio.get(&id).is_some_and(|s| *s == Status::Pending) {
            *em_voo.entry(sku).or_default() += qtd;
        }
    }
    let mut na_vitrine: HashMap<String, i64> = HashMap::new();
    let sql = "SELECT p.sku, p.estoque_prateleira::bigint + coalesce(x.retidas, 0) \
                 FROM produto_vitrine p \
                 LEFT JOIN (SELECT sku, sum(qtd)::bigint AS retidas FROM reserva \
                             WHERE status = ANY($1) GROUP BY sku) x ON x.sku = p.sku";
    for r in m
        .query(sql, &[&[StatusReserva::Ativa.nome(), StatusReserva::Confirmada.nome()].as_slice()])
        .await
        .map_err(falha("mercado"))?
    {
        na_vitrine.insert(r.get(0), r.get(1));
    }
    let skus: std::collections::BTreeSet<String> =
        expedido.keys().chain(na_vitrine.keys()).cloned().collect();
    for sku in skus {
        let enviado = expedido.get(&sku).copied().unwrap_or(0);
        let voo = em_voo.get(&sku).copied().unwrap_or(0);
        let vitrine = na_vitrine.get(&sku).copied().unwrap_or(0);
        let fora = !na_vitrine.contains_key(&sku);
        if enviado != vitrine + voo && !(fora && enviado == 0) {
            d.push(Divergencia::new(
                sku,
                "conservacao_prateleira",
                format!("expedido {enviado} ≠ na prateleira e reservas {vitrine} + em trânsito {voo}"),
            ));
        }
    }
    Ok(())
}

pub fn texto(r: &Relatorio) -> String {
    if r.concorda {
        return "audit: mercado and estoque agree\n".into();
    }
    let mut out = format!("audit: {} disagreement(s)\n", r.divergencias.len());
    for d in &r.divergencias {
        out.push_str(&format!(
            "{:<14} {:<30} {}\n",
            if d.sku.is_empty() { "-" } else { &d.sku },
            d.tipo,
            d.detalhe
        ));
    }
    out
}

/// `giro audit` as a command: its own runtime (logging stays off: the report is the output);
/// exit 0 agree, 1 disagree, 2 unreadable.
pub fn main(config: &Config, json: bool) -> std::process::ExitCode {
    use std::process::ExitCode;
    // Both databases, and a missing URL is a configuration error (exit 2, as any other).
    for s in Servico::TODOS {
        if let Err(e) = config.db(s) {
            return giro_infra::telemetry::config_error(&e);
        }
    }
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("giro: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match runtime.block_on(auditar(config, chrono::Utc::now())) {
        Ok(r) => {
            if json {
                println!("{}", serde_json::to_string_pretty(&r).unwrap_or_default());
            } else {
                print!("{}", texto(&r));
            }
            ExitCode::from(if r.concorda { 0 } else { 1 })
        }
        Err(e) => {
            eprintln!("giro: audit: {e:#}");
            ExitCode::from(2)
        }
    }
}
