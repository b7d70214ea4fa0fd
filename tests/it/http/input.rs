//! Door 1 (issue 13): hostile input against the real binaries gets a 4xx problem+json naming the
//! field, and nothing is written — NUL bytes, overflowing integers, absurd dates, paths that are
//! not UTF-8, Rust type names in details — and on `/eventos` such an event is a 400, which a
//! delivering publisher marks FAILED at once.

use serde_json::json;

use giro_servicos::config::Servico;

use crate::support::real::{problem, Real};

async fn contar(real: &Real, tabela: &str) -> i64 {
    real.db.client().await.query_one(&format!("SELECT count(*) FROM {tabela}"), &[]).await.unwrap().get(0)
}

#[tokio::test]
async fn mercado_refuses_nul_bad_paths_and_rust_type_names_with_400_problems() {
    let m = Real::start(Servico::Mercado, &[]).await;
    for (path, campo) in [
        ("/produtos?busca=%00", "busca"),
        ("/produtos?categoria=a%00b", "categoria"),
        ("/produtos/%00", "sku"),
    ] {
        let (status, p) = problem(m.http.get(m.url(path)).send().await.unwrap()).await;
        assert_eq!(status, 400, "{path}: {p}");
        let detail = p["detail"].as_str().unwrap();
        assert!(detail.contains(campo) && detail.contains("NUL"), "{path}: {detail}");
    }
    // Not UTF-8: a problem, never a plain-text 400.
    let (status, _) = problem(m.http.get(m.url("/pedidos/%FF")).send().await.unwrap()).await;
    assert_eq!(status, 400);
    // A malformed SKU is simply absent (the original's empty 404), without a query.
    assert_eq!(m.http.get(m.url("/produtos/abc")).send().await.unwrap().status(), 404);

    // A mistyped body: the detail speaks Portuguese, never a Rust type.
    for body in ["\"x\"", "{\"itens\": 3}", "{\"itens\": [{\"sku\": \"12345678\", \"qtd\": 99999999999}]}"] {
        let res = m
            .http
            .post(m.url("/pedidos"))
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let (status, p) = problem(res).await;
        assert_eq!(status, 400, "{body}");
        let d = p["detail"].as_str().unwrap();
        for rust in ["struct", "CheckoutRequest", "ItemRequest", "i32", "Vec<", "Option<"] {
            assert!(!d.contains(rust), "{body}: {d}");
        }
    }

    // The operator's registration with a NUL in `nome`: 400 naming it, nothing written.
    let (cookie, csrf) = m.operador().await;
    let res = m
        .http
        .post(m.url("/produtos"))
        .header("cookie", &cookie)
        .header("x-xsrf-token", &csrf)
        .json(&json!({"sku": "7894900011517", "nome": "Coca\u{0}", "preco": 8.99, "estoqueMinimo": 1, "estoqueIdeal": 2}))
        .send()
        .await
        .unwrap();
    let (status, p) = problem(res).await;
    assert_eq!(status, 400);
    assert!(p["detail"].as_str().unwrap().contains("nome"), "{p}");
    assert_eq!(contar(&m, "produto_vitrine").await, 0);
    m.sem_segredos();
}

#[tokio::test]
async fn estoque_refuses_overflow_absurd_dates_nul_and_non_utf8_paths_writing_nothing() {
    let e = Real::start(Servico::Estoque, &[]).await;
    let (cookie, csrf) = e.operador().await;
    let lote = |body: serde_json::Value| {
        e.http
            .post(e.url("/lotes"))
            .header("cookie", &cookie)
            .header("x-xsrf-token", &csrf)
            .json(&body)
            .send()
    };
    let base = json!({"sku": "7894900011517", "descricao": "COCA COLA 2L PET", "ncm": "22021000", "codigoLote": "L1", "quantidade": 10});
    assert_eq!(lote(base.clone()).await.unwrap().status(), 201);

    let com = |k: &str, v: serde_json::Value| {
        let mut b = base.clone();
        b[k] = v;
        b["codigoLote"] = json!(format!("L-{k}"));
        b
    };
    let casos = [
        (com("quantidade", json!(i32::MAX)), "quantidade"),
        (com("quantidade", json!(2_147_483_648_i64)), "quantidade"),
        (com("validade", json!("-4714-01-01")), "validade"),
        (com("validade", json!("0000-01-01")), "validade"),
        (com("validade", json!("+99999-01-01")), "validade"),
        (com("validade", json!("2201-01-01")), "validade"),
        (com("descricao", json!("COCA\u{0}")), "descricao"),
        (json!({"sku": "7894900011517", "codigoLote": "L\u{0}2", "quantidade": 1}), "codigoLote"),
        (
            json!({"sku": "7891000100103", "descricao": "LEITE\u{0}", "ncm": "04012010", "codigoLote": "L3", "quantidade": 1}),
            "descricao",
        ),
    ];
    for (body, campo) in casos {
        let (status, p) = problem(lote(body.clone()).await.unwrap()).await;
        assert_eq!(status, 400, "{body}: {p}");
        assert!(p["detail"].as_str().unwrap().contains(campo), "{body}: {p}");
    }
    assert_eq!(contar(&e, "lote").await, 1);
    assert_eq!(contar(&e, "produto_estoque").await, 1);
    let saldo: i32 =
        e.db.client()
            .await
            .query_one("SELECT saldo_disponivel FROM produto_estoque", &[])
            .await
            .unwrap()
            .get(0);
    assert_eq!(saldo, 10);

    // Paths: not UTF-8 and NUL are problems (with the service token, past authorization).
    for path in ["/produtos/%FF", "/produtos/%00"] {
        let res = e.http.get(e.url(path)).bearer_auth(e.token()).send().await.unwrap();
        let (status, _) = problem(res).await;
        assert_eq!(status, 400, "{path}");
    }
    e.sem_segredos();
}

fn evento(tipo: &str, v: serde_json::Value) -> (String, serde_json::Value) {
    (tipo.to_string(), v)
}

#[tokio::test]
async fn malformed_events_are_400_one_by_one_and_in_a_batch_and_a_publisher_dead_letters_them_at_once() {
    let m = Real::start(Servico::Mercado, &[]).await;
    m.db.client()
        .await
        .batch_execute(
            "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
             VALUES ('7894900011517', 'Coca', 8.99, 10, 1, 20, 'DISPONIVEL')",
        )
        .await
        .unwrap();
    let id = || uuid::Uuid::new_v4().to_string();
    let casos = [
        evento(
            "ProdutoClassificado",
            json!({"eventId": id(), "sku": "7894900011517", "tags": ["a\u{0}"], "categoria": "bebidas", "ocorridoEm": "2026-01-01T00:00:00Z"}),
        ),
        evento(
            "ProdutoClassificado",
            json!({"eventId": id(), "sku": "7894900011517", "tags": ["a"], "categoria": "\u{0}", "ocorridoEm": "2026-01-01T00:00:00Z"}),
        ),
        evento(
            "ProdutoClassificado",
            json!({"eventId": id(), "sku": "7894900011517", "tags": [], "categoria": "bebidas", "ocorridoEm": "2026-01-01T00:00:00Z"}),
        ),
        // An instant that is no instant: still a 400 (a clock far off is not, see below).
        evento(
            "ProdutoClassificado",
            json!({"eventId": id(), "sku": "7894900011517", "tags": ["a"], "categoria": "bebidas", "ocorridoEm": "2026-13-01T00:00:00Z"}),
        ),
        // The shelf holds 10: this credit would overflow `integer`.
        evento(
            "ReposicaoEnviada",
            json!({"eventId": id(), "correlationId": id(), "sku": "7894900011517", "qtd": i32::MAX, "lote": "L1", "ocorridoEm": "2026-01-01T00:00:00Z"}),
        ),
    ];
    for (tipo, corpo) in &casos {
        let res = m
            .http
            .post(m.url("/eventos"))
            .bearer_auth(m.token())
            .header("evento-tipo", tipo)
            .json(corpo)
            .send()
            .await
            .unwrap();
        let (status, p) = problem(res).await;
        assert_eq!(status, 400, "{tipo} {corpo}: {p}");
    }
    // The same through /eventos/lote: one 400 per item.
    let itens: Vec<_> = casos.iter().map(|(t, c)| json!({"tipo": t, "evento": c})).collect();
    let res = m
        .http
        .post(m.url("/eventos/lote"))
        .bearer_auth(m.token())
        .json(&json!({ "eventos": itens }))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let r: serde_json::Value = res.json().await.unwrap();
    let st: Vec<u64> =
        r["resultados"].as_array().unwrap().iter().map(|x| x["status"].as_u64().unwrap()).collect();
    assert_eq!(st, vec![400; casos.len()], "{r}");
    // Nothing applied: the shelf, the classification and the inbox are as they were.
    let c = m.db.client().await;
    let row =
        c.query_one("SELECT estoque_prateleira, classificado_em FROM produto_vitrine", &[]).await.unwrap();
    assert_eq!(row.get::<_, i32>(0), 10);
    assert!(row.get::<_, Option<chrono::DateTime<chrono::Utc>>>(1).is_none());
    assert_eq!(contar(&m, "inbox_event").await, 0);

    // A real estoque whose outbox holds such an event delivers it to this mercado once: FAILED.
    let e = Real::start(
        Servico::Estoque,
        &[
            ("GIRO_OUTBOX_PUBLICADOR_EMBUTIDO", "true"),
            ("MERCADO_EVENTOS_URL", &m.url("")),
            ("GIRO_OUTBOX_INTERVALO", "100ms"),
        ],
    )
    .await;
    // (jsonb cannot even hold a NUL: the one with no tags.)
    let (tipo, corpo) = &casos[2];
    let eid = uuid::Uuid::parse_str(corpo["eventId"].as_str().unwrap()).unwrap();
    e.db.client()
        .await
        .execute(
            "INSERT INTO outbox_event (id, tipo, payload, criado_em, proxima_tentativa_em) VALUES ($1, $2, $3, now(), now())",
            &[&eid, tipo, corpo],
        )
        .await
        .unwrap();
    let c = e.db.client().await;
    let (status, tentativas): (String, i32) =
        crate::support::wait_until(std::time::Duration::from_secs(30), "the event marked FAILED", || async {
            let r = c
                .query_one("SELECT status, tentativas FROM outbox_event WHERE id = $1", &[&eid])
                .await
                .ok()?;
            let s: String = r.get(0);
            (s != "PENDING").then(|| (s, r.get(1)))
        })
        .await;
    assert_eq!((status.as_str(), tentativas), ("FAILED", 1));
    m.sem_segredos();
    e.sem_segredos();
}
