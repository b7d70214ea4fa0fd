//! The OpenAPI documents (`openapi/<service>.json`, served at `GET /openapi.json`, issue 18)
//! against the code and the running services:
//!
//! - every `.route("…", get(…).post(…))` in `src/` and `crates/` (a role's files for that service,
//!   the shared ones for both) is described with each of its methods, and the document describes nothing else;
//! - every example in the document validates against its schema;
//! - real answers of a running service validate against the schema the document gives for their
//!   status, which must be documented, so example and answer cannot drift apart.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use giro_servicos::config::Servico;
use serde_json::{json, Value};

use crate::support::app::{spawn_app, Operador, TestApp};

fn doc(servico: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("openapi/{servico}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `(METHOD, /path)` of every `.route(…)` call in the code that `servico` serves: files under
/// `src/<servico>/`, every other file of `src/` and every file of the shared crates
/// (`crates/*/src`). `{*rest}` becomes `{rest}`.
fn code_routes(servico: &str) -> BTreeSet<(String, String)> {
    let other = if servico == "mercado" { "estoque" } else { "mercado" };
    let mut files = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates"), &mut files);
    let mut out = BTreeSet::new();
    for f in files {
        if f.components().any(|c| c.as_os_str() == other) {
            continue;
        }
        let src = std::fs::read_to_string(&f).unwrap();
        for (i, _) in src.match_indices(".route(") {
            let call = &src[i + ".route(".len()..];
            let Some(start) = call.find('"') else { continue };
            if !call[..start].trim().is_empty() {
                continue;
            }
            let end = start + 1 + call[start + 1..].find('"').unwrap();
            let path = call[start + 1..end].replace("{*", "{");
            // The rest of the call, up to its closing parenthesis.
            let (mut depth, mut stop) = (1i32, call.len());
            for (j, ch) in call.char_indices().skip(end + 1) {
                match ch {
                    '(' => depth += 1,
                    ')' => {
                        depth -= 1;
                        if depth == 0 {
                            stop = j;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let body = &call[end + 1..stop];
            for m in ["get", "post", "put", "delete", "patch"] {
                let found = body.match_indices(&format!("{m}(")).any(|(k, _)| {
                    k == 0 || !body[..k].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                });
                if found {
                    out.insert((m.to_uppercase(), path.clone()));
                }
            }
        }
    }
    out
}

fn doc_routes(d: &Value) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for (path, item) in d["paths"].as_object().unwrap() {
        for m in item.as_object().unwrap().keys() {
            out.insert((m.to_uppercase(), path.clone()));
        }
    }
    out
}

fn resolve<'a>(d: &'a Value, s: &'a Value) -> &'a Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/components/schemas/");
            resolve(d, &d["components"]["schemas"][name])
        }
        None => s,
    }
}

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => false,
    }
}

/// A subset of JSON Schema enough for these documents: `$ref`, `type` (one or a list), `enum`,
/// `properties`/`required`/`additionalProperties: false`, `items`, `oneOf`, `minimum`,
/// `minItems`/`maxItems`. Errors name the JSON path.
fn validate(d: &Value, schema: &Value, v: &Value, at: &str, errs: &mut Vec<String>) {
    let s = resolve(d, schema);
    if let Some(alts) = s.get("oneOf").and_then(Value::as_array) {
        let ok = alts.iter().any(|a| {
            let mut e = Vec::new();
            validate(d, a, v, at, &mut e);
            e.is_empty()
        });
        if !ok {
            errs.push(format!("{at}: matches none of oneOf: {v}"));
        }
        return;
    }
    if let Some(t) = s.get("type") {
        let ok = match t {
            Value::String(t) => type_ok(t, v),
            Value::Array(ts) => ts.iter().any(|t| type_ok(t.as_str().unwrap_or(""), v)),
            _ => true,
        };
        if !ok {
            errs.push(format!("{at}: expected type {t}, got {v}"));
            return;
        }
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array) {
        if !v.is_null() && !e.contains(v) {
            errs.push(format!("{at}: {v} not in {e:?}"));
        }
    }
    if let (Some(min), Some(n)) = (s.get("minimum").and_then(Value::as_f64), v.as_f64()) {
        if n < min {
            errs.push(format!("{at}: {n} < minimum {min}"));
        }
    }
    if let Some(o) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for r in s.get("required").and_then(Value::as_array).into_iter().flatten() {
            let r = r.as_str().unwrap();
            if !o.contains_key(r) {
                errs.push(format!("{at}: missing required {r}"));
            }
        }
        for (k, val) in o {
            match props.and_then(|p| p.get(k)) {
                Some(ps) => validate(d, ps, val, &format!("{at}.{k}"), errs),
                None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    errs.push(format!("{at}: property {k} not in the schema"))
                }
                None => {}
            }
        }
    }
    if let Some(a) = v.as_array() {
        if let Some(n) = s.get("minItems").and_then(Value::as_u64) {
            if (a.len() as u64) < n {
                errs.push(format!("{at}: fewer than {n} items"));
            }
        }
        if let Some(items) = s.get("items") {
            for (i, x) in a.iter().enumerate() {
                validate(d, items, x, &format!("{at}[{i}]"), errs);
            }
        }
    }
}

#[test]
fn each_document_describes_exactly_the_routes_of_its_service() {
    for servico in ["estoque", "mercado"] {
        let d = doc(servico);
        assert_eq!(d["openapi"], "3.1.0");
        let code = code_routes(servico);
        let documented = doc_routes(&d);
        let undocumented: Vec<_> = code.difference(&documented).collect();
        let not_routes: Vec<_> = documented.difference(&code).collect();
        assert!(
            undocumented.is_empty() && not_routes.is_empty(),
            "{servico}: routes not in openapi/{servico}.json: {undocumented:?}; documented but not routes: {not_routes:?}"
        );
        assert!(code.len() > 20, "{servico}: the route scan found too little: {code:?}");
    }
}

#[test]
fn every_example_validates_against_its_schema_and_every_operation_documents_its_answers() {
    for servico in ["estoque", "mercado"] {
        let d = doc(servico);
        let mut errs = Vec::new();
        for (path, item) in d["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                let at = format!("{servico} {} {path}", method.to_uppercase());
                let responses = op["responses"].as_object().unwrap();
                assert!(!responses.is_empty(), "{at}: no responses");
                assert!(op["summary"].is_string(), "{at}: no summary");
                let mut contents: Vec<(String, &Value)> = responses
                    .iter()
                    .flat_map(|(st, r)| {
                        r["content"].as_object().into_iter().flatten().map(move |(_, c)| (st.clone(), c))
                    })
                    .collect();
                if let Some(c) = op["requestBody"]["content"].as_object() {
                    contents.extend(c.values().map(|c| ("request".to_string(), c)));
                }
                for (st, c) in contents {
                    if let Some(ex) = c.get("example") {
                        validate(&d, &c["schema"], ex, &format!("{at} {st} example"), &mut errs);
                    }
                }
            }
        }
        assert!(errs.is_empty(), "{}", errs.join("\n"));
    }
}

/// Sends a request and checks its answer against the document: the status is documented for
/// the operation, and a JSON body validates against that status's schema.
async fn check(
    app: &TestApp,
    d: &Value,
    op: Option<&Operador>,
    method: &str,
    template: &str,
    url_path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut rb = app.http.request(m, app.url(url_path));
    if let Some(op) = op {
        rb = op.on(rb);
    }
    if let Some(b) = body {
        rb = rb.json(&b);
    }
    let res = rb.send().await.unwrap();
    let status = res.status().as_u16();
    let ctype =
        res.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    let text = res.text().await.unwrap();
    let documented = &d["paths"][template][method.to_lowercase()]["responses"][status.to_string()];
    assert!(
        documented.is_object(),
        "{method} {template} answered {status}, which the document does not list: {text}"
    );
    let mut value = Value::Null;
    if ctype.contains("json") && !text.is_empty() {
        value = serde_json::from_str(&text).unwrap();
        let media = ctype.split(';').next().unwrap().trim();
        let schema = &documented["content"][media]["schema"];
        assert!(schema.is_object(), "{method} {template} {status}: no schema for {media} in the document");
        let mut errs = Vec::new();
        validate(d, schema, &value, &format!("{method} {template} {status}"), &mut errs);
        assert!(errs.is_empty(), "the real answer does not validate:\n{}\n{text}", errs.join("\n"));
    }
    (status, value)
}

fn request_example(d: &Value, template: &str, method: &str) -> Value {
    d["paths"][template][method]["requestBody"]["content"]["application/json"]["example"].clone()
}

fn lote_exemplo(d: &Value) -> Value {
    request_example(d, "/lotes", "post")
}

#[tokio::test]
async fn estoque_answers_as_its_document_says() {
    let app = spawn_app(Servico::Estoque, &[("TAG_WORKER_URL", "http://127.0.0.1:9")]).await;
    let d = doc("estoque");
    let served: Value = app.http.get(app.url("/openapi.json")).send().await.unwrap().json().await.unwrap();
    assert_eq!(served, d, "GET /openapi.json serves the document");
    for p in ["/healthz", "/readyz", "/actuator/health", "/sessao", "/painel/resumo", "/operacao/outbox"] {
        check(&app, &d, None, "GET", p, p, None).await;
    }
    let op = Operador::login(&app).await;
    let lote = request_example(&d, "/lotes", "post");
    assert_eq!(check(&app, &d, Some(&op), "POST", "/lotes", "/lotes", Some(lote.clone())).await.0, 201);
    assert_eq!(check(&app, &d, Some(&op), "POST", "/lotes", "/lotes", Some(lote)).await.0, 409);
    check(&app, &d, Some(&op), "POST", "/lotes", "/lotes", Some(json!({"sku": "1"}))).await;
    for p in ["/sessao", "/painel/resumo", "/painel/demandas", "/painel/reposicoes", "/operacao/outbox"] {
        check(&app, &d, Some(&op), "GET", p, p, None).await;
    }
    check(&app, &d, Some(&op), "GET", "/painel/reposicoes", "/painel/reposicoes?limite=x", None).await;
    check(&app, &d, Some(&op), "GET", "/produtos/{sku}", "/produtos/7894900011517", None).await;
    check(&app, &d, Some(&op), "GET", "/produtos/{sku}", "/produtos/7890000000017", None).await;
    // The inventory (issue 26): the list, a bad filter, a SKU, an unknown one, and write-offs
    // of an expired lot (200, then 409: nothing left), of a valid lot and of an unknown one.
    let sku = lote_exemplo(&d)["sku"].as_str().unwrap().to_string();
    let vencido = json!({"sku": sku, "codigoLote": "L-OPENAPI-V", "quantidade": 3, "validade": "2020-01-20",
                         "confirmarVencido": true});
    assert_eq!(check(&app, &d, Some(&op), "POST", "/lotes", "/lotes", Some(vencido)).await.0, 201);
    let t = "/painel/estoque";
    check(&app, &d, Some(&op), "GET", t, t, None).await;
    check(&app, &d, Some(&op), "GET", t, "/painel/estoque?estado=vencido", None).await;
    check(
        &app,
        &d,
        Some(&op),
        "GET",
        t,
        "/painel/estoque?busca=coca&estado=com-saldo&pagina=1&tamanho=5",
        None,
    )
    .await;
    let t = "/painel/estoque/{sku}";
    assert_eq!(check(&app, &d, Some(&op), "GET", t, &format!("/painel/estoque/{sku}"), None).await.0, 200);
    assert_eq!(check(&app, &d, Some(&op), "GET", t, "/painel/estoque/7890000000017", None).await.0, 404);
    let t = "/painel/estoque/{sku}/lotes/{codigoLote}/baixa";
    let baixa = format!("/painel/estoque/{sku}/lotes/L-OPENAPI-V/baixa");
    assert_eq!(check(&app, &d, Some(&op), "POST", t, &baixa, None).await.0, 200);
    assert_eq!(check(&app, &d, Some(&op), "POST", t, &baixa, None).await.0, 409);
    let valido =
        format!("/painel/estoque/{sku}/lotes/{}/baixa", lote_exemplo(&d)["codigoLote"].as_str().unwrap());
    assert_eq!(check(&app, &d, Some(&op), "POST", t, &valido, None).await.0, 409);
    // Issue 39: part of a valid lot for a reason (the request's example), and a bad quantity.
    let exemplo = request_example(&d, t, "post");
    assert_eq!(check(&app, &d, Some(&op), "POST", t, &valido, Some(exemplo)).await.0, 200);
    assert_eq!(check(&app, &d, Some(&op), "POST", t, &valido, Some(json!({"quantidade": 0}))).await.0, 400);
    let nenhum = format!("/painel/estoque/{sku}/lotes/NENHUM/baixa");
    assert_eq!(check(&app, &d, Some(&op), "POST", t, &nenhum, None).await.0, 404);
    assert_eq!(check(&app, &d, None, "POST", t, &nenhum, None).await.0, 403, "no CSRF");
    let t = "/operacao/outbox/eventos";
    check(&app, &d, Some(&op), "GET", t, t, None).await;
    check(&app, &d, Some(&op), "GET", t, "/operacao/outbox/eventos?status=perdido", None).await;
    let t = "/operacao/outbox/eventos/{id}/reenvio";
    check(
        &app,
        &d,
        Some(&op),
        "POST",
        t,
        "/operacao/outbox/eventos/0b8f6a4e-9a53-4d0e-9a3a-4b5e0e5a1c7d/reenvio",
        None,
    )
    .await;
    check(&app, &d, Some(&op), "POST", "/operacao/outbox/reenvio", "/operacao/outbox/reenvio", None).await;
    let res =
        app.as_servico(app.http.post(app.url("/eventos/lote"))).json(&json!({"eventos": []})).send().await;
    assert_eq!(res.unwrap().status(), 200);
}

#[tokio::test]
async fn mercado_answers_as_its_document_says() {
    let app = spawn_app(Servico::Mercado, &[("ESTOQUE_URL", "http://127.0.0.1:9")]).await;
    let d = doc("mercado");
    let served: Value = app.http.get(app.url("/openapi.json")).send().await.unwrap().json().await.unwrap();
    assert_eq!(served, d, "GET /openapi.json serves the document");
    let op = Operador::login(&app).await;
    // estoque is down: registration goes on unclassified (SPEC §10).
    let novo = request_example(&d, "/produtos", "post");
    assert_eq!(check(&app, &d, Some(&op), "POST", "/produtos", "/produtos", Some(novo.clone())).await.0, 201);
    assert_eq!(check(&app, &d, Some(&op), "POST", "/produtos", "/produtos", Some(novo)).await.0, 409);
    check(&app, &d, None, "GET", "/produtos", "/produtos", None).await;
    check(&app, &d, None, "GET", "/produtos/{sku}", "/produtos/7894900011517", None).await;
    check(&app, &d, None, "GET", "/produtos/{sku}", "/produtos/7890000000017", None).await;
    let t = "/produtos/{sku}/imagem";
    assert_eq!(
        check(&app, &d, None, "GET", t, "/produtos/7894900011517/imagem", None).await.0,
        404,
        "no image"
    );
    let compra = request_example(&d, "/pedidos", "post");
    assert_eq!(check(&app, &d, None, "POST", "/pedidos", "/pedidos", Some(compra)).await.0, 409, "shelf 0");
    check(&app, &d, None, "POST", "/pedidos", "/pedidos", Some(json!({"itens": []}))).await;
    let sem_produto = json!({"itens": [{"sku": "7890000000017", "qtd": 1}]});
    assert_eq!(check(&app, &d, None, "POST", "/pedidos", "/pedidos", Some(sem_produto)).await.0, 422);
    let id = "3f0c9a2e-1b4d-4e6f-8a7b-9c0d1e2f3a4b";
    check(&app, &d, None, "GET", "/pedidos/{id}", &format!("/pedidos/{id}"), None).await;
    check(&app, &d, None, "GET", "/pedidos/{id}", "/pedidos/xyz", None).await;
    check(&app, &d, None, "POST", "/pedidos/{id}/pagamento", &format!("/pedidos/{id}/pagamento"), None).await;
    check(&app, &d, Some(&op), "GET", "/operacao/produtos", "/operacao/produtos", None).await;
    // Issue 26: the owner's orders and product changes.
    let t = "/operacao/produtos/{sku}";
    let alteracao = request_example(&d, t, "patch");
    assert_eq!(
        check(&app, &d, Some(&op), "PATCH", t, "/operacao/produtos/7894900011517", Some(alteracao.clone()))
            .await
            .0,
        200
    );
    assert_eq!(
        check(&app, &d, Some(&op), "PATCH", t, "/operacao/produtos/7890000000017", Some(alteracao)).await.0,
        404
    );
    assert_eq!(
        check(&app, &d, Some(&op), "PATCH", t, "/operacao/produtos/7894900011517", Some(json!({}))).await.0,
        400
    );
    assert_eq!(
        check(&app, &d, None, "PATCH", t, "/operacao/produtos/7894900011517", Some(json!({"preco": 1})))
            .await
            .0,
        403,
        "no CSRF"
    );
    let (_, pagina) = check(&app, &d, Some(&op), "GET", "/operacao/pedidos", "/operacao/pedidos", None).await;
    assert_eq!(pagina["total"], 0);
    assert_eq!(
        check(&app, &d, Some(&op), "GET", "/operacao/pedidos", "/operacao/pedidos?tamanho=500", None).await.0,
        400
    );
    let t = "/operacao/pedidos/{id}";
    assert_eq!(check(&app, &d, Some(&op), "GET", t, &format!("/operacao/pedidos/{id}"), None).await.0, 404);
    let q = "/operacao/pedidos?numero=1001";
    assert_eq!(check(&app, &d, Some(&op), "GET", "/operacao/pedidos", q, None).await.0, 200);
    let t = "/operacao/pedidos/{id}/cancelamento";
    assert_eq!(
        check(&app, &d, Some(&op), "POST", t, &format!("/operacao/pedidos/{id}/cancelamento"), None).await.0,
        404
    );
    assert_eq!(
        check(&app, &d, Some(&op), "POST", t, "/operacao/pedidos/xyz/cancelamento", None).await.0,
        400
    );
    assert_eq!(
        check(&app, &d, None, "POST", t, &format!("/operacao/pedidos/{id}/cancelamento"), None).await.0,
        403
    );
    let t = "/operacao/pedidos/{id}";
    assert_eq!(check(&app, &d, Some(&op), "GET", t, "/operacao/pedidos/xyz", None).await.0, 400);
    assert_eq!(check(&app, &d, None, "GET", t, &format!("/operacao/pedidos/{id}"), None).await.0, 401);
    check(&app, &d, None, "GET", "/produtos", &format!("/produtos?busca={}", "a".repeat(101)), None).await;
    let t = "/operacao/estoque/produtos/{sku}";
    check(&app, &d, Some(&op), "GET", t, "/operacao/estoque/produtos/123", None).await;
    check(&app, &d, Some(&op), "GET", t, "/operacao/estoque/produtos/7894900011517", None).await;
    let (_, page) =
        check(&app, &d, Some(&op), "GET", "/operacao/outbox/eventos", "/operacao/outbox/eventos", None).await;
    assert!(page["total"].as_i64().unwrap() >= 1, "the registration's ReposicaoSolicitada: {page}");
    check(&app, &d, Some(&op), "GET", "/operacao/outbox", "/operacao/outbox", None).await;
    let t = "/operacao/outbox/eventos/{id}";
    let pendente = page["eventos"][0]["id"].as_str().unwrap();
    check(&app, &d, Some(&op), "DELETE", t, &format!("/operacao/outbox/eventos/{pendente}"), None).await;
    check(&app, &d, None, "GET", "/sessao", "/sessao", None).await;
}
