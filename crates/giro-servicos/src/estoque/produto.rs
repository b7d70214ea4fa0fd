//! `produto_estoque` (SPEC §2.1, §3.11): the warehouse's product — identity (GTIN), fiscal code,
//! shippable balance and the classification that positions it in the storefront.
//!
//! Every write goes through a [`Bloqueado`]: the product's row locked `FOR UPDATE` (or just
//! inserted) in the open transaction, borrowing it. It can only be obtained from [`bloquear`] or
//! [`criar`], so "the product row is already locked" (the original's precondition of
//! `expedirDoProximoLote`) is a type, not a comment. Serialising on the product row also
//! serialises everything done to its lots and demands, which are only touched while it is held.
//!
//! Invariant kept here: `saldo_disponivel = SUM(lote.quantidade_disponivel)` of the SKU (expired
//! lots included): [`Bloqueado::receber_lote`], [`Bloqueado::expedir`] and [`Bloqueado::baixar`]
//! change a lot and the balance together. The column is bookkeeping: what is *shown* as a balance
//! excludes expired units ([`super::inventario::Saldos`]). The locked product is the aggregate
//! root of its lots: this module calls `lote`, never the other way.

use std::cell::RefCell;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::ops::Deref;

use tokio_postgres::types::Json;
use tokio_postgres::Row;

use super::lote::{self, Lote};
use super::ErroEstoque;
use super::Tx;
use giro_contracts::sku_valido;
use giro_infra::db::Client;

/// A product as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Produto {
    pub sku: String,
    pub descricao: String,
    pub ncm: String,
    /// `None` while the tag-worker has not classified the product (re-classified later).
    pub tags: Option<Vec<String>>,
    pub categoria: Option<String>,
    pub saldo_disponivel: i32,
}

impl Produto {
    /// The product has tags (what `POST /lotes` answers as `classificado`).
    pub fn classificado(&self) -> bool {
        self.tags.is_some()
    }
}

/// A product whose row the transaction `'t` holds locked; it cannot outlive that transaction.
#[derive(Debug)]
pub struct Bloqueado<'t>(Produto, PhantomData<&'t ()>);

impl Deref for Bloqueado<'_> {
    type Target = Produto;
    fn deref(&self) -> &Produto {
        &self.0
    }
}

const COLUNAS: &str = "sku, descricao, ncm, tags, categoria, saldo_disponivel";

fn de_linha(row: &Row) -> Result<Produto, tokio_postgres::Error> {
    let tags = row.try_get::<_, Option<Json<Vec<String>>>>("tags")?.map(|t| t.0);
    Ok(giro_infra::da_linha!(row, Produto { sku, descricao, ncm, categoria, saldo_disponivel; tags }))
}

/// Reads a product without locking it (reads, and the intake's look-up before its transaction).
pub async fn buscar(client: &Client, sku: &str) -> Result<Option<Produto>, tokio_postgres::Error> {
    let stmt = &format!("SELECT {COLUNAS} FROM produto_estoque WHERE sku = $1");
    client.query_opt(stmt, &[&sku]).await?.as_ref().map(de_linha).transpose()
}

/// Locks the product's row (`SELECT … FOR UPDATE`); `None` when the SKU is unknown. Inside
/// [`bloqueando`], the first lock of one of its SKUs takes what it read instead.
pub async fn bloquear<'t>(tx: &'t Tx<'_>, sku: &str) -> Result<Option<Bloqueado<'t>>, tokio_postgres::Error> {
    let produto = match tomar(tx, sku) {
        Some(lido) => lido,
        None => tx.query_opt(&sql_bloquear(), &[&sku]).await?.as_ref().map(de_linha).transpose()?,
    };
    Ok(produto.map(|p| Bloqueado(p, PhantomData)))
}

tokio::task_local! {
    /// What [`bloqueando`] locked: the transaction's address and, per SKU, its row (`None`:
    /// unknown), each given to the first [`bloquear`] of its SKU in that transaction.
    static TRAVADOS: RefCell<(usize, HashMap<String, Option<Produto>>)>;
}

/// Locks the products of `skus` in `tx` in one statement, in SKU order (the order a batch of
/// events is applied in, so concurrent batches do not deadlock), and runs `fut` with what it read
/// at hand: the first [`bloquear`] of each of those SKUs in `tx` takes its row — or that the SKU is
/// unknown — from here, without a round trip of its own. A later one reads the row again (held
/// already, it does not wait), so it sees what the first left.
pub async fn bloqueando<T>(
    tx: &Tx<'_>,
    skus: &[&str],
    fut: impl std::future::Future<Output = T>,
) -> Result<T, tokio_postgres::Error> {
    let stmt = format!(
        "SELECT {COLUNAS} FROM produto_estoque WHERE sku = ANY($1) ORDER BY sku COLLATE \"C\" FOR UPDATE"
    );
    let mut lidos: HashMap<String, Option<Produto>> = skus.iter().map(|s| (s.to_string(), None)).collect();
    for linha in tx.query(&stmt, &[&skus]).await? {
        let p = de_linha(&linha)?;
        lidos.insert(p.sku.clone(), Some(p));
    }
    Ok(TRAVADOS.scope(RefCell::new((endereco(tx), lidos)), fut).await)
}

/// What [`bloqueando`] read of `sku` in `tx` and no [`bloquear`] took yet, taken now.
fn tomar(tx: &Tx<'_>, sku: &str) -> Option<Option<Produto>> {
    let tomado = TRAVADOS.try_with(|t| {
        let mut t = t.borrow_mut();
        (t.0 == endereco(tx)).then(|| t.1.remove(sku)).flatten()
    });
    tomado.ok().flatten()
}

/// A transaction's identity while it is borrowed: its address.
fn endereco(tx: &Tx<'_>) -> usize {
    std::ptr::from_ref(tx) as usize
}

/// Creates a product (the original's `new ProdutoEstoque(sku, descricao, ncm)`): valid SKU,
/// descricao not blank, NCM of 8 digits; balance 0, unclassified. The new row is held by this
/// transaction until it ends; a concurrent creation of the same SKU fails on the primary key
/// ([`ErroEstoque::Conflito`]).
pub async fn criar<'t>(
    tx: &'t Tx<'_>,
    sku: &str,
    descricao: &str,
    ncm: &str,
) -> Result<Bloqueado<'t>, ErroEstoque> {
    if !sku_valido(sku) {
        return Err(ErroEstoque::Invalido(format!("SKU inválido (esperado GTIN-8/12/13/14): {sku}")));
    }
    if descricao.trim().is_empty() {
        return Err(ErroEstoque::Invalido("descricao é obrigatório".into()));
    }
    if !(ncm.len() == 8 && ncm.bytes().all(|b| b.is_ascii_digit())) {
        return Err(ErroEstoque::Invalido(format!("NCM inválido (esperado 8 dígitos): {ncm}")));
    }
    let stmt = "INSERT INTO produto_estoque (sku, descricao, ncm, saldo_disponivel, versao) VALUES ($1, $2, $3, 0, 0)";
    tx.execute(stmt, &[&sku, &descricao, &ncm]).await?;
    // [`bloqueando`] may have read it unknown; it is not any more.
    tomar(tx, sku);
    Ok(Bloqueado(
        Produto {
            sku: sku.to_string(),
            descricao: descricao.to_string(),
            ncm: ncm.to_string(),
            tags: None,
            categoria: None,
            saldo_disponivel: 0,
        },
        PhantomData,
    ))
}

/// Up to `limite` products without tags, by SKU (the re-classification job's `semTags`), leaving
/// out the SKUs in `exceto` (products the worker could not classify lately).
pub async fn sem_tags_exceto(
    client: &Client,
    limite: i64,
    exceto: &[String],
) -> Result<Vec<Produto>, tokio_postgres::Error> {
    let stmt = &format!(
            "SELECT {COLUNAS} FROM produto_estoque WHERE tags IS NULL AND NOT (sku = ANY($2)) ORDER BY sku LIMIT $1"
        );
    client.query(stmt, &[&limite, &exceto]).await?.iter().map(de_linha).collect()
}

impl Bloqueado<'_> {
    /// The product as this transaction left it, no longer claiming the lock (for what is
    /// answered or logged after the commit).
    pub fn liberar(self) -> Produto {
        self.0
    }

    /// Receives a lot (the original's `receberLote`, the only way a lot is created): code not
    /// blank, quantity positive; all of it available; the balance goes up by the whole quantity,
    /// even when the lot is already expired. Returns the new lot's id.
    pub async fn receber_lote(
        &mut self,
        tx: &Tx<'_>,
        codigo_lote: &str,
        quantidade: i32,
        validade: Option<chrono::NaiveDate>,
        recebido_em: chrono::DateTime<chrono::Utc>,
        operador: &str,
    ) -> Result<i64, ErroEstoque> {
        let id =
            lote::inserir(tx, &self.0.sku, codigo_lote, quantidade, validade, recebido_em, operador).await?;
        self.creditar(tx, quantidade).await?;
        Ok(id)
    }

    /// Adds `qtd` to the balance (a lot was received).
    async fn creditar(&mut self, tx: &Tx<'_>, qtd: i32) -> Result<(), ErroEstoque> {
        // The row is locked: the sum is checked here, before the UPDATE could overflow `integer`.
        if self.0.saldo_disponivel.checked_add(qtd).is_none() {
            return Err(ErroEstoque::Invalido(format!(
                "quantidade excede o saldo máximo do SKU {}: saldo {} + {qtd}",
                self.0.sku, self.0.saldo_disponivel
            )));
        }
        self.0.saldo_disponivel = atualizar_saldo(tx, &self.0.sku, qtd).await?;
        Ok(())
    }

    /// Ships `qtd` units of `lote` (the original's `ProdutoEstoque.expedir`): the lot must belong
    /// to this SKU and `qtd` must not exceed the balance; the lot and the balance go down together.
    pub async fn expedir(&mut self, tx: &Tx<'_>, lote: &Lote, qtd: i32) -> Result<(), ErroEstoque> {
        if lote.sku != self.0.sku {
            return Err(ErroEstoque::Invalido(format!(
                "lote {} não pertence ao SKU {}",
                lote.codigo_lote, self.0.sku
            )));
        }
        if qtd > self.0.saldo_disponivel {
            return Err(ErroEstoque::Interno(anyhow::anyhow!(
                "saldo do SKU {} ({}) menor que a expedição ({qtd})",
                self.0.sku,
                self.0.saldo_disponivel
            )));
        }
        lote::retirar(tx, lote, qtd).await?;
        self.0.saldo_disponivel = atualizar_saldo(tx, &self.0.sku, -qtd).await?;
        Ok(())
    }

    /// Writes off `qtd` units of `lote` (the reason and the bound checked by the caller): the
    /// lot and the balance go down together, keeping `saldo_disponivel` = the sum of the lots.
    pub async fn baixar(&mut self, tx: &Tx<'_>, lote: &Lote, qtd: i32) -> Result<(), ErroEstoque> {
        if lote.sku != self.0.sku {
            return Err(ErroEstoque::Invalido(format!(
                "lote {} não pertence ao SKU {}",
                lote.codigo_lote, self.0.sku
            )));
        }
        lote::retirar(tx, lote, qtd).await?;
        self.0.saldo_disponivel = atualizar_saldo(tx, &self.0.sku, -qtd).await?;
        Ok(())
    }

    /// Stores the classification (the original's `classificar`): tags not empty, categoria not
    /// blank. The `ProdutoClassificado` that goes with it is written by `classificacao::aplicar`.
    pub(super) async fn classificar(
        &mut self,
        tx: &Tx<'_>,
        tags: &[String],
        categoria: &str,
    ) -> Result<(), ErroEstoque> {
        if tags.is_empty() {
            return Err(ErroEstoque::Invalido("classificação sem tags".into()));
        }
        if categoria.trim().is_empty() {
            return Err(ErroEstoque::Invalido("classificação sem categoria".into()));
        }
        let stmt = "UPDATE produto_estoque SET tags = $2, categoria = $3, versao = versao + 1 WHERE sku = $1";
        tx.execute(stmt, &[&self.0.sku, &Json(tags), &categoria]).await?;
        self.0.tags = Some(tags.to_vec());
        self.0.categoria = Some(categoria.to_string());
        Ok(())
    }
}

async fn atualizar_saldo(tx: &Tx<'_>, sku: &str, delta: i32) -> Result<i32, tokio_postgres::Error> {
    let stmt = "UPDATE produto_estoque SET saldo_disponivel = saldo_disponivel + $2, versao = versao + 1 \
             WHERE sku = $1 RETURNING saldo_disponivel";
    tx.query_one(stmt, &[&sku, &delta]).await?.try_get(0)
}

/// The product lock that serving a request starts with: `$1` sku.
pub fn sql_bloquear() -> String {
    format!("SELECT {COLUNAS} FROM produto_estoque WHERE sku = $1 FOR UPDATE")
}
