//! Issue 26, point 1: the storefront's search (`GET /produtos?busca=`) is accent- and
//! case-insensitive, needs every word in the name or the tags, ranks, and leaves unlisted
//! products out; a query too long is a 400 naming `busca`.

use serde_json::{json, Value};

use crate::mercado::fixtures::*;
use crate::support::app::TestApp;

const CAFE: &str = "7896005800027";
const CAFE_GRAOS: &str = "7896005800034";
const ARROZ: &str = "7896006711117";
const ARROZ_1KG: &str = "7896006711124";

async fn catalogo() -> TestApp {
    let app = mercado(&[]).await;
    produto(&app, CAFE, "Café Torrado e Moído 500g", "17.90", 30, 5, 40).await;
    classificar_no_banco(&app, CAFE, json!(["cafe", "mercearia"]), "MERCEARIA").await;
    produto(&app, CAFE_GRAOS, "Café em Grãos 1kg", "54.90", 10, 2, 20).await;
    produto(&app, ARROZ, "Arroz Branco 5kg", "27.50", 20, 5, 30).await;
    produto(&app, ARROZ_1KG, "Arroz Integral 1 kg", "8.40", 0, 5, 30).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    app
}

/// The SKUs `GET /produtos?busca=<q>` answers, in its order.
async fn buscar(app: &TestApp, q: &str) -> Vec<String> {
    let res = app.http.get(app.url("/produtos")).query(&[("busca", q)]).send().await.unwrap();
    assert_eq!(res.status(), 200, "{q}");
    let body: Vec<Value> = res.json().await.unwrap();
    body.iter().map(|p| p["sku"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn accents_and_case_do_not_matter_and_every_word_must_match() {
    let app = catalogo().await;
    for q in ["cafe", "CAFÉ", "Café"] {
        let achados = buscar(&app, q).await;
        assert_eq!(achados.len(), 2, "{q}: {achados:?}");
        assert!(achados.contains(&CAFE.to_string()) && achados.contains(&CAFE_GRAOS.to_string()), "{q}");
    }
    assert_eq!(buscar(&app, "café moído").await, vec![CAFE], "both words, one product");
    assert_eq!(buscar(&app, "moido TORRADO").await, vec![CAFE], "any order, any case");
    assert_eq!(buscar(&app, "café arroz").await, Vec::<String>::new(), "every word must match");
    assert_eq!(buscar(&app, "mercearia").await, vec![CAFE], "a tag matches");
    assert_eq!(buscar(&app, "graos").await, vec![CAFE_GRAOS]);
    assert_eq!(buscar(&app, "50%").await, vec![CAFE], "% is no wildcard: \"50\" is in \"500g\"");
    assert_eq!(buscar(&app, "%").await, Vec::<String>::new());
    assert_eq!(buscar(&app, COCA).await, vec![COCA], "the exact SKU still matches");
}

#[tokio::test]
async fn a_quantity_matches_with_or_without_the_space() {
    let app = catalogo().await;
    assert_eq!(buscar(&app, "arroz 5kg").await, vec![ARROZ]);
    assert_eq!(buscar(&app, "arroz 5 KG").await, vec![ARROZ]);
    // "Arroz Integral 1 kg" is stored as "1kg" too.
    assert_eq!(buscar(&app, "arroz 1kg").await, vec![ARROZ_1KG]);
    assert_eq!(buscar(&app, "1 kg").await.len(), 2, "Café em Grãos 1kg and Arroz Integral 1 kg");
}

#[tokio::test]
async fn the_closest_text_ranks_first() {
    let app = catalogo().await;
    // Both are rice; "arroz integral" is closer to the second's text.
    assert_eq!(buscar(&app, "arroz integral").await, vec![ARROZ_1KG]);
    // Both hold the word; the shorter text is the closer one (and the other is sold out).
    assert_eq!(buscar(&app, "arroz").await, vec![ARROZ, ARROZ_1KG]);
}

#[tokio::test]
async fn unlisted_products_are_out_of_the_listing_and_the_search() {
    let app = catalogo().await;
    app.db
        .client()
        .await
        .execute("UPDATE produto_vitrine SET listado = false WHERE sku = $1", &[&CAFE])
        .await
        .unwrap();
    assert_eq!(buscar(&app, "café").await, vec![CAFE_GRAOS]);
    let todos: Vec<Value> = app.http.get(app.url("/produtos")).send().await.unwrap().json().await.unwrap();
    assert!(todos.iter().all(|p| p["sku"] != CAFE), "{todos:?}");
    assert_eq!(todos.len(), 4);
    // Its own page still answers, saying it is unlisted.
    let p: Value =
        app.http.get(app.url(&format!("/produtos/{CAFE}"))).send().await.unwrap().json().await.unwrap();
    assert_eq!(p["listado"], false);
}

#[tokio::test]
async fn a_query_over_100_characters_is_a_400_naming_busca() {
    let app = catalogo().await;
    let res = app.http.get(app.url("/produtos")).query(&[("busca", "a".repeat(101))]).send().await.unwrap();
    assert_eq!(res.status(), 400);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["detail"], "Parâmetro inválido: busca deve ter no máximo 100 caracteres.");
    assert_eq!(buscar(&app, &"a".repeat(100)).await, Vec::<String>::new(), "100 is accepted");
}

#[tokio::test]
async fn a_word_that_names_a_category_finds_its_products() {
    // Issue 39: "bebida" and "refrigerante" find the drinks though neither is in their names.
    let app = catalogo().await;
    classificar_no_banco(&app, COCA, json!(["coca", "cola", "2l", "pet"]), "bebidas").await;
    for q in ["bebida", "Bebidas", "refrigerante", "REFRIGERANTES", "refrigerante 2l"] {
        assert_eq!(buscar(&app, q).await, vec![COCA], "{q}");
    }
    assert_eq!(buscar(&app, "refrigerante arroz").await, Vec::<String>::new(), "every word still counts");
    assert_eq!(buscar(&app, "mercearia").await, vec![CAFE], "the tag, and the category's own name");
}

#[tokio::test]
async fn more_matches_than_a_page_answer_the_best_100_in_rank_order() {
    // Issue 40: a search with many matches reads one text length at a time and stops at 100; one
    // with few sorts them all. 1 500 products over 30+ lengths (a word in common, sold-out ones
    // among them): either way the answer must be the first 100 of every match in the documented
    // rank, for common, long, short and mixed words.
    let app = mercado(&[]).await;
    let c = app.db.client().await;
    c.execute(
        "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
         SELECT (7890000000000 + i)::text, \
                'Café ' || CASE WHEN i % 3 = 0 THEN 'Moído ' ELSE 'Grãos ' END || repeat('x', (i * 7) % 30) || ' ' || i, \
                9.90, i % 4, 1, 10, CASE WHEN i % 4 = 0 THEN 'ESGOTADO' ELSE 'DISPONIVEL' END \
         FROM generate_series(1, 1500) AS i",
        &[],
    )
    .await
    .unwrap();
    let oraculo = |palavras: &[&str]| {
        let palavras: Vec<String> = palavras.iter().map(|w| w.to_string()).collect();
        let c = &c;
        async move {
            c.query(
                "SELECT sku FROM produto_vitrine \
                  WHERE (SELECT bool_and(busca LIKE '%' || giro_normalizar(w) || '%') FROM unnest($1::text[]) AS w) \
                  ORDER BY length(busca), CASE WHEN status = 'DISPONIVEL' THEN 0 ELSE 1 END, nome, sku LIMIT 100",
                &[&palavras],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get::<_, String>(0))
            .collect::<Vec<String>>()
        }
    };
    // (query, its words, what it answers: a page, or every match): 1 500, 500, 300, 1 450, 23
    // match; then words shorter than a trigram that few texts hold (mercado V31's index): 35 hold
    // "29", 34 of them "x" too, none "zq".
    for (q, palavras, n) in [
        ("café", &["café"][..], 100),
        ("CAFE moido", &["cafe", "moido"][..], 100),
        ("moído xxxxxxxxxx", &["moído", "xxxxxxxxxx"][..], 100),
        ("x", &["x"][..], 100),
        ("grãos 29", &["grãos", "29"][..], 23),
        ("29", &["29"][..], 35),
        ("x 29", &["x", "29"][..], 34),
        ("zq", &["zq"][..], 0),
    ] {
        let esperado = oraculo(palavras).await;
        assert_eq!(esperado.len(), n, "{q}: the oracle");
        assert_eq!(buscar(&app, q).await, esperado, "{q}");
    }
}
