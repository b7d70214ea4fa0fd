//! The `produto_vitrine` table's SQL: reads for the catalogue, the row lock every shelf change
//! takes first (`SELECT … FOR UPDATE`), and the writes, which take the open transaction.
//!
//! Lock order, everywhere in mercado: products in ascending SKU order, then the restock request
//! of the SKU. Checkout, the expiry sweep and the consumers all follow it, so they never deadlock.

use chrono::{DateTime, Utc};
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::erro::ErroMercado;
use super::prateleira::{ProdutoVitrine, StatusVitrine};
use crate::db::Tx;

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

fn tags_json(p: &ProdutoVitrine) -> Option<serde_json::Value> {
    p.tags.as_ref().map(|t| serde_json::Value::from(t.clone()))
}

pub async fn existe(db: &impl GenericClient, sku: &str) -> Result<bool, ErroMercado> {
    let stmt = db.prepare_cached("SELECT 1 FROM produto_vitrine WHERE sku = $1").await?;
    Ok(db.query_opt(&stmt, &[&sku]).await?.is_some())
}

pub async fn buscar(db: &impl GenericClient, sku: &str) -> Result<Option<ProdutoVitrine>, ErroMercado> {
    let stmt = db.prepare_cached(&format!("SELECT {COLUNAS} FROM produto_vitrine WHERE sku = $1")).await?;
    db.query_opt(&stmt, &[&sku]).await?.as_ref().map(de_linha).transpose()
}

/// Locks the product's row until the transaction ends; `None` when the SKU is not in the storefront.
pub async fn travar(tx: &Tx<'_>, sku: &str) -> Result<Option<ProdutoVitrine>, ErroMercado> {
    let stmt = tx
        .prepare_cached(&format!("SELECT {COLUNAS} FROM produto_vitrine WHERE sku = $1 FOR UPDATE"))
        .await?;
    tx.query_opt(&stmt, &[&sku]).await?.as_ref().map(de_linha).transpose()
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
    db: &impl GenericClient,
    categoria: Option<&str>,
    busca: Option<&str>,
) -> Result<Vec<ProdutoVitrine>, ErroMercado> {
    let stmt = db
        .prepare_cached(&format!(
            "SELECT {COLUNAS} FROM produto_vitrine \
             WHERE ($1::text IS NULL OR categoria = $1) \
               AND ($2::text IS NULL OR lower(nome) LIKE '%' || lower($3::text) || '%' ESCAPE '\\' OR sku = $2) \
             ORDER BY CASE WHEN status = 'DISPONIVEL' THEN 0 ELSE 1 END, nome, sku"
        ))
        .await?;
    let padrao = busca.map(escapar_like);
    let rows = db.query(&stmt, &[&categoria, &busca, &padrao]).await?;
    rows.iter().map(de_linha).collect()
}

/// Inserts a new product; `false` when the SKU was registered concurrently.
pub async fn inserir(tx: &Tx<'_>, p: &ProdutoVitrine) -> Result<bool, ErroMercado> {
    let stmt = tx
        .prepare_cached(&format!(
            "INSERT INTO produto_vitrine ({COLUNAS}, versao) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0) \
             ON CONFLICT (sku) DO NOTHING"
        ))
        .await?;
    let n = tx
        .execute(
            &stmt,
            &[
                &p.sku,
                &p.nome,
                &tags_json(p),
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
    Ok(n == 1)
}

/// Writes the shelf and status of a locked product (and bumps `versao`, the original's @Version).
/// Writes the shelf and status of a locked product: `$1` sku, `$2` shelf, `$3` status.
pub const SALVAR_PRATELEIRA: &str =
    "UPDATE produto_vitrine SET estoque_prateleira = $2, status = $3, versao = versao + 1 WHERE sku = $1";

pub async fn salvar_prateleira(tx: &Tx<'_>, p: &ProdutoVitrine) -> Result<(), ErroMercado> {
    let stmt = tx.prepare_cached(SALVAR_PRATELEIRA).await?;
    tx.execute(&stmt, &[&p.sku, &p.prateleira, &p.status.como_texto()]).await?;
    Ok(())
}

/// Writes the classification of a locked product.
pub async fn salvar_classificacao(tx: &Tx<'_>, p: &ProdutoVitrine) -> Result<(), ErroMercado> {
    let stmt = tx
        .prepare_cached(
            "UPDATE produto_vitrine SET tags = $2, categoria = $3, classificado_em = $4, versao = versao + 1 WHERE sku = $1",
        )
        .await?;
    let classificado_em: Option<DateTime<Utc>> = p.classificado_em;
    tx.execute(&stmt, &[&p.sku, &tags_json(p), &p.categoria, &classificado_em]).await?;
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
