//! `giro dev`: the whole market on this machine from one command, with the demo catalogue.

use std::time::Duration;

use serde_json::Value;

use crate::support::process::{command, Giro};
use crate::support::{free_port, wait_until, TestDb};

#[tokio::test]
async fn giro_dev_brings_the_market_up_with_the_demo_catalogue_and_stops_on_sigterm() {
    let (mercado_db, estoque_db) = (TestDb::empty().await, TestDb::empty().await);
    let (mp, ep, tp) = (free_port(), free_port(), free_port());
    let env = [
        ("MERCADO_DB_URL", mercado_db.url()),
        ("ESTOQUE_DB_URL", estoque_db.url()),
        ("MERCADO_PORTA", mp.to_string()),
        ("ESTOQUE_PORTA", ep.to_string()),
        ("ESTOQUE_URL", format!("http://127.0.0.1:{ep}")),
        ("ESTOQUE_EVENTOS_URL", format!("http://127.0.0.1:{ep}")),
        ("MERCADO_EVENTOS_URL", format!("http://127.0.0.1:{mp}")),
        ("TAG_WORKER_URL", format!("http://127.0.0.1:{tp}")),
        ("GIRO_HTTP_ENDERECO", "127.0.0.1".to_string()),
        // The fronts have their own suites (web/); here the market without them.
        ("GIRO_DEV_SEM_WEB", "1".to_string()),
        ("GIRO_WEB_PORTA_VITRINE", free_port().to_string()),
        ("GIRO_WEB_PORTA_PAINEL", free_port().to_string()),
    ]
    .into_iter()
    .collect();
    // The first start also leaves the console something to show (--with-faults).
    let cmd = command(&["dev", "--with-faults"], &env);
    let dir = cmd.get_current_dir().unwrap().to_path_buf();
    let mut giro = Giro::spawn_command(cmd);
    giro.wait_for_line("the market is up", Duration::from_secs(180)).await;

    // The shelves fill through the outbox; pão and sabão only have expired lots.
    let url = format!("http://127.0.0.1:{mp}/produtos");
    let produtos: Vec<Value> = wait_until(Duration::from_secs(120), "six shelves restocked", || async {
        let ps: Vec<Value> = reqwest::get(&url).await.ok()?.json().await.ok()?;
        (ps.len() == 8 && ps.iter().filter(|p| p["status"] == "DISPONIVEL").count() == 6).then_some(ps)
    })
    .await;
    let status = |sku: &str| {
        produtos.iter().find(|p| p["sku"] == sku).map(|p| p["status"].as_str().unwrap().to_string())
    };
    assert_eq!(status("7891962047205").as_deref(), Some("ESGOTADO"), "pão");
    assert_eq!(status("7891150061729").as_deref(), Some("ESGOTADO"), "sabão");
    let coca = produtos.iter().find(|p| p["sku"] == "7894900011517").unwrap();
    assert_eq!(coca["disponivel"], 24, "coca restocked up to its ideal");
    assert_eq!(coca["categoria"], "bebidas", "classified by the real tag-worker");

    // The dashboard shows their pent-up demand, with the generated operator login.
    let dotenv = std::fs::read_to_string(dir.join(".env")).unwrap();
    let senha = dotenv.lines().find_map(|l| l.strip_prefix("OPERADOR_SENHA=")).unwrap().to_string();
    let op = giro_dev::cliente::Operador::login(
        &format!("http://127.0.0.1:{ep}"),
        "XSRF-ESTOQUE",
        "operador",
        &senha,
    )
    .await
    .unwrap();
    let (status, demandas) = op.get("/painel/demandas").await.unwrap();
    assert_eq!(status, 200);
    let mut skus: Vec<&str> =
        demandas.as_array().unwrap().iter().map(|d| d["sku"].as_str().unwrap()).collect();
    skus.sort();
    assert_eq!(skus, vec!["7891150061729", "7891962047205"]);
    let (_, resumo) = op.get("/painel/resumo").await.unwrap();
    assert_eq!(resumo["demandasAbertas"], 2);
    assert_eq!(resumo["skusCadastrados"], 8);

    // --with-faults: a dead letter in mercado's outbox, a delayed event in estoque's.
    let m = mercado_db.client().await;
    wait_until(Duration::from_secs(120), "the dead letter", || async {
        let n: i64 = m
            .query_one("SELECT count(*) FROM outbox_event WHERE status = 'FAILED' AND (payload->>'qtdFaltante')::int = 0", &[])
            .await
            .ok()?
            .get(0);
        (n == 1).then_some(())
    })
    .await;
    let e = estoque_db.client().await;
    let atrasado: i64 = e
        .query_one(
            "SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND tentativas = 3 AND proxima_tentativa_em > now()",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(atrasado, 1, "the delayed event");

    // The banner prints the development login it generated.
    assert!(giro.log().contains(&format!("operator     operador / {senha}")), "{}", giro.log());

    giro.signal("TERM");
    let st = giro.wait_exit(Duration::from_secs(60)).await.expect("giro dev stops");
    assert!(st.success(), "{st}");
    assert!(reqwest::get(&url).await.is_err(), "mercado stopped with it");

    // A second start finds everything loaded: nothing to load, and not one warning.
    let mut cmd = command(&["dev"], &env);
    cmd.current_dir(&dir);
    let mut again = Giro::spawn_command(cmd);
    again.wait_for_line("the market is up", Duration::from_secs(180)).await;
    let log = again.log();
    assert!(log.contains("0 lots and 0 products loaded now"), "{log}");
    let warns: Vec<&str> = log.lines().filter(|l| l.contains(" WARN ") || l.contains("\"WARN\"")).collect();
    assert!(warns.is_empty(), "the second start logged warnings:\n{}", warns.join("\n"));
    again.signal("TERM");
    assert!(again.wait_exit(Duration::from_secs(60)).await.expect("giro dev stops").success());
}
