//! Every dead letter has a way out that leaves the domain consistent (issue 30): for each event
//! type and each action the console and `giro outbox` offer, a real restock conversation between
//! both services (real PostgreSQL, publishers pumped by hand) with one event made a dead letter,
//! the action taken, and then the SKU restocks again on the next sale below the minimum and
//! `giro audit` exits 0. An action a type refuses answers 409 with what the peer's state would be.
//! Each action is recorded (who, when, why) in `outbox_event_arquivo`; a discard moves the row
//! there. Also the bulk actions (issue 25.6): replay-all of 100 000 dead letters within the
//! request timeout, one set-based statement per page.

use std::collections::BTreeMap;
use std::process::Output;
use std::time::{Duration, Instant};

use giro_servicos::config::Servico;
use reqwest::Method;
use serde_json::Value;
use uuid::Uuid;

use crate::support::app::{spawn_app, Operador, TestApp};
use crate::support::market::Market;
use crate::support::process::command;

const COCA: &str = "7894900011517";

/// Operator call on `app`: status and JSON body.
async fn call(app: &TestApp, op: &Operador, method: Method, path: &str) -> (u16, Value) {
    let res = op
        .on(app.http.request(method, app.url(path)))
        .timeout(Duration::from_secs(120))
        .send()
        .await
        .expect("request");
    let s = res.status().as_u16();
    (s, res.json().await.unwrap_or(Value::Null))
}

/// Operator call on `lado`'s outbox event `id`: `/operacao/outbox/eventos/{id}{resto}`.
async fn no_evento(m: &Market, lado: Servico, metodo: Method, id: Uuid, resto: &str) -> (u16, Value) {
    let (app, op) = match lado {
        Servico::Mercado => (&m.mercado, &m.op_mercado),
        Servico::Estoque => (&m.estoque, &m.op_estoque),
    };
    call(app, op, metodo, &format!("/operacao/outbox/eventos/{id}{resto}")).await
}

/// `giro outbox <args>` run to its end.
fn outbox_cli(args: &[&str], env: &BTreeMap<&str, String>) -> Output {
    command(&[&["outbox"][..], args].concat(), env).output().expect("giro outbox")
}

fn audit(m: &Market) -> (i32, Value) {
    let out = command(&["audit", "--json"], &m.env()).output().expect("giro audit");
    (out.status.code().unwrap_or(-1), serde_json::from_slice(&out.stdout).unwrap_or(Value::Null))
}

async fn assert_audit_clean(m: &Market, depois: &str) {
    let (code, r) = audit(m);
    assert_eq!(code, 0, "audit after {depois}: {r:#}");
}

/// Makes the newest `PENDING` event of type `tipo` in `app`'s outbox a dead letter (as a refusal
/// of the receiver would); its id.
async fn morto(app: &TestApp, tipo: &str) -> Uuid {
    let c = app.db.client().await;
    c.query_one(
        "UPDATE outbox_event SET status = 'FAILED', ultimo_erro = 'HTTP 400: recusado', lease_token = NULL \
          WHERE id = (SELECT id FROM outbox_event WHERE status = 'PENDING' AND tipo = $1 ORDER BY criado_em DESC LIMIT 1) \
          RETURNING id",
        &[&tipo],
    )
    .await
    .unwrap_or_else(|e| panic!("no PENDING {tipo} to make a dead letter: {e}"))
    .get(0)
}

async fn status_solicitacao(m: &Market, event_id: Uuid) -> String {
    m.mercado.db.valor("SELECT status FROM solicitacao_reposicao WHERE event_id = $1", &[&event_id]).await
}

/// The archive's record of `id`: (acao, por, motivo) of each action, oldest first.
async fn arquivo(app: &TestApp, id: Uuid) -> Vec<(String, String, Option<String>)> {
    app.db
        .client()
        .await
        .query("SELECT acao, por, motivo FROM outbox_event_arquivo WHERE event_id = $1 ORDER BY id", &[&id])
        .await
        .expect("archive")
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect()
}

async fn no_outbox(app: &TestApp, id: Uuid) -> bool {
    app.db
        .client()
        .await
        .query_opt("SELECT 1 FROM outbox_event WHERE id = $1", &[&id])
        .await
        .unwrap()
        .is_some()
}

/// min 6, ideal 24: a sale leaving the shelf below 6 asks for the difference to 24.
async fn market(lote: i32) -> Market {
    let m = Market::start().await;
    m.lote(COCA, "COCA COLA 2L PET", "L-COCA-01", lote, None).await;
    m.produto(COCA, "Coca-Cola 2L PET", 8.99, 6, 24).await;
    m
}

/// The SKU restocks on the next sale below the minimum: sell the shelf down to 2, relay, the
/// shelf is back at the ideal (24), and the audit is clean.
async fn repoe_de_novo(m: &Market, depois: &str) {
    let antes = m.prateleira(COCA).await;
    assert!(antes > 2, "{depois}: shelf {antes}");
    assert_eq!(m.comprar(COCA, antes - 2).await, 201, "{depois}: the sale");
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 24, "{depois}: the next sale below the minimum restocked the SKU");
    assert_audit_clean(m, depois).await;
}

/// After the action `depois`: relayed, the shelf is back at the ideal (24, `servida` says how),
/// the audit is clean, and the SKU restocks again on the next sale below the minimum.
async fn reposto(m: &Market, servida: &str, depois: &str) {
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 24, "{servida}");
    assert_audit_clean(m, depois).await;
    repoe_de_novo(m, depois).await;
}

/// A `ReposicaoSolicitada` dead letter: mercado's request PENDENTE, the SKU's shelf empty.
async fn solicitacao_morta() -> (Market, Uuid) {
    let m = market(200).await;
    let id = morto(&m.mercado, "ReposicaoSolicitada").await;
    assert_eq!(status_solicitacao(&m, id).await, "PENDENTE");
    (m, id)
}

#[tokio::test]
async fn a_request_replayed_restocks_and_the_next_sale_asks_again() {
    let (m, id) = solicitacao_morta().await;
    let (s, b) = no_evento(&m, Servico::Mercado, Method::POST, id, "/reenvio?motivo=estoque+corrigido").await;
    assert_eq!((s, &b["reenviados"]), (200, &Value::from(1)), "{b}");
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 24);
    assert_eq!(
        arquivo(&m.mercado, id).await,
        vec![("reenviar".into(), "operador".into(), Some("estoque corrigido".into()))]
    );
    assert!(no_outbox(&m.mercado, id).await, "a replay leaves the row in the outbox");
    assert_audit_clean(&m, "reenviar ReposicaoSolicitada").await;
    repoe_de_novo(&m, "reenviar ReposicaoSolicitada").await;
}

#[tokio::test]
async fn a_request_discarded_closes_its_request_in_the_same_transaction_and_the_next_sale_asks_again() {
    let (m, id) = solicitacao_morta().await;
    // What it will do, before it is confirmed.
    let (s, d) = no_evento(&m, Servico::Mercado, Method::GET, id, "").await;
    assert_eq!(s, 200, "{d}");
    let acoes: Vec<&str> =
        d["opcoes"].as_array().unwrap().iter().map(|o| o["acao"].as_str().unwrap()).collect();
    assert_eq!(acoes, ["reenviar", "descartar", "refazer"], "{d}");
    assert!(d["opcoes"][1]["efeito"].as_str().unwrap().contains("cancela a solicitação"), "{d}");

    // A discard needs a reason.
    let (s, b) = no_evento(&m, Servico::Mercado, Method::DELETE, id, "").await;
    assert_eq!(s, 400, "{b}");
    assert!(b["detail"].as_str().unwrap().starts_with("parâmetro inválido: motivo"), "{b}");

    let (s, b) = no_evento(&m, Servico::Mercado, Method::DELETE, id, "?motivo=SKU+suspenso").await;
    assert_eq!(s, 200, "{b}");
    assert_eq!((&b["id"], &b["acao"]), (&Value::from(id.to_string()), &Value::from("descartar")), "{b}");
    assert!(b["resultado"].as_str().unwrap().contains("cancelada"), "{b}");
    assert_eq!(status_solicitacao(&m, id).await, "CANCELADA");
    assert!(!no_outbox(&m.mercado, id).await, "the row left the outbox");
    assert_eq!(
        arquivo(&m.mercado, id).await,
        vec![("descartar".into(), "operador".into(), Some("SKU suspenso".into()))]
    );
    assert_audit_clean(&m, "descartar ReposicaoSolicitada").await;

    // The shelf is empty, so no sale can happen: what matters is that no open request blocks
    // the SKU any more (the next shelf change below the minimum asks; see the test below).
    let abertas: i64 = m.mercado.db.valor("SELECT count(*) FROM solicitacao_reposicao WHERE sku = $1 AND status IN ('PENDENTE','AGUARDANDO_LOTE')",
        &[&COCA],
    )
    .await;
    assert_eq!(abertas, 0, "no open request blocks the SKU");
}

#[tokio::test]
async fn a_request_discarded_after_a_restock_lets_the_next_sale_ask_again() {
    // The first restock arrives; a sale below the minimum asks again and that request dies.
    let m = market(200).await;
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 24);
    assert_eq!(m.comprar(COCA, 20).await, 201);
    let id = morto(&m.mercado, "ReposicaoSolicitada").await;
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 4, "its restock is stuck");
    let (s, b) = no_evento(&m, Servico::Mercado, Method::DELETE, id, "?motivo=teste").await;
    assert_eq!(s, 200, "{b}");
    assert_audit_clean(&m, "descartar ReposicaoSolicitada").await;
    // The next sale below the minimum asks again (before the fix it never did).
    assert_eq!(m.comprar(COCA, 1).await, 201);
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 24, "the next sale below the minimum restocked the SKU");
    assert_audit_clean(&m, "the restock after the discard").await;
    repoe_de_novo(&m, "descartar ReposicaoSolicitada").await;
}

#[tokio::test]
async fn a_request_asked_again_opens_a_fresh_request_with_a_new_event() {
    let (m, id) = solicitacao_morta().await;
    let (s, b) = no_evento(&m, Servico::Mercado, Method::POST, id, "/refazer?motivo=relogio+adiantado").await;
    assert_eq!(s, 200, "{b}");
    let resultado = b["resultado"].as_str().unwrap();
    assert!(resultado.contains("nova solicitação"), "{b}");
    assert_eq!(status_solicitacao(&m, id).await, "CANCELADA");
    assert_eq!(arquivo(&m.mercado, id).await[0].0, "refazer");
    reposto(&m, "the fresh request was served", "refazer ReposicaoSolicitada").await;
}

#[tokio::test]
async fn the_cli_discards_and_asks_again_with_the_consoles_rules() {
    let (m, id) = solicitacao_morta().await;
    let mut env = m.env();
    env.insert("USER", "maria".into());
    // `show` explains each action before it is taken.
    let evento = id.to_string();
    let out = outbox_cli(&["show", "--db", "mercado", &evento], &env);
    let texto = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{texto}{}", String::from_utf8_lossy(&out.stderr));
    assert!(texto.contains("descartar") && texto.contains("cancela a solicitação"), "{texto}");
    // A reason is required.
    let out = outbox_cli(&["redo", "--db", "mercado", &evento], &env);
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let out = outbox_cli(&["redo", "--db", "mercado", &evento, "--motivo", "pedir de novo"], &env);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let f: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(f["acao"], "refazer");
    assert_eq!(
        arquivo(&m.mercado, id).await,
        vec![("refazer".into(), "cli:maria".into(), Some("pedir de novo".into()))]
    );
    // Archived: nothing left to act on.
    let out = outbox_cli(&["discard", "--db", "mercado", &evento, "--motivo", "x"], &env);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not found"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    reposto(&m, "the request asked again was served", "giro outbox redo").await;
}

/// A `ReposicaoEnviada` dead letter: the units left the lot, mercado's request waits.
async fn remessa_morta() -> (Market, Uuid) {
    let m = market(200).await;
    m.pump_lado(Servico::Mercado).await;
    let id = morto(&m.estoque, "ReposicaoEnviada").await;
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 0, "the shipment is stuck");
    (m, id)
}

#[tokio::test]
async fn a_shipment_replayed_or_reissued_is_credited_and_the_sku_restocks_again() {
    for acao in ["reenvio", "refazer"] {
        let (m, id) = remessa_morta().await;
        let (s, b) =
            no_evento(&m, Servico::Estoque, Method::POST, id, &format!("/{acao}?motivo=teste")).await;
        assert_eq!(s, 200, "{acao}: {b}");
        if acao == "refazer" {
            assert!(b["resultado"].as_str().unwrap().contains("reemitida"), "{b}");
            let novo: i64 = m
                .estoque
                .db
                .valor("SELECT count(*) FROM reposicao_expedida WHERE event_id <> $1", &[&id])
                .await;
            assert_eq!(novo, 1, "the shipment's row points at the new event");
        }
        reposto(&m, &format!("{acao}: the units arrived"), acao).await;
    }
}

/// A `ReposicaoEnviada` that reached mercado (shelf credited to 24) but whose answer was lost:
/// estoque dead-lettered it on a timeout, so its outcome is unknown to the operator.
async fn remessa_aplicada_e_morta() -> (Market, Uuid) {
    let m = market(200).await;
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 24, "the shipment was credited");
    let id: Uuid = m
        .estoque
        .db
        .valor(
            "UPDATE outbox_event SET status = 'FAILED', ultimo_erro = 'tempo esgotado aguardando a resposta', \
                    lease_token = NULL WHERE tipo = 'ReposicaoEnviada' RETURNING id",
            &[],
        )
        .await;
    (m, id)
}

/// Issue 37 §1: every repair of a shipment whose outcome is unknown credits it once. Before the
/// shipment was keyed on its own identity, "Reemitir" credited the 24 units again (shelf 48) and
/// `giro audit` failed on `conservacao_prateleira`.
#[tokio::test]
async fn a_shipment_applied_before_its_answer_was_lost_is_credited_once_whatever_the_repair() {
    for acao in ["reenvio", "refazer"] {
        let (m, id) = remessa_aplicada_e_morta().await;
        let (s, b) =
            no_evento(&m, Servico::Estoque, Method::POST, id, &format!("/{acao}?motivo=teste")).await;
        assert_eq!(s, 200, "{acao}: {b}");
        m.pump().await;
        assert_eq!(m.prateleira(COCA).await, 24, "{acao}: the shipment was not credited a second time");
        let creditadas: i64 = m.mercado.db.valor("SELECT count(*) FROM remessa_creditada", &[]).await;
        assert_eq!(creditadas, 1, "{acao}: one shipment recorded");
        assert_audit_clean(&m, acao).await;
        repoe_de_novo(&m, acao).await;
    }
    // Discarding stays refused, and the safe repair is offered first, saying why.
    let (m, id) = remessa_aplicada_e_morta().await;
    let (s, d) = no_evento(&m, Servico::Estoque, Method::GET, id, "").await;
    assert_eq!(s, 200, "{d}");
    assert_eq!(d["opcoes"][0]["acao"], Value::from("reenviar"), "{d}");
    assert!(d["opcoes"][0]["efeito"].to_string().contains("não se sabe"), "{d}");
    let (s, b) = no_evento(&m, Servico::Estoque, Method::DELETE, id, "?motivo=teste").await;
    assert_eq!(s, 409, "{b}");
    assert_eq!(m.prateleira(COCA).await, 24);
    let (_, r) = audit(&m);
    let tipos: Vec<&str> =
        r["divergencias"].as_array().unwrap().iter().map(|d| d["tipo"].as_str().unwrap()).collect();
    assert_eq!(tipos, ["evento_falhou"], "only the dead letter itself, nothing lost or doubled: {r:#}");
}

#[tokio::test]
async fn an_answer_cannot_be_discarded_and_the_refusal_says_what_the_market_would_be_left_with() {
    let (m, id) = remessa_morta().await;
    let (s, d) = no_evento(&m, Servico::Estoque, Method::GET, id, "").await;
    assert_eq!(s, 200, "{d}");
    let descartar = &d["opcoes"][1];
    assert_eq!(
        (&descartar["acao"], &descartar["permitida"]),
        (&Value::from("descartar"), &Value::from(false)),
        "{d}"
    );
    assert_eq!(
        (&d["opcoes"][2]["acao"], &d["opcoes"][2]["rotulo"]),
        (&Value::from("refazer"), &Value::from("Reemitir"))
    );
    let (s, b) = no_evento(&m, Servico::Estoque, Method::DELETE, id, "?motivo=teste").await;
    assert_eq!(s, 409, "{b}");
    let detail = b["detail"].as_str().unwrap();
    assert!(detail.contains("solicitação") && detail.contains("Reemitir"), "{detail}");
    assert!(no_outbox(&m.estoque, id).await, "refused: nothing archived");
    assert!(arquivo(&m.estoque, id).await.is_empty());
    // The CLI refuses the same.
    let out = outbox_cli(&["discard", "--db", "estoque", &id.to_string(), "--motivo", "x"], &m.env());
    assert_eq!(out.status.code(), Some(1));
    // Discard-all leaves it and says so.
    let (s, b) =
        call(&m.estoque, &m.op_estoque, Method::POST, "/operacao/outbox/descarte?motivo=limpeza").await;
    assert_eq!((s, &b["descartados"], &b["recusados"]), (200, &Value::from(0), &Value::from(1)), "{b}");
}

/// A `ReposicaoNegada` (SEM_SALDO) dead letter: the lot had 5 of the 24 asked, the second request
/// found nothing; estoque's demand is open, mercado's request PENDENTE.
async fn negativa_morta() -> (Market, Uuid) {
    let m = market(5).await;
    m.pump_lado(Servico::Mercado).await; // ships the 5
    m.pump_lado(Servico::Estoque).await; // credited; shelf 5 < 6 asks again
    m.pump_lado(Servico::Mercado).await; // nothing left: demand + ReposicaoNegada
    let id = morto(&m.estoque, "ReposicaoNegada").await;
    m.pump().await;
    assert_eq!(m.prateleira(COCA).await, 5);
    (m, id)
}

#[tokio::test]
async fn a_denial_replayed_or_reissued_leaves_the_request_waiting_for_a_lot_which_restocks_it() {
    for acao in ["reenvio", "refazer"] {
        let (m, id) = negativa_morta().await;
        // Its discard is refused: mercado's request would wait for an answer that never comes.
        let (s, b) = no_evento(&m, Servico::Estoque, Method::DELETE, id, "?motivo=x").await;
        assert_eq!(s, 409, "{b}");
        assert!(b["detail"].as_str().unwrap().contains("PENDENTE"), "{b}");
        let (s, b) =
            no_evento(&m, Servico::Estoque, Method::POST, id, &format!("/{acao}?motivo=teste")).await;
        assert_eq!(s, 200, "{acao}: {b}");
        m.pump().await;
        let status: String = m
            .mercado
            .db
            .valor(
                "SELECT status FROM solicitacao_reposicao WHERE sku = $1 ORDER BY id DESC LIMIT 1",
                &[&COCA],
            )
            .await;
        assert_eq!(status, "AGUARDANDO_LOTE", "{acao}");
        assert_audit_clean(&m, acao).await;
        // The next lot serves the waiting demand: the SKU restocks.
        m.lote(COCA, "COCA COLA 2L PET", "L-COCA-02", 200, None).await;
        reposto(&m, &format!("{acao}: the lot served the demand"), acao).await;
        let (s, _) = no_evento(&m, Servico::Estoque, Method::DELETE, id, "?motivo=x").await;
        assert!(s == 404 || s == 409, "{acao}: {s}");
    }
}

#[tokio::test]
async fn a_classification_discarded_replayed_or_reissued_leaves_both_sides_agreeing() {
    for acao in ["descartar", "reenvio", "refazer"] {
        let m = market(200).await;
        m.pump().await;
        let id = Uuid::new_v4();
        let c = m.estoque.db.client().await;
        c.execute(
            "UPDATE produto_estoque SET tags = '[\"coca\",\"cola\"]'::jsonb, categoria = 'bebidas' WHERE sku = $1",
            &[&COCA],
        )
        .await
        .unwrap();
        let payload = serde_json::json!({"eventId": id, "sku": COCA, "tags": ["coca"], "categoria": "refrigerantes", "ocorridoEm": "2026-01-01T00:00:00Z"});
        c.execute(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, tentativas, ultimo_erro) \
             VALUES ($1, 'ProdutoClassificado', $2, 'FAILED', now(), now(), 1, 'HTTP 400: ocorridoEm')",
            &[&id, &payload],
        )
        .await
        .unwrap();
        let (metodo, resto) = match acao {
            "descartar" => (Method::DELETE, "?motivo=teste".to_string()),
            a => (Method::POST, format!("/{a}?motivo=teste")),
        };
        let (s, b) = no_evento(&m, Servico::Estoque, metodo, id, &resto).await;
        assert_eq!(s, 200, "{acao}: {b}");
        m.pump().await;
        let categoria: Option<String> =
            m.mercado.db.valor("SELECT categoria FROM produto_vitrine WHERE sku = $1", &[&COCA]).await;
        match acao {
            "refazer" => {
                assert_eq!(categoria.as_deref(), Some("bebidas"), "the product's current classification")
            }
            "reenvio" => assert_eq!(categoria.as_deref(), Some("refrigerantes"), "the event as it was"),
            _ => assert_ne!(categoria.as_deref(), Some("refrigerantes")),
        }
        assert_audit_clean(&m, acao).await;
        repoe_de_novo(&m, acao).await;
    }
}

/// `giro outbox retry` follows the console's rules: a SENT event is refused without `--force`
/// (and a PENDING one always), exactly as the console's replay.
#[tokio::test]
async fn the_cli_retry_refuses_a_sent_event_unless_forced_like_the_console() {
    let m = market(200).await;
    m.pump().await;
    let sent: Uuid =
        m.mercado.db.valor("SELECT id FROM outbox_event WHERE status = 'SENT' LIMIT 1", &[]).await;
    let out = outbox_cli(&["retry", "--db", "mercado", &sent.to_string()], &m.env());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("SENT") && err.contains("--force"), "{err}");
    let (s, b) = no_evento(&m, Servico::Mercado, Method::POST, sent, "/reenvio").await;
    assert_eq!(s, 409, "the console refuses it the same way: {b}");
    let out = outbox_cli(&["retry", "--db", "mercado", &sent.to_string(), "--force"], &m.env());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let status: String = m.mercado.db.valor("SELECT status FROM outbox_event WHERE id = $1", &[&sent]).await;
    assert_eq!(status, "PENDING");
    m.pump().await;
    assert_audit_clean(&m, "a forced retry of a SENT event").await;
}

/// Issue 25.6: replay-all of 100 000 dead letters answers within the request timeout, all of them
/// replayed and recorded, a page per statement.
#[tokio::test]
async fn replay_all_of_100_000_dead_letters_completes_within_the_request_timeout() {
    let app = spawn_app(Servico::Mercado, &[]).await;
    app.db
        .client()
        .await
        .batch_execute(
            "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, tentativas, ultimo_erro) \
             SELECT gen_random_uuid(), 'ReposicaoSolicitada', jsonb_build_object('sku', '7894900011517'), 'FAILED', \
                    now() - make_interval(secs => g), now(), 3, 'HTTP 400' FROM generate_series(1, 100000) g; \
             ANALYZE outbox_event",
        )
        .await
        .unwrap();
    let op = Operador::login(&app).await;
    let t = Instant::now();
    let (s, b) = call(&app, &op, Method::POST, "/operacao/outbox/reenvio?motivo=backlog").await;
    let levou = t.elapsed();
    assert_eq!(s, 200, "{b}");
    assert_eq!(
        (&b["reenviados"], &b["restantes"]),
        (&Value::from(100_000), &Value::from(0)),
        "{b} in {levou:?}"
    );
    assert!(levou < app.config.limites_http.timeout_requisicao, "{levou:?}");
    let c = app.db.client().await;
    let (pendentes, registros): (i64, i64) = (
        c.query_one("SELECT count(*) FROM outbox_event WHERE status = 'PENDING'", &[]).await.unwrap().get(0),
        c.query_one("SELECT count(*) FROM outbox_event_arquivo WHERE acao = 'reenviar'", &[])
            .await
            .unwrap()
            .get(0),
    );
    assert_eq!((pendentes, registros), (100_000, 100_000));
    eprintln!("replay-all of 100 000 dead letters: {levou:?}");
}

/// Discard-all: every dead letter whose type allows it, archived a page at a time with the
/// service's repair (each request closed), answering how many.
#[tokio::test]
async fn discard_all_archives_every_dead_letter_and_closes_their_requests() {
    let app = spawn_app(Servico::Mercado, &[]).await;
    let c = app.db.client().await;
    c.batch_execute(
        "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) \
           SELECT lpad(g::text, 13, '0'), 'P' || g, 1, 0, 2, 10, 'ESGOTADO' FROM generate_series(1, 12000) g; \
         INSERT INTO solicitacao_reposicao (event_id, sku, qtd_solicitada, status, criado_em) \
           SELECT gen_random_uuid(), lpad(g::text, 13, '0'), 10, 'PENDENTE', now() FROM generate_series(1, 12000) g; \
         INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em, tentativas, ultimo_erro) \
           SELECT event_id, 'ReposicaoSolicitada', jsonb_build_object('eventId', event_id, 'sku', sku, 'qtdFaltante', 10, \
                  'ocorridoEm', '2026-01-01T00:00:00Z'), 'FAILED', now(), now(), 3, 'HTTP 400' FROM solicitacao_reposicao",
    )
    .await
    .unwrap();
    let op = Operador::login(&app).await;
    let (s, b) = call(&app, &op, Method::POST, "/operacao/outbox/descarte").await;
    assert_eq!(s, 400, "a reason is required: {b}");
    let (s, b) = call(&app, &op, Method::POST, "/operacao/outbox/descarte?motivo=limpeza").await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(
        (&b["descartados"], &b["restantes"], &b["recusados"]),
        (&Value::from(12_000), &Value::from(0), &Value::from(0)),
        "{b}"
    );
    let abertas: i64 = c
        .query_one("SELECT count(*) FROM solicitacao_reposicao WHERE status = 'PENDENTE'", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(abertas, 0, "every request closed with its event");
    let arquivados: i64 = c
        .query_one(
            "SELECT count(*) FROM outbox_event_arquivo WHERE acao = 'descartar' AND por = 'operador'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(arquivados, 12_000);
}
