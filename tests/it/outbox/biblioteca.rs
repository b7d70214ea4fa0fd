//! `giro-outbox` as a library: a small third service — its own event type, its own consumer, its
//! own `outbox_event`/`inbox_event` tables (the crate's `SCHEMA`), no mercado or estoque code —
//! writes an event in its business transaction, its relay delivers it over HTTP to the receiver
//! of a second database, and the effect is applied once even when the event is delivered twice.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures_util::future::BoxFuture;
use giro_infra::config::{Operador, OutboxConfig, Secret, Transporte};
use giro_infra::db::{Db, OutboxSignal, Tx};
use giro_outbox::inbox::{self, Consumidor};
use giro_outbox::{Evento, Peer, Publisher, Status};
use uuid::Uuid;

use crate::support::TestDb;

const TOKEN: &str = "acervo-token-0123456789abcdef0123456789abcdef";

/// The lending desk's database and the catalogue's.
enum Emprestimos {}
enum Acervo {}

/// The one event: a book was lent.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct LivroEmprestado {
    event_id: Uuid,
    livro: String,
    leitor: String,
    #[serde(with = "giro_outbox::instante")]
    ocorrido_em: DateTime<Utc>,
}

impl Evento for LivroEmprestado {
    type Erro = String;
    const TIPOS: &'static [&'static str] = &["LivroEmprestado"];
    const CAMINHO_CHAVE: &'static [&'static str] = &["livro"];
    const NOME_CHAVE: &'static str = "livro";

    fn tipo(&self) -> &'static str {
        "LivroEmprestado"
    }
    fn event_id(&self) -> Uuid {
        self.event_id
    }
    fn ocorrido_em(&self) -> DateTime<Utc> {
        self.ocorrido_em
    }
    fn payload(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap()
    }
    fn chave(&self) -> &str {
        &self.livro
    }
    fn ler(tipo: &str, corpo: &[u8]) -> Result<Self, String> {
        let e: LivroEmprestado =
            serde_json::from_slice(corpo).map_err(|e| format!("payload ilegível para {tipo}: {e}"))?;
        if e.leitor.trim().is_empty() {
            return Err(format!("{tipo} inválido: leitor não deve estar em branco"));
        }
        Ok(e)
    }
    fn bloqueio(tipo: &str, chave: &str) -> Option<String> {
        (tipo == "LivroEmprestado").then(|| format!("the catalogue still shows book {chave} on the shelf"))
    }
}

/// The catalogue's effect: the book is marked as out.
struct MarcarEmprestado;

impl Consumidor<Acervo> for MarcarEmprestado {
    type Evento = LivroEmprestado;

    fn aceitos(&self) -> &'static [&'static str] {
        LivroEmprestado::TIPOS
    }

    fn aplicar<'a>(
        &'a self,
        tx: &'a Tx<'_, Acervo>,
        e: &'a LivroEmprestado,
    ) -> BoxFuture<'a, anyhow::Result<()>> {
        Box::pin(async move {
            tx.execute("UPDATE livro SET emprestimos = emprestimos + 1 WHERE codigo = $1", &[&e.livro])
                .await?;
            Ok(())
        })
    }
}

fn relay_config() -> OutboxConfig {
    OutboxConfig {
        intervalo: Duration::from_millis(200),
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

/// A database with the crate's tables and the service's own.
async fn database(ddl: &str) -> TestDb {
    let db = TestDb::empty().await;
    let c = db.client().await;
    c.batch_execute(giro_outbox::SCHEMA).await.expect("outbox schema");
    c.batch_execute(ddl).await.expect("service tables");
    db
}

/// The catalogue: `/eventos` and `/eventos/lote` behind the service-token check, on a free port.
async fn start_acervo(db: &TestDb) -> String {
    let pool = db.pool();
    let seg = giro_http::auth::Seguranca::new(
        Secret::new(TOKEN),
        Operador { usuario: "operador".into(), senha: Secret::new("senha-do-operador-42") },
        "ACERVO_SESSAO",
        "XSRF-ACERVO",
        pool.clone(),
        Duration::from_secs(3600),
    );
    let rotas = inbox::router(Db::new(pool, false), Arc::new(MarcarEmprestado), 500);
    let app = giro_http::finish(rotas, seg);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    tokio::spawn(giro_http::serve(
        listener,
        app,
        tokio_util::sync::CancellationToken::new(),
        Duration::from_secs(1),
    ));
    url
}

/// The lending desk lends `livro`: the loan and its event commit together.
async fn emprestar(db: &Db, livro: &str, leitor: &str) -> Uuid {
    let mut client = db.client().await.unwrap();
    let tx = Tx::<Emprestimos>::begin(db, &mut client).await.unwrap();
    tx.execute("INSERT INTO emprestimo (livro, leitor) VALUES ($1, $2)", &[&livro, &leitor]).await.unwrap();
    let evento = LivroEmprestado {
        event_id: Uuid::new_v4(),
        livro: livro.into(),
        leitor: leitor.into(),
        ocorrido_em: Utc::now(),
    };
    giro_outbox::registrar(&tx, &evento).await.unwrap();
    tx.commit().await.unwrap();
    evento.event_id
}

async fn status(db: &TestDb, id: Uuid) -> Status {
    db.client().await.query_one("SELECT status FROM outbox_event WHERE id = $1", &[&id]).await.unwrap().get(0)
}

async fn emprestimos(db: &TestDb, livro: &str) -> i32 {
    db.client()
        .await
        .query_one("SELECT emprestimos FROM livro WHERE codigo = $1", &[&livro])
        .await
        .unwrap()
        .get(0)
}

#[tokio::test]
async fn a_third_service_writes_relays_and_applies_its_own_events_once_even_when_delivered_twice() {
    giro_infra::telemetry::init_for_test();
    let balcao = database("CREATE TABLE emprestimo (livro TEXT NOT NULL, leitor TEXT NOT NULL)").await;
    let acervo = database(
        "CREATE TABLE livro (codigo TEXT PRIMARY KEY, emprestimos INTEGER NOT NULL DEFAULT 0);
         INSERT INTO livro (codigo) VALUES ('dom-casmurro'), ('grande-sertao');",
    )
    .await;
    let url = start_acervo(&acervo).await;
    let db = Db::new(balcao.pool(), false);
    let cfg = relay_config();
    let peer =
        Peer::new(&url, Secret::new(TOKEN), cfg.timeout, cfg.concorrencia, cfg.lote_max, cfg.transporte)
            .unwrap();
    let relay = Publisher::new("balcao", balcao.pool(), peer, cfg, Arc::new(OutboxSignal::default()), None);

    // Written with the loan, delivered over HTTP, applied by the catalogue.
    let id = emprestar(&db, "dom-casmurro", "Capitu").await;
    assert_eq!(status(&balcao, id).await, Status::Pending);
    let r = relay.round(Utc::now()).await.unwrap();
    assert_eq!((r.claimed, r.sent), (1, 1));
    assert_eq!(status(&balcao, id).await, Status::Sent);
    assert_eq!(emprestimos(&acervo, "dom-casmurro").await, 1);

    // Delivered a second time (an operator's forced replay of a SENT event): the receiver's
    // inbox makes it a no-op.
    let c = balcao.client().await;
    let quem = giro_outbox::operador::Registro { por: "teste".into(), motivo: None };
    let outbox = giro_infra::db::Db::new(balcao.pool(), false);
    let sem_forcar = giro_outbox::operador::reenviar(
        &outbox,
        id,
        Utc::now(),
        Duration::from_secs(30 * 86_400),
        false,
        &quem,
    )
    .await;
    assert!(matches!(sem_forcar, Err(giro_outbox::operador::SaidaErro::NaoFalhou { .. })), "{sem_forcar:?}");
    giro_outbox::operador::reenviar(&outbox, id, Utc::now(), Duration::from_secs(30 * 86_400), true, &quem)
        .await
        .unwrap();
    let r = relay.round(Utc::now()).await.unwrap();
    assert_eq!((r.claimed, r.sent), (1, 1), "the duplicate is acknowledged");
    assert_eq!(emprestimos(&acervo, "dom-casmurro").await, 1, "and not applied again");
    let inbox: i64 =
        acervo.client().await.query_one("SELECT count(*) FROM inbox_event", &[]).await.unwrap().get(0);
    assert_eq!(inbox, 1);

    // An event the receiver's contract refuses is a dead letter, shown with what it blocks.
    let recusado = emprestar(&db, "grande-sertao", " ").await;
    let r = relay.round(Utc::now()).await.unwrap();
    assert_eq!(r.permanent, 1);
    assert_eq!(status(&balcao, recusado).await, Status::Failed);
    assert_eq!(emprestimos(&acervo, "grande-sertao").await, 0);
    let texto = giro_outbox::operador::status_text::<LivroEmprestado>(&c, Utc::now()).await.unwrap();
    assert!(
        texto.contains(&format!(
            "FAILED {recusado} LivroEmprestado; blocks: the catalogue still shows book grande-sertao on the shelf until `giro outbox retry|discard|redo {recusado}` (see `show`)"
        )),
        "{texto}"
    );
    assert!(texto.contains("leitor não deve estar em branco"), "the receiver's words: {texto}");
}

/// The crate's `SCHEMA` is the tables Girô's migrations build: same columns, types, nullability.
#[tokio::test]
async fn the_crate_schema_matches_the_migrated_tables() {
    let columns = |db: TestDb| async move {
        let rows = db
            .client()
            .await
            .query(
                "SELECT table_name::text, column_name::text, data_type::text, is_nullable::text, \
                        coalesce(character_maximum_length, 0) \
                   FROM information_schema.columns \
                  WHERE table_name IN ('outbox_event', 'inbox_event', 'outbox_tentativa') ORDER BY 1, 2",
                &[],
            )
            .await
            .unwrap();
        rows.iter()
            .map(|r| {
                (
                    r.get::<_, String>(0),
                    r.get::<_, String>(1),
                    r.get::<_, String>(2),
                    r.get::<_, String>(3),
                    r.get::<_, i32>(4),
                )
            })
            .collect::<Vec<_>>()
    };
    let proprio = columns(database("SELECT 1").await).await;
    for s in [giro_servicos::config::Servico::Mercado, giro_servicos::config::Servico::Estoque] {
        assert_eq!(columns(TestDb::new(s).await).await, proprio, "{s:?}");
    }
}

/// Inside `store::adiando` the rows `registrar` writes stay out of the table until
/// `gravar_adiados` writes them all in one statement (the receiver's answers to a chunk); outside
/// it, each is written at once, as before.
#[tokio::test]
async fn rows_registered_while_deferred_are_written_together_by_one_statement() {
    let balcao = database("CREATE TABLE emprestimo (livro TEXT NOT NULL, leitor TEXT NOT NULL)").await;
    let db = Db::new(balcao.pool(), false);
    let mut client = db.client().await.unwrap();
    let tx = Tx::<Emprestimos>::begin(&db, &mut client).await.unwrap();
    let evento = |livro: &str| LivroEmprestado {
        event_id: Uuid::new_v4(),
        livro: livro.into(),
        leitor: "Capitu".into(),
        ocorrido_em: Utc::now(),
    };
    let (vistos, adiados) = giro_outbox::adiando(async {
        for livro in ["a", "b", "c"] {
            giro_outbox::registrar(&tx, &evento(livro)).await.unwrap();
        }
        contar(&tx).await
    })
    .await;
    assert_eq!((vistos, adiados.len()), (0, 3), "kept aside while deferred");
    giro_outbox::gravar_adiados(&tx, &adiados).await.unwrap();
    assert_eq!(contar(&tx).await, 3);
    giro_outbox::registrar(&tx, &evento("d")).await.unwrap();
    assert_eq!(contar(&tx).await, 4, "written at once outside");
    tx.commit().await.unwrap();
    let c = balcao.client().await;
    let pendentes: i64 = c
        .query_one(
            "SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND traceparent IS NOT NULL",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(pendentes, 4);
}

async fn contar(tx: &Tx<'_, Emprestimos>) -> i64 {
    tx.query_one("SELECT count(*) FROM outbox_event", &[]).await.unwrap().get(0)
}
