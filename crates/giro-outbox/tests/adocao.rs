//! The README's adoption path, run against a real PostgreSQL with nothing of Girô's services: a
//! shop defines its own event (`PedidoCriado`), writes it with [`giro_outbox::registrar`] in the
//! transaction that creates the order, a [`Publisher`] running its loop delivers it over HTTP to
//! billing's receiver (the crate's own [`inbox::router`] behind `giro_http::finish`), which applies
//! it once; a duplicate delivery — the same event posted again, and an operator's forced replay —
//! is acknowledged and applied zero times.
//!
//! `GIRO_TEST_PG_URL` names a superuser URL of the cluster (`scripts/pg start` runs one); each test
//! creates its scratch databases (`giro_outbox_t_<random>_…`), applies the crate's `schema.sql`
//! ([`giro_outbox::SCHEMA`]) and drops them at the end. Unset, the tests fail and say so.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use giro_infra::config::{DbConfig, Operador, OutboxConfig, Secret, Transporte};
use giro_infra::db::{Db, Tx};
use giro_infra::supervisor::Vivo;
use giro_outbox::inbox::{self, Consumidor};
use giro_outbox::{Evento, Peer, Publisher, Status};
use tokio_postgres::NoTls;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

const TOKEN: &str = "faturamento-token-0123456789abcdef0123456789ab";

/// The shop's database and billing's: markers, so a `Tx` of one is not taken for the other.
enum Loja {}
enum Faturamento {}

/// The one event: an order was created.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PedidoCriado {
    event_id: Uuid,
    pedido: String,
    total_centavos: i64,
    #[serde(with = "giro_outbox::instante")]
    ocorrido_em: DateTime<Utc>,
}

impl Evento for PedidoCriado {
    type Erro = String;
    const TIPOS: &'static [&'static str] = &["PedidoCriado"];
    const CAMINHO_CHAVE: &'static [&'static str] = &["pedido"];
    const NOME_CHAVE: &'static str = "pedido";

    fn tipo(&self) -> &'static str {
        "PedidoCriado"
    }
    fn event_id(&self) -> Uuid {
        self.event_id
    }
    fn ocorrido_em(&self) -> DateTime<Utc> {
        self.ocorrido_em
    }
    fn payload(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
    fn chave(&self) -> &str {
        &self.pedido
    }
    fn ler(tipo: &str, corpo: &[u8]) -> Result<Self, String> {
        let e: PedidoCriado =
            serde_json::from_slice(corpo).map_err(|e| format!("payload ilegível para {tipo}: {e}"))?;
        if e.total_centavos <= 0 {
            return Err(format!("{tipo} inválido: totalCentavos deve ser maior que 0"));
        }
        Ok(e)
    }
}

/// Billing: the effect of a new event, in the transaction that records it in the inbox.
struct Faturar;

impl Consumidor<Faturamento> for Faturar {
    type Evento = PedidoCriado;

    fn aceitos(&self) -> &'static [&'static str] {
        PedidoCriado::TIPOS
    }

    fn aplicar<'a>(
        &'a self,
        tx: &'a Tx<'_, Faturamento>,
        e: &'a PedidoCriado,
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            tx.execute(
                "INSERT INTO fatura (pedido, total_centavos) VALUES ($1, $2)",
                &[&e.pedido, &e.total_centavos],
            )
            .await?;
            Ok(())
        })
    }
}

fn relay_config() -> OutboxConfig {
    OutboxConfig {
        intervalo: Duration::from_millis(100),
        lote: 50,
        timeout: Duration::from_secs(10),
        backoff_maximo: Duration::from_secs(300),
        max_tentativas: None,
        prazo_entrega: Duration::from_secs(3 * 86_400),
        publicador_embutido: true,
        visibilidade: Duration::from_secs(60),
        concorrencia: 4,
        lote_max: 500,
        notify: false,
        retencao: Duration::from_secs(7 * 86_400),
        transporte: Transporte::Lote,
        parte_fresca: 50,
        varredura: Duration::from_secs(10),
    }
}

/// The cluster's superuser URL; without it the test fails and says what to set.
fn admin_config() -> tokio_postgres::Config {
    let url = std::env::var("GIRO_TEST_PG_URL").unwrap_or_else(|_| {
        panic!(
            "GIRO_TEST_PG_URL is not set: giro-outbox's tests need a PostgreSQL superuser URL, e.g. \
             GIRO_TEST_PG_URL=postgres://postgres:postgres@127.0.0.1:15432/postgres (scripts/pg start runs that cluster)"
        )
    });
    url.parse().unwrap_or_else(|e| panic!("GIRO_TEST_PG_URL is not a valid PostgreSQL URL: {e}"))
}

async fn connect(cfg: &tokio_postgres::Config) -> tokio_postgres::Client {
    let (client, conn) = cfg
        .connect(NoTls)
        .await
        .unwrap_or_else(|e| panic!("cannot connect to GIRO_TEST_PG_URL's cluster: {e}"));
    tokio::spawn(async move {
        let _ = conn.await;
    });
    client
}

/// A scratch database of the test's own with the crate's tables and the service's, dropped at
/// the end (also when the test fails).
struct Scratch {
    nome: String,
    pg: tokio_postgres::Config,
}

impl Scratch {
    async fn new(servico: &str, ddl: &str) -> Scratch {
        let nome = format!("giro_outbox_t_{:016x}_{servico}", fastrand::u64(..));
        connect(&admin_config())
            .await
            .batch_execute(&format!("CREATE DATABASE {nome}"))
            .await
            .unwrap_or_else(|e| panic!("CREATE DATABASE {nome}: {e}"));
        let mut pg = admin_config();
        pg.dbname(&nome);
        let db = Scratch { nome, pg };
        let c = db.client().await;
        c.batch_execute(giro_outbox::SCHEMA).await.unwrap_or_else(|e| panic!("the crate's schema.sql: {e}"));
        c.batch_execute(ddl).await.unwrap_or_else(|e| panic!("the service's tables: {e}"));
        db
    }

    fn db(&self) -> Db {
        let pool = giro_infra::db::pool(&DbConfig { pg: self.pg.clone() }, 8, Duration::from_secs(5))
            .unwrap_or_else(|e| panic!("pool: {e}"));
        Db::new(pool, false)
    }

    async fn client(&self) -> tokio_postgres::Client {
        connect(&self.pg).await
    }

    async fn valor<T: for<'a> tokio_postgres::types::FromSql<'a>>(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> T {
        self.client().await.query_one(sql, params).await.unwrap_or_else(|e| panic!("{sql}: {e}")).get(0)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let nome = self.nome.clone();
        // Drop cannot be async: a short-lived thread with its own runtime drops the database.
        let _ = std::thread::spawn(move || {
            if let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() {
                rt.block_on(async move {
                    if let Ok((c, conn)) = admin_config().connect(NoTls).await {
                        tokio::spawn(conn);
                        let _ =
                            c.batch_execute(&format!("DROP DATABASE IF EXISTS {nome} WITH (FORCE)")).await;
                    }
                });
            }
        })
        .join();
    }
}

/// Waits until `pronto` holds of what `ler` reads (the database's state), at most 30 s.
async fn quando<T: std::fmt::Debug, F: std::future::Future<Output = T>>(
    o_que: &str,
    mut ler: impl FnMut() -> F,
    pronto: impl Fn(&T) -> bool,
) -> T {
    let fim = Instant::now() + Duration::from_secs(30);
    loop {
        let v = ler().await;
        if pronto(&v) {
            return v;
        }
        assert!(Instant::now() < fim, "{o_que}: still {v:?} after 30 s");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Billing: `/eventos` and `/eventos/lote`, for callers bearing its service token, on a free port.
async fn servir_faturamento(db: &Db, shutdown: &CancellationToken) -> String {
    let seguranca = giro_http::auth::Seguranca::new(
        Secret::new(TOKEN),
        Operador { usuario: "operador".into(), senha: Secret::new("a-long-operator-password") },
        "FATURAMENTO_SESSAO",
        "XSRF-FATURAMENTO",
        db.pool.clone(),
        Duration::from_secs(8 * 3600),
    );
    let rotas = inbox::router(db.clone(), Arc::new(Faturar), relay_config().lote_max);
    let app = giro_http::finish(rotas, seguranca);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap_or_else(|e| panic!("bind: {e}"));
    let url = format!("http://{}", listener.local_addr().unwrap_or_else(|e| panic!("addr: {e}")));
    tokio::spawn(giro_http::serve(listener, app, shutdown.clone(), Duration::from_secs(1)));
    url
}

/// The shop: the order and its event commit together.
async fn criar_pedido(db: &Db, pedido: &str, total_centavos: i64) -> anyhow::Result<PedidoCriado> {
    let mut client = db.client().await?;
    let tx = Tx::<Loja>::begin(db, &mut client).await?;
    tx.execute("INSERT INTO pedido (codigo, total_centavos) VALUES ($1, $2)", &[&pedido, &total_centavos])
        .await?;
    let evento = PedidoCriado {
        event_id: Uuid::new_v4(),
        pedido: pedido.to_string(),
        total_centavos,
        ocorrido_em: Utc::now(),
    };
    giro_outbox::registrar(&tx, &evento).await?;
    tx.commit().await?; // wakes the publisher running in this process
    Ok(evento)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_third_service_adopts_the_outbox_its_event_is_applied_once_and_a_duplicate_not_at_all() {
    let loja =
        Scratch::new("loja", "CREATE TABLE pedido (codigo TEXT PRIMARY KEY, total_centavos BIGINT NOT NULL)")
            .await;
    let faturamento = Scratch::new(
        "faturamento",
        "CREATE TABLE fatura (pedido TEXT NOT NULL, total_centavos BIGINT NOT NULL)",
    )
    .await;
    let shutdown = CancellationToken::new();
    let _parar = shutdown.clone().drop_guard();

    // Billing serves the receiving routes; the shop's relay delivers to them.
    let url = servir_faturamento(&faturamento.db(), &shutdown).await;
    let loja_db = loja.db();
    let cfg = relay_config();
    let peer =
        Peer::new(&url, Secret::new(TOKEN), cfg.timeout, cfg.concorrencia, cfg.lote_max, cfg.transporte)
            .unwrap_or_else(|e| panic!("peer: {e}"));
    let publisher =
        Arc::new(Publisher::new("loja", loja_db.pool.clone(), peer, cfg, loja_db.signal.clone(), None));
    tokio::spawn(publisher.run_loop(shutdown.clone(), Vivo::detached("publisher")));

    // Written with the order, delivered, applied once.
    let evento =
        criar_pedido(&loja_db, "P-1001", 4_990).await.unwrap_or_else(|e| panic!("criar_pedido: {e:#}"));
    let id = evento.event_id;
    let status =
        || async { loja.valor::<Status>("SELECT status FROM outbox_event WHERE id = $1", &[&id]).await };
    quando("the event SENT", status, |s| *s == Status::Sent).await;
    let faturas = || faturamento.valor::<i64>("SELECT count(*) FROM fatura WHERE pedido = 'P-1001'", &[]);
    assert_eq!(faturas().await, 1, "applied once");
    assert_eq!(faturamento.valor::<i64>("SELECT count(*) FROM inbox_event", &[]).await, 1);

    // The same event posted again, as a sender's retry would: acknowledged, applied zero times.
    let resposta = reqwest::Client::new()
        .post(format!("{url}/eventos"))
        .bearer_auth(TOKEN)
        .header("Content-Type", "application/json")
        .header("Evento-Tipo", evento.tipo())
        .body(evento.payload().to_string())
        .send()
        .await
        .unwrap_or_else(|e| panic!("POST /eventos: {e}"));
    assert_eq!(resposta.status().as_u16(), 204, "a duplicate is acknowledged");
    assert_eq!(faturas().await, 1, "a duplicate delivery is applied zero times");

    // And through the relay: an operator's forced replay of the SENT event goes out again, and
    // the receiver's inbox makes it a no-op.
    let antes: DateTime<Utc> = loja.valor("SELECT enviado_em FROM outbox_event WHERE id = $1", &[&id]).await;
    let quem = giro_outbox::operador::Registro { por: "teste".into(), motivo: None };
    giro_outbox::operador::reenviar(&loja_db, id, Utc::now(), Duration::from_secs(30 * 86_400), true, &quem)
        .await
        .unwrap_or_else(|e| panic!("reenviar: {e:?}"));
    let enviado = || async {
        loja.client()
            .await
            .query_one("SELECT status, enviado_em FROM outbox_event WHERE id = $1", &[&id])
            .await
            .map(|r| (r.get::<_, Status>(0), r.get::<_, Option<DateTime<Utc>>>(1)))
            .unwrap_or_else(|e| panic!("{e}"))
    };
    quando("the replay SENT", enviado, |(s, em)| *s == Status::Sent && em.is_some_and(|em| em > antes)).await;
    assert_eq!(faturas().await, 1, "the replayed duplicate is applied zero times");
    assert_eq!(faturamento.valor::<i64>("SELECT count(*) FROM inbox_event", &[]).await, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_event_rolls_back_with_the_business_change() {
    let loja =
        Scratch::new("loja", "CREATE TABLE pedido (codigo TEXT PRIMARY KEY, total_centavos BIGINT NOT NULL)")
            .await;
    let db = loja.db();
    let mut client = db.client().await.unwrap_or_else(|e| panic!("client: {e}"));
    {
        let tx = Tx::<Loja>::begin(&db, &mut client).await.unwrap_or_else(|e| panic!("begin: {e}"));
        tx.execute("INSERT INTO pedido (codigo, total_centavos) VALUES ('P-1', 100)", &[])
            .await
            .unwrap_or_else(|e| panic!("insert: {e}"));
        let evento = PedidoCriado {
            event_id: Uuid::new_v4(),
            pedido: "P-1".into(),
            total_centavos: 100,
            ocorrido_em: Utc::now(),
        };
        giro_outbox::registrar(&tx, &evento).await.unwrap_or_else(|e| panic!("registrar: {e}"));
        // Dropped without commit: the order and its event roll back together.
    }
    drop(client);
    assert_eq!(loja.valor::<i64>("SELECT count(*) FROM pedido", &[]).await, 0);
    assert_eq!(
        loja.valor::<i64>("SELECT count(*) FROM outbox_event", &[]).await,
        0,
        "no event without its change"
    );
}
