//! The `produto_vitrine` table's SQL: reads for the catalogue, the row lock every shelf change
//! takes first (`SELECT … FOR UPDATE`), and the writes, which take the open transaction.
//!
//! A product read with its row locked is a [`Travado`] (mercado's counterpart of estoque's
//! `Bloqueado`): only [`travar`] and [`inserir`] make one, and the writes of a product
//! ([`salvar_prateleira`], [`salvar_classificacao`], checkout's pipelined shelf update) and the
//! restock trigger (`reposicao::avaliar`) accept nothing else, so "the row is locked" is a type.
//! It borrows the transaction that locked it, so it cannot be kept past that transaction's end.
//!
//! Lock order, everywhere in mercado: products in ascending SKU order, then the restock request
//! of the SKU. Checkout, the expiry sweep and the consumers all follow it, so they never deadlock.

use std::marker::PhantomData;
use std::ops::Deref;

use crate::db::Sql;
use chrono::{DateTime, Utc};
use tokio_postgres::Row;

use super::erro::ErroMercado;
use super::prateleira::{ProdutoVitrine, StatusVitrine};
use super::Tx;

const COLUNAS: &str =
    "sku, nome, tags, categoria, classificado_em, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status";

fn de_linha(r: &Row) -> Result<ProdutoVitrine, ErroMercado> {
    let tags: Option<serde_json::Value> = r.try_get("tags")?;
    let tags = match tags {
        None => None,
        Some(v) => Some(
            serde_json::from_value::<Vec<String>>(v)
                .map_err(|e| ErroMercado::EstadoInvalido(format!("tags ilegíveis no banco: {e}")))?,
        ),
    };
    let status: String = r.try_get("status")?;
    Ok(ProdutoVitrine {
        sku: r.try_get("sku")?,
        nome: r.try_get("nome")?,
        tags,
        categoria: r.try_get("categoria")?,
        classificado_em: r.try_get("classificado_em")?,
        preco: r.try_get("preco")?,
        prateleira: r.try_get("estoque_prateleira")?,
        minimo: r.try_get("estoque_minimo")?,
        ideal: r.try_get("estoque_ideal")?,
        status: StatusVitrine::de_texto(&status)?,
    })
}

/// A storefront product whose row the transaction `'t` holds locked; it cannot outlive that
/// transaction. Reads go through `Deref`; changes through [`Travado::aplicar`], which keeps the
/// SKU (the locked row) as it is. Kept past the commit, it does not compile:
///
/// ```compile_fail,E0505
/// # async fn f(db: &giro::db::Db) -> Result<(), Box<dyn std::error::Error>> {
/// let mut client = db.client().await?;
/// let tx = giro::mercado::Tx::begin(db, &mut client).await?;
/// let p = giro::mercado::produto::travar(&tx, "7894900011517").await?;
/// tx.commit().await?;
/// drop(p);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Travado<'t>(ProdutoVitrine, PhantomData<&'t ()>);

impl Deref for Travado<'_> {
    type Target = ProdutoVitrine;
    fn deref(&self) -> &ProdutoVitrine {
        &self.0
    }
}

impl Travado<'_> {
    /// The product as this transaction left it, no longer claiming the lock (for what is
    /// answered or logged after the commit).
    pub fn liberar(self) -> ProdutoVitrine {
        self.0
    }

    /// Applies a shelf rule of [`ProdutoVitrine`] (`debitar`, `creditar`, …) to the locked
    /// product. The SKU is put back afterwards, whatever the rule did: what is written later goes
    /// to the row this lock holds.
    pub fn aplicar<T>(&mut self, regra: impl FnOnce(&mut ProdutoVitrine) -> T) -> T {
        let sku = self.0.sku.clone();
        let r = regra(&mut self.0);
        self.0.sku = sku;
        r
    }
}

fn tags_json(p: &ProdutoVitrine) -> Option<serde_json::Value> {
    p.tags.as_ref().map(|t| serde_json::Value::from(t.clone()))
}

pub async fn existe(db: &impl Sql, sku: &str) -> Result<bool, ErroMercado> {
    let stmt = "SELECT 1 FROM produto_vitrine WHERE sku = $1";
    Ok(db.query_opt(stmt, &[&sku]).await?.is_some())
}

pub async fn buscar(db: &impl Sql, sku: &str) -> Result<Option<ProdutoVitrine>, ErroMercado> {
    let stmt = &format!("SELECT {COLUNAS} FROM produto_vitrine WHERE sku = $1");
    db.query_opt(stmt, &[&sku]).await?.as_ref().map(de_linha).transpose()
}

/// Locks the product's row until the transaction ends; `None` when the SKU is not in the storefront.
pub async fn travar<'t>(tx: &'t Tx<'_>, sku: &str) -> Result<Option<Travado<'t>>, ErroMercado> {
    let stmt = &format!("SELECT {COLUNAS} FROM produto_vitrine WHERE sku = $1 FOR UPDATE");
    let p = tx.query_opt(stmt, &[&sku]).await?.as_ref().map(de_linha).transpose()?;
    Ok(p.map(|p| Travado(p, PhantomData)))
}

/// Escapes the LIKE wildcards (and the escape character) so `busca` matches literally.
pub fn escapar_like(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '%' | '_') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The storefront listing: available first, then by name (then SKU, so ties are stable).
/// `busca` matches the name case-insensitively, literally, or the exact SKU.
pub async fn listar(
    db: &impl Sql,
    categoria: Option<&str>,
    busca: Option<&str>,
) -> Result<Vec<ProdutoVitrine>, ErroMercado> {
    let stmt = &format!(
            "SELECT {COLUNAS} FROM produto_vitrine \
             WHERE ($1::text IS NULL OR categoria = $1) \
               AND ($2::text IS NULL OR lower(nome) LIKE '%' || lower($3::text) || '%' ESCAPE '\\' OR sku = $2) \
             ORDER BY CASE WHEN status = 'DISPONIVEL' THEN 0 ELSE 1 END, nome, sku"
        );
    let padrao = busca.map(escapar_like);
    let rows = db.query(stmt, &[&categoria, &busca, &padrao]).await?;
    rows.iter().map(de_linha).collect()
}

/// Inserts a new product, whose row this transaction then holds until it ends; `None` when the
/// SKU was registered concurrently. `classificado_em` is clamped to the database's clock, as in
/// [`salvar_classificacao`].
pub async fn inserir<'t>(tx: &'t Tx<'_>, p: ProdutoVitrine) -> Result<Option<Travado<'t>>, ErroMercado> {
    let stmt = &format!(
            "INSERT INTO produto_vitrine ({COLUNAS}, versao) \
             VALUES ($1, $2, $3, $4, CASE WHEN $5::timestamptz IS NULL THEN NULL ELSE LEAST($5, now()) END, $6, $7, $8, $9, $10, 0) \
             ON CONFLICT (sku) DO NOTHING"
        );
    let n = tx
        .execute(
            stmt,
            &[
                &p.sku,
                &p.nome,
                &tags_json(&p),
                &p.categoria,
                &p.classificado_em,
                &p.preco,
                &p.prateleira,
                &p.minimo,
                &p.ideal,
                &p.status.como_texto(),
            ],
        )
        .await?;
    Ok((n == 1).then_some(Travado(p, PhantomData)))
}

/// Writes the shelf and status of a locked product (and bumps `versao`, the original's @Version):
/// `$1` sku, `$2` shelf, `$3` status. Checkout pipelines it with its other writes, from its
/// [`Travado`]s.
pub(super) const SALVAR_PRATELEIRA: &str =
    "UPDATE produto_vitrine SET estoque_prateleira = $2, status = $3, versao = versao + 1 WHERE sku = $1";

/// `SALVAR_PRATELEIRA` for one locked product.
pub async fn salvar_prateleira(tx: &Tx<'_>, p: &Travado<'_>) -> Result<(), ErroMercado> {
    let stmt = SALVAR_PRATELEIRA;
    tx.execute(stmt, &[&p.sku, &p.prateleira, &p.status.como_texto()]).await?;
    Ok(())
}

/// Writes the classification of a locked product. `classificado_em` is stored clamped to the
/// database's clock (SPEC §4.7): a sender whose clock runs ahead cannot stamp a classification
/// that later ones, from a fixed clock, would never beat ("newer wins" compares with it).
pub async fn salvar_classificacao(tx: &Tx<'_>, p: &Travado<'_>) -> Result<(), ErroMercado> {
    let stmt = "UPDATE produto_vitrine SET tags = $2, categoria = $3, classificado_em = LEAST($4, now()), versao = versao + 1 WHERE sku = $1";
    let classificado_em: Option<DateTime<Utc>> = p.classificado_em;
    tx.execute(stmt, &[&p.sku, &tags_json(p), &p.categoria, &classificado_em]).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::escapar_like;

    #[test]
    fn like_wildcards_are_escaped() {
        assert_eq!(escapar_like("50%_off\\"), "50\\%\\_off\\\\");
        assert_eq!(escapar_like("café"), "café");
    }
}
