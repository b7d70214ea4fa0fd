//! What discarding or redoing one of mercado's dead letters does to its restock requests (issue
//! 30): the [`Reparo`] the event console and `giro outbox --db mercado` run inside the action's
//! transaction. mercado sends one type, `ReposicaoSolicitada`; while it is a dead letter its
//! request stays open (PENDENTE) and, one open request per SKU, that SKU asks for nothing more.
//!
//! - **reenviar**: the same event again; the request closes with the warehouse's answer.
//! - **descartar**: the request (if still PENDENTE) becomes CANCELADA in the same transaction, so
//!   the next sale that takes the shelf below the minimum asks again. Had the warehouse received
//!   it after all, its answer still credits the units (a shipment always does, SPEC §3.8).
//! - **refazer** ("Pedir de novo"): the same, then the restock trigger runs at once with the
//!   product locked: a fresh request and a fresh event when the shelf is below the minimum.

use futures_util::future::BoxFuture;
use uuid::Uuid;

use super::reposicao::{self, StatusSolicitacao};
use super::Mercado;
use super::{agora, produto, Tx};
use giro_contracts::TipoEvento;
use giro_outbox::operador::{Acao, Linha, Opcao, Reparo};

pub struct ReparoMercado;

impl Reparo<Mercado> for ReparoMercado {
    fn opcoes(&self, tipo: &str) -> Vec<Opcao> {
        match TipoEvento::de_nome(tipo) {
            Some(TipoEvento::ReposicaoSolicitada) => vec![
                Opcao::nova(
                    Acao::Reenviar,
                    "Reenviar",
                    "Reenvia o pedido de reposição como está (mesmo id e instante). O estoque o atende \
                     ou o nega, e a solicitação se fecha com a resposta; se ele já o tinha recebido, ignora a repetição.",
                ),
                Opcao::nova(
                    Acao::Descartar,
                    "Descartar",
                    "Arquiva o evento e cancela a solicitação de reposição (PENDENTE → CANCELADA) na mesma \
                     transação: o estoque não recebe este pedido, e a próxima venda que deixar a prateleira \
                     abaixo do mínimo pede reposição de novo. Se o estoque já o tinha recebido, a remessa que \
                     ele enviar ainda é creditada.",
                ),
                Opcao::nova(
                    Acao::Refazer,
                    "Pedir de novo",
                    "Arquiva o evento, cancela a solicitação e, se a prateleira estiver abaixo do mínimo, abre \
                     agora uma nova solicitação com um novo evento (novo id e instante), que o estoque recebe \
                     como qualquer pedido.",
                ),
            ],
            _ => vec![
                Opcao::nova(Acao::Reenviar, "Reenviar", "Reenvia o evento como está."),
                Opcao::nova(
                    Acao::Descartar,
                    "Descartar",
                    "Arquiva o evento; o mercado não emite este tipo, nada depende dele aqui.",
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
            // The row's id is the event's id (`registrar`), whatever its payload holds.
            let ids: Vec<Uuid> = eventos
                .iter()
                .filter(|l| l.tipo == TipoEvento::ReposicaoSolicitada.nome())
                .map(|l| l.id)
                .collect();
            if ids.is_empty() {
                return Ok(String::new());
            }
            let (skus, canceladas) = cancelar(tx, &ids).await?;
            let mut out = match canceladas.len() {
                0 => "nenhuma solicitação aberta a cancelar".to_string(),
                1 => format!("solicitação de reposição do SKU {} cancelada", canceladas[0]),
                n => format!("{n} solicitações de reposição canceladas"),
            };
            if acao == Acao::Refazer {
                for sku in &skus {
                    let Some(p) = produto::travar(tx, sku).await? else { continue };
                    match reposicao::avaliar(tx, &p, agora()).await? {
                        Some(e) => out.push_str(&format!(
                            "; nova solicitação {} de {} unidade(s) do SKU {sku}",
                            e.event_id, e.qtd_faltante
                        )),
                        None => out.push_str(&format!(
                            "; o SKU {sku} não está abaixo do mínimo: nada pedido agora (a próxima venda abaixo dele pede)"
                        )),
                    }
                }
            }
            Ok(out)
        })
    }
}

/// The requests of the events `ids` still PENDENTE → CANCELADA (SPEC's `cancelar()`), their
/// products locked first in SKU order (mercado's lock order: the product, then its request).
/// Returns the SKUs of all those requests, and those whose request was cancelled.
async fn cancelar(tx: &Tx<'_>, ids: &[Uuid]) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let sql = "SELECT DISTINCT sku FROM solicitacao_reposicao WHERE event_id = ANY($1) ORDER BY sku";
    let skus: Vec<String> = tx.query(sql, &[&ids]).await?.iter().map(|r| r.get(0)).collect();
    tx.execute("SELECT 1 FROM produto_vitrine WHERE sku = ANY($1) ORDER BY sku FOR UPDATE", &[&skus]).await?;
    let de = StatusSolicitacao::Pendente;
    let para = de.cancelar()?;
    let sql =
        "UPDATE solicitacao_reposicao SET status = $3 WHERE event_id = ANY($1) AND status = $2 RETURNING sku";
    let canceladas = tx.query(sql, &[&ids, &de.nome(), &para.nome()]).await?;
    Ok((skus, canceladas.iter().map(|r| r.get(0)).collect()))
}
