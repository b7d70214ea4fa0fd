//! mercado's synchronous product lookup in estoque (SPEC §3.10, the original's `CatalogoEstoque`):
//! `GET {ESTOQUE_URL}/produtos/{sku}` with estoque's service token, plain HTTP/1.1, connect and
//! read timeouts of `estoque.timeout` (2 s). Called with no database transaction open.
//!
//! 404 means the warehouse does not know the SKU (registration is refused); anything else that
//! is not a readable 200 — 5xx, 401, a timeout, a refused connection, an unreadable body — means
//! "no answer" and the product registers without classification: the storefront must not depend
//! on the warehouse being up.

use std::time::Duration;

use reqwest::StatusCode;
use serde::Deserialize;

use giro_infra::config::Secret;

/// What estoque says about a SKU (`ProdutoNoEstoque`); only the classification is used.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProdutoNoEstoque {
    pub sku: String,
    pub descricao: Option<String>,
    pub tags: Option<Vec<String>>,
    pub categoria: Option<String>,
}

impl ProdutoNoEstoque {
    /// `classificado()`: tags present and non-empty, categoria not blank. A categoria longer than
    /// the storefront column (30) is treated as unclassified rather than failing the registration.
    pub fn classificacao(&self) -> Option<(&[String], &str)> {
        let tags = self.tags.as_deref().filter(|t| !t.is_empty())?;
        let categoria =
            self.categoria.as_deref().filter(|c| !c.trim().is_empty() && c.chars().count() <= 30)?;
        Some((tags, categoria))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Consulta {
    Encontrado(ProdutoNoEstoque),
    /// 404: the SKU is unknown to the warehouse.
    Desconhecido,
    /// No usable answer (down, slow, error status, unreadable body).
    Indisponivel,
}

#[derive(Clone)]
pub struct CatalogoEstoque {
    http: reqwest::Client,
    base: String,
    token: Secret,
}

impl CatalogoEstoque {
    pub fn new(base: &str, token: Secret, timeout: Duration) -> anyhow::Result<Self> {
        let http = giro_infra::client::builder(timeout).build()?;
        Ok(CatalogoEstoque { http, base: base.trim_end_matches('/').to_string(), token })
    }

    pub async fn consultar(&self, sku: &str) -> Consulta {
        let url = format!("{}/produtos/{sku}", self.base);
        let res = match self.http.get(&url).bearer_auth(self.token.expose()).send().await {
            Ok(r) => r,
            Err(e) => {
                tracing::warn!(sku, error = %giro_infra::client::describe(&e), "estoque lookup failed; registering without classification");
                return Consulta::Indisponivel;
            }
        };
        match res.status() {
            StatusCode::OK => match res.json::<ProdutoNoEstoque>().await {
                Ok(p) => Consulta::Encontrado(p),
                Err(e) => {
                    tracing::warn!(sku, error = %e, "estoque lookup answered an unreadable body");
                    Consulta::Indisponivel
                }
            },
            StatusCode::NOT_FOUND => Consulta::Desconhecido,
            other => {
                tracing::warn!(
                    sku,
                    status = other.as_u16(),
                    "estoque lookup answered an error; registering without classification"
                );
                Consulta::Indisponivel
            }
        }
    }
}
