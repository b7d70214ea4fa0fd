//! Both services in-process, wired to each other on loopback, with a publisher per outbox that a
//! test pumps by hand: the whole restock conversation without any waiting.

use std::time::Duration;

use chrono::Utc;
use giro_outbox::Publisher;
use giro_servicos::config::Servico;
use serde_json::{json, Value};

use super::app::{config, spawn_app, Operador, TestApp};

pub struct Market {
    pub mercado: TestApp,
    pub estoque: TestApp,
    pub op_mercado: Operador,
    pub op_estoque: Operador,
    mercado_pub: Publisher,
    estoque_pub: Publisher,
}

impl Market {
    pub async fn start() -> Market {
        // estoque first: mercado's product lookup and events go to it.
        let estoque = spawn_app(
            Servico::Estoque,
            &[("TAG_WORKER_URL", "http://127.0.0.1:9"), ("GIRO_TAGS_TIMEOUT", "200ms")],
        )
        .await;
        let mercado = spawn_app(Servico::Mercado, &[("ESTOQUE_URL", &estoque.url(""))]).await;
        let mcfg = config(Servico::Mercado, &mercado.db, &[("ESTOQUE_EVENTOS_URL", &estoque.url(""))]);
        let mercado_pub = giro_servicos::server::publisher_de(
            &mcfg,
            Servico::Mercado,
            mercado.dbh.pool.clone(),
            mercado.dbh.signal.clone(),
            false,
        )
        .expect("publisher");
        let ecfg = config(Servico::Estoque, &estoque.db, &[("MERCADO_EVENTOS_URL", &mercado.url(""))]);
        let estoque_pub = giro_servicos::server::publisher_de(
            &ecfg,
            Servico::Estoque,
            estoque.dbh.pool.clone(),
            estoque.dbh.signal.clone(),
            false,
        )
        .expect("publisher");
        let op_mercado = Operador::login(&mercado).await;
        let op_estoque = Operador::login(&estoque).await;
        Market { mercado, estoque, op_mercado, op_estoque, mercado_pub, estoque_pub }
    }

    /// Relays both outboxes until nothing is due.
    pub async fn pump(&self) {
        for _ in 0..50 {
            let a = self.mercado_pub.round(Utc::now()).await.expect("mercado round");
            let b = self.estoque_pub.round(Utc::now()).await.expect("estoque round");
            if a.claimed == 0 && b.claimed == 0 {
                return;
            }
        }
        panic!("the outboxes did not drain in 50 rounds");
    }

    /// Relays one side's outbox until nothing of it is due (the other side's events wait).
    pub async fn pump_lado(&self, servico: Servico) {
        let p = match servico {
            Servico::Mercado => &self.mercado_pub,
            Servico::Estoque => &self.estoque_pub,
        };
        for _ in 0..50 {
            if p.round(Utc::now()).await.expect("round").claimed == 0 {
                return;
            }
        }
        panic!("the {servico} outbox did not drain in 50 rounds");
    }

    pub async fn lote(
        &self,
        sku: &str,
        descricao: &str,
        codigo: &str,
        qtd: i32,
        validade: Option<&str>,
    ) -> Value {
        let mut body = json!({"sku": sku, "descricao": descricao, "ncm": "22021000", "codigoLote": codigo, "quantidade": qtd});
        if let Some(v) = validade {
            body["validade"] = json!(v);
        }
        let res = self
            .op_estoque
            .on(self.estoque.http.post(self.estoque.url("/lotes")))
            .json(&body)
            .send()
            .await
            .expect("POST /lotes");
        assert_eq!(res.status(), 201, "POST /lotes");
        res.json().await.expect("json")
    }

    pub async fn produto(&self, sku: &str, nome: &str, preco: f64, min: i32, ideal: i32) {
        let body =
            json!({"sku": sku, "nome": nome, "preco": preco, "estoqueMinimo": min, "estoqueIdeal": ideal});
        let res = self
            .op_mercado
            .on(self.mercado.http.post(self.mercado.url("/produtos")))
            .json(&body)
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .expect("POST /produtos");
        assert_eq!(res.status(), 201, "POST /produtos");
    }

    pub async fn comprar(&self, sku: &str, qtd: i32) -> u16 {
        let res = self
            .mercado
            .http
            .post(self.mercado.url("/pedidos"))
            .json(&json!({"itens": [{"sku": sku, "qtd": qtd}]}))
            .send()
            .await
            .expect("POST /pedidos");
        res.status().as_u16()
    }

    pub async fn prateleira(&self, sku: &str) -> i32 {
        let c = self.mercado.db.client().await;
        c.query_one("SELECT estoque_prateleira FROM produto_vitrine WHERE sku = $1", &[&sku])
            .await
            .expect("shelf")
            .get(0)
    }

    /// Environment for a `giro` process that reads both databases.
    pub fn env(&self) -> std::collections::BTreeMap<&'static str, String> {
        [("MERCADO_DB_URL", self.mercado.db.url()), ("ESTOQUE_DB_URL", self.estoque.db.url())]
            .into_iter()
            .collect()
    }
}
