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
//!
//! ## Search (`GET /produtos?busca=`, issue 26)
//!
//! Decisions, measured in docs/benchmarks.md ("Search"):
//!
//! - **Where.** A stored generated column `busca` holds the name and the tags, lower-cased and
//!   unaccented by `giro_normalizar` (an IMMUTABLE wrapper over `unaccent` with its dictionary
//!   named, mercado V21), with a GIN index on its length and its trigrams (`btree_gin`,
//!   `pg_trgm`, mercado V29). Trigrams rather than full-text search: a shopper types fragments
//!   ("cafe mo", "5kg", a brand's first letters) that a dictionary would not stem, and the
//!   catalogue's names are short.
//! - **Words.** The query is split on anything that is not a letter or a digit ([`palavras`]); each
//!   word must occur in `busca` (`LIKE '%word%'`, AND), so `café moído` finds "Café Torrado e
//!   Moído 500g" and `cafe` finds it by name or by its tag. Splitting drops `%`, `_` and `\`, so
//!   no LIKE escaping is needed. At most [`MAX_PALAVRAS`] words count (the rest add nothing a
//!   shopper would miss); a query longer than [`MAX_BUSCA`] characters is a 400.
//! - **Quantities.** A number followed by a unit is one word: `5kg`, `5 kg` and `5 KG` are all
//!   `5kg`, on both sides (the query here, the stored text by `giro_normalizar`'s
//!   `regexp_replace`), so `arroz 5kg` finds "Arroz Branco 5kg" and "Arroz 5 kg" alike, and `5`
//!   alone still finds both.
//! - **Rank** (issue 40). Every word is in every match, so the closest text is the one with the
//!   fewest other words: the shortest `busca` first, then available before sold out, then by name
//!   and SKU so ties are stable. The exact SKU still matches, as before. A search answers the best
//!   [`MAX_RESULTADOS`], and what it reads does not grow with how common its words are. First it
//!   counts the matches in a sample of the catalogue (about 32 pages, `AMOSTRA`; under a
//!   millisecond). Under `MUITOS` estimated matches, it fetches them all through one
//!   intersection of the words' trigrams in mercado V29's GIN index and sorts them. From
//!   `MUITOS` on, it takes the text lengths in order, shortest first (the shortest and longest
//!   listed from V28's B-tree), and asks V29's index, which holds the length beside the trigrams,
//!   for the matches of each length in turn, stopping at [`MAX_RESULTADOS`]: `café moído` (5 % of
//!   100 000 products, all of them long texts) reads 11 lengths and 175 rows instead of sorting
//!   5 000 (the trigram index alone) or walking 28 000 texts shorter than its first match (V28's
//!   order alone). One probe per length is why few matches do not go that way: every length
//!   would be probed, each probe decoding the words' posting lists again (17 ms for `oleo soja
//!   liza 900 ml`, 25 matches). A word shorter than a trigram (`a`, `5`) gives the index nothing
//!   to intersect: it is matched by `strpos`, each length read in order through V28 when the
//!   word is common; when every word is that short, of ASCII letters and digits, and few products
//!   match (no category filter nor category word), mercado V31's trigram index of the text with
//!   each character tripled finds them (`zq` is `zzzqqq` there: 30 ms → about 1 ms for a
//!   two-letter word no name holds, 100 000 products). The words are normalised once (a CTE), so
//!   the plan does not depend on them and PostgreSQL's generic plan for the cached statement is
//!   the same. Trigram `similarity` ranked before (issue 26: 92 ms for
//!   `cafe`, docs/benchmarks.md).
//! - **Categories** (issue 39): a word that names a category — its name, singular or plural, or a
//!   word a shopper uses for it ("refrigerante", "suco" for `bebidas`; [`CATEGORIAS_POR_PALAVRA`],
//!   a short list) — also matches every product of that category, so "bebida" and "refrigerante"
//!   find the drinks. Only whole words name one, accents and case aside.
//! - **The listing** without `busca` is a page of at most [`MAX_PAGINA`] products in the
//!   storefront's order (issue 37 §3: 50 000 products were 10 MB in one answer), read from the
//!   same index; the route says how many there are in all.

use std::marker::PhantomData;
use std::ops::Deref;

use chrono::{DateTime, Utc};
use giro_infra::db::Sql;
use tokio_postgres::Row;

use super::erro::ErroMercado;
use super::prateleira::{ProdutoVitrine, StatusVitrine};
use super::Tx;

const COLUNAS: &str =
    "sku, nome, tags, categoria, classificado_em, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status, listado, descricao, imagem_etag";

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
        listado: r.try_get("listado")?,
        descricao: r.try_get("descricao")?,
        imagem_etag: r.try_get("imagem_etag")?,
    })
}

/// A storefront product whose row the transaction `'t` holds locked; it cannot outlive that
/// transaction. Reads go through `Deref`; changes through [`Travado::aplicar`], which keeps the
/// SKU (the locked row) as it is. Kept past the commit, it does not compile:
///
/// ```compile_fail,E0505
/// # async fn f(db: &giro_infra::db::Db) -> Result<(), Box<dyn std::error::Error>> {
/// let mut client = db.client().await?;
/// let tx = giro_servicos::mercado::Tx::begin(db, &mut client).await?;
/// let p = giro_servicos::mercado::produto::travar(&tx, "7894900011517").await?;
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

/// The longest `busca` accepted, in characters.
pub const MAX_BUSCA: usize = 100;
/// The words of a query that count.
pub const MAX_PALAVRAS: usize = 8;
/// The most products a search answers, best first.
pub const MAX_RESULTADOS: i64 = 100;
/// The most products one page of the listing holds (and its default size).
pub const MAX_PAGINA: i64 = 1000;
/// The share of `produto_vitrine`'s pages, in percent, a search samples to estimate how many
/// products match: about 32 pages (~1 000 products), all of a small catalogue.
const AMOSTRA: &str = "least(100, 100 * 32 * 8192.0 / greatest(pg_relation_size('produto_vitrine'), 8192))";
/// From this many estimated matches a search reads them length by length; below, it sorts them all.
const MUITOS: i64 = 500;
/// The storefront's order (mercado V25's index): available first, then name and SKU.
const ORDEM: &str = "CASE WHEN status = 'DISPONIVEL' THEN 0 ELSE 1 END, nome, sku";

/// The words a shopper uses for each category of the tag-worker (SPEC §3.15), unaccented and
/// lower-cased: a search word among them also matches the category's products (issue 39).
pub const CATEGORIAS_POR_PALAVRA: &[(&str, &[&str])] = &[
    (
        "bebidas",
        &[
            "bebida",
            "bebidas",
            "refrigerante",
            "refrigerantes",
            "refri",
            "suco",
            "sucos",
            "agua",
            "aguas",
            "cerveja",
            "cervejas",
        ],
    ),
    ("laticinios", &["laticinio", "laticinios", "queijo", "queijos", "iogurte", "iogurtes"]),
    ("mercearia", &["mercearia"]),
    ("hortifruti", &["hortifruti", "fruta", "frutas", "verdura", "verduras", "legume", "legumes"]),
    ("padaria", &["padaria"]),
    ("carnes", &["carne", "carnes", "acougue"]),
    ("congelados", &["congelado", "congelados"]),
    ("limpeza", &["limpeza"]),
    ("higiene", &["higiene"]),
    ("pet", &["pet", "racao"]),
];

/// The categories a search word names (see [`CATEGORIAS_POR_PALAVRA`]), accents and case aside.
pub fn categorias_da_palavra(palavra: &str) -> Vec<String> {
    let dobrada: String = palavra
        .to_lowercase()
        .chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ã' | 'ä' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'õ' | 'ö' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            c => c,
        })
        .collect();
    CATEGORIAS_POR_PALAVRA
        .iter()
        .filter(|(_, ws)| ws.contains(&dobrada.as_str()))
        .map(|(c, _)| c.to_string())
        .collect()
}

/// The words of a search query: split on anything that is not a letter or a digit, a number
/// joined to the unit that follows it (`5 kg` → `5kg`, as `giro_normalizar` joins them in the
/// stored text), repeated words once, at most [`MAX_PALAVRAS`]. Case and accents are left to the
/// database (`giro_normalizar`), which folds both sides alike.
pub fn palavras(busca: &str) -> Vec<String> {
    let mut brutas: Vec<String> =
        busca.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_string).collect();
    let mut i = 0;
    while i + 1 < brutas.len() {
        let numero = brutas[i].chars().all(|c| c.is_ascii_digit());
        let unidade = brutas[i + 1].chars().next().is_some_and(char::is_alphabetic);
        if numero && unidade {
            let unidade = brutas.remove(i + 1);
            brutas[i].push_str(&unidade);
        }
        i += 1;
    }
    let mut out: Vec<String> = Vec::new();
    for w in brutas {
        if !out.iter().any(|o| o.to_lowercase() == w.to_lowercase()) {
            out.push(w);
        }
    }
    out.truncate(MAX_PALAVRAS);
    out
}

/// One page of the listed products (of `categoria`, when given) in the storefront's order: `pagina`
/// from 1, `tamanho` at most [`MAX_PAGINA`]; with how many there are in all.
pub async fn pagina(
    db: &impl Sql,
    categoria: Option<&str>,
    pagina: i64,
    tamanho: i64,
) -> Result<(Vec<ProdutoVitrine>, i64), ErroMercado> {
    let filtro = "listado AND ($1::text IS NULL OR categoria = $1)";
    let stmt =
        &format!("SELECT {COLUNAS} FROM produto_vitrine WHERE {filtro} ORDER BY {ORDEM} LIMIT $2 OFFSET $3");
    let desde = (pagina - 1) * tamanho;
    let rows = db.query(stmt, &[&categoria, &tamanho, &desde]).await?;
    let total = match (pagina, rows.len() as i64) {
        // A first page that is not full holds them all: no count needed.
        (1, n) if n < tamanho => n,
        _ => {
            let contar = &format!("SELECT count(*) FROM produto_vitrine WHERE {filtro}");
            db.query_one(contar, &[&categoria]).await?.try_get(0)?
        }
    };
    Ok((rows.iter().map(de_linha).collect::<Result<_, _>>()?, total))
}

/// The listed products (of `categoria`, when given) that `busca` finds, best first, at most
/// [`MAX_RESULTADOS`] (see the module's documentation).
pub async fn buscar_texto(
    db: &impl Sql,
    categoria: Option<&str>,
    busca: &str,
) -> Result<Vec<ProdutoVitrine>, ErroMercado> {
    let ws = palavras(busca);
    if ws.is_empty() {
        // Only punctuation: nothing to look for but the SKU, which has none.
        return Ok(Vec::new());
    }
    // One statement per word count and shape (at most MAX_PALAVRAS words), each word a parameter.
    // A word that names a category also matches the category's products: its categories are one
    // more parameter, after the words.
    let categorias: Vec<(usize, Vec<String>)> = ws
        .iter()
        .enumerate()
        .map(|(i, w)| (i, categorias_da_palavra(w)))
        .filter(|(_, c)| !c.is_empty())
        .collect();
    // Each word normalised once (a materialised CTE: its values are parameters of the per-length
    // scans, never recomputed per row), then matched by LIKE, which the trigram index serves, or,
    // shorter than a trigram, by strpos, so the index is not asked to scan every trigram.
    // Every word shorter than a trigram: with few matches, mercado V31's index of the tripled text
    // finds them (`zq` is `zzzqqq` there), instead of `strpos` reading every text. Only ASCII
    // letters and digits, which are word characters to pg_trgm in every locale (a character it
    // does not index leaves the pattern no trigram, and the index would hand back every row, each
    // tripled again to recheck), and only when the words alone are rare: the sample counts the
    // category filter and a category word's products too, which this index cannot narrow (`a` in a
    // small category: 400 ms instead of 12–36).
    let curtas = categoria.is_none()
        && categorias.is_empty()
        && ws.iter().all(|w| w.len() <= 2 && w.chars().all(|c| c.is_ascii_alphanumeric()));
    let mut normalizadas = Vec::new();
    let mut condicoes = String::new();
    let mut triplicadas = String::new();
    for (i, w) in ws.iter().enumerate() {
        normalizadas.push(format!("giro_normalizar(${}) AS p{i}", i + 3));
        if curtas {
            normalizadas.push(format!("giro_triplicar(giro_normalizar(${})) AS t{i}", i + 3));
            triplicadas.push_str(&format!(" AND giro_triplicar(busca) LIKE '%' || p.t{i} || '%'"));
        }
        let texto = match w.chars().count() {
            0..=2 => format!("strpos(busca, p.p{i}) > 0"),
            _ => format!("busca LIKE '%' || p.p{i} || '%'"),
        };
        match categorias.iter().position(|(j, _)| *j == i) {
            Some(k) => condicoes.push_str(&format!(
                " AND ({texto} OR lower(categoria) = ANY(${}::text[]))",
                ws.len() + 3 + k
            )),
            None => condicoes.push_str(&format!(" AND {texto}")),
        }
    }
    // A sample of the catalogue estimates how many products match (see "Rank"). Many: one text
    // length at a time, shortest first, each one's best MAX_RESULTADOS in the storefront's order,
    // the nested loop yielding the lengths in order and the LIMIT stopping it. Few: all of them,
    // through one index intersection, sorted (OFFSET 0 keeps V28's walk out of it).
    let filtro =
        format!("listado AND ($1::text IS NULL OR categoria = $1) AND (sku = $2 OR (true{condicoes}))");
    let filtro_poucos = format!(
        "listado AND ($1::text IS NULL OR categoria = $1) AND (sku = $2 OR (true{condicoes}{triplicadas}))"
    );
    let stmt = &format!(
        "WITH p AS MATERIALIZED (SELECT {}), \
         muitos AS MATERIALIZED (SELECT count(*) * 100 / {AMOSTRA} >= {MUITOS} AS sim \
             FROM p, produto_vitrine TABLESAMPLE SYSTEM ({AMOSTRA}) REPEATABLE (0) WHERE {filtro}) \
         (SELECT r.* FROM p, generate_series( \
              (SELECT min(length(busca)) FROM produto_vitrine WHERE listado), \
              (SELECT max(length(busca)) FROM produto_vitrine WHERE listado)) AS t(tamanho), \
          LATERAL (SELECT {COLUNAS} FROM produto_vitrine WHERE length(busca) = t.tamanho AND {filtro} \
              ORDER BY {ORDEM} LIMIT {MAX_RESULTADOS}) AS r \
          WHERE (SELECT sim FROM muitos) LIMIT {MAX_RESULTADOS}) \
         UNION ALL \
         (SELECT {COLUNAS} FROM (SELECT {COLUNAS}, length(busca) AS tamanho FROM p, produto_vitrine \
              WHERE NOT (SELECT sim FROM muitos) AND {filtro_poucos} OFFSET 0) AS s \
          ORDER BY tamanho, {ORDEM} LIMIT {MAX_RESULTADOS})",
        normalizadas.join(", ")
    );
    let mut params: Vec<&dyn giro_infra::db::Param> = vec![&categoria, &busca];
    for w in &ws {
        params.push(w);
    }
    for (_, c) in &categorias {
        params.push(c);
    }
    let rows = db.query(stmt, &params).await?;
    rows.iter().map(de_linha).collect()
}

/// Inserts a new product, whose row this transaction then holds until it ends; `None` when the
/// SKU was registered concurrently. `classificado_em` is clamped to the database's clock, as in
/// [`salvar_classificacao`].
pub async fn inserir<'t>(tx: &'t Tx<'_>, p: ProdutoVitrine) -> Result<Option<Travado<'t>>, ErroMercado> {
    let stmt = &format!(
            "INSERT INTO produto_vitrine ({COLUNAS}, versao) \
             VALUES ($1, $2, $3, $4, CASE WHEN $5::timestamptz IS NULL THEN NULL ELSE LEAST($5, now()) END, $6, $7, $8, $9, $10, $11, $12, NULL, 0) \
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
                &p.status.nome(),
                &p.listado,
                &p.descricao,
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
    tx.execute(stmt, &[&p.sku, &p.prateleira, &p.status.nome()]).await?;
    Ok(())
}

/// Writes what the owner may change of a locked product (issues 26 and 39): price, thresholds,
/// listed, name, description and category (`classificado_em` clamped as in [`salvar_classificacao`];
/// a product never classified stays so — `LEAST` alone would skip the NULL and stamp now, and a
/// classification made before the edit but arriving after it would then be dropped as older).
pub async fn salvar_cadastro(tx: &Tx<'_>, p: &Travado<'_>) -> Result<(), ErroMercado> {
    let stmt = "UPDATE produto_vitrine SET preco = $2, estoque_minimo = $3, estoque_ideal = $4, listado = $5, \
             nome = $6, descricao = $7, categoria = $8, \
             classificado_em = CASE WHEN $9::timestamptz IS NULL THEN NULL ELSE LEAST($9, now()) END, versao = versao + 1 WHERE sku = $1";
    let (p, c) = (&**p, &p.classificado_em);
    tx.execute(
        stmt,
        &[&p.sku, &p.preco, &p.minimo, &p.ideal, &p.listado, &p.nome, &p.descricao, &p.categoria, c],
    )
    .await?;
    Ok(())
}

/// The image of a product: its bytes — `None` when its ETag is among `conhecidas` (the client's
/// `If-None-Match`, `*` for any), so a 304 reads no bytes —, type and ETag; `None` when the SKU has
/// none.
pub async fn imagem(
    db: &impl Sql,
    sku: &str,
    conhecidas: &[&str],
) -> Result<Option<(Option<Vec<u8>>, String, String)>, ErroMercado> {
    let stmt = "SELECT CASE WHEN imagem_etag = ANY($2) OR '*' = ANY($2) THEN NULL ELSE imagem END, \
                imagem_tipo, imagem_etag FROM produto_vitrine WHERE sku = $1 AND imagem IS NOT NULL";
    Ok(db.query_opt(stmt, &[&sku, &conhecidas]).await?.map(|r| (r.get(0), r.get(1), r.get(2))))
}

/// Stores (or, with `None`, removes) the image of `sku`; the ETag is the bytes' md5. `false` when
/// the storefront has no such SKU. The shelf is not touched, so no lock order applies.
pub async fn salvar_imagem(
    db: &impl Sql,
    sku: &str,
    imagem: Option<(&[u8], &str)>,
) -> Result<bool, ErroMercado> {
    let stmt = "UPDATE produto_vitrine SET imagem = $2::bytea, imagem_tipo = $3, imagem_etag = md5($2::bytea), versao = versao + 1 WHERE sku = $1";
    let (bytes, tipo) = (imagem.map(|i| i.0), imagem.map(|i| i.1));
    Ok(db.execute(stmt, &[&sku, &bytes, &tipo]).await? == 1)
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
    use super::{palavras, MAX_PALAVRAS};

    #[test]
    fn a_query_is_split_into_words_without_like_wildcards() {
        assert_eq!(palavras("café moído"), ["café", "moído"]);
        assert_eq!(palavras("  CAFÉ, moído!  "), ["CAFÉ", "moído"]);
        assert_eq!(palavras("leite%integral_uht\\"), ["leite", "integral", "uht"]);
        // A number and the word after it, whatever separates them, as giro_normalizar joins them.
        assert_eq!(palavras("50%_off"), ["50off"]);
        assert!(palavras("%%% ,;").is_empty());
    }

    #[test]
    fn a_number_and_its_unit_are_one_word() {
        assert_eq!(palavras("arroz 5kg"), ["arroz", "5kg"]);
        assert_eq!(palavras("arroz 5 kg"), ["arroz", "5kg"]);
        assert_eq!(palavras("leite 1 L integral"), ["leite", "1L", "integral"]);
        assert_eq!(palavras("arroz 5"), ["arroz", "5"]);
    }

    #[test]
    fn repeated_words_count_once_and_at_most_eight_count() {
        assert_eq!(palavras("cafe Cafe CAFE"), ["cafe"]);
        let muitas = "a b c d e f g h i j";
        assert_eq!(palavras(muitas).len(), MAX_PALAVRAS);
    }
}
