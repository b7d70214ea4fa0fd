use giro_servicos::config::Servico;

use crate::support::TestDb;

async fn tables(db: &TestDb) -> Vec<String> {
    let c = db.client().await;
    c.query(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
        &[],
    )
    .await
    .unwrap()
    .iter()
    .map(|r| r.get(0))
    .collect()
}

#[tokio::test]
async fn both_schemas_migrate_from_empty_and_a_second_run_changes_nothing() {
    for (s, expected_tables, expected_migrations) in [
        (
            Servico::Mercado,
            &[
                "checkout_idempotencia",
                "contador_limite",
                "contador_limite_total",
                "inbox_event",
                "item_pedido",
                "outbox_event",
                "outbox_event_arquivo",
                "outbox_tentativa",
                "pedido",
                "produto_vitrine",
                "refinery_schema_history",
                "remessa_creditada",
                "reserva",
                "sessao_operador",
                "solicitacao_reposicao",
            ][..],
            28,
        ),
        (
            Servico::Estoque,
            &[
                "baixa_lote",
                "contador_limite",
                "contador_limite_total",
                "demanda_reprimida",
                "inbox_event",
                "lote",
                "outbox_event",
                "outbox_event_arquivo",
                "outbox_tentativa",
                "produto_estoque",
                "refinery_schema_history",
                "reposicao_expedida",
                "sessao_operador",
            ][..],
            18,
        ),
    ] {
        let db = TestDb::empty().await;
        let first = giro_servicos::migrate::run(s, &db.db_config()).await.unwrap();
        assert_eq!(first.len(), expected_migrations, "{s}: {first:?}");
        assert!(first[0].starts_with("V1__cria_produto_"), "{first:?}");
        assert_eq!(tables(&db).await, expected_tables);

        let c = db.client().await;
        let schema_before: i64 = c
            .query_one("SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public'", &[])
            .await
            .unwrap()
            .get(0);
        let second = giro_servicos::migrate::run(s, &db.db_config()).await.unwrap();
        assert!(second.is_empty(), "{s}: second run applied {second:?}");
        let schema_after: i64 = c
            .query_one("SELECT count(*) FROM information_schema.columns WHERE table_schema = 'public'", &[])
            .await
            .unwrap()
            .get(0);
        assert_eq!(schema_before, schema_after);
    }
}

#[tokio::test]
async fn the_giro_migrate_command_migrates_and_is_idempotent() {
    let db = TestDb::empty().await;
    let env = [("ESTOQUE_DB_URL", db.url())].into_iter().collect();
    for _ in 0..2 {
        let out = crate::support::process::command(&["migrate", "--db", "estoque"], &env).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let c = db.client().await;
    let n: i64 = c.query_one("SELECT count(*) FROM refinery_schema_history", &[]).await.unwrap().get(0);
    assert_eq!(n, 18);
}
