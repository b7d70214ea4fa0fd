//! `GET /produtos`, `GET /produtos/{sku}`, `POST /produtos` and the `ProdutoResposta` body.

use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{validado, Estado};
use crate::mercado::cadastro::{self, NovoProduto};
use crate::mercado::erro::ErroMercado;
use crate::mercado::prateleira::ProdutoVitrine;
use crate::mercado::{dinheiro, produto, reposicao};
use crate::parametro::{inteiro, presente};
use giro_contracts::Violacoes;
use giro_http::extract::{AppJson, AppPath, AppQuery};

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProdutoResposta {
    pub sku: String,
    pub nome: String,
    #[serde(serialize_with = "dinheiro::numero")]
    pub preco: Decimal,
    pub status: &'static str,
    /// The shelf (`estoque_prateleira`).
    pub disponivel: i32,
    pub categoria: Option<String>,
    /// `[]` when the product has no classification.
    pub tags: Vec<String>,
    /// A restock request is in flight for the SKU (sent, not yet answered): the storefront says
    /// "Reposição a caminho" only then, else "Esgotado — aguardando novo lote" (SPEC §8.1).
    pub reposicao_a_caminho: bool,
    /// In the public catalogue (issue 26). An unlisted product is left out of the listing and
    /// refused at checkout (422); its own page still answers, so a shopper with a link or a cart
    /// holding it is told it left the catalogue instead of meeting a 404.
    pub listado: bool,
    /// Written by the operator (issue 39), or null.
    pub descricao: Option<String>,
    /// The image's URL, versioned by its ETag (issue 39), or null: the storefront shows the
    /// monogram instead.
    pub imagem: Option<String>,
}

impl From<ProdutoVitrine> for ProdutoResposta {
    fn from(p: ProdutoVitrine) -> Self {
        ProdutoResposta {
            status: p.status.nome(),
            imagem: super::url_imagem(&p.sku, p.imagem_etag.as_deref()),
            sku: p.sku,
            nome: p.nome,
            preco: p.preco,
            disponivel: p.prateleira,
            categoria: p.categoria,
            tags: p.tags.unwrap_or_default(),
            reposicao_a_caminho: false,
            listado: p.listado,
            descricao: p.descricao,
        }
    }
}

/// The answers for `produtos`, each knowing whether a restock is in flight for it (one query).
async fn respostas(
    db: &impl giro_infra::db::Sql,
    produtos: Vec<ProdutoVitrine>,
) -> Result<Vec<ProdutoResposta>, ErroMercado> {
    let skus: Vec<&str> = produtos.iter().map(|p| p.sku.as_str()).collect();
    let a_caminho = reposicao::em_transito(db, &skus).await?;
    Ok(produtos
        .into_iter()
        .map(|p| {
            let em_voo = a_caminho.contains(&p.sku);
            ProdutoResposta { reposicao_a_caminho: em_voo, ..ProdutoResposta::from(p) }
        })
        .collect())
}

#[derive(Debug, Deserialize)]
pub struct Filtros {
    categoria: Option<String>,
    busca: Option<String>,
    pagina: Option<String>,
    tamanho: Option<String>,
}

/// `GET /produtos`: a search (the best [`produto::MAX_RESULTADOS`]), or a page of the listing
/// (at most [`produto::MAX_PAGINA`] products; `X-Total-Count` says how many there are in all, so
/// a client knows whether to ask for `pagina` 2). The body is the original's array either way.
pub async fn listar(
    State(e): State<Arc<Estado>>,
    AppQuery(f): AppQuery<Filtros>,
) -> Result<Response, ErroMercado> {
    let (categoria, busca) = (presente(f.categoria.as_deref()), presente(f.busca.as_deref()));
    if busca.is_some_and(|b| b.chars().count() > produto::MAX_BUSCA) {
        return Err(ErroMercado::invalido(format!(
            "Parâmetro inválido: busca deve ter no máximo {} caracteres.",
            produto::MAX_BUSCA
        )));
    }
    // A page past 1 000 000 cannot hold anything and would overflow the offset.
    let pagina = inteiro("pagina", f.pagina.as_deref(), 1, 1_000_000).map_err(ErroMercado::Invalido)?;
    let tamanho = inteiro("tamanho", f.tamanho.as_deref(), produto::MAX_PAGINA, produto::MAX_PAGINA)
        .map_err(ErroMercado::Invalido)?;
    // The catalogue: a standby within the bound may serve it (`db::leitura`).
    let client = e.db.leitura().await?;
    let (produtos, total) = match busca {
        Some(busca) => (produto::buscar_texto(&client, categoria, busca).await?, None),
        None => {
            let (p, total) = produto::pagina(&client, categoria, pagina, tamanho).await?;
            (p, Some(total))
        }
    };
    let mut res = AppJson(respostas(&client, produtos).await?).into_response();
    if let Some(total) = total {
        res.headers_mut().insert("x-total-count", total.into());
    }
    Ok(res)
}

pub async fn buscar(
    State(e): State<Arc<Estado>>,
    AppPath(sku): AppPath<String>,
) -> Result<Response, ErroMercado> {
    // A SKU that cannot be registered is as absent as any other; no query for it.
    if !giro_contracts::sku_valido(&sku) {
        return Ok(StatusCode::NOT_FOUND.into_response());
    }
    let client = e.db.leitura().await?;
    Ok(match produto::buscar(&client, &sku).await? {
        Some(p) => AppJson(respostas(&client, vec![p]).await?.remove(0)).into_response(),
        // The original's empty-bodied 404.
        None => StatusCode::NOT_FOUND.into_response(),
    })
}

/// The body of `POST /produtos`; every field optional here so a missing one is reported by name.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CadastroRequest {
    sku: Option<String>,
    nome: Option<String>,
    /// Kept as the JSON text so the price is read exactly.
    preco: Option<Box<RawValue>>,
    estoque_minimo: Option<i32>,
    estoque_ideal: Option<i32>,
}

impl CadastroRequest {
    fn validar(self) -> Result<NovoProduto, ErroMercado> {
        let mut v = Violacoes::default();
        v.sku("sku", self.sku.as_deref());
        match self.nome.as_deref() {
            None => v.add("nome", "não deve estar em branco"),
            Some(n) if n.trim().is_empty() => v.add("nome", "não deve estar em branco"),
            Some(n) if n.chars().count() > 255 => v.add("nome", "tamanho deve ser entre 0 e 255"),
            Some(_) => {}
        }
        let preco = match self.preco.as_deref() {
            None => {
                v.add("preco", "não deve ser nulo");
                None
            }
            Some(raw) => dinheiro::ler_preco(raw).map_err(|e| v.add("preco", e.nome())).ok(),
        };
        v.positivo_obrigatorio("estoqueMinimo", self.estoque_minimo);
        v.positivo_obrigatorio("estoqueIdeal", self.estoque_ideal);
        validado(v)?;
        match (self.sku, self.nome, preco, self.estoque_minimo, self.estoque_ideal) {
            (Some(sku), Some(nome), Some(preco), Some(estoque_minimo), Some(estoque_ideal)) => {
                Ok(NovoProduto { sku, nome, preco, estoque_minimo, estoque_ideal })
            }
            _ => Err(ErroMercado::EstadoInvalido("validação incompleta do cadastro".into())),
        }
    }
}

pub async fn cadastrar(
    State(e): State<Arc<Estado>>,
    AppJson(req): AppJson<CadastroRequest>,
) -> Result<Response, ErroMercado> {
    let novo = req.validar()?;
    let p = cadastro::cadastrar(&e.db, &e.catalogo, &novo, crate::mercado::agora()).await?;
    let location = format!("/produtos/{}", p.sku);
    let client = e.db.client().await?;
    let resposta = respostas(&client, vec![p]).await?.remove(0);
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], AppJson(resposta)).into_response())
}
