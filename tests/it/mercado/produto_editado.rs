//! Issue 39 §4: the owner renames, describes and categorises a product (`PATCH
//! /operacao/produtos/{sku}`) and gives it an image (`PUT`/`DELETE
//! /operacao/produtos/{sku}/imagem`, served at `GET /produtos/{sku}/imagem`): what the storefront
//! then shows, the caching of the image, and every refusal (4xx problem+json, nothing written).

use serde_json::{json, Value};

use crate::mercado::fixtures::*;
use crate::support::app::{assert_400, Operador, TestApp};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR-not-a-real-picture";
const JPEG: &[u8] = b"\xFF\xD8\xFF\xE0\0\x10JFIF\0-not-a-real-picture";

async fn patch(app: &TestApp, op: &Operador, body: &Value) -> reqwest::Response {
    op.on(app.http.patch(app.url(&format!("/operacao/produtos/{COCA}")))).json(body).send().await.unwrap()
}

async fn enviar(app: &TestApp, op: &Operador, sku: &str, tipo: &str, bytes: &[u8]) -> reqwest::Response {
    let rb = op.on(app.http.put(app.url(&format!("/operacao/produtos/{sku}/imagem"))));
    rb.header("content-type", tipo).body(bytes.to_vec()).send().await.unwrap()
}

async fn vitrine(app: &TestApp) -> Value {
    app.http.get(app.url(&format!("/produtos/{COCA}"))).send().await.unwrap().json().await.unwrap()
}

/// (nome, descricao, categoria, imagem is set, versao) of COCA.
async fn no_banco(app: &TestApp) -> (String, Option<String>, Option<String>, bool, i64) {
    let stmt =
        "SELECT nome, descricao, categoria, imagem IS NOT NULL, versao FROM produto_vitrine WHERE sku = $1";
    let r = app.db.client().await.query_one(stmt, &[&COCA]).await.unwrap();
    (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4))
}

#[tokio::test]
async fn a_product_is_renamed_described_and_categorised_and_the_storefront_shows_it() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca Cola 2L PTE", "8.99", 10, 6, 24).await;
    let op = Operador::login(&app).await;
    let eventos = contar(&app, "outbox_event").await;

    let body = json!({"nome": "  Coca-Cola 2L PET ", "descricao": "Refrigerante de cola, garrafa PET de 2 litros.", "categoria": "bebidas"});
    let res = patch(&app, &op, &body).await;
    assert_eq!(res.status(), 200);
    let p: Value = res.json().await.unwrap();
    assert_eq!(
        (&p["nome"], &p["categoria"], &p["imagem"]),
        (&json!("Coca-Cola 2L PET"), &json!("bebidas"), &Value::Null)
    );
    assert_eq!(p["descricao"], "Refrigerante de cola, garrafa PET de 2 litros.");

    let p = vitrine(&app).await;
    assert_eq!((&p["nome"], &p["categoria"]), (&json!("Coca-Cola 2L PET"), &json!("bebidas")));
    assert_eq!(p["descricao"], "Refrigerante de cola, garrafa PET de 2 litros.");
    // The search reads the new name (the generated `busca` column follows it).
    let achados: Vec<Value> =
        app.http.get(app.url("/produtos?busca=coca-cola pet")).send().await.unwrap().json().await.unwrap();
    assert_eq!(achados.len(), 1, "{achados:?}");
    // No event carries the name: estoque is told nothing of a rename.
    assert_eq!(contar(&app, "outbox_event").await, eventos);

    // A classification older than the owner's edit does not undo the category.
    let velho = produto_classificado(COCA, &["refrigerante"], "mercearia", "2026-01-01T00:00:00Z");
    assert_eq!(evento(&app, "ProdutoClassificado", &velho).await, 204);
    assert_eq!(vitrine(&app).await["categoria"], "bebidas");

    // A blank description clears it; the rest stays.
    assert_eq!(patch(&app, &op, &json!({"descricao": "  "})).await.status(), 200);
    let (nome, descricao, categoria, _, _) = no_banco(&app).await;
    assert_eq!((nome.as_str(), descricao, categoria.as_deref()), ("Coca-Cola 2L PET", None, Some("bebidas")));
}

#[tokio::test]
async fn an_edit_that_leaves_the_category_alone_does_not_date_a_classification_the_product_never_had() {
    // A price edit on a product not yet classified, then a classification made before the edit
    // that arrives after it (the outbox's lag): it is applied — the edit was no classification.
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    let op = Operador::login(&app).await;
    assert_eq!(patch(&app, &op, &json!({"preco": 9.49, "descricao": "Garrafa PET."})).await.status(), 200);
    let stmt = "SELECT classificado_em IS NULL FROM produto_vitrine WHERE sku = $1";
    assert!(app.db.client().await.query_one(stmt, &[&COCA]).await.unwrap().get::<_, bool>(0));
    let antes = produto_classificado(COCA, &["coca", "cola"], "bebidas", "2026-01-01T00:00:00Z");
    assert_eq!(evento(&app, "ProdutoClassificado", &antes).await, 204);
    assert_eq!(vitrine(&app).await["categoria"], "bebidas");
}

#[tokio::test]
async fn bad_names_descriptions_and_categories_are_400_naming_the_field_and_write_nothing() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    let op = Operador::login(&app).await;
    let casos: Vec<(Value, &str)> = vec![
        (json!({"nome": ""}), "nome não deve estar em branco"),
        (json!({"nome": "   "}), "nome não deve estar em branco"),
        (json!({"nome": "x".repeat(256)}), "nome tamanho deve ser entre 0 e 255"),
        (json!({"nome": 7}), "nome deve ser um texto"),
        (json!({"nome": null}), "informe ao menos um de nome, descricao, categoria"),
        (json!({"descricao": "é".repeat(2001)}), "descricao tamanho deve ser entre 0 e 2000"),
        (json!({"descricao": ["a"]}), "descricao deve ser um texto"),
        (json!({"categoria": " "}), "categoria não deve estar em branco"),
        (json!({"categoria": "c".repeat(31)}), "categoria tamanho deve ser entre 0 e 30"),
        (json!({"categoria": true}), "categoria deve ser um texto"),
        // One bad field refuses the good ones with it.
        (json!({"nome": "Novo nome", "categoria": ""}), "categoria não deve estar em branco"),
    ];
    for (body, esperado) in casos {
        assert_400(patch(&app, &op, &body).await, &body, esperado).await;
    }
    assert_eq!(no_banco(&app).await, ("Coca-Cola 2L PET".into(), None, None, false, 0), "nothing written");
}

#[tokio::test]
async fn an_uploaded_image_is_served_with_an_etag_a_304_and_named_in_the_product() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    let op = Operador::login(&app).await;
    let res = app.http.get(app.url(&format!("/produtos/{COCA}/imagem"))).send().await.unwrap();
    assert_eq!(res.status(), 404, "no image yet");
    assert_eq!(res.headers()["content-type"], "application/problem+json");

    let res = enviar(&app, &op, COCA, "image/png", PNG).await;
    assert_eq!(res.status(), 200);
    let url = res.json::<Value>().await.unwrap()["imagem"].as_str().unwrap().to_string();
    let md5 = url.strip_prefix(&format!("/produtos/{COCA}/imagem?v=")).unwrap().to_string();
    assert_eq!(md5.len(), 32, "{url}");
    assert_eq!(vitrine(&app).await["imagem"], url.as_str(), "the storefront's JSON names it");

    let res = app.http.get(app.url(&url)).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let etag = format!("\"{md5}\"");
    assert_eq!(
        (&res.headers()["content-type"], &res.headers()["etag"]),
        (&"image/png".parse().unwrap(), &etag.parse().unwrap())
    );
    assert_eq!(res.headers()["cache-control"], "public, max-age=31536000, immutable", "the versioned URL");
    assert_eq!(res.headers()["x-content-type-options"], "nosniff");
    assert_eq!(res.headers()["content-security-policy"], "default-src 'none'; sandbox", "never a document");
    assert_eq!(res.bytes().await.unwrap().as_ref(), PNG);
    let res = app.http.get(app.url(&format!("/produtos/{COCA}/imagem"))).send().await.unwrap();
    assert_eq!(res.headers()["cache-control"], "public, no-cache", "the bare URL is revalidated");
    let res = app
        .http
        .get(app.url(&format!("/produtos/{COCA}/imagem")))
        .header("if-none-match", format!("\"other\", {etag}"))
        .send()
        .await
        .unwrap();
    assert_eq!((res.status().as_u16(), res.headers()["etag"].to_str().unwrap()), (304, etag.as_str()));
    assert!(res.bytes().await.unwrap().is_empty());
    for tem in [format!("W/{etag}"), "*".to_string()] {
        let res = app.http.get(app.url(&url)).header("if-none-match", &tem).send().await.unwrap();
        assert_eq!(res.status(), 304, "{tem}");
    }

    // Replaced: a new ETag, so a new URL.
    let res = enviar(&app, &op, COCA, "image/jpeg; charset=binary", JPEG).await;
    assert_eq!(res.status(), 200);
    let nova = res.json::<Value>().await.unwrap()["imagem"].as_str().unwrap().to_string();
    assert_ne!(nova, url);
    let res = app.http.get(app.url(&url)).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!((res.status().as_u16(), res.headers()["content-type"].to_str().unwrap()), (200, "image/jpeg"));
    assert_eq!(res.headers()["cache-control"], "public, no-cache", "a stale version is not kept a year");

    // Removed: null in the JSON, 404 again.
    let res =
        op.on(app.http.delete(app.url(&format!("/operacao/produtos/{COCA}/imagem")))).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap()["imagem"], Value::Null);
    assert_eq!(vitrine(&app).await["imagem"], Value::Null);
    assert_eq!(app.http.get(app.url(&nova)).send().await.unwrap().status(), 404);
}

#[tokio::test]
async fn bad_images_are_refused_with_a_problem_and_nothing_is_written() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 6, 24).await;
    let op = Operador::login(&app).await;
    let mut grande = PNG.to_vec();
    grande.resize(1024 * 1024 + 1, 0);
    let casos: Vec<(&str, &str, Vec<u8>, u16, &str)> = vec![
        (
            COCA,
            "image/gif",
            b"GIF89a....".to_vec(),
            415,
            "Content-Type da imagem deve ser image/jpeg, image/png ou image/webp",
        ),
        (COCA, "text/plain", PNG.to_vec(), 415, "Content-Type da imagem"),
        (COCA, "image/png", JPEG.to_vec(), 400, "imagem: o conteúdo não é um arquivo image/png"),
        (COCA, "image/webp", b"RIFF\0\0\0\0WEBX".to_vec(), 400, "não é um arquivo image/webp"),
        (COCA, "image/jpeg", Vec::new(), 400, "imagem não deve estar vazia"),
        (COCA, "image/png", grande, 413, "imagem grande demais: o máximo é 1 MB"),
        ("123", "image/png", PNG.to_vec(), 400, "sku deve corresponder a"),
        (BANANA, "image/png", PNG.to_vec(), 404, "Produto não encontrado na vitrine"),
    ];
    for (sku, tipo, bytes, status, detail) in casos {
        let res = enviar(&app, &op, sku, tipo, &bytes).await;
        assert_eq!(res.status(), status, "{tipo} {detail}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let p: Value = res.json().await.unwrap();
        assert!(p["detail"].as_str().unwrap().contains(detail), "{p}");
    }
    // Anonymous with a CSRF pair: 401; the session without the CSRF header: 403.
    let url = app.url(&format!("/operacao/produtos/{COCA}/imagem"));
    let csrf = "0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a";
    let anonimo = |rb: reqwest::RequestBuilder| {
        rb.header("cookie", format!("XSRF-MERCADO={csrf}")).header("x-xsrf-token", csrf)
    };
    let res = anonimo(app.http.put(&url)).header("content-type", "image/png").body(PNG).send().await.unwrap();
    assert_eq!(res.status(), 401);
    assert_eq!(anonimo(app.http.delete(&url)).send().await.unwrap().status(), 401);
    let res = app.http.put(&url).header("cookie", &op.cookie).header("content-type", "image/png").body(PNG);
    assert_eq!(res.send().await.unwrap().status(), 403);
    assert_eq!(no_banco(&app).await, ("Coca-Cola 2L PET".into(), None, None, false, 0), "nothing written");

    // Exactly the bound is accepted: this route alone takes more than the JSON routes' 64 KiB.
    let mut no_limite = PNG.to_vec();
    no_limite.resize(1024 * 1024, 0);
    assert_eq!(enviar(&app, &op, COCA, "image/png", &no_limite).await.status(), 200);
    assert!(no_banco(&app).await.3);
}
