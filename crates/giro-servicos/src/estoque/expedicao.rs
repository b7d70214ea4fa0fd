//! One shipment (the original's `Expedicao.expedirDoProximoLote`, SPEC §3.11) and the table that
//! records it, `reposicao_expedida` (one row per `ReposicaoEnviada`: the recall trail and the
//! dashboard's history).
//!
//! **One shipment = one lot**: the FEFO lot ships `min(asked, what it has left)`. A partial
//! shipment is fine — the market stays below its minimum and asks again for the rest. The lot and
//! balance decrement, the `ReposicaoEnviada` outbox row and the `reposicao_expedida` row are
//! written in the caller's transaction, with the product's row locked ([`Bloqueado`]).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::lote;
use super::produto::Bloqueado;
use super::ErroEstoque;
use super::Tx;
use giro_contracts::{EventoIntegracao, ReposicaoEnviada};

/// Ships up to `qtd_pedida` units of `produto` from its FEFO lot at `agora`, answering the request
/// `correlation_id`; `None` when no lot can ship (zero balance, or only expired lots).
pub async fn expedir_do_proximo_lote(
    tx: &Tx<'_>,
    produto: &mut Bloqueado<'_>,
    correlation_id: Uuid,
    qtd_pedida: i32,
    agora: DateTime<Utc>,
) -> Result<Option<ReposicaoEnviada>, ErroEstoque> {
    let Some(lote) = lote::proximo_para_expedir(tx, &produto.sku, agora).await? else {
        return Ok(None);
    };
    let qtd = qtd_pedida.min(lote.quantidade_disponivel);
    produto.expedir(tx, &lote, qtd).await?;
    let enviada = ReposicaoEnviada {
        event_id: Uuid::new_v4(),
        correlation_id,
        sku: produto.sku.clone(),
        qtd,
        lote: lote.codigo_lote.clone(),
        ocorrido_em: agora,
    };
    giro_outbox::registrar(tx, &EventoIntegracao::ReposicaoEnviada(enviada.clone())).await?;
    registrar_expedida(tx, &enviada, lote.id).await?;
    tracing::info!(
        sku = %enviada.sku, correlation_id = %correlation_id, event_id = %enviada.event_id,
        lote = %enviada.lote, qtd, pedida = qtd_pedida, saldo = produto.saldo_disponivel,
        "restock shipped"
    );
    Ok(Some(enviada))
}

/// The `reposicao_expedida` row of a shipment (`expedido_em` = the event's `ocorridoEm`;
/// `entregue_em` is filled by a trigger when the event's outbox row becomes `SENT`).
async fn registrar_expedida(
    tx: &Tx<'_>,
    e: &ReposicaoEnviada,
    lote_id: i64,
) -> Result<(), tokio_postgres::Error> {
    let stmt = "INSERT INTO reposicao_expedida (event_id, correlation_id, sku, lote_id, qtd, expedido_em) \
             VALUES ($1, $2, $3, $4, $5, $6)";
    tx.execute(stmt, &[&e.event_id, &e.correlation_id, &e.sku, &lote_id, &e.qtd, &e.ocorrido_em]).await?;
    Ok(())
}

/// The shipment that already answered the request `correlation_id`, if one did (one shipment per
/// request, SPEC §3.11): a request applied again — an operator's forced replay after the inbox
/// forgot it — is answered by it, not shipped twice (mercado credits a shipment once, issue 37).
pub async fn da_solicitacao(
    tx: &Tx<'_>,
    correlation_id: Uuid,
) -> Result<Option<ReposicaoEnviada>, tokio_postgres::Error> {
    let stmt = "SELECT r.event_id, r.sku, r.qtd, l.codigo_lote, r.expedido_em \
                  FROM reposicao_expedida r JOIN lote l ON l.id = r.lote_id \
                 WHERE r.correlation_id = $1 ORDER BY r.id LIMIT 1";
    Ok(tx.query_opt(stmt, &[&correlation_id]).await?.map(|r| ReposicaoEnviada {
        event_id: r.get(0),
        correlation_id,
        sku: r.get(1),
        qtd: r.get(2),
        lote: r.get(3),
        ocorrido_em: r.get(4),
    }))
}
