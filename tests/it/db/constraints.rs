//! The database rejects what SPEC §2 says it must, whatever the code above it does.

use giro_servicos::config::Servico;

use crate::support::TestDb;

/// Runs `sql` and returns the name of the constraint that rejected it.
async fn violated(c: &tokio_postgres::Client, sql: &str) -> String {
    let err = c.batch_execute(sql).await.expect_err(&format!("accepted: {sql}"));
    let db = err.as_db_error().unwrap_or_else(|| panic!("not a database error: {err}"));
    db.constraint().unwrap_or_else(|| panic!("no constraint named in {db:?}")).to_string()
}

#[tokio::test]
async fn mercado_constraints_reject_bad_rows() {
    let db = TestDb::new(Servico::Mercado).await;
    let c = db.client().await;
    assert_eq!(
        violated(&c, "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) VALUES ('123', 'x', 1, 0, 1, 2, 'ESGOTADO')").await,
        "ck_produto_vitrine_sku_gtin"
    );
    assert_eq!(
        violated(&c, "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) VALUES ('7894900011517', 'x', 1, -1, 1, 2, 'ESGOTADO')").await,
        "ck_produto_vitrine_prateleira"
    );
    assert_eq!(
        violated(&c, "INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) VALUES ('7894900011517', 'x', 1, 0, 5, 2, 'ESGOTADO')").await,
        "ck_produto_vitrine_min_max"
    );
    c.batch_execute("INSERT INTO produto_vitrine (sku, nome, preco, estoque_prateleira, estoque_minimo, estoque_ideal, status) VALUES ('7894900011517', 'Coca', 8.99, 0, 6, 24, 'ESGOTADO')").await.unwrap();
    c.batch_execute("INSERT INTO solicitacao_reposicao (event_id, sku, qtd_solicitada, status, criado_em) VALUES (gen_random_uuid(), '7894900011517', 24, 'PENDENTE', now())").await.unwrap();
    assert_eq!(
        violated(&c, "INSERT INTO solicitacao_reposicao (event_id, sku, qtd_solicitada, status, criado_em) VALUES (gen_random_uuid(), '7894900011517', 24, 'AGUARDANDO_LOTE', now())").await,
        "uk_solicitacao_reposicao_ativa_por_sku"
    );
    // A closed request does not block a new open one.
    c.batch_execute("UPDATE solicitacao_reposicao SET status = 'ATENDIDA'").await.unwrap();
    c.batch_execute("INSERT INTO solicitacao_reposicao (event_id, sku, qtd_solicitada, status, criado_em) VALUES (gen_random_uuid(), '7894900011517', 24, 'PENDENTE', now())").await.unwrap();

    inbox_and_outbox_constraints(&c).await;
    assert_eq!(
        violated(&c, "INSERT INTO pedido (id, status, total, criado_em) VALUES (gen_random_uuid(), 'PERDIDO', 0, now())").await,
        "ck_pedido_status"
    );
}

/// Both databases' inbox and outbox tables: an event id is received once, an outbox row's status
/// is one of three.
async fn inbox_and_outbox_constraints(c: &tokio_postgres::Client) {
    c.batch_execute("INSERT INTO inbox_event VALUES ('0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a', now())")
        .await
        .unwrap();
    assert_eq!(
        violated(c, "INSERT INTO inbox_event VALUES ('0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a', now())").await,
        "inbox_event_pkey"
    );
    outbox_status_is_one_of_three(c).await;
}

async fn outbox_status_is_one_of_three(c: &tokio_postgres::Client) {
    for ok in ["PENDING", "SENT", "FAILED"] {
        c.batch_execute(&format!("INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em) VALUES (gen_random_uuid(), 'ReposicaoSolicitada', '{{}}', '{ok}', now(), now())")).await.unwrap();
    }
    assert_eq!(
        violated(c, "INSERT INTO outbox_event (id, tipo, payload, status, criado_em, proxima_tentativa_em) VALUES (gen_random_uuid(), 'X', '{}', 'LOST', now(), now())").await,
        "ck_outbox_event_status"
    );
}

#[tokio::test]
async fn estoque_constraints_reject_bad_rows() {
    let db = TestDb::new(Servico::Estoque).await;
    let c = db.client().await;
    assert_eq!(
        violated(
            &c,
            "INSERT INTO produto_estoque (sku, descricao, ncm) VALUES ('12345678901', 'x', '22021000')"
        )
        .await,
        "ck_produto_estoque_sku_gtin"
    );
    assert_eq!(
        violated(
            &c,
            "INSERT INTO produto_estoque (sku, descricao, ncm) VALUES ('7894900011517', 'x', '2202100A')"
        )
        .await,
        "ck_produto_estoque_ncm"
    );
    assert_eq!(violated(&c, "INSERT INTO produto_estoque (sku, descricao, ncm, saldo_disponivel) VALUES ('7894900011517', 'x', '22021000', -1)").await, "ck_produto_estoque_saldo");
    assert_eq!(violated(&c, "INSERT INTO produto_estoque (sku, descricao, ncm, tags) VALUES ('7894900011517', 'x', '22021000', '{\"a\":1}')").await, "ck_produto_estoque_tags_array");
    c.batch_execute("INSERT INTO produto_estoque (sku, descricao, ncm) VALUES ('7894900011517', 'COCA COLA 2L PET', '22021000')").await.unwrap();
    c.batch_execute("INSERT INTO lote (sku, codigo_lote, quantidade, quantidade_disponivel, recebido_em) VALUES ('7894900011517', 'L1', 10, 10, now())").await.unwrap();
    assert_eq!(violated(&c, "INSERT INTO lote (sku, codigo_lote, quantidade, quantidade_disponivel, recebido_em) VALUES ('7894900011517', 'L1', 5, 5, now())").await, "uk_lote_sku_codigo");
    assert_eq!(
        violated(&c, "UPDATE lote SET quantidade_disponivel = 11").await,
        "ck_lote_quantidade_disponivel"
    );
    assert_eq!(violated(&c, "INSERT INTO lote (sku, codigo_lote, quantidade, quantidade_disponivel, recebido_em) VALUES ('7894900011517', 'L2', 0, 0, now())").await, "ck_lote_quantidade");
    c.batch_execute("INSERT INTO demanda_reprimida (sku, qtd_solicitada, solicitacao_original, registrado_em) VALUES ('7894900011517', 16, '0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a', now())").await.unwrap();
    assert_eq!(
        violated(&c, "INSERT INTO demanda_reprimida (sku, qtd_solicitada, solicitacao_original, registrado_em) VALUES ('7894900011517', 16, '0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a', now())").await,
        "uk_demanda_reprimida_solicitacao"
    );
    inbox_and_outbox_constraints(&c).await;
}
