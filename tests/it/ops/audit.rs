//! `giro audit`: clean after a real restock conversation, and for each kind of disagreement of
//! SPEC §9.3 a database tampered that way is named (exit 1); an unreadable database is exit 2.

use serde_json::Value;

use crate::support::market::Market;
use crate::support::process::command;

const COCA: &str = "7894900011517";

async fn market() -> Market {
    let m = Market::start().await;
    m.lote(COCA, "COCA COLA 2L PET", "L-COCA-01", 60, None).await;
    m.produto(COCA, "Coca-Cola 2L PET", 8.99, 6, 24).await;
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 24, "the first restock arrived");
    assert_eq!(m.comprar(COCA, 20).await, 201);
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 24, "sold 20 of 24 → restocked with 20");
    m
}

fn audit(m: &Market) -> (i32, Value) {
    let out = command(&["audit", "--json"], &m.env()).output().unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), json)
}

fn kinds(report: &Value) -> Vec<String> {
    report["divergencias"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["tipo"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn after_a_real_restock_conversation_the_audit_is_clean() {
    let m = market().await;
    let (code, report) = audit(&m);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["concorda"], true);
    let out = command(&["audit"], &m.env()).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), "audit: mercado and estoque agree\n");
}

async fn tampered(sql_mercado: &str, sql_estoque: &str) -> (i32, Value) {
    let m = market().await;
    if !sql_mercado.is_empty() {
        m.mercado.db.client().await.batch_execute(sql_mercado).await.unwrap();
    }
    if !sql_estoque.is_empty() {
        m.estoque.db.client().await.batch_execute(sql_estoque).await.unwrap();
    }
    audit(&m)
}

#[tokio::test]
async fn a_request_sent_and_never_received_is_named() {
    let (code, r) = tampered("", "DELETE FROM inbox_event").await;
    assert_eq!(code, 1);
    assert!(kinds(&r).contains(&"solicitacao_nao_recebida".to_string()), "{r:#}");
    assert_eq!(r["divergencias"][0]["sku"], COCA);
}

#[tokio::test]
async fn an_answer_sent_and_never_applied_is_named() {
    let (code, r) = tampered("DELETE FROM inbox_event", "").await;
    assert_eq!(code, 1);
    assert!(kinds(&r).contains(&"resposta_nao_aplicada".to_string()), "{r:#}");
}

#[tokio::test]
async fn events_pruned_after_delivery_still_count_as_sent_and_the_audit_is_clean() {
    let pruned = "DELETE FROM outbox_event WHERE status = 'SENT'";
    let (code, r) = tampered(pruned, pruned).await;
    assert_eq!(code, 0, "{r:#}");
}

#[tokio::test]
async fn an_answer_pruned_after_delivery_and_never_applied_is_named_once() {
    let (code, r) =
        tampered("DELETE FROM inbox_event", "DELETE FROM outbox_event WHERE status = 'SENT'").await;
    assert_eq!(code, 1);
    let respostas = kinds(&r).iter().filter(|k| *k == "resposta_nao_aplicada").count();
    assert_eq!(respostas, 2, "the two shipments, found through reposicao_expedida: {r:#}");
}

#[tokio::test]
async fn an_open_request_with_nothing_in_flight_is_named() {
    let (code, r) = tampered(
        "UPDATE solicitacao_reposicao SET status = 'AGUARDANDO_LOTE' WHERE id = (SELECT max(id) FROM solicitacao_reposicao)",
        "",
    )
    .await;
    assert_eq!(code, 1);
    assert_eq!(kinds(&r), vec!["solicitacao_aberta_sem_evento"], "{r:#}");
}

#[tokio::test]
async fn a_dead_letter_is_named() {
    let (code, r) = tampered("UPDATE outbox_event SET status = 'FAILED', ultimo_erro = 'HTTP 400' WHERE id = (SELECT id FROM outbox_event ORDER BY criado_em DESC LIMIT 1)", "").await;
    assert_eq!(code, 1);
    assert!(kinds(&r).contains(&"evento_falhou".to_string()), "{r:#}");
}

#[tokio::test]
async fn units_missing_from_the_lots_are_named() {
    let (code, r) = tampered("", "UPDATE lote SET quantidade_disponivel = quantidade_disponivel - 1").await;
    assert_eq!(code, 1);
    assert!(kinds(&r).contains(&"conservacao_lotes".to_string()), "{r:#}");
}

#[tokio::test]
async fn units_appearing_on_a_shelf_are_named() {
    let (code, r) =
        tampered("UPDATE produto_vitrine SET estoque_prateleira = estoque_prateleira + 1", "").await;
    assert_eq!(code, 1);
    assert_eq!(kinds(&r), vec!["conservacao_prateleira"], "{r:#}");
}

#[tokio::test]
async fn an_unreadable_database_is_exit_2() {
    let m = market().await;
    let mut env = m.env();
    env.insert("ESTOQUE_DB_URL", "postgres://x:y@127.0.0.1:9/nada".into());
    env.insert("GIRO_DB_TIMEOUT", "1s".into());
    let out = command(&["audit"], &env).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the estoque database"));
}

/// A write-off (issue 26) takes units out of a lot with no shipment: the audit counts them
/// (received = in lots + shipped + written off), so the real one leaves it clean and a write-off
/// whose record is lost is named.
#[tokio::test]
async fn a_write_off_keeps_the_audit_clean_and_a_lost_record_of_one_is_named() {
    let m = market().await;
    let lote = serde_json::json!({"sku": COCA, "codigoLote": "L-COCA-V", "quantidade": 7,
                                  "validade": "2020-01-20", "confirmarVencido": true});
    let res = m.op_estoque.on(m.estoque.http.post(m.estoque.url("/lotes"))).json(&lote).send().await.unwrap();
    assert_eq!(res.status(), 201);
    let res = m
        .op_estoque
        .on(m.estoque.http.post(m.estoque.url(&format!("/painel/estoque/{COCA}/lotes/L-COCA-V/baixa"))))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);

    let (code, r) = audit(&m);
    assert_eq!(code, 0, "{r:#}");

    m.estoque.db.client().await.batch_execute("DELETE FROM baixa_lote").await.unwrap();
    let (code, r) = audit(&m);
    assert_eq!(code, 1);
    assert_eq!(kinds(&r), vec!["conservacao_lotes"], "{r:#}");
}

/// Issue 39: a partial write-off with a reason balances (received = in lots + shipped + written
/// off), and so does an order the operator cancelled (its units back on the shelf).
#[tokio::test]
async fn a_partial_write_off_and_a_cancelled_order_keep_the_audit_clean() {
    let m = market().await;
    let res = m
        .op_estoque
        .on(m.estoque.http.post(m.estoque.url(&format!("/painel/estoque/{COCA}/lotes/L-COCA-01/baixa"))))
        .json(&serde_json::json!({"quantidade": 2, "motivo": "avaria"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(m.comprar(COCA, 3).await, 201);
    let c = m.mercado.db.client().await;
    let id: uuid::Uuid =
        c.query_one("SELECT id FROM pedido ORDER BY numero DESC LIMIT 1", &[]).await.unwrap().get(0);
    let res = m
        .op_mercado
        .on(m.mercado.http.post(m.mercado.url(&format!("/operacao/pedidos/{id}/cancelamento"))))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 24, "the 3 units back on the shelf");

    let (code, r) = audit(&m);
    assert_eq!(code, 0, "{r:#}");
}
