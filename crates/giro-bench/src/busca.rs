//! The storefront's search (`giro bench busca`, issue 26): a scratch mercado database with
//! `--products` generated products (names from a grocery's words, with accents, brands and
//! sizes; two tags each), then each query of [`CONSULTAS`] run `--times` times, one after the
//! other, through `produto::listar` — the statement `GET /produtos?busca=` runs, prepared and
//! cached on one pooled connection as the service's are — reporting p50/p99 and how many products
//! it found. The first runs of a query are kept: PostgreSQL switches a cached statement to a
//! generic plan after five runs, and the figures must cover both plans.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::scratch::Scratch;
use crate::{ms, percentile};
use giro_infra::db::{self, Db};
use giro_servicos::config::Servico;
use giro_servicos::mercado::produto;

pub struct BuscaArgs {
    pub admin_url: String,
    pub produtos: u32,
    pub vezes: usize,
}

/// The queries measured: common words (a tenth of the catalogue), two and three words, a
/// quantity, a rare pair, a word nothing has, the exact SKU, a word naming a common category
/// (`bebida`, issue 39), one naming a category with no product (`racao`, `pet`), and words shorter
/// than a trigram: one letter (`a`, in most names) and two letters no name holds (`zq`).
pub const CONSULTAS: &[&str] = &[
    "cafe",
    "CAFÉ moído",
    "arroz 5kg",
    "feijao preto camil",
    "oleo soja liza 900 ml",
    "xyzzy",
    "7800000012345",
    "bebida",
    "racao",
    "a",
    "zq",
];

/// Product type, its tag and its category (a tenth of the catalogue are drinks, `bebidas`).
const TIPOS: &[(&str, &str, &str)] = &[
    ("Café Torrado e Moído", "cafe", "mercearia"),
    ("Café em Grãos", "cafe", "mercearia"),
    ("Arroz Branco", "arroz", "mercearia"),
    ("Arroz Integral", "arroz", "mercearia"),
    ("Feijão Carioca", "feijao", "mercearia"),
    ("Feijão Preto", "feijao", "mercearia"),
    ("Açúcar Refinado", "acucar", "mercearia"),
    ("Leite Integral", "leite", "laticinios"),
    ("Macarrão Espaguete", "massas", "mercearia"),
    ("Óleo de Soja", "oleo", "mercearia"),
    ("Sabão em Pó", "limpeza", "limpeza"),
    ("Detergente Neutro", "limpeza", "limpeza"),
    ("Biscoito Recheado", "biscoito", "mercearia"),
    ("Farinha de Trigo", "farinha", "mercearia"),
    ("Molho de Tomate", "molho", "mercearia"),
    ("Suco de Laranja", "suco", "bebidas"),
    ("Água Mineral", "agua", "bebidas"),
    ("Pão de Forma", "padaria", "padaria"),
    ("Queijo Muçarela", "frios", "laticinios"),
    ("Iogurte Natural", "laticinios", "laticinios"),
];
const MARCAS: &[&str] = &[
    "Pilão",
    "Melitta",
    "Tio João",
    "Camil",
    "Kicaldo",
    "União",
    "Italac",
    "Piracanjuba",
    "Renata",
    "Liza",
    "Omo",
    "Ypê",
    "Nestlé",
    "Dona Benta",
    "Quero",
    "Del Valle",
    "Crystal",
    "Pullman",
    "Tirolez",
    "Danone",
];
const VARIANTES: &[&str] = &["Tradicional", "Premium", "Extra Forte", "Light", "Orgânico"];
const TAMANHOS: &[&str] = &["500g", "1kg", "5kg", "2kg", "250g", "1L", "2L", "900ml", "200g", "400g"];

async fn popular(db: &Db, n: u32) -> anyhow::Result<()> {
    let c = db.client().await?;
    let tipos: Vec<&str> = TIPOS.iter().map(|t| t.0).collect();
    let tags: Vec<&str> = TIPOS.iter().map(|t| t.1).collect();
    let categorias: Vec<&str> = TIPOS.iter().map(|t| t.2).collect();
    // One statement; each word list indexed by its own stride of i (20, 400, 2000), so every
    // combination of type, brand, variant and size occurs.
    c.execute(
        "INSERT INTO produto_vitrine (sku, nome, tags, categoria, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
         SELECT (7800000000000 + i)::text, \
                ($1::text[])[1 + i % 20] || ' ' || ($3::text[])[1 + (i / 20) % 20] || ' ' || ($4::text[])[1 + (i / 400) % 5] \
                  || ' ' || ($5::text[])[1 + (i / 2000) % 10], \
                jsonb_build_array(($2::text[])[1 + i % 20], 'mercearia'), ($7::text[])[1 + i % 20], \
                (1 + i % 50)::numeric + 0.99, i % 30, 5, 40, CASE WHEN i % 30 = 0 THEN 'ESGOTADO' ELSE 'DISPONIVEL' END \
         FROM generate_series(0, $6::int - 1) AS i",
        &[&tipos, &tags, &MARCAS, &VARIANTES, &TAMANHOS, &(n as i32), &categorias],
    )
    .await?;
    c.batch_execute("ANALYZE produto_vitrine").await?;
    Ok(())
}

pub async fn run(args: BuscaArgs) -> anyhow::Result<serde_json::Value> {
    let scratch = Scratch::create(&args.admin_url, Servico::Mercado).await?;
    let r = async {
        let db = Db::new(db::pool(&scratch.db, 1, Duration::from_secs(30))?, false);
        let inicio = Instant::now();
        popular(&db, args.produtos).await?;
        eprintln!(
            "  {} products generated and analysed in {:.1} s",
            args.produtos,
            inicio.elapsed().as_secs_f64()
        );
        let client = db.client().await?;
        let mut consultas = Vec::new();
        for q in CONSULTAS {
            let mut tempos = Vec::with_capacity(args.vezes);
            let mut achados = 0;
            for _ in 0..args.vezes {
                let t = Instant::now();
                achados = produto::buscar_texto(&client, None, q).await?.len();
                tempos.push(t.elapsed());
            }
            tempos.sort();
            let (p50, p99) = (ms(percentile(&tempos, 50.0)), ms(percentile(&tempos, 99.0)));
            eprintln!("  {q:?}: {achados} found, p50 {p50} ms, p99 {p99} ms");
            consultas.push(json!({"busca": q, "achados": achados, "p50Ms": p50, "p99Ms": p99}));
        }
        anyhow::Ok(json!({"busca": {"produtos": args.produtos, "vezes": args.vezes, "consultas": consultas}}))
    }
    .await;
    scratch.drop_db().await?;
    r
}
