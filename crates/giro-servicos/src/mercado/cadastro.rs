//! Product registration (SPEC §3.10, the original's `CadastroProduto`, `POST /produtos`).
//!
//! 1. A SKU already in the storefront → 409.
//! 2. The warehouse lookup, with **no transaction or connection held** (it may take the whole
//!    timeout): 404 → 422 and nothing written; no answer → registered without classification;
//!    classified → tags and categoria inherited, `classificado_em = now`, so an older
//!    `ProdutoClassificado` arriving later cannot overwrite them.
//! 3. One transaction: the product (shelf 0, ESGOTADO) and the restock trigger, which orders the
//!    first lot (`ideal` units). A registration that loses a race to the same SKU is a 409.
//!
//! [`alterar`] (issues 26 and 39, `PATCH /operacao/produtos/{sku}`): the owner changes the price,
//! the thresholds, whether the product is listed, its name, description or category, in one transaction with the product locked; the
//! restock trigger runs in it, so a minimum raised above the shelf writes its request and outbox
//! event with the change or not at all. The price changes future orders only: an order keeps the
//! unit price it was closed with (`item_pedido.preco_unitario`).

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;

use super::catalogo_estoque::{CatalogoEstoque, Consulta};
use super::erro::ErroMercado;
use super::prateleira::{self, ProdutoVitrine};
use super::Tx;
use super::{produto, reposicao};
use giro_infra::db::Db;

/// A validated registration request.
#[derive(Clone, Debug, PartialEq)]
pub struct NovoProduto {
    pub sku: String,
    pub nome: String,
    pub preco: Decimal,
    pub estoque_minimo: i32,
    pub estoque_ideal: i32,
}

pub async fn cadastrar(
    db: &Db,
    catalogo: &CatalogoEstoque,
    novo: &NovoProduto,
    agora: DateTime<Utc>,
) -> Result<ProdutoVitrine, ErroMercado> {
    // The rules of the constructor, checked before anyone is called.
    let mut p =
        ProdutoVitrine::novo(&novo.sku, &novo.nome, novo.preco, 0, novo.estoque_minimo, novo.estoque_ideal)?;
    {
        let client = db.client().await?;
        if produto::existe(&client, &novo.sku).await? {
            return Err(ErroMercado::ProdutoJaCadastrado(novo.sku.clone()));
        }
    }
    match catalogo.consultar(&novo.sku).await {
        Consulta::Desconhecido => return Err(ErroMercado::SkuDesconhecidoNoEstoque(novo.sku.clone())),
        Consulta::Indisponivel => {}
        Consulta::Encontrado(no_estoque) => {
            if let Some((tags, categoria)) = no_estoque.classificacao() {
                p.classificar(tags, categoria, agora)?;
            }
        }
    }
    let mut client = db.client().await?;
    let tx = Tx::begin(db, &mut client).await?;
    let Some(p) = produto::inserir(&tx, p).await? else {
        return Err(ErroMercado::Conflito);
    };
    reposicao::avaliar(&tx, &p, agora).await?;
    let p = p.liberar();
    tx.commit().await?;
    tracing::info!(sku = %p.sku, classificado = p.classificado_em.is_some(), "product registered");
    Ok(p)
}

/// A validated change: absent fields stay as they are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Alteracao {
    pub preco: Option<Decimal>,
    pub estoque_minimo: Option<i32>,
    pub estoque_ideal: Option<i32>,
    pub listado: Option<bool>,
    pub nome: Option<String>,
    /// `Some(None)` clears the description.
    pub descricao: Option<Option<String>>,
    pub categoria: Option<String>,
}

/// Applies `a` to the product `sku`; `None` when the storefront has no such SKU. Returns the
/// product as written and the restock requested by the change, if any.
pub async fn alterar(
    db: &Db,
    sku: &str,
    a: &Alteracao,
    agora: DateTime<Utc>,
) -> Result<Option<(ProdutoVitrine, Option<giro_contracts::ReposicaoSolicitada>)>, ErroMercado> {
    let mut client = db.client().await?;
    let tx = Tx::begin(db, &mut client).await?;
    let Some(mut p) = produto::travar(&tx, sku).await? else {
        return Ok(None);
    };
    p.aplicar(|p| {
        let minimo = a.estoque_minimo.unwrap_or(p.minimo);
        let ideal = a.estoque_ideal.unwrap_or(p.ideal);
        prateleira::verificar_limites(minimo, ideal)?;
        p.minimo = minimo;
        p.ideal = ideal;
        p.preco = a.preco.unwrap_or(p.preco);
        p.listado = a.listado.unwrap_or(p.listado);
        if let Some(nome) = &a.nome {
            p.nome = nome.clone();
        }
        if let Some(descricao) = &a.descricao {
            p.descricao = descricao.clone();
        }
        // The owner's category counts as a classification made now: an older ProdutoClassificado
        // arriving later does not undo it (SPEC §3.15).
        if let Some(categoria) = &a.categoria {
            p.categoria = Some(categoria.clone());
            p.classificado_em = Some(agora);
        }
        Ok::<_, ErroMercado>(())
    })?;
    produto::salvar_cadastro(&tx, &p).await?;
    let evento = reposicao::avaliar(&tx, &p, agora).await?;
    let p = p.liberar();
    tx.commit().await?;
    tracing::info!(sku = %p.sku, preco = %p.preco, minimo = p.minimo, ideal = p.ideal, listado = p.listado,
        reposicao = evento.is_some(), "product changed by the operator");
    Ok(Some((p, evento)))
}
