//! Door 4 (issue 13): anonymous checkout is bounded per client address — a rate limit on
//! `POST /pedidos` and `POST /pedidos/{id}/pagamento`, and a bound on the units one address holds
//! in unpaid reservations, both 429 with `Retry-After` — and an `Idempotency-Key` replay answers
//! the same order with one reservation, while the same key with other items is 422. Issue 25: an
//! IPv6 /64 is one client for these bounds, one client cannot hold more than
//! `checkout.max-unidades-por-produto` units of one SKU, and an `Idempotency-Key` belongs to the
//! client that sent it.

use serde_json::json;

use giro_servicos::config::Servico;

use crate::support::real::{problem, Real};

const SKU: &str = "7894900011517";

async fn mercado(extra: &[(&str, &str)]) -> Real {
    let mut env = vec![("GIRO_HTTP_PROXIES_CONFIAVEIS", "127.0.0.1")];
    env.extend_from_slice(extra);
    let m = Real::start(Servico::Mercado, &env).await;
    m.com_produto(SKU, 1000, 1, 1000).await;
    m
}

async fn comprar(m: &Real, ip: &str, qtd: i32, chave: Option<&str>) -> reqwest::Response {
    let mut rb = m
        .http
        .post(m.url("/pedidos"))
        .header("x-forwarded-for", ip)
        .json(&json!({"itens": [{"sku": SKU, "qtd": qtd}]}));
    if let Some(k) = chave {
        rb = rb.header("idempotency-key", k);
    }
    rb.send().await.unwrap()
}

async fn prateleira(m: &Real) -> i32 {
    m.db.client()
        .await
        .query_one("SELECT estoque_prateleira FROM produto_vitrine WHERE sku = $1", &[&SKU])
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn one_address_cannot_hoard_units_nor_call_checkout_past_the_rate_limit() {
    let m =
        mercado(&[("GIRO_CHECKOUT_MAX_POR_MINUTO", "6"), ("GIRO_CHECKOUT_MAX_UNIDADES_RESERVADAS", "10")])
            .await;
    // Hoarding: 6 + 4 units fit; one more does not, from that address.
    let a = "203.0.113.1";
    assert_eq!(comprar(&m, a, 6, None).await.status(), 201);
    assert_eq!(comprar(&m, a, 4, None).await.status(), 201);
    let res = comprar(&m, a, 1, None).await;
    let retry: u64 = res.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(retry >= 1, "{retry}");
    let (status, _) = problem(res).await;
    assert_eq!(status, 429);
    // Nothing reserved by the refused one; another address is not affected.
    assert_eq!(prateleira(&m).await, 990);
    assert_eq!(comprar(&m, "203.0.113.2", 10, None).await.status(), 201);
    // A single order beyond the bound is refused outright.
    let (status, _) = problem(comprar(&m, "203.0.113.3", 11, None).await).await;
    assert_eq!(status, 429);

    // The rate limit: 6 calls a minute for an address, payment included.
    let b = "198.51.100.9";
    let res = comprar(&m, b, 1, None).await;
    assert_eq!(res.status(), 201);
    let id = res.json::<serde_json::Value>().await.unwrap()["pedidoId"].as_str().unwrap().to_string();
    let pagar =
        || m.http.post(m.url(&format!("/pedidos/{id}/pagamento"))).header("x-forwarded-for", b).send();
    for _ in 0..5 {
        assert_eq!(pagar().await.unwrap().status(), 200);
    }
    let res = pagar().await.unwrap();
    assert!(res.headers().contains_key("retry-after"));
    let (status, p) = problem(res).await;
    assert_eq!(status, 429, "{p}");
    let (status, _) = problem(comprar(&m, b, 1, None).await).await;
    assert_eq!(status, 429);
    m.sem_segredos();
}

#[tokio::test]
async fn an_idempotency_key_replay_is_the_same_order_with_one_reservation_and_other_items_are_422() {
    let m = mercado(&[]).await;
    let chave = uuid::Uuid::new_v4().to_string();
    let r1 = comprar(&m, "203.0.113.5", 3, Some(&chave)).await;
    assert_eq!(r1.status(), 201, "{}", m.giro.log());
    let b1: serde_json::Value = r1.json().await.unwrap();
    // The answer was lost; the click is retried with the same key from the same client.
    let r2 = comprar(&m, "203.0.113.5", 3, Some(&chave)).await;
    assert_eq!(r2.status(), 201, "{:?}", r2.text().await);
    assert_eq!(r2.headers()["idempotent-replayed"], "true");
    let b2: serde_json::Value = r2.json().await.unwrap();
    assert_eq!(b1, b2);
    let c = m.db.client().await;
    let pedidos: i64 = c.query_one("SELECT count(*) FROM pedido", &[]).await.unwrap().get(0);
    let reservas: i64 = c.query_one("SELECT count(*) FROM reserva", &[]).await.unwrap().get(0);
    assert_eq!((pedidos, reservas), (1, 1));
    assert_eq!(prateleira(&m).await, 997);

    // Same key, other items: 422, nothing reserved.
    let (status, p) = problem(comprar(&m, "203.0.113.5", 4, Some(&chave)).await).await;
    assert_eq!(status, 422, "{p}");
    assert_eq!(prateleira(&m).await, 997);

    // Concurrent retries with one key: still one order.
    let chave2 = uuid::Uuid::new_v4().to_string();
    let (x, y) = tokio::join!(
        comprar(&m, "203.0.113.7", 2, Some(&chave2)),
        comprar(&m, "203.0.113.7", 2, Some(&chave2))
    );
    let (x, y): (serde_json::Value, serde_json::Value) = (x.json().await.unwrap(), y.json().await.unwrap());
    assert_eq!(x["pedidoId"], y["pedidoId"], "{x} {y}");
    assert_eq!(prateleira(&m).await, 995);

    // A key that is no key: 400.
    let (status, _) = problem(comprar(&m, "203.0.113.5", 1, Some("tem espaço")).await).await;
    assert_eq!(status, 400);

    // Expired after a day: the key is free again.
    c.execute("UPDATE checkout_idempotencia SET criado_em = criado_em - interval '25 hours'", &[])
        .await
        .unwrap();
    let r3: serde_json::Value = comprar(&m, "203.0.113.5", 3, Some(&chave)).await.json().await.unwrap();
    assert_ne!(r3["pedidoId"], b1["pedidoId"]);
    m.sem_segredos();
}

#[tokio::test]
async fn a_checkout_refused_with_its_key_leaves_the_key_free() {
    let m = mercado(&[]).await;
    let chave = uuid::Uuid::new_v4().to_string();
    let c = m.db.client().await;
    c.execute("UPDATE produto_vitrine SET estoque_prateleira = 5", &[]).await.unwrap();
    // More than the shelf holds: 409, and the key's claim rolls back with the order.
    let (status, p) = problem(comprar(&m, "203.0.113.5", 10, Some(&chave)).await).await;
    assert_eq!(status, 409, "{p}");
    let chaves: i64 = c.query_one("SELECT count(*) FROM checkout_idempotencia", &[]).await.unwrap().get(0);
    assert_eq!(chaves, 0);
    // The retry with fewer units and the same key is a new order, not a replay.
    let r = comprar(&m, "203.0.113.5", 2, Some(&chave)).await;
    assert_eq!(r.status(), 201);
    assert!(r.headers().get("idempotent-replayed").is_none());
    assert_eq!(prateleira(&m).await, 3);
    m.sem_segredos();
}

#[tokio::test]
async fn expired_keys_are_purged_by_the_background_task_not_by_checkouts() {
    let m = mercado(&[]).await;
    let (velha, nova) = (uuid::Uuid::new_v4().to_string(), uuid::Uuid::new_v4().to_string());
    assert_eq!(comprar(&m, "203.0.113.5", 1, Some(&velha)).await.status(), 201);
    let c = m.db.client().await;
    c.execute("UPDATE checkout_idempotencia SET criado_em = criado_em - interval '25 hours'", &[])
        .await
        .unwrap();
    // A checkout with another key deletes nothing on its way.
    assert_eq!(comprar(&m, "203.0.113.5", 1, Some(&nova)).await.status(), 201);
    let chaves = || async {
        let rows = c.query("SELECT chave FROM checkout_idempotencia ORDER BY criado_em", &[]).await.unwrap();
        rows.iter().map(|r| r.get::<_, String>(0)).collect::<Vec<_>>()
    };
    let (velha, nova) = (format!("203.0.113.5|{velha}"), format!("203.0.113.5|{nova}"));
    assert_eq!(chaves().await, vec![velha.clone(), nova.clone()], "stored scoped to the client");
    // The purge takes the expired key only.
    let db = giro_infra::db::Db::new(m.db.pool(), false);
    let n = giro_servicos::mercado::checkout::purgar_chaves(&db, chrono::Utc::now(), 1000).await.unwrap();
    assert_eq!(n, 1);
    assert_eq!(chaves().await, vec![nova]);
    m.sem_segredos();
}

/// Issue 25: behind a trusted proxy, rotating `X-Forwarded-For` inside one IPv6 /64 is one
/// client: one reservation bound, one rate bucket; another /64 is another client.
#[tokio::test]
async fn an_ipv6_slash_64_shares_one_reservation_bound_and_one_rate_bucket() {
    let m =
        mercado(&[("GIRO_CHECKOUT_MAX_POR_MINUTO", "4"), ("GIRO_CHECKOUT_MAX_UNIDADES_RESERVADAS", "10")])
            .await;
    assert_eq!(comprar(&m, "2001:db8:1:2::1", 6, None).await.status(), 201);
    assert_eq!(comprar(&m, "2001:db8:1:2:aaaa::2", 4, None).await.status(), 201);
    let (status, p) = problem(comprar(&m, "2001:db8:1:2:ffff:1:2:3", 1, None).await).await;
    assert_eq!(status, 429, "{p}");
    assert!(p["detail"].as_str().unwrap().contains("reservas demais"), "{p}");
    assert_eq!(prateleira(&m).await, 990, "nothing reserved past the bound");
    // The fourth call of the /64 this minute is its last; the fifth is over the rate.
    let (status, _) = problem(comprar(&m, "2001:db8:1:2::4", 1, None).await).await;
    assert_eq!(status, 429);
    let (status, p) = problem(comprar(&m, "2001:db8:1:2::5", 1, None).await).await;
    assert_eq!(status, 429, "{p}");
    assert!(p["detail"].as_str().unwrap().contains("pedidos demais"), "{p}");
    // Another /64 is another client.
    assert_eq!(comprar(&m, "2001:db8:1:3::1", 10, None).await.status(), 201);
    let clientes: Vec<String> =
        m.db.client()
            .await
            .query("SELECT DISTINCT host(cliente) FROM pedido ORDER BY 1", &[])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
    assert_eq!(clientes, ["2001:db8:1:2::", "2001:db8:1:3::"], "orders record the neighbourhood");
    m.sem_segredos();
}

/// Issue 25: besides the total, one client may hold at most `checkout.max-unidades-por-produto`
/// units of one SKU in unpaid reservations: 429 naming the SKU, nothing written.
#[tokio::test]
async fn one_address_cannot_hold_more_than_the_per_product_bound_of_one_sku() {
    let m = mercado(&[
        ("GIRO_CHECKOUT_MAX_UNIDADES_RESERVADAS", "100"),
        ("GIRO_CHECKOUT_MAX_UNIDADES_POR_PRODUTO", "5"),
    ])
    .await;
    const OUTRO: &str = "7891000100103";
    let c = m.db.client().await;
    c.batch_execute(&format!(
        "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
         VALUES ('{OUTRO}', 'Leite', 4.99, 1000, 1, 1000, 'DISPONIVEL')"
    ))
    .await
    .unwrap();
    let a = "203.0.113.40";
    assert_eq!(comprar(&m, a, 3, None).await.status(), 201);
    assert_eq!(comprar(&m, a, 2, None).await.status(), 201);
    let pedidos =
        || async { c.query_one("SELECT count(*) FROM pedido", &[]).await.unwrap().get::<_, i64>(0) };
    let antes = pedidos().await;
    // One more unit of that SKU, even beside another product's: refused whole.
    let res = m
        .http
        .post(m.url("/pedidos"))
        .header("x-forwarded-for", a)
        .json(&json!({"itens": [{"sku": OUTRO, "qtd": 1}, {"sku": SKU, "qtd": 1}]}))
        .send()
        .await
        .unwrap();
    assert!(res.headers().contains_key("retry-after"));
    let (status, p) = problem(res).await;
    assert_eq!(status, 429, "{p}");
    assert_eq!(p["sku"], SKU, "{p}");
    assert!(
        p["detail"].as_str().unwrap().contains(SKU) && p["detail"].as_str().unwrap().contains('5'),
        "{p}"
    );
    assert_eq!((pedidos().await, prateleira(&m).await), (antes, 995), "nothing written");
    // Another product is within its own bound; a single order past the bound is refused outright.
    let outro = |qtd: i32, ip: &'static str| {
        m.http
            .post(m.url("/pedidos"))
            .header("x-forwarded-for", ip)
            .json(&json!({"itens": [{"sku": OUTRO, "qtd": qtd}]}))
            .send()
    };
    assert_eq!(outro(5, a).await.unwrap().status(), 201);
    let (status, p) = problem(outro(6, "203.0.113.41").await.unwrap()).await;
    assert_eq!((status, p["sku"].as_str()), (429, Some(OUTRO)), "{p}");
    // Another client may hold its own share of the first SKU.
    assert_eq!(comprar(&m, "203.0.113.42", 5, None).await.status(), 201);
    m.sem_segredos();
}

/// Issue 25: an `Idempotency-Key` belongs to the client (neighbourhood) that sent it: another
/// client sending the same key and items gets an order of its own, never the first client's.
#[tokio::test]
async fn another_client_with_the_same_idempotency_key_does_not_get_the_first_client_s_order() {
    let m = mercado(&[]).await;
    let chave = uuid::Uuid::new_v4().to_string();
    let r1 = comprar(&m, "203.0.113.50", 2, Some(&chave)).await;
    assert_eq!(r1.status(), 201);
    let b1: serde_json::Value = r1.json().await.unwrap();
    let r2 = comprar(&m, "198.51.100.50", 2, Some(&chave)).await;
    assert_eq!(r2.status(), 201);
    assert!(r2.headers().get("idempotent-replayed").is_none());
    let b2: serde_json::Value = r2.json().await.unwrap();
    assert_ne!(b1["pedidoId"], b2["pedidoId"], "a second client's own order");
    // Each client's retry replays its own order; an IPv6 client's, from anywhere in its /64.
    let r3 = comprar(&m, "203.0.113.50", 2, Some(&chave)).await;
    assert_eq!(r3.headers()["idempotent-replayed"], "true");
    assert_eq!(r3.json::<serde_json::Value>().await.unwrap()["pedidoId"], b1["pedidoId"]);
    let v6 = comprar(&m, "2001:db8:9::1", 1, Some(&chave)).await.json::<serde_json::Value>().await.unwrap();
    let r4 = comprar(&m, "2001:db8:9::2", 1, Some(&chave)).await;
    assert_eq!(r4.headers()["idempotent-replayed"], "true");
    assert_eq!(r4.json::<serde_json::Value>().await.unwrap()["pedidoId"], v6["pedidoId"]);
    assert_eq!(prateleira(&m).await, 1000 - 2 - 2 - 1);
    m.sem_segredos();
}
