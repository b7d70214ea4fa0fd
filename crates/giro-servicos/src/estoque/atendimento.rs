//! Serving a `ReposicaoSolicitada` (SPEC §3.12): the effect of estoque's only accepted event.
//!
//! Runs in the transaction that already holds the event's inbox row (a duplicate never gets
//! here), so the inbox row, the lot and balance decrement, the demand and the answer's outbox row
//! commit together or not at all:
//!
//! 1. lock the product; unknown SKU → `ReposicaoNegada` `SKU_DESCONHECIDO`, and no demand (there
//!    is no product to attach it to, and no lot will ever arrive for it under that request);
//! 2. a request already served (applied again after the inbox forgot it: an operator's forced
//!    replay) → its recorded shipment stands; nothing ships twice;
//! 3. ship from the FEFO lot → `ReposicaoEnviada` (one lot, `min(asked, lot)`);
//! 4. nothing shippable (zero balance, or only expired lots) → a `demanda_reprimida` carrying the
//!    request's event id, and `ReposicaoNegada` `SEM_SALDO`.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::produto;
use super::Tx;
use super::{demanda, expedicao, ErroEstoque};
use giro_contracts::{
    EventoIntegracao, MotivoNegacao, ReposicaoEnviada, ReposicaoNegada, ReposicaoSolicitada,
};

/// What the warehouse answered (already in the outbox).
#[derive(Clone, Debug, PartialEq)]
pub enum Resposta {
    Enviada(ReposicaoEnviada),
    Negada(ReposicaoNegada),
}

/// Serves `pedido` at `agora` inside `tx` (its inbox row already written there).
pub async fn atender(
    tx: &Tx<'_>,
    pedido: &ReposicaoSolicitada,
    agora: DateTime<Utc>,
) -> Result<Resposta, ErroEstoque> {
    let Some(mut produto) = produto::bloquear(tx, &pedido.sku).await? else {
        tracing::warn!(sku = %pedido.sku, solicitacao = %pedido.event_id, "restock request for an unknown SKU");
        return negar(tx, pedido, MotivoNegacao::SkuDesconhecido, agora).await;
    };
    if let Some(enviada) = expedicao::da_solicitacao(tx, pedido.event_id).await? {
        tracing::warn!(
            sku = %pedido.sku, solicitacao = %pedido.event_id, event_id = %enviada.event_id,
            "restock request already served; its shipment stands and nothing ships again"
        );
        return Ok(Resposta::Enviada(enviada));
    }
    if let Some(enviada) =
        expedicao::expedir_do_proximo_lote(tx, &mut produto, pedido.event_id, pedido.qtd_faltante, agora)
            .await?
    {
        return Ok(Resposta::Enviada(enviada));
    }
    demanda::registrar(tx, &produto, pedido.qtd_faltante, pedido.event_id, agora).await?;
    tracing::info!(sku = %pedido.sku, solicitacao = %pedido.event_id, qtd = pedido.qtd_faltante, "no shippable lot; pent-up demand recorded");
    negar(tx, pedido, MotivoNegacao::SemSaldo, agora).await
}

async fn negar(
    tx: &Tx<'_>,
    pedido: &ReposicaoSolicitada,
    motivo: MotivoNegacao,
    agora: DateTime<Utc>,
) -> Result<Resposta, ErroEstoque> {
    let negada = ReposicaoNegada {
        event_id: Uuid::new_v4(),
        correlation_id: pedido.event_id,
        sku: pedido.sku.clone(),
        motivo,
        ocorrido_em: agora,
    };
    giro_outbox::registrar(tx, &EventoIntegracao::ReposicaoNegada(negada.clone())).await?;
    Ok(Resposta::Negada(negada))
}
