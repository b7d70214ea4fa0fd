//! A real receiver (`/eventos`, `/eventos/lote` with the inbox) in front of a test consumer whose
//! effect is a row in `efeito`, so tests can count effects.

use std::net::SocketAddr;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use giro_contracts::{EventoIntegracao, TIPOS};
use giro_http::auth::Seguranca;
use giro_infra::config::Secret;
use giro_infra::db::{Db, Tx};
use giro_outbox::inbox::{self, Consumidor};
use giro_servicos::config::Servico;
use giro_servicos::estoque::Estoque;

use super::{TestDb, ESTOQUE_TOKEN, OPERADOR, SENHA};

pub struct Efeitos;

impl Consumidor<Estoque> for Efeitos {
    type Evento = EventoIntegracao;

    fn aceitos(&self) -> &'static [&'static str] {
        &TIPOS
    }

    fn aplicar<'a>(
        &'a self,
        tx: &'a Tx<'_, Estoque>,
        evento: &'a EventoIntegracao,
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            // A test hook: 13 units is an effect that fails (a bug, a lock timeout…).
            if let EventoIntegracao::ReposicaoSolicitada(e) = evento {
                anyhow::ensure!(e.qtd_faltante != 13, "efeito falhou de propósito");
            }
            tx.execute(
                "INSERT INTO efeito (event_id, tipo) VALUES ($1, $2)",
                &[&evento.event_id(), &evento.tipo()],
            )
            .await?;
            Ok(())
        })
    }
}

pub struct Receiver {
    pub addr: SocketAddr,
    pub db: TestDb,
}

impl Receiver {
    /// Starts a receiver that authenticates with `ESTOQUE_TOKEN` (it plays estoque).
    pub async fn start(lote_max: usize) -> Receiver {
        let db = TestDb::new(Servico::Estoque).await;
        let c = db.client().await;
        c.batch_execute("CREATE TABLE efeito (event_id UUID NOT NULL, tipo TEXT NOT NULL)")
            .await
            .expect("efeito");
        let dbh = Db::new(db.pool(), false);
        let seg = Seguranca::new(
            Secret::new(ESTOQUE_TOKEN),
            giro_infra::config::Operador { usuario: OPERADOR.into(), senha: Secret::new(SENHA) },
            "ESTOQUE_SESSAO",
            "XSRF-ESTOQUE",
            dbh.pool.clone(),
            giro_http::auth::sessao::SESSION_TTL,
        );
        let router = giro_http::finish(
            inbox::router(dbh, Arc::new(Efeitos), lote_max)
                .merge(giro_http::auth::login::router(seg.clone())),
            seg,
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        tokio::spawn(async move {
            let _ = giro_http::serve(
                listener,
                router,
                tokio_util::sync::CancellationToken::new(),
                std::time::Duration::from_secs(1),
            )
            .await;
        });
        Receiver { addr, db }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub async fn count(&self, sql: &str) -> i64 {
        self.db.client().await.query_one(sql, &[]).await.expect("count").get(0)
    }
}
