//! Issue 39, point 10: the operator cancels an unpaid order (`POST
//! /operacao/pedidos/{id}/cancelamento`, session and CSRF): its units go back to the shelf as an
//! expiry gives them back, once; paid, expired, cancelled or past-deadline orders are 409, unknown
//! 404; against a payment of the same order exactly one wins. And the list's search by `numero`.

use serde_json::Value;
use uuid::Uuid;

use crate::mercado::fixtures::*;
use crate::support::app::{Operador, TestApp};

async fn cancelar(app: &TestApp, op: &Operador, id: &str) -> (u16, Value) {
    let url = app.url(&format!("/operacao/pedidos/{id}/cancelamento"));
    let res = op.on(app.http.post(url)).send().await.unwrap();
    let status = res.status().as_u16();
    if status >= 400 {
        assert_eq!(res.headers()["content-type"], "application/problem+json", "{id}");
    }
    (status, res.json().await.unwrap_or(Value::Null))
}

async fn pagar(app: &TestApp, id: Uuid) -> u16 {
    app.http.post(app.url(&format!("/pedidos/{id}/pagamento"))).send().await.unwrap().status().as_u16()
}

#[tokio::test]
async fn an_unpaid_order_is_cancelled_and_its_units_go_back_to_the_shelf_once() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    produto(&app, BANANA, "Banana Prata (kg)", "5.49", 10, 1, 20).await;
    let id = comprar_ok(&app, &[(COCA, 3), (BANANA, 2)]).await;
    assert_eq!((prateleira(&app, COCA).await.0, prateleira(&app, BANANA).await.0), (7, 8));
    let op = Operador::login(&app).await;

    let (status, d) = cancelar(&app, &op, &id.to_string()).await;

    assert_eq!(status, 200, "{d}");
    assert_eq!((d["id"].as_str(), d["status"].as_str()), (Some(id.to_string().as_str()), Some("CANCELADO")));
    assert_eq!(d["pagamento"], Value::Null);
    assert!(d["reservas"].as_array().unwrap().iter().all(|r| r["status"] == "EXPIRADA"), "{d}");
    assert_eq!(status_pedido(&app, id).await, "CANCELADO");
    assert_eq!(reservas(&app, id).await, vec!["EXPIRADA", "EXPIRADA"], "released, as an expiry releases");
    assert_eq!((prateleira(&app, COCA).await.0, prateleira(&app, BANANA).await.0), (10, 10));
    // The shopper's page says it too.
    let publico: Value =
        app.http.get(app.url(&format!("/pedidos/{id}"))).send().await.unwrap().json().await.unwrap();
    assert_eq!(publico["status"], "CANCELADO");

    // Again, then a payment, then the sweep: nothing more comes back.
    let (status, p) = cancelar(&app, &op, &id.to_string()).await;
    assert_eq!(status, 409);
    assert_eq!(p["title"], "Cancelamento recusado");
    assert_eq!(p["detail"], format!("O pedido {id} não pode ser cancelado: ele já foi cancelado."));
    assert_eq!(pagar(&app, id).await, 409);
    let depois = chrono::Utc::now() + chrono::Duration::minutes(16);
    assert_eq!(giro_servicos::mercado::expiracao::expirar_vencidas(&app.dbh, depois, 50).await.unwrap(), 0);
    assert_eq!((prateleira(&app, COCA).await.0, prateleira(&app, BANANA).await.0), (10, 10));
}

#[tokio::test]
async fn paid_expired_past_deadline_and_unknown_orders_are_refused_and_nothing_changes() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 20, 1, 20).await;
    let pago = comprar_ok(&app, &[(COCA, 1)]).await;
    assert_eq!(pagar(&app, pago).await, 200);
    let expirado = comprar_ok(&app, &[(COCA, 2)]).await;
    let depois = chrono::Utc::now() + chrono::Duration::minutes(16);
    let vencido = comprar_ok(&app, &[(COCA, 3)]).await;
    // Expire `expirado` only: move `vencido` past its deadline afterwards, without a sweep.
    app.db
        .client()
        .await
        .execute("UPDATE reserva SET expira_em = now() + interval '1 hour' WHERE pedido_id = $1", &[&vencido])
        .await
        .unwrap();
    assert_eq!(giro_servicos::mercado::expiracao::expirar_vencidas(&app.dbh, depois, 50).await.unwrap(), 1);
    app.db
        .client()
        .await
        .execute(
            "UPDATE reserva SET expira_em = now() - interval '1 second' WHERE pedido_id = $1",
            &[&vencido],
        )
        .await
        .unwrap();
    let op = Operador::login(&app).await;
    let shelf = prateleira(&app, COCA).await.0;
    assert_eq!(shelf, 20 - 1 - 3);

    for (id, motivo) in [
        (pago, "ele já foi pago"),
        (expirado, "a reserva já expirou e os itens voltaram para a vitrine"),
        (vencido, "o prazo da reserva terminou e os itens já voltam para a vitrine"),
    ] {
        let (status, p) = cancelar(&app, &op, &id.to_string()).await;
        assert_eq!(status, 409, "{id}: {p}");
        assert_eq!(p["detail"], format!("O pedido {id} não pode ser cancelado: {motivo}."));
    }
    assert_eq!(
        (
            status_pedido(&app, pago).await,
            status_pedido(&app, expirado).await,
            status_pedido(&app, vencido).await
        ),
        ("PAGO".into(), "EXPIRADO".into(), "AGUARDANDO_PAGAMENTO".into())
    );
    assert_eq!(prateleira(&app, COCA).await.0, shelf, "nothing released by a refused cancel");

    let (status, p) = cancelar(&app, &op, &Uuid::nil().to_string()).await;
    assert_eq!(status, 404);
    assert_eq!(p["detail"], format!("Pedido não encontrado: {}", Uuid::nil()));
    let (status, p) = cancelar(&app, &op, "1001").await;
    assert_eq!(status, 400);
    assert_eq!(p["detail"], "id do pedido inválido (esperado UUID): 1001");
}

#[tokio::test]
async fn the_cancel_needs_the_operator_s_session_and_csrf() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    let id = comprar_ok(&app, &[(COCA, 2)]).await;
    let url = app.url(&format!("/operacao/pedidos/{id}/cancelamento"));
    let csrf = "0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a";
    let res = app
        .http
        .post(&url)
        .header("cookie", format!("XSRF-MERCADO={csrf}"))
        .header("x-xsrf-token", csrf)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401, "anonymous");
    let op = Operador::login(&app).await;
    let res = app.http.post(&url).header("cookie", &op.cookie).send().await.unwrap();
    assert_eq!(res.status(), 403, "the session without the CSRF header");
    assert_eq!(res.headers()["content-type"], "application/problem+json");
    assert_eq!(status_pedido(&app, id).await, "AGUARDANDO_PAGAMENTO");
    assert_eq!(prateleira(&app, COCA).await.0, 8);
}

#[tokio::test]
async fn a_cancel_and_a_payment_of_the_same_order_at_once_exactly_one_wins() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 100, 1, 100).await;
    let op = Operador::login(&app).await;
    for _ in 0..8 {
        let id = comprar_ok(&app, &[(COCA, 5)]).await;
        let antes = prateleira(&app, COCA).await.0;
        let texto = id.to_string();
        let ((cancelado, _), pago) = tokio::join!(cancelar(&app, &op, &texto), pagar(&app, id));
        let status = status_pedido(&app, id).await;
        match (cancelado, pago) {
            (200, 409) => {
                assert_eq!(status, "CANCELADO");
                assert_eq!(reservas(&app, id).await, vec!["EXPIRADA"]);
                assert_eq!(prateleira(&app, COCA).await.0, antes + 5, "units back once");
            }
            (409, 200) => {
                assert_eq!(status, "PAGO");
                assert_eq!(reservas(&app, id).await, vec!["CONFIRMADA"]);
                assert_eq!(prateleira(&app, COCA).await.0, antes, "sold: nothing back");
            }
            other => panic!("cancel and payment both {other:?}, order {status}"),
        }
    }
}

#[tokio::test]
async fn orders_are_found_by_number_and_a_bad_number_is_named() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 10, 1, 20).await;
    let _a = comprar_ok(&app, &[(COCA, 1)]).await;
    let b = comprar_ok(&app, &[(COCA, 1)]).await;
    let op = Operador::login(&app).await;

    let res = op.on(app.http.get(app.url("/operacao/pedidos?numero=1002"))).send().await.unwrap();
    assert_eq!(res.status(), 200);
    let v: Value = res.json().await.unwrap();
    assert_eq!(v["total"], 1);
    assert_eq!(
        (v["itens"][0]["id"].as_str(), v["itens"][0]["numero"].as_i64()),
        (Some(b.to_string().as_str()), Some(1002))
    );
    let v: Value = op
        .on(app.http.get(app.url("/operacao/pedidos?numero=1002&status=PAGO")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["total"], 0, "the number and the other filters both apply");
    let v: Value = op
        .on(app.http.get(app.url("/operacao/pedidos?numero=+")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v["total"], 2, "blank: no filter");

    for q in ["abc", "0", "-3", "1e3"] {
        let res =
            op.on(app.http.get(app.url(&format!("/operacao/pedidos?numero={q}")))).send().await.unwrap();
        assert_eq!(res.status(), 400, "{q}");
        assert_eq!(res.headers()["content-type"], "application/problem+json");
        let p: Value = res.json().await.unwrap();
        assert_eq!(
            p["detail"],
            format!("Parâmetro inválido: numero deve ser um número inteiro de 1 a 999999999: {q}")
        );
    }
}

#[tokio::test]
async fn a_cancel_and_an_expiry_of_the_same_order_at_once_give_its_units_back_once() {
    let app = mercado(&[]).await;
    produto(&app, COCA, "Coca-Cola 2L PET", "8.99", 100, 1, 100).await;
    let op = Operador::login(&app).await;
    // The sweep is told the deadline passed; the database's clock (the cancel's) says it has not.
    let depois = chrono::Utc::now() + chrono::Duration::minutes(16);
    for _ in 0..8 {
        let id = comprar_ok(&app, &[(COCA, 4)]).await;
        let texto = id.to_string();
        let ((cancelado, _), expirado) = tokio::join!(
            cancelar(&app, &op, &texto),
            giro_servicos::mercado::expiracao::expirar_pedido(&app.dbh, id, Some(depois))
        );
        let status = status_pedido(&app, id).await;
        match (cancelado, expirado.unwrap()) {
            (200, false) => assert_eq!(status, "CANCELADO"),
            (409, true) => assert_eq!(status, "EXPIRADO"),
            other => panic!("cancel and expiry {other:?}, order {status}"),
        }
        assert_eq!(reservas(&app, id).await, vec!["EXPIRADA"]);
        assert_eq!(prateleira(&app, COCA).await.0, 100, "the 4 units back, once");
    }
}
