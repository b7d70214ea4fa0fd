//! The history of every event of a run, recorded by the databases themselves, and its checker
//! (issue 38 §4).
//!
//! [`gravar`] installs, in a test's database, triggers that append to `historia_teste` every
//! write of an outbox row, every change of one (each claim with its old lease and new token, each
//! settle, each repair), every inbox row (an apply, with its transaction) and every credit of a
//! shipment on mercado's shelf (`remessa_creditada`). The services run unchanged; the database
//! records in the same transaction as the change, so the history holds exactly what committed —
//! across kill -9, restarts and a promoted standby (it is replicated like everything else).
//!
//! [`conferir`] reads both sides' histories after a scenario and checks what the protocol promises:
//! - **nothing applied twice**: at most one apply per event id, at most one credit per shipment;
//! - **the effect in the apply's transaction**: every credit in the same transaction as an apply;
//! - **nothing lost**: every event written was applied by its peer, or rests as an expected dead
//!   letter; nothing applied that its sender never wrote;
//! - **no re-application after SENT**: no row leaves SENT, and no apply comes after a second claim
//!   of an event already settled SENT;
//! - **never two valid leases on one row**: a claim (a new token) only once the previous lease
//!   has run out, by the database's clock of the claiming transaction.
//!
//! A violation panics with the event's history, both sides merged in order.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;

use chrono::{DateTime, Utc};
use uuid::Uuid;

/// The triggers; idempotent (`CREATE OR REPLACE`, `IF NOT EXISTS`).
const GRAVAR: &str = r#"
CREATE TABLE IF NOT EXISTS historia_teste (
    seq          BIGSERIAL PRIMARY KEY,
    tabela       TEXT        NOT NULL,
    op           TEXT        NOT NULL,
    event_id     UUID        NOT NULL,
    chave        TEXT,
    status_antes TEXT,
    status       TEXT,
    token_antes  UUID,
    token        UUID,
    ate_antes    TIMESTAMPTZ,
    agora        TIMESTAMPTZ NOT NULL DEFAULT now(),
    xid          BIGINT      NOT NULL DEFAULT txid_current()
);
GRANT ALL ON historia_teste TO PUBLIC;
GRANT ALL ON SEQUENCE historia_teste_seq_seq TO PUBLIC;
CREATE OR REPLACE FUNCTION historia_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO historia_teste (tabela, op, event_id, chave, status, token)
    VALUES ('outbox', 'escrito', NEW.id, NEW.tipo, NEW.status, NEW.lease_token);
  ELSIF (OLD.status, OLD.lease_token) IS DISTINCT FROM (NEW.status, NEW.lease_token) THEN
    INSERT INTO historia_teste (tabela, op, event_id, chave, status_antes, status, token_antes, token, ate_antes)
    VALUES ('outbox', 'mudou', NEW.id, NEW.tipo, OLD.status, NEW.status, OLD.lease_token,
            NEW.lease_token, OLD.proxima_tentativa_em);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION historia_inbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO historia_teste (tabela, op, event_id) VALUES ('inbox', 'aplicado', NEW.event_id);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS historia_outbox ON outbox_event;
CREATE TRIGGER historia_outbox AFTER INSERT OR UPDATE ON outbox_event
    FOR EACH ROW EXECUTE FUNCTION historia_outbox();
DROP TRIGGER IF EXISTS historia_inbox ON inbox_event;
CREATE TRIGGER historia_inbox AFTER INSERT ON inbox_event
    FOR EACH ROW EXECUTE FUNCTION historia_inbox();
"#;

/// mercado only: a shipment credited on the shelf, keyed by what it answers and its lot.
const GRAVAR_CREDITO: &str = r#"
CREATE OR REPLACE FUNCTION historia_credito() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO historia_teste (tabela, op, event_id, chave)
  VALUES ('remessa', 'creditado', NEW.event_id, NEW.correlation_id::text || '/' || NEW.lote);
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS historia_credito ON remessa_creditada;
CREATE TRIGGER historia_credito AFTER INSERT ON remessa_creditada
    FOR EACH ROW EXECUTE FUNCTION historia_credito();
"#;

/// Starts recording in a service's database (before any process writes to it).
pub async fn gravar(db: &tokio_postgres::Client) {
    db.batch_execute(GRAVAR).await.expect("install the history's triggers");
    let tem_credito: bool = db
        .query_one("SELECT to_regclass('remessa_creditada') IS NOT NULL", &[])
        .await
        .expect("remessa_creditada?")
        .get(0);
    if tem_credito {
        db.batch_execute(GRAVAR_CREDITO).await.expect("install the credit's trigger");
    }
}

/// [`gravar`] through a database URL (a scenario whose databases are not the test cluster's).
pub async fn gravar_url(url: &str) {
    let cfg: tokio_postgres::Config = url.parse().expect("database URL");
    gravar(&super::db::connect(&cfg).await).await;
}

/// One recorded change, on one side.
#[derive(Clone, Debug, PartialEq)]
pub struct Registro {
    pub lado: &'static str,
    pub seq: i64,
    pub tabela: String,
    pub op: String,
    pub event_id: Uuid,
    pub chave: Option<String>,
    pub status_antes: Option<String>,
    pub status: Option<String>,
    pub token_antes: Option<Uuid>,
    pub token: Option<Uuid>,
    pub ate_antes: Option<DateTime<Utc>>,
    pub agora: DateTime<Utc>,
    pub xid: i64,
}

/// A side's history, in the order it committed within each transaction's start.
pub async fn ler(lado: &'static str, db: &tokio_postgres::Client) -> Vec<Registro> {
    db.query(
        "SELECT seq, tabela, op, event_id, chave, status_antes, status, token_antes, token, ate_antes, agora, xid \
           FROM historia_teste ORDER BY seq",
        &[],
    )
    .await
    .expect("read the history")
    .iter()
    .map(|r| Registro {
        lado,
        seq: r.get(0),
        tabela: r.get(1),
        op: r.get(2),
        event_id: r.get(3),
        chave: r.get(4),
        status_antes: r.get(5),
        status: r.get(6),
        token_antes: r.get(7),
        token: r.get(8),
        ate_antes: r.get(9),
        agora: r.get(10),
        xid: r.get(11),
    })
    .collect()
}

/// What a scenario did on purpose: events left as dead letters, and events it moved back from
/// SENT to FAILED itself (a dead letter whose delivery had reached the peer, the unknown outcome
/// of issue 37 §1), which an operator's replay may then send again — applied still once.
#[derive(Default)]
pub struct Previsto {
    pub mortos: Vec<Uuid>,
    pub reabertos: Vec<Uuid>,
}

/// The violations found in the two sides' histories (empty: the run kept every promise).
pub fn violacoes(mercado: &[Registro], estoque: &[Registro], previsto: &Previsto) -> Vec<(Uuid, String)> {
    let mut erros = Vec::new();
    for (origem, destino) in [(mercado, estoque), (estoque, mercado)] {
        let escritos: HashSet<Uuid> =
            origem.iter().filter(|r| r.op == "escrito").map(|r| r.event_id).collect();
        let mut aplicados: HashMap<Uuid, Vec<&Registro>> = HashMap::new();
        for r in destino.iter().filter(|r| r.op == "aplicado") {
            aplicados.entry(r.event_id).or_default().push(r);
        }
        let mut por_evento: BTreeMap<Uuid, Vec<&Registro>> = BTreeMap::new();
        for r in origem.iter().filter(|r| r.tabela == "outbox") {
            por_evento.entry(r.event_id).or_default().push(r);
        }
        for (id, a) in &aplicados {
            if a.len() > 1 {
                erros.push((*id, format!("applied {} times by {}", a.len(), a[0].lado)));
            }
            if !escritos.contains(id) {
                erros.push((*id, format!("applied by {} but never written by its peer", a[0].lado)));
            }
        }
        for (id, hist) in &por_evento {
            let ultimo = hist.last().and_then(|r| r.status.clone()).unwrap_or_default();
            let aplicado = aplicados.contains_key(id);
            if !aplicado && !previsto.mortos.contains(id) {
                erros.push((*id, format!("written, never applied (last status {ultimo})")));
            }
            if previsto.mortos.contains(id) && aplicado {
                erros.push((*id, "expected to rest as a dead letter, but applied".into()));
            }
            if ultimo != "SENT" && aplicado && !previsto.mortos.contains(id) {
                erros.push((*id, format!("applied, but its sender's row ended {ultimo}")));
            }
            let mut enviado = false;
            for r in hist {
                let reaberto = previsto.reabertos.contains(id)
                    && (r.status_antes.as_deref(), r.status.as_deref()) == (Some("SENT"), Some("FAILED"));
                if enviado && reaberto {
                    enviado = false;
                    continue;
                }
                if enviado && r.op == "mudou" {
                    erros.push((
                        *id,
                        format!("changed after it was settled SENT: {:?} → {:?}", r.status_antes, r.status),
                    ));
                }
                if r.status.as_deref() == Some("SENT") {
                    enviado = true;
                }
                let reclamou = r.op == "mudou" && r.token.is_some() && r.token != r.token_antes;
                if let (true, Some(antes), Some(ate), Some(novo)) =
                    (reclamou, r.token_antes, r.ate_antes, r.token)
                {
                    if ate > r.agora {
                        erros.push((
                            *id,
                            format!("claimed under token {novo} while token {antes} held it until {ate}"),
                        ));
                    }
                }
            }
        }
    }
    // Units credited at most once per shipment, each in the transaction of an apply.
    let mut creditos: HashMap<&str, usize> = HashMap::new();
    let xids: HashSet<i64> = mercado.iter().filter(|r| r.op == "aplicado").map(|r| r.xid).collect();
    for r in mercado.iter().filter(|r| r.op == "creditado") {
        let chave = r.chave.as_deref().unwrap_or_default();
        *creditos.entry(chave).or_default() += 1;
        if creditos[chave] == 2 {
            erros.push((r.event_id, format!("shipment {chave} credited twice")));
        }
        if !xids.contains(&r.xid) {
            erros.push((r.event_id, format!("shipment {chave} credited outside any apply's transaction")));
        }
    }
    erros
}

/// The history of one event, both sides merged by instant.
pub fn de(id: Uuid, mercado: &[Registro], estoque: &[Registro]) -> String {
    let mut hist: Vec<&Registro> = mercado.iter().chain(estoque).filter(|r| r.event_id == id).collect();
    hist.sort_by_key(|r| (r.agora, r.seq));
    let mut s = String::new();
    for r in hist {
        let _ = writeln!(
            s,
            "  {} {:7} {:8} {:9} {} {:?} → {:?} token {:?} → {:?} lease until {:?} (xid {})",
            r.agora.format("%H:%M:%S%.6f"),
            r.lado,
            r.tabela,
            r.op,
            r.chave.as_deref().unwrap_or(""),
            r.status_antes,
            r.status,
            r.token_antes,
            r.token,
            r.ate_antes,
            r.xid
        );
    }
    s
}

/// Reads both histories and panics on the first violations, each with its event's history.
/// Returns how many events were checked.
pub async fn conferir(
    nome: &str,
    mercado: &tokio_postgres::Client,
    estoque: &tokio_postgres::Client,
    previsto: &Previsto,
) -> usize {
    let (m, e) = (ler("mercado", mercado).await, ler("estoque", estoque).await);
    let erros = violacoes(&m, &e, previsto);
    let eventos: HashSet<Uuid> =
        m.iter().chain(&e).filter(|r| r.op == "escrito").map(|r| r.event_id).collect();
    if !erros.is_empty() {
        let mut msg = format!("[{nome}] the history check found {} violation(s):\n", erros.len());
        for (id, erro) in erros.iter().take(10) {
            let _ = write!(msg, "event {id}: {erro}\n{}", de(*id, &m, &e));
        }
        panic!("{msg}");
    }
    eprintln!(
        "[{nome}] history check: {} events, {} records, no violation",
        eventos.len(),
        m.len() + e.len()
    );
    eventos.len()
}
