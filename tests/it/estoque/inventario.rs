//! The inventory and the write-off (issue 26, SPEC §6.2.1): `GET /painel/estoque` (states,
//! balances, filters, pages), `GET /painel/estoque/{sku}` (lots in FEFO order, history) and
//! `POST /painel/estoque/{sku}/lotes/{codigoLote}/baixa` (operator + CSRF; the movement row).

use chrono::{DateTime, NaiveDate, Utc};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::estoque::fixtures::*;
use crate::support::app::{Operador, TestApp};
use crate::support::OPERADOR;

const PAO: &str = "7891962047205";

async fn get(app: &TestApp, op: &Operador, path: &str) -> (u16, Value) {
    let res = op.on(app.http.get(app.url(path))).send().await.unwrap();
    let status = res.status().as_u16();
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn baixar(app: &TestApp, op: &Operador, sku: &str, lote: &str) -> (u16, Value, String) {
    let res = op
        .on(app.http.post(app.url(&format!("/painel/estoque/{sku}/lotes/{lote}/baixa"))))
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    let tipo = res.headers().get("content-type").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    (status, res.json().await.unwrap_or(Value::Null), tipo)
}

fn skus(body: &Value) -> Vec<&str> {
    body["itens"].as_array().unwrap().iter().map(|i| i["sku"].as_str().unwrap()).collect()
}

/// COCA: a valid lot and an expired one, and an open demand; BANANA: only expired units; PAO:
/// nothing at all.
async fn cenario(app: &TestApp) {
    produto(app, COCA, "COCA COLA 2L PET", None).await;
    produto(app, BANANA, "BANANA PRATA KG", None).await;
    produto(app, PAO, "PAO DE FORMA 400G", None).await;
    lote(app, BANANA, "B-VENCIDO", 60, Some(-1)).await;
    assert_eq!(solicitar(app, Uuid::new_v4(), PAO, 7).await, 204, "PAO: no lot, a demand");
    lote(app, COCA, "C-VENCIDO", 4, Some(-3)).await;
    lote(app, COCA, "C-10", 10, Some(10)).await;
    lote(app, COCA, "C-40", 12, Some(40)).await;
}

#[tokio::test]
async fn the_list_shows_valid_and_expired_balance_open_demand_and_next_expiry_per_sku() {
    let app = estoque(&[]).await;
    cenario(&app).await;
    let op = Operador::login(&app).await;

    let (status, body) = get(&app, &op, "/painel/estoque").await;

    assert_eq!(status, 200, "{body}");
    let em10 = hoje_mais(&app, 10).await;
    assert_eq!(
        body,
        json!({"itens": [
            {"sku": BANANA, "descricao": "BANANA PRATA KG", "categoria": null, "estado": "so-vencido",
             "saldoValido": 0, "saldoVencido": 60, "demandaAberta": 0, "demandasAbertas": 0, "proximaValidade": null},
            {"sku": COCA, "descricao": "COCA COLA 2L PET", "categoria": null, "estado": "com-saldo",
             "saldoValido": 22, "saldoVencido": 4, "demandaAberta": 0, "demandasAbertas": 0, "proximaValidade": em10},
            {"sku": PAO, "descricao": "PAO DE FORMA 400G", "categoria": null, "estado": "zerado",
             "saldoValido": 0, "saldoVencido": 0, "demandaAberta": 7, "demandasAbertas": 1, "proximaValidade": null},
         ], "total": 3, "pagina": 1, "tamanho": 20})
    );
}

#[tokio::test]
async fn the_list_filters_by_state_and_text_and_pages() {
    let app = estoque(&[]).await;
    cenario(&app).await;
    let op = Operador::login(&app).await;

    for (estado, esperado) in [
        ("com-saldo", vec![COCA]),
        ("so-vencido", vec![BANANA]),
        ("zerado", vec![PAO]),
        ("sem-saldo-valido", vec![BANANA, PAO]),
        ("vencendo", vec![COCA]),
        ("com-demanda", vec![PAO]),
    ] {
        let (status, body) = get(&app, &op, &format!("/painel/estoque?estado={estado}")).await;
        assert_eq!(status, 200, "{estado}: {body}");
        assert_eq!(skus(&body), esperado, "{estado}");
        assert_eq!(body["total"], esperado.len(), "{estado}");
    }
    // The KPI "SKUs sem saldo válido" and its filter count the same SKUs.
    let (_, resumo) = get(&app, &op, "/painel/resumo").await;
    let (_, sem) = get(&app, &op, "/painel/estoque?estado=sem-saldo-valido").await;
    assert_eq!(resumo["skusSemSaldo"], sem["total"]);

    // Text: part of the description, any case, or the start of the SKU; LIKE wildcards literal.
    let (_, body) = get(&app, &op, "/painel/estoque?busca=coca%20cola").await;
    assert_eq!(skus(&body), vec![COCA]);
    let (_, body) = get(&app, &op, "/painel/estoque?busca=PRATA").await;
    assert_eq!(skus(&body), vec![BANANA]);
    // Accents and case aside (issue 39 §6): "pão de forma" finds "PAO DE FORMA 400G".
    for q in ["p%C3%A3o%20de%20forma", "P%C3%83O", "pao"] {
        let (_, body) = get(&app, &op, &format!("/painel/estoque?busca={q}")).await;
        assert_eq!(skus(&body), vec![PAO], "{q}");
    }
    let (_, body) = get(&app, &op, "/painel/estoque?busca=789196").await;
    assert_eq!(skus(&body), vec![PAO]);
    let (_, body) = get(&app, &op, "/painel/estoque?busca=%25").await;
    assert_eq!(body["total"], 0, "% is a character, not a wildcard");
    let (_, body) = get(&app, &op, "/painel/estoque?busca=a&estado=com-saldo").await;
    assert_eq!(skus(&body), vec![COCA], "both filters apply");

    // Pages: the total counts every page; a page past the end is empty with the same total.
    let (_, body) = get(&app, &op, "/painel/estoque?tamanho=2&pagina=2").await;
    assert_eq!(skus(&body), vec![PAO]);
    assert_eq!(
        (body["total"].as_i64(), body["pagina"].as_i64(), body["tamanho"].as_i64()),
        (Some(3), Some(2), Some(2))
    );
    let (_, body) = get(&app, &op, "/painel/estoque?tamanho=2&pagina=9").await;
    assert_eq!(skus(&body), Vec::<&str>::new());
    assert_eq!(body["total"], 3);
}

#[tokio::test]
async fn bad_parameters_are_400_problems_naming_the_parameter() {
    let app = estoque(&[]).await;
    let op = Operador::login(&app).await;
    let longa = "a".repeat(101);
    for (query, campo) in [
        ("estado=vencido", "estado"),
        ("pagina=0", "pagina"),
        ("pagina=um", "pagina"),
        ("tamanho=101", "tamanho"),
        ("tamanho=-1", "tamanho"),
        (&format!("busca={longa}")[..], "busca"),
    ] {
        let res = op.on(app.http.get(app.url(&format!("/painel/estoque?{query}")))).send().await.unwrap();
        assert_eq!(res.status(), 400, "{query}");
        assert_eq!(res.headers()["content-type"], "application/problem+json", "{query}");
        let body: Value = res.json().await.unwrap();
        let detalhe = body["detail"].as_str().unwrap();
        assert!(detalhe.starts_with(&format!("Parâmetro inválido: {campo} ")), "{query}: {detalhe}");
    }
}

#[tokio::test]
async fn the_sku_page_lists_lots_in_fefo_order_and_its_history() {
    let app = estoque(&[]).await;
    cenario(&app).await;
    lote(&app, COCA, "C-SEM-VALIDADE", 3, None).await;
    let pedido = Uuid::new_v4();
    assert_eq!(solicitar(&app, pedido, COCA, 4).await, 204, "ships 4 from C-10, the FEFO lot");
    let op = Operador::login(&app).await;

    let (status, body) = get(&app, &op, &format!("/painel/estoque/{COCA}")).await;

    assert_eq!(status, 200, "{body}");
    assert_eq!(body["saldoValido"], 21);
    assert_eq!(body["saldoVencido"], 4);
    assert_eq!(body["estado"], "com-saldo");
    assert_eq!(body["ncm"], "22021000");
    let lotes: Vec<(&str, i64, bool)> = body["lotes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["codigoLote"].as_str().unwrap(),
                l["quantidadeDisponivel"].as_i64().unwrap(),
                l["vencido"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        lotes,
        vec![("C-10", 6, false), ("C-40", 12, false), ("C-SEM-VALIDADE", 3, false), ("C-VENCIDO", 4, true)],
        "valid lots in FEFO order (next to ship first), then the expired"
    );
    assert_eq!(body["lotes"][0]["validade"], json!(hoje_mais(&app, 10).await));
    assert_eq!(body["lotes"][0]["quantidade"], 10);
    let movimentos = body["movimentos"].as_array().unwrap();
    assert_eq!(movimentos.len(), 5, "four lots in, one shipment: {movimentos:?}");
    assert_eq!(movimentos[0]["tipo"], "expedicao", "newest first");
    assert_eq!(movimentos[0]["codigoLote"], "C-10");
    assert_eq!(movimentos[0]["qtd"], 4);
    assert!(movimentos[0]["eventId"].is_string());
    assert!(movimentos[1..].iter().all(|m| m["tipo"] == "entrada"));

    let (status, body) = get(&app, &op, "/painel/estoque/7891000100103").await;
    assert_eq!(status, 404);
    assert_eq!(body["detail"], "O SKU 7891000100103 não está cadastrado no estoque. Confira o código.");
    let (status, _) = get(&app, &op, "/painel/estoque/abc").await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn the_new_routes_are_401_anonymous_and_403_for_the_service_token() {
    let app = estoque(&[]).await;
    produto(&app, COCA, "COCA COLA 2L PET", None).await;
    let rotas = [
        ("GET", "/painel/estoque".to_string()),
        ("GET", format!("/painel/estoque/{COCA}")),
        ("POST", format!("/painel/estoque/{COCA}/lotes/L-1/baixa")),
    ];
    for (metodo, path) in &rotas {
        let m = reqwest::Method::from_bytes(metodo.as_bytes()).unwrap();
        let res = app.http.request(m.clone(), app.url(path)).send().await.unwrap();
        // A POST without CSRF is refused first (403), as /lotes: the anonymous GETs are 401.
        let esperado = if *metodo == "GET" { 401 } else { 403 };
        assert_eq!(res.status(), esperado, "{metodo} {path}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let res = app.as_servico(app.http.request(m, app.url(path))).send().await.unwrap();
        assert_eq!(res.status(), 403, "{metodo} {path}: the service token is not an operator");
    }
    // Anonymous with a matching CSRF pair: the write-off wants an operator.
    let res = app
        .http
        .post(app.url(&format!("/painel/estoque/{COCA}/lotes/L-1/baixa")))
        .header("cookie", "XSRF-ESTOQUE=abc")
        .header("x-xsrf-token", "abc")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);
}

async fn baixas(app: &TestApp) -> Vec<(String, String, i32, String, DateTime<Utc>)> {
    let c = app.db.client().await;
    c.query(
        "SELECT b.sku, l.codigo_lote, b.qtd, b.operador, b.baixado_em FROM baixa_lote b JOIN lote l ON l.id = b.lote_id ORDER BY b.id",
        &[],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4)))
    .collect()
}

#[tokio::test]
async fn a_write_off_without_csrf_is_403_and_writes_nothing() {
    let app = estoque(&[]).await;
    cenario(&app).await;
    let op = Operador::login(&app).await;

    let res = app
        .http
        .post(app.url(&format!("/painel/estoque/{BANANA}/lotes/B-VENCIDO/baixa")))
        .header("cookie", &op.cookie)
        .send()
        .await
        .unwrap();

    assert_eq!(res.status(), 403);
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    assert!(baixas(&app).await.is_empty());
    assert_eq!(saldo(&app, BANANA).await, 60);
}

#[tokio::test]
async fn a_write_off_zeroes_the_expired_lot_and_records_who_and_when() {
    let app = estoque(&[]).await;
    cenario(&app).await;
    let op = Operador::login(&app).await;
    let antes = Utc::now();

    let (status, body, _) = baixar(&app, &op, COCA, "C-VENCIDO").await;

    assert_eq!(status, 200, "{body}");
    assert_eq!(body["sku"], COCA);
    assert_eq!(body["codigoLote"], "C-VENCIDO");
    assert_eq!(body["qtd"], 4);
    assert_eq!(body["operador"], OPERADOR);
    assert_eq!(body["saldoValido"], 22, "expired units never were balance");
    assert_eq!(body["saldoVencido"], 0);
    let linhas = baixas(&app).await;
    assert_eq!(linhas.len(), 1);
    let (sku, codigo, qtd, operador, quando) = &linhas[0];
    assert_eq!((sku.as_str(), codigo.as_str(), *qtd, operador.as_str()), (COCA, "C-VENCIDO", 4, OPERADOR));
    assert!(*quando >= antes - chrono::Duration::seconds(1) && *quando <= Utc::now());
    let dito: DateTime<Utc> = body["baixadoEm"].as_str().unwrap().parse().unwrap();
    assert!((dito - *quando).num_milliseconds().abs() <= 1, "{dito} vs {quando}");
    // The lot is zero and the bookkeeping balance went down with it (saldo = sum of lots).
    let c = app.db.client().await;
    let disponivel: i32 = c
        .query_one(
            "SELECT quantidade_disponivel FROM lote WHERE sku = $1 AND codigo_lote = 'C-VENCIDO'",
            &[&COCA],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(disponivel, 0);
    assert_eq!(saldo(&app, COCA).await, 22);

    // Shown in the SKU's history, newest first, with who wrote it off; the lot left the list.
    let (_, detalhe) = get(&app, &op, &format!("/painel/estoque/{COCA}")).await;
    let m = &detalhe["movimentos"][0];
    assert_eq!(
        (m["tipo"].as_str(), m["codigoLote"].as_str(), m["qtd"].as_i64()),
        (Some("baixa"), Some("C-VENCIDO"), Some(4))
    );
    assert_eq!(m["operador"], OPERADOR);
    assert!(detalhe["lotes"].as_array().unwrap().iter().all(|l| l["codigoLote"] != "C-VENCIDO"));
    assert_eq!(detalhe["saldoVencido"], 0);

    // Again: nothing left to write off.
    let (status, body, tipo) = baixar(&app, &op, COCA, "C-VENCIDO").await;
    assert_eq!(status, 409);
    assert_eq!(tipo, "application/problem+json");
    assert_eq!(
        body["detail"],
        "O lote C-VENCIDO já não tem unidades: não há o que baixar. Veja o histórico do SKU."
    );
    assert_eq!(baixas(&app).await.len(), 1);
}

#[tokio::test]
async fn a_lot_still_valid_or_unknown_is_refused_and_nothing_changes() {
    let app = estoque(&[]).await;
    cenario(&app).await;
    lote(&app, COCA, "C-SEM-VALIDADE", 3, None).await;
    lote(&app, COCA, "C-HOJE", 2, Some(0)).await;
    let op = Operador::login(&app).await;
    let em10: NaiveDate = hoje_mais(&app, 10).await;
    let hoje: NaiveDate = hoje_mais(&app, 0).await;

    for (lote, detalhe) in [
        (
            "C-10",
            format!(
                "O lote C-10 ainda está na validade (vence em {}): só um lote vencido pode ser baixado.",
                em10.format("%d/%m/%Y")
            ),
        ),
        (
            "C-HOJE",
            format!(
                "O lote C-HOJE ainda está na validade (vence em {}): só um lote vencido pode ser baixado.",
                hoje.format("%d/%m/%Y")
            ),
        ),
        (
            "C-SEM-VALIDADE",
            "O lote C-SEM-VALIDADE não tem validade, então não vence: só um lote vencido pode ser baixado."
                .into(),
        ),
    ] {
        let (status, body, tipo) = baixar(&app, &op, COCA, lote).await;
        assert_eq!(status, 409, "{lote}: {body}");
        assert_eq!(tipo, "application/problem+json");
        assert_eq!(body["detail"], detalhe);
    }

    let (status, body, _) = baixar(&app, &op, COCA, "NAO-EXISTE").await;
    assert_eq!(status, 404);
    assert_eq!(
        body["detail"],
        format!("O lote NAO-EXISTE não existe para o SKU {COCA}. Confira o código na lista de lotes.")
    );
    let (status, _, _) = baixar(&app, &op, "7891000100103", "C-10").await;
    assert_eq!(status, 404);
    let (status, _, _) = baixar(&app, &op, "abc", "C-10").await;
    assert_eq!(status, 404);
    // Another SKU's lot is not this SKU's.
    let (status, _, _) = baixar(&app, &op, PAO, "C-VENCIDO").await;
    assert_eq!(status, 404);

    assert!(baixas(&app).await.is_empty());
    assert_eq!(saldo(&app, COCA).await, 4 + 10 + 12 + 3 + 2);
}

async fn baixar_com(app: &TestApp, op: &Operador, sku: &str, lote: &str, corpo: &str) -> (u16, Value) {
    let res = op
        .on(app.http.post(app.url(&format!("/painel/estoque/{sku}/lotes/{lote}/baixa"))))
        .header("content-type", "application/json")
        .body(corpo.to_string())
        .send()
        .await
        .unwrap();
    let status = res.status().as_u16();
    if status >= 400 {
        assert_eq!(res.headers()["content-type"], "application/problem+json", "{corpo}");
    }
    (status, res.json().await.unwrap_or(Value::Null))
}

/// Issue 39: part of a lot, valid or not, for a reason; each write-off its own row, the lot and the
/// balance down together, the history saying how many, why, who and when.
#[tokio::test]
async fn a_partial_write_off_with_a_reason_takes_only_those_units_and_says_why() {
    let app = estoque(&[]).await;
    cenario(&app).await;
    let op = Operador::login(&app).await;

    let (status, b) = baixar_com(&app, &op, COCA, "C-10", r#"{"quantidade": 3, "motivo": "avaria"}"#).await;

    assert_eq!(status, 200, "{b}");
    assert_eq!(
        (&b["qtd"], &b["motivo"], &b["restante"], &b["operador"]),
        (&json!(3), &json!("avaria"), &json!(7), &json!(OPERADOR))
    );
    assert_eq!(
        (&b["saldoValido"], &b["saldoVencido"]),
        (&json!(19), &json!(4)),
        "a valid lot's units left the balance"
    );
    assert_eq!(saldo(&app, COCA).await, 4 + 7 + 12, "saldo = the sum of the lots");

    let (status, b) = baixar_com(&app, &op, COCA, "C-10", r#"{"quantidade": 7, "motivo": "furto"}"#).await;
    assert_eq!(status, 200, "{b}");
    assert_eq!((&b["restante"], &b["saldoValido"]), (&json!(0), &json!(12)));
    // Part of an expired lot, its reason defaulting to vencido.
    let (status, b) = baixar_com(&app, &op, COCA, "C-VENCIDO", r#"{"quantidade": 1}"#).await;
    assert_eq!(status, 200, "{b}");
    assert_eq!((&b["motivo"], &b["restante"], &b["saldoVencido"]), (&json!("vencido"), &json!(3), &json!(3)));

    let linhas: Vec<(String, i32, String)> = app
        .db
        .client()
        .await
        .query("SELECT l.codigo_lote, b.qtd, b.motivo FROM baixa_lote b JOIN lote l ON l.id = b.lote_id ORDER BY b.id", &[])
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    assert_eq!(
        linhas,
        vec![
            ("C-10".into(), 3, "avaria".into()),
            ("C-10".into(), 7, "furto".into()),
            ("C-VENCIDO".into(), 1, "vencido".into())
        ]
    );
    let (_, d) = get(&app, &op, &format!("/painel/estoque/{COCA}")).await;
    let baixas: Vec<(&str, i64, &str, &str)> = d["movimentos"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["tipo"] == "baixa")
        .map(|m| {
            let s = |k: &str| m[k].as_str().unwrap();
            (s("codigoLote"), m["qtd"].as_i64().unwrap(), s("motivo"), s("operador"))
        })
        .collect();
    assert_eq!(
        baixas,
        vec![
            ("C-VENCIDO", 1, "vencido", OPERADOR),
            ("C-10", 7, "furto", OPERADOR),
            ("C-10", 3, "avaria", OPERADOR)
        ]
    );
    assert!(
        d["lotes"].as_array().unwrap().iter().all(|l| l["codigoLote"] != "C-10"),
        "an empty lot leaves the list"
    );
}

/// A partial write-off sent twice (a retry, a second click) applies once: the painel sends the
/// lot's units it showed, and the second finds them changed.
#[tokio::test]
async fn a_write_off_sent_twice_with_the_units_seen_applies_once() {
    let app = estoque(&[]).await;
    cenario(&app).await;
    let op = Operador::login(&app).await;
    let corpo = r#"{"quantidade": 3, "motivo": "avaria", "quantidadeDisponivel": 10}"#;

    let (status, b) = baixar_com(&app, &op, COCA, "C-10", corpo).await;
    assert_eq!((status, &b["restante"]), (200, &json!(7)), "{b}");
    let (status, p) = baixar_com(&app, &op, COCA, "C-10", corpo).await;

    assert_eq!(status, 409, "{p}");
    assert_eq!(
        p["detail"],
        "O lote C-10 mudou: tinha 10 unidades na sua tela e agora tem 7. Confira e tente de novo."
    );
    assert_eq!(saldo(&app, COCA).await, 4 + 7 + 12, "written off once");
    assert_eq!(baixas(&app).await.len(), 1);
}

#[tokio::test]
async fn a_bad_quantity_or_reason_is_a_400_naming_it_and_writes_nothing() {
    let app = estoque(&[]).await;
    cenario(&app).await;
    let op = Operador::login(&app).await;

    for (corpo, detalhe) in [
        (
            r#"{"motivo": "perdido"}"#,
            "baixa inválida: motivo deve ser um de vencido, avaria, furto, ajuste: perdido",
        ),
        (r#"{"quantidade": 0, "motivo": "avaria"}"#, "baixa inválida: quantidade deve ser maior que 0: 0"),
        (r#"{"quantidade": -2, "motivo": "avaria"}"#, "baixa inválida: quantidade deve ser maior que 0: -2"),
        (
            r#"{"quantidade": 11, "motivo": "avaria"}"#,
            "baixa inválida: quantidade deve ser de 1 a 10 (as unidades do lote C-10): 11",
        ),
        (
            r#"{"quantidade": 1, "motivo": "avaria", "quantidadeDisponivel": -1}"#,
            "baixa inválida: quantidadeDisponivel deve ser 0 ou mais: -1",
        ),
    ] {
        let (status, p) = baixar_com(&app, &op, COCA, "C-10", corpo).await;
        assert_eq!(status, 400, "{corpo}: {p}");
        assert_eq!(p["detail"], detalhe, "{corpo}");
    }
    for corpo in [
        r#"{"quantidade": "3"}"#,
        r#"{"quantidade": 2.5}"#,
        r#"{"motivo": 3}"#,
        r#"{"quantidadeDisponivel": "10"}"#,
        "{",
    ] {
        let (status, p) = baixar_com(&app, &op, COCA, "C-10", corpo).await;
        assert_eq!(status, 400, "{corpo}: {p}");
        let d = p["detail"].as_str().unwrap();
        assert!(
            d.contains("quantidade") || d.contains("motivo") || d.starts_with("JSON ilegível"),
            "{corpo}: {d}"
        );
    }
    // vencido is for an expired lot only, partial or not.
    let (status, p) = baixar_com(&app, &op, COCA, "C-40", r#"{"quantidade": 1, "motivo": "vencido"}"#).await;
    assert_eq!(status, 409);
    assert!(p["detail"].as_str().unwrap().contains("só um lote vencido pode ser baixado"), "{p}");

    assert!(baixas(&app).await.is_empty(), "nothing written");
    assert_eq!(saldo(&app, COCA).await, 4 + 10 + 12);
}

/// Issue 39: a lot entered in the dashboard says who entered it, and the shipment its intake made
/// at the same instant is listed after it (newest first: the shipment above its entry).
#[tokio::test]
async fn the_history_says_who_entered_a_lot_and_lists_its_shipment_after_it() {
    let app = estoque(&[]).await;
    cenario(&app).await;
    let op = Operador::login(&app).await;
    let corpo =
        json!({"sku": PAO, "codigoLote": "P-1", "quantidade": 10, "validade": hoje_mais(&app, 20).await});
    let (status, r) = registrar_lote(&app, &op, corpo).await;
    assert_eq!((status, &r["demandasAtendidas"]), (201, &json!(1)), "{r}");

    let (_, d) = get(&app, &op, &format!("/painel/estoque/{PAO}")).await;

    let m = d["movimentos"].as_array().unwrap();
    let visto: Vec<(&str, i64, Option<&str>)> = m
        .iter()
        .map(|m| (m["tipo"].as_str().unwrap(), m["qtd"].as_i64().unwrap(), m["operador"].as_str()))
        .collect();
    assert_eq!(visto, vec![("expedicao", 7, None), ("entrada", 10, Some(OPERADOR))], "newest first: {d}");
    assert_eq!(m[0]["quando"], m[1]["quando"], "one transaction, one instant: the kind breaks the tie");
}
