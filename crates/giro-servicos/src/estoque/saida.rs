//! What discarding or redoing one of estoque's dead letters does (issue 30): the [`Reparo`] the
//! event console and `giro outbox --db estoque` run inside the action's transaction. estoque
//! sends the answers to mercado's restock requests and the products' classifications.
//!
//! An answer cannot simply be dropped: mercado's request waits for it (one open request per SKU,
//! so that SKU asks for nothing more), and a `ReposicaoEnviada`'s units have already left their
//! lot. So an answer's discard is refused, with what mercado's state would be, and its repair is
//! **refazer** ("Reemitir"): the same answer as a fresh event (new id and instant) in the same
//! transaction — what heals an answer its receiver refused for its instant. A classification may
//! be discarded (mercado keeps the one it has) or re-issued from the product's current one.

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use uuid::Uuid;

use super::Estoque;
use super::{agora, classificacao, produto, Tx};
use giro_contracts::{EventoIntegracao, ProdutoClassificado, ReposicaoEnviada, ReposicaoNegada, TipoEvento};
use giro_outbox::operador::{Acao, Linha, Opcao, Recusa, Reparo};

pub struct ReparoEstoque;

const REENVIAR_RESPOSTA: &str = "Reenvia a resposta como está (mesmo id e instante): o mercado a aplica \
     uma vez (se já a tinha recebido, ignora a repetição). É o reparo seguro quando não se sabe se o \
     mercado a recebeu (tempo esgotado, conexão cortada).";

impl Reparo<Estoque> for ReparoEstoque {
    fn opcoes(&self, tipo: &str) -> Vec<Opcao> {
        match TipoEvento::de_nome(tipo) {
            Some(TipoEvento::ReposicaoEnviada) => vec![
                Opcao::nova(Acao::Reenviar, "Reenviar", REENVIAR_RESPOSTA),
                Opcao::recusada(
                    Acao::Descartar,
                    "Descartar",
                    "as unidades já saíram do lote: sem esta remessa o mercado não as recebe e a solicitação \
                     dele fica aberta sem resposta, e o SKU não pede reposição de novo. Use “Reenviar” (ou “Reemitir”).",
                ),
                Opcao::nova(
                    Acao::Refazer,
                    "Reemitir",
                    "Arquiva o evento e grava, na mesma transação, uma nova ReposicaoEnviada da mesma remessa \
                     (mesma solicitação, lote e quantidade; novo id e instante). O mercado credita as unidades \
                     e fecha a solicitação, uma vez por remessa: se já a tinha creditado, não credita de novo. \
                     O registro da remessa passa a apontar o novo evento.",
                ),
            ],
            Some(TipoEvento::ReposicaoNegada) => vec![
                Opcao::nova(Acao::Reenviar, "Reenviar", REENVIAR_RESPOSTA),
                Opcao::recusada(
                    Acao::Descartar,
                    "Descartar",
                    "o mercado espera esta resposta: sem ela a solicitação dele fica PENDENTE (sem saldo, até \
                     um lote atender a demanda reprimida; SKU desconhecido, para sempre), e o SKU não pede \
                     reposição de novo. Use “Reemitir”.",
                ),
                Opcao::nova(
                    Acao::Refazer,
                    "Reemitir",
                    "Arquiva o evento e grava, na mesma transação, uma nova ReposicaoNegada com o mesmo motivo \
                     (novo id e instante). O mercado passa a solicitação a AGUARDANDO_LOTE (sem saldo: a demanda \
                     reprimida continua aberta e a entrada do próximo lote a atende) ou CANCELADA (SKU desconhecido).",
                ),
            ],
            Some(TipoEvento::ProdutoClassificado) => vec![
                Opcao::nova(
                    Acao::Reenviar,
                    "Reenviar",
                    "Reenvia a classificação como está; o mercado a ignora se já tiver uma mais nova.",
                ),
                Opcao::nova(
                    Acao::Descartar,
                    "Descartar",
                    "Arquiva o evento: o mercado fica com a classificação que já tem deste SKU até a próxima \
                     reclassificação. Nenhuma reposição depende dela.",
                ),
                Opcao::nova(
                    Acao::Refazer,
                    "Reemitir",
                    "Arquiva o evento e grava um novo ProdutoClassificado com a classificação atual do produto \
                     no estoque (novo id e instante), que o mercado aplica.",
                ),
            ],
            _ => vec![
                Opcao::nova(Acao::Reenviar, "Reenviar", "Reenvia o evento como está."),
                Opcao::nova(
                    Acao::Descartar,
                    "Descartar",
                    "Arquiva o evento; o estoque não emite este tipo, nada depende dele aqui.",
                ),
            ],
        }
    }

    fn aplicar<'a>(
        &'a self,
        tx: &'a Tx<'_>,
        acao: Acao,
        eventos: &'a [Linha],
    ) -> BoxFuture<'a, anyhow::Result<String>> {
        Box::pin(async move {
            if acao != Acao::Refazer {
                return Ok(String::new());
            }
            let mut out = Vec::new();
            for l in eventos {
                out.push(reemitir(tx, l, agora()).await?);
            }
            Ok(out.join("; "))
        })
    }
}

/// Writes the fresh event that replaces the dead letter `l`; what it did, in words.
async fn reemitir(tx: &Tx<'_>, l: &Linha, agora: DateTime<Utc>) -> anyhow::Result<String> {
    let p = l.payload.clone();
    let ilegivel = |e: serde_json::Error| {
        Recusa(format!("o conteúdo de {} {} não pôde ser lido para reemiti-lo: {e}", l.tipo, l.id))
    };
    Ok(match TipoEvento::de_nome(&l.tipo) {
        Some(TipoEvento::ReposicaoEnviada) => {
            let velha: ReposicaoEnviada = serde_json::from_value(p).map_err(ilegivel)?;
            let nova = ReposicaoEnviada { event_id: Uuid::new_v4(), ocorrido_em: agora, ..velha.clone() };
            giro_outbox::registrar(tx, &EventoIntegracao::ReposicaoEnviada(nova.clone())).await?;
            let sql = "UPDATE reposicao_expedida SET event_id = $2 WHERE event_id = $1";
            tx.execute(sql, &[&velha.event_id, &nova.event_id]).await?;
            format!(
                "remessa de {} unidade(s) do lote {} reemitida como {}",
                nova.qtd, nova.lote, nova.event_id
            )
        }
        Some(TipoEvento::ReposicaoNegada) => {
            let velha: ReposicaoNegada = serde_json::from_value(p).map_err(ilegivel)?;
            let nova = ReposicaoNegada { event_id: Uuid::new_v4(), ocorrido_em: agora, ..velha };
            giro_outbox::registrar(tx, &EventoIntegracao::ReposicaoNegada(nova.clone())).await?;
            format!("negativa ({}) reemitida como {}", nova.motivo.nome(), nova.event_id)
        }
        Some(TipoEvento::ProdutoClassificado) => {
            let velha: ProdutoClassificado = serde_json::from_value(p).map_err(ilegivel)?;
            let Some(mut produto) = produto::bloquear(tx, &velha.sku).await? else {
                return Ok(format!("o SKU {} não existe mais no estoque: nada reemitido", velha.sku));
            };
            // The product's current classification, not the dead letter's: a newer one may have
            // been applied since, and re-sending the old one with a fresh instant would undo it.
            let c = match (produto.tags.clone(), produto.categoria.clone()) {
                (Some(tags), Some(categoria)) => classificacao::Classificacao { tags, categoria },
                _ => classificacao::Classificacao { tags: velha.tags, categoria: velha.categoria },
            };
            let nova = classificacao::aplicar(tx, &mut produto, &c, agora).await?;
            format!("classificação atual ({}) reemitida como {}", nova.categoria, nova.event_id)
        }
        _ => String::new(),
    })
}
