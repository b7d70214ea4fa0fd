//! The effects of estoque's events on the storefront (SPEC §3.8–3.9). The receiver
//! (`inbox::receiver`) has already written the inbox row in the same transaction, so each effect
//! happens once however often the event is delivered, and an ignored event (SKU not in the
//! storefront) still keeps its inbox row.
//!
//! Locks follow mercado's order — the product first, then its restock request — so a consumer
//! and a checkout of the same SKU never deadlock (the original locked the request first in
//! `ReposicaoNegada`; the effect is the same).

use chrono::{DateTime, Utc};

use super::erro::ErroMercado;
use super::produto;
use super::reposicao::{self, StatusSolicitacao};
use super::Tx;
use giro_contracts::{MotivoNegacao, ProdutoClassificado, ReposicaoEnviada, ReposicaoNegada};

/// Goods arrived: the shelf is credited once per shipment (even if the request is closed or
/// unknown), the open request becomes ATENDIDA, and the trigger runs again — a partial lot, or
/// sales in the meantime, may leave the shelf below minimum, which opens a request for the rest.
///
/// "Once per shipment", not once per event: estoque's repair "Reemitir" carries the same shipment
/// under a new event id, which the inbox cannot recognise (issue 37 §1). The shipment's own
/// identity — the request it answers and its lot — is recorded in `remessa_creditada` in this
/// transaction, and a shipment already there credits nothing.
pub async fn reposicao_enviada(
    tx: &Tx<'_>,
    e: &ReposicaoEnviada,
    agora: DateTime<Utc>,
) -> Result<(), ErroMercado> {
    let Some(mut p) = produto::travar(tx, &e.sku).await? else {
        tracing::warn!(sku = %e.sku, event_id = %e.event_id, "ReposicaoEnviada for a SKU not in the storefront; ignored");
        return Ok(());
    };
    if !remessa_nova(tx, e).await? {
        tracing::warn!(
            sku = %e.sku, correlation_id = %e.correlation_id, lote = %e.lote, event_id = %e.event_id,
            "ReposicaoEnviada for a shipment already credited (a re-issue or a replay); nothing credited"
        );
        return Ok(());
    }
    p.aplicar(|p| p.creditar(e.qtd))?;
    produto::salvar_prateleira(tx, &p).await?;
    match reposicao::travar_por_evento(tx, e.correlation_id).await? {
        Some(s) if s.status.em_aberto() => {
            reposicao::mudar_status(tx, s.id, s.status.atender()?).await?;
            // Request → shelf credited. Recorded inside the effect's transaction: a rollback
            // after this (rare; the receiver retries) may count one sample twice.
            let secs = (agora - s.criado_em).num_milliseconds().max(0) as f64 / 1000.0;
            metrics::histogram!("giro_restock_latency_seconds").record(secs);
        }
        Some(s) => tracing::warn!(
            sku = %e.sku, correlation_id = %e.correlation_id, status = s.status.nome(),
            "ReposicaoEnviada for a request already closed; units credited"
        ),
        None => tracing::warn!(
            sku = %e.sku, correlation_id = %e.correlation_id,
            "ReposicaoEnviada for an unknown request; units credited"
        ),
    }
    tracing::info!(sku = %e.sku, qtd = e.qtd, lote = %e.lote, prateleira = p.prateleira, "restock received");
    reposicao::avaliar(tx, &p, agora).await?;
    Ok(())
}

/// Records the shipment `e` carries; `false` when it was already recorded (credited). Runs with
/// the product locked, so two events of one shipment are applied one after the other.
async fn remessa_nova(tx: &Tx<'_>, e: &ReposicaoEnviada) -> Result<bool, tokio_postgres::Error> {
    let stmt = "INSERT INTO remessa_creditada (correlation_id, lote, event_id, qtd) VALUES ($1, $2, $3, $4) \
                ON CONFLICT (correlation_id, lote) DO NOTHING";
    Ok(tx.execute(stmt, &[&e.correlation_id, &e.lote, &e.event_id, &e.qtd]).await? == 1)
}

/// The warehouse could not ship: SEM_SALDO keeps the request open (AGUARDANDO_LOTE, served on
/// lot intake, still blocking new requests); SKU_DESCONHECIDO cancels it. Only a PENDENTE request
/// changes. The product sells out only at shelf 0. No new request is made here.
pub async fn reposicao_negada(tx: &Tx<'_>, e: &ReposicaoNegada) -> Result<(), ErroMercado> {
    let produto = produto::travar(tx, &e.sku).await?;
    match reposicao::travar_por_evento(tx, e.correlation_id).await? {
        Some(s) if s.status == StatusSolicitacao::Pendente => {
            let novo = match e.motivo {
                MotivoNegacao::SemSaldo => s.status.aguardar_lote()?,
                MotivoNegacao::SkuDesconhecido => s.status.cancelar()?,
            };
            reposicao::mudar_status(tx, s.id, novo).await?;
        }
        Some(s) => tracing::warn!(
            sku = %e.sku, correlation_id = %e.correlation_id, status = s.status.nome(),
            "ReposicaoNegada for a request that is not PENDENTE; left as it is"
        ),
        None => {
            tracing::warn!(sku = %e.sku, correlation_id = %e.correlation_id, "ReposicaoNegada for an unknown request")
        }
    }
    match e.motivo {
        MotivoNegacao::SkuDesconhecido => {
            tracing::error!(sku = %e.sku, "estoque does not know a SKU the storefront sells (cadastro divergente)")
        }
        MotivoNegacao::SemSaldo => {
            tracing::info!(sku = %e.sku, "restock denied for lack of balance; waiting for a lot")
        }
    }
    if let Some(mut p) = produto {
        p.aplicar(|p| p.registrar_reposicao_negada());
        produto::salvar_prateleira(tx, &p).await?;
    }
    Ok(())
}

/// Tags and categoria from the warehouse; events may arrive out of order, so one not strictly
/// newer than the classification applied is ignored. A SKU not yet in the storefront is ignored
/// (registration inherits the classification through the lookup instead).
pub async fn produto_classificado(tx: &Tx<'_>, e: &ProdutoClassificado) -> Result<(), ErroMercado> {
    let Some(mut p) = produto::travar(tx, &e.sku).await? else {
        // Expected, not a fault: a lot's classification usually reaches the storefront before
        // the product is registered there.
        tracing::debug!(sku = %e.sku, event_id = %e.event_id, "ProdutoClassificado for a SKU not in the storefront; ignored");
        return Ok(());
    };
    if p.aplicar(|p| p.classificar(&e.tags, &e.categoria, e.ocorrido_em))? {
        produto::salvar_classificacao(tx, &p).await?;
        tracing::info!(sku = %e.sku, categoria = %e.categoria, "product classified");
    } else {
        tracing::info!(sku = %e.sku, ocorrido_em = %e.ocorrido_em, "older classification ignored");
    }
    Ok(())
}
