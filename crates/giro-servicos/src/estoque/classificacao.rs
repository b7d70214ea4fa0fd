//! The tag-worker client (SPEC §7.4) and applying a classification to a product (the original's
//! `ClassificadorTags` and `ClassificacaoDeProduto`).
//!
//! [`ClienteTags::classificar`] is `POST {tags.worker-url}/classificar` `{"sku","descricao"}` over
//! **plain HTTP/1.1** (no `Upgrade: h2c`: the original's JDK client tried one and uvicorn dropped
//! the body — the contract test `tests/it/estoque/tag_worker.rs` runs this very code against the real
//! worker), with `Authorization: Bearer <TAG_WORKER_TOKEN>` when one is configured. It never
//! fails: a non-2xx, a timeout, a refused connection or an unreadable body is logged and gives
//! `None` ("produto segue sem tags"), and the product is classified later by the job. It is always
//! called with no database transaction open, so a slow worker never holds a product lock.
//!
//! Timeouts: connect and read `tags.timeout` each (2 s), as the original; on top, the whole call
//! is capped at twice that, so a worker trickling bytes cannot hold a lot intake for long.
//!
//! Decision beyond the spec: an answer the contract could not carry — more than 8 tags, a blank
//! or over-30-character tag or categoria — is "sem classificação utilizável" too (`None`), rather
//! than a `ProdutoClassificado` that mercado would reject as invalid.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::produto::Bloqueado;
use super::ErroEstoque;
use super::Tx;
use crate::config::TagsConfig;
use giro_contracts::{EventoIntegracao, ProdutoClassificado};
use giro_infra::config::Secret;

/// A usable classification: tags not empty, categoria not blank, both within the contract.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Classificacao {
    pub tags: Vec<String>,
    pub categoria: String,
}

/// The client of the tag-worker; one per service (keep-alive connections are reused).
#[derive(Clone, Debug)]
pub struct ClienteTags {
    http: reqwest::Client,
    url: String,
    token: Option<Secret>,
}

#[derive(Serialize)]
struct Pedido<'a> {
    sku: &'a str,
    descricao: &'a str,
}

#[derive(Deserialize)]
struct Resposta {
    tags: Option<Vec<String>>,
    categoria: Option<String>,
}

impl ClienteTags {
    pub fn new(cfg: &TagsConfig) -> anyhow::Result<ClienteTags> {
        let http = giro_infra::client::builder(cfg.timeout)
            .timeout(cfg.timeout.saturating_mul(2).max(Duration::from_millis(1)))
            .build()
            .map_err(|e| anyhow::anyhow!("cannot build the tag-worker client: {e}"))?;
        let url = format!("{}/classificar", cfg.worker_url.trim_end_matches('/'));
        Ok(ClienteTags { http, url, token: cfg.worker_token.clone() })
    }

    /// Classifies `descricao`; `None` (logged) when the worker cannot give a usable answer.
    pub async fn classificar(&self, sku: &str, descricao: &str) -> Option<Classificacao> {
        self.classificar_detalhado(sku, descricao).await.ok()
    }

    /// Classifies `descricao`, telling a worker that is down from a product it cannot classify
    /// (a 4xx for this description, or an answer outside the contract).
    pub async fn classificar_detalhado(
        &self,
        sku: &str,
        descricao: &str,
    ) -> Result<Classificacao, FalhaTags> {
        match self.pedir(sku, descricao).await {
            Ok(Some(c)) => Ok(c),
            Ok(None) => {
                tracing::warn!(sku, "tag-worker respondeu sem classificação utilizável");
                Err(FalhaTags::Inclassificavel("resposta fora do contrato".into()))
            }
            Err(FalhaTags::Indisponivel(erro)) => {
                tracing::warn!(sku, erro = %erro, "tag-worker indisponível; produto segue sem tags");
                Err(FalhaTags::Indisponivel(erro))
            }
            Err(FalhaTags::Inclassificavel(erro)) => {
                tracing::warn!(sku, erro = %erro, "tag-worker recusou a descrição; produto segue sem tags");
                Err(FalhaTags::Inclassificavel(erro))
            }
        }
    }

    async fn pedir(&self, sku: &str, descricao: &str) -> Result<Option<Classificacao>, FalhaTags> {
        let mut req = self.http.post(&self.url).json(&Pedido { sku, descricao });
        if let Some(token) = &self.token {
            req = req.bearer_auth(token.expose());
        }
        // `without_url`: the error's text then names no URL (which could carry credentials).
        let caiu =
            |e: reqwest::Error| FalhaTags::Indisponivel(giro_infra::client::describe(&e.without_url()));
        let res = req.send().await.map_err(caiu)?;
        let status = res.status();
        if !status.is_success() {
            let msg = format!("HTTP {}", status.as_u16());
            // A 4xx about this request (422: the description) is the product's; the rest is the worker's.
            return Err(match status.as_u16() {
                400 | 413 | 415 | 422 => FalhaTags::Inclassificavel(msg),
                _ => FalhaTags::Indisponivel(msg),
            });
        }
        let body = res.bytes().await.map_err(caiu)?;
        let resposta: Resposta = serde_json::from_slice(&body)
            .map_err(|e| FalhaTags::Inclassificavel(format!("corpo ilegível: {e}")))?;
        Ok(utilizavel(sku, resposta))
    }
}

/// Why the worker gave no classification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FalhaTags {
    /// The worker is down or failing: no point asking about the next product now.
    Indisponivel(String),
    /// The worker cannot classify this product (a 4xx for it, or an answer outside the contract).
    Inclassificavel(String),
}

fn utilizavel(sku: &str, r: Resposta) -> Option<Classificacao> {
    let tags = r.tags.filter(|t| !t.is_empty())?;
    let categoria = r.categoria.filter(|c| !c.trim().is_empty())?;
    let evento = EventoIntegracao::ProdutoClassificado(ProdutoClassificado {
        event_id: Uuid::nil(),
        sku: sku.to_string(),
        tags,
        categoria,
        ocorrido_em: DateTime::<Utc>::UNIX_EPOCH,
    });
    // The same checks mercado runs on the event this classification becomes.
    let violacoes: Vec<String> = evento.violacoes().into_iter().filter(|v| !v.starts_with("sku ")).collect();
    if !violacoes.is_empty() {
        tracing::warn!(sku, violacoes = %violacoes.join("; "), "tag-worker answer outside the contract");
        return None;
    }
    let EventoIntegracao::ProdutoClassificado(p) = evento else { return None };
    Some(Classificacao { tags: p.tags, categoria: p.categoria })
}

/// Stores `c` on `produto` and writes its `ProdutoClassificado` to the outbox, in `tx` (the
/// original's `ClassificacaoDeProduto.aplicar`).
pub async fn aplicar(
    tx: &Tx<'_>,
    produto: &mut Bloqueado<'_>,
    c: &Classificacao,
    agora: DateTime<Utc>,
) -> Result<ProdutoClassificado, ErroEstoque> {
    produto.classificar(tx, &c.tags, &c.categoria).await?;
    let evento = ProdutoClassificado {
        event_id: Uuid::new_v4(),
        sku: produto.sku.clone(),
        tags: c.tags.clone(),
        categoria: c.categoria.clone(),
        ocorrido_em: agora,
    };
    giro_outbox::registrar(tx, &EventoIntegracao::ProdutoClassificado(evento.clone())).await?;
    tracing::info!(sku = %evento.sku, categoria = %evento.categoria, tags = ?evento.tags, "product classified");
    Ok(evento)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(tags: Option<Vec<&str>>, categoria: Option<&str>) -> Resposta {
        Resposta {
            tags: tags.map(|t| t.into_iter().map(String::from).collect()),
            categoria: categoria.map(String::from),
        }
    }

    #[test]
    fn only_answers_the_contract_can_carry_are_usable() {
        let sku = "7894900011517";
        assert_eq!(
            utilizavel(sku, r(Some(vec!["coca", "cola"]), Some("bebidas"))),
            Some(Classificacao { tags: vec!["coca".into(), "cola".into()], categoria: "bebidas".into() })
        );
        assert_eq!(utilizavel(sku, r(None, Some("bebidas"))), None);
        assert_eq!(utilizavel(sku, r(Some(vec![]), Some("bebidas"))), None);
        assert_eq!(utilizavel(sku, r(Some(vec!["coca"]), None)), None);
        assert_eq!(utilizavel(sku, r(Some(vec!["coca"]), Some("  "))), None);
        assert_eq!(utilizavel(sku, r(Some(vec!["a"; 9]), Some("bebidas"))), None);
        assert_eq!(utilizavel(sku, r(Some(vec![" "]), Some("bebidas"))), None);
        let longa = "x".repeat(31);
        assert_eq!(utilizavel(sku, r(Some(vec![longa.as_str()]), Some("bebidas"))), None);
    }
}
