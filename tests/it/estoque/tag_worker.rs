//! Contract test (SPEC §7.4, issue 6): estoque's tag client — the very `ClienteTags` the service
//! runs — against the real tag-worker, started from `tag-worker/` with uvicorn on a free loopback
//! port. This is the test that caught the original's bug (an h2c upgrade made uvicorn drop the
//! body): the classification coming back proves the body arrived.
//! The worker itself is started by `support::tag_worker`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use giro_infra::config::Secret;
use giro_servicos::config::TagsConfig;
use giro_servicos::estoque::classificacao::{Classificacao, ClienteTags};

use crate::support::tag_worker::TagWorker;

const COCA: &str = "7894900011517";
const TOKEN: &str = "token-do-tag-worker-para-o-teste-de-contrato";

/// The service's client for `worker`, configured as estoque configures it.
fn cliente(worker: &TagWorker, token: Option<&str>) -> ClienteTags {
    ClienteTags::new(&TagsConfig {
        worker_url: worker.url.clone(),
        worker_token: token.map(Secret::new),
        timeout: Duration::from_secs(2),
        reclassificacao_habilitada: false,
        intervalo_reclassificacao: Duration::from_secs(300),
        lote_reclassificacao: 20,
    })
    .unwrap()
}

fn coca() -> Option<Classificacao> {
    Some(Classificacao {
        tags: vec!["coca".into(), "cola".into(), "2l".into(), "pet".into()],
        categoria: "bebidas".into(),
    })
}

#[tokio::test]
async fn the_estoque_client_classifies_through_the_real_tag_worker() {
    let worker = TagWorker::start(None).await;
    let cliente = cliente(&worker, None);

    assert_eq!(cliente.classificar(COCA, "COCA COLA 2L PET").await, coca(), "{}", worker.log());
    let leite = cliente.classificar("7891000100103", "LEITE INTEGRAL 1L").await;
    assert_eq!(leite.map(|c| c.categoria).as_deref(), Some("laticinios"));
    // A body the worker rejects (422: invalid SKU) is no classification, not an error.
    assert_eq!(cliente.classificar("123", "COCA COLA 2L PET").await, None);
}

#[tokio::test]
async fn with_a_token_on_both_sides_it_works_and_a_client_without_it_gets_nothing() {
    let worker = TagWorker::start(Some(TOKEN)).await;

    assert_eq!(
        cliente(&worker, Some(TOKEN)).classificar(COCA, "COCA COLA 2L PET").await,
        coca(),
        "{}",
        worker.log()
    );
    assert_eq!(
        cliente(&worker, None).classificar(COCA, "COCA COLA 2L PET").await,
        None,
        "401 without the token"
    );
    assert_eq!(
        cliente(&worker, Some("outro-token-qualquer-0123")).classificar(COCA, "COCA COLA 2L PET").await,
        None
    );
}
