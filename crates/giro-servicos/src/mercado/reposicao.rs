//! Restock requests (`solicitacao_reposicao`, SPEC §3.3) and the restock trigger (SPEC §3.4).
//!
//! [`avaliar`] runs in the transaction that changed the shelf, with the product row locked (it
//! takes only a [`Travado`], which nothing but that lock makes): when
//! the shelf is strictly below the minimum and no request is open, it writes the request row
//! (PENDENTE) and the `ReposicaoSolicitada` outbox row for `ideal − shelf`. Every shelf change of
//! a SKU takes that product lock first, so two transactions never both see "no open request";
//! the partial unique index `uk_solicitacao_reposicao_ativa_por_sku` is the backstop, and the
//! insert uses it (`ON CONFLICT … DO NOTHING`) so a lost race writes no event instead of failing.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::erro::ErroMercado;
use super::produto::Travado;
use super::Tx;
use giro_contracts::{EventoIntegracao, ReposicaoSolicitada};

status! {
    StatusSolicitacao, "solicitação" {
        /// Sent; waiting for the warehouse's answer.
        Pendente = "PENDENTE",
        /// Denied for lack of balance; the warehouse serves it on lot intake. Still open.
        AguardandoLote = "AGUARDANDO_LOTE",
        Atendida = "ATENDIDA",
        /// Denied with no prospect (SKU unknown to the warehouse).
        Cancelada = "CANCELADA",
    }
}

impl StatusSolicitacao {
    /// `EM_ABERTO = {PENDENTE, AGUARDANDO_LOTE}`: blocks new requests for the SKU.
    pub fn em_aberto(self) -> bool {
        matches!(self, StatusSolicitacao::Pendente | StatusSolicitacao::AguardandoLote)
    }

    /// `atender()`: an open request → ATENDIDA.
    pub fn atender(self) -> Result<Self, ErroMercado> {
        self.transicao(self.em_aberto(), StatusSolicitacao::Atendida)
    }

    /// `aguardarLote()`: PENDENTE → AGUARDANDO_LOTE.
    pub fn aguardar_lote(self) -> Result<Self, ErroMercado> {
        self.transicao(self == StatusSolicitacao::Pendente, StatusSolicitacao::AguardandoLote)
    }

    /// `cancelar()`: PENDENTE → CANCELADA.
    pub fn cancelar(self) -> Result<Self, ErroMercado> {
        self.transicao(self == StatusSolicitacao::Pendente, StatusSolicitacao::Cancelada)
    }

    fn transicao(self, permitida: bool, destino: Self) -> Result<Self, ErroMercado> {
        if permitida {
            Ok(destino)
        } else {
            Err(ErroMercado::EstadoInvalido(format!(
                "solicitação {} não pode passar a {}",
                self.nome(),
                destino.nome()
            )))
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct SolicitacaoReposicao {
    pub id: i64,
    pub event_id: Uuid,
    pub sku: String,
    pub qtd_solicitada: i32,
    pub status: StatusSolicitacao,
    /// When the request was made: the restock latency is counted from it.
    pub criado_em: DateTime<Utc>,
}

/// The restock trigger: call it after every shelf change that may lower the shelf or close a
/// request (checkout, registration, a ReposicaoEnviada credit), with the product locked.
/// Returns the event written, if any.
pub async fn avaliar(
    tx: &Tx<'_>,
    produto: &Travado<'_>,
    agora: DateTime<Utc>,
) -> Result<Option<ReposicaoSolicitada>, ErroMercado> {
    // At or above the minimum nothing is requested whatever is open: skip the query (hot path).
    if produto.quantidade_a_repor(false).is_none() {
        return Ok(None);
    }
    let Some(qtd_faltante) = produto.quantidade_a_repor(tem_em_aberto(tx, &produto.sku).await?) else {
        return Ok(None);
    };
    let evento = ReposicaoSolicitada {
        event_id: Uuid::new_v4(),
        sku: produto.sku.clone(),
        qtd_faltante,
        ocorrido_em: agora,
    };
    if !inserir_pendente(tx, &evento).await? {
        // Only reachable if a shelf change skipped the product lock; the index kept the rule.
        tracing::warn!(sku = %produto.sku, "an open restock request appeared concurrently; none added");
        return Ok(None);
    }
    giro_outbox::registrar(tx, &EventoIntegracao::ReposicaoSolicitada(evento.clone())).await?;
    tracing::info!(sku = %evento.sku, qtd = evento.qtd_faltante, event_id = %evento.event_id, "restock requested");
    Ok(Some(evento))
}

async fn tem_em_aberto(tx: &Tx<'_>, sku: &str) -> Result<bool, ErroMercado> {
    let stmt =
        "SELECT 1 FROM solicitacao_reposicao WHERE sku = $1 AND status IN ('PENDENTE', 'AGUARDANDO_LOTE')";
    Ok(tx.query_opt(stmt, &[&sku]).await?.is_some())
}

/// Dated by the database's clock, as every row is (SPEC §4.7); the event keeps the writer's instant.
async fn inserir_pendente(tx: &Tx<'_>, e: &ReposicaoSolicitada) -> Result<bool, ErroMercado> {
    let stmt = "INSERT INTO solicitacao_reposicao (event_id, sku, qtd_solicitada, status, criado_em) \
             VALUES ($1, $2, $3, 'PENDENTE', now()) \
             ON CONFLICT (sku) WHERE status IN ('PENDENTE', 'AGUARDANDO_LOTE') DO NOTHING";
    Ok(tx.execute(stmt, &[&e.event_id, &e.sku, &e.qtd_faltante]).await? == 1)
}

/// The request whose `ReposicaoSolicitada` had `event_id` (an answer's `correlationId`), locked.
pub async fn travar_por_evento(
    tx: &Tx<'_>,
    event_id: Uuid,
) -> Result<Option<SolicitacaoReposicao>, ErroMercado> {
    let stmt = "SELECT id, event_id, sku, qtd_solicitada, status, criado_em FROM solicitacao_reposicao WHERE event_id = $1 FOR UPDATE";
    let Some(r) = tx.query_opt(stmt, &[&event_id]).await? else {
        return Ok(None);
    };
    let status = StatusSolicitacao::de_texto(r.try_get("status")?)?;
    Ok(Some(
        giro_infra::da_linha!(r, SolicitacaoReposicao { id, event_id, sku, qtd_solicitada, criado_em; status }),
    ))
}

pub async fn mudar_status(tx: &Tx<'_>, id: i64, status: StatusSolicitacao) -> Result<(), ErroMercado> {
    let stmt = "UPDATE solicitacao_reposicao SET status = $2 WHERE id = $1";
    tx.execute(stmt, &[&id, &status.nome()]).await?;
    Ok(())
}

/// Of `skus`, those with a restock **in flight**: a request sent to the warehouse and not yet
/// answered (`PENDENTE`, which a shipment keeps until it is credited). A request the warehouse
/// denied for lack of balance (`AGUARDANDO_LOTE`) waits for a lot nobody has promised: what the
/// storefront says differs (SPEC §8.1).
pub async fn em_transito(
    db: &impl giro_infra::db::Sql,
    skus: &[&str],
) -> Result<std::collections::HashSet<String>, ErroMercado> {
    if skus.is_empty() {
        return Ok(Default::default());
    }
    let stmt = "SELECT sku FROM solicitacao_reposicao WHERE status = 'PENDENTE' AND sku = ANY($1)";
    let linhas = db.query(stmt, &[&skus]).await?;
    Ok(linhas.iter().map(|r| r.try_get(0)).collect::<Result<_, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::StatusSolicitacao::*;

    #[test]
    fn transitions_follow_the_spec() {
        assert_eq!(Pendente.atender().ok(), Some(Atendida));
        assert_eq!(AguardandoLote.atender().ok(), Some(Atendida));
        assert!(Atendida.atender().is_err());
        assert!(Cancelada.atender().is_err());
        assert_eq!(Pendente.aguardar_lote().ok(), Some(AguardandoLote));
        assert!(AguardandoLote.aguardar_lote().is_err());
        assert_eq!(Pendente.cancelar().ok(), Some(Cancelada));
        assert!(AguardandoLote.cancelar().is_err());
        assert!(Pendente.em_aberto() && AguardandoLote.em_aberto());
        assert!(!Atendida.em_aberto() && !Cancelada.em_aberto());
    }
}
