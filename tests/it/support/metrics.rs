//! `/metrics` as the tests read it: a scrape of a running service, its sample lines, a value
//! summed over the series that match; and a mercado service after one of each flow, so every
//! series it exports has appeared.

use std::sync::Arc;
use std::time::Duration;

use giro_servicos::config::Servico;
use tokio_util::sync::CancellationToken;

use super::app::{spawn_app, TestApp};
use super::peer::{FakePeer, Lote};
use super::wait_until;
use crate::outbox::publisher::{solicitada, write};

/// One scrape of `/metrics` (Prometheus text format).
pub struct Metricas(pub String);

impl Metricas {
    /// `GET {base}/metrics`, which must answer 200.
    pub async fn de(base: &str) -> Metricas {
        let res = reqwest::get(format!("{base}/metrics")).await.expect("GET /metrics");
        assert_eq!(res.status(), 200, "GET {base}/metrics");
        Metricas(res.text().await.expect("the body of /metrics"))
    }

    /// The sample lines (`name{labels} value`), without `# HELP` / `# TYPE`.
    pub fn amostras(&self) -> impl Iterator<Item = &str> {
        self.0.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    }

    /// Σ of the samples of metric `nome` whose labels contain `rotulos` (`result="sent"`, or
    /// several as written: `tipo="X",result="new"`; empty = every series of `nome`).
    pub fn soma(&self, nome: &str, rotulos: &str) -> f64 {
        self.amostras()
            .filter(|l| nome_de(l) == nome && l.contains(rotulos))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum()
    }

    pub fn contains(&self, texto: &str) -> bool {
        self.0.contains(texto)
    }
}

/// The metric name a sample line starts with (up to its labels or its value).
pub fn nome_de(linha: &str) -> &str {
    let fim =
        linha.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')).unwrap_or(linha.len());
    &linha[..fim]
}

/// A mercado service whose publisher delivers to a fake estoque, after one of each flow: an event
/// written and delivered, one received on `/eventos`, requests answered. The publisher stops when
/// this is dropped.
pub struct ComTrafego {
    pub app: TestApp,
    pub peer: Arc<FakePeer>,
    /// The scrape before the traffic (counters are process-wide: compare with it, not with 0).
    pub antes: Metricas,
    stop: CancellationToken,
}

impl Drop for ComTrafego {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Starts [`ComTrafego`].
pub async fn mercado_com_trafego() -> ComTrafego {
    let peer = FakePeer::start(Lote::Supported).await;
    let app = spawn_app(Servico::Mercado, &[("ESTOQUE_EVENTOS_URL", &peer.url())]).await;
    // The embedded publisher runs only under `server::run`; here one with the app's signal.
    let p = giro_servicos::server::publisher_de(
        &app.config,
        Servico::Mercado,
        app.dbh.pool.clone(),
        app.dbh.signal.clone(),
        false,
    )
    .expect("publisher");
    let stop = CancellationToken::new();
    tokio::spawn(p.run(stop.clone()));
    // The process-wide recorder is installed by the first scrape; what is recorded before is lost.
    let antes = Metricas::de(&app.url("")).await;
    write(&app.dbh, &[solicitada(2)]).await;
    wait_until(Duration::from_secs(10), "the event delivered", || async {
        (peer.count() == 1).then_some(())
    })
    .await;
    let negada = format!(
        r#"{{"eventId":"{}","correlationId":"0b6c3f1e-8a4f-4c55-9d0a-1f2e3d4c5b6a","sku":"7894900011517","motivo":"SEM_SALDO","ocorridoEm":"2026-09-25T12:00:05Z"}}"#,
        uuid::Uuid::new_v4()
    );
    let res = app
        .as_servico(app.http.post(app.url("/eventos")))
        .header("content-type", "application/json")
        .header("Evento-Tipo", "ReposicaoNegada")
        .body(negada)
        .send()
        .await
        .expect("POST /eventos");
    assert_eq!(res.status(), 204, "the ReposicaoNegada received");
    ComTrafego { app, peer, antes, stop }
}

impl ComTrafego {
    /// Scrapes until `pronto` holds (the metrics of the traffic may lag its effects a little).
    pub async fn quando(&self, o_que: &str, pronto: impl Fn(&Metricas) -> bool) -> Metricas {
        let base = self.app.url("");
        wait_until(Duration::from_secs(10), o_que, || async {
            let m = Metricas::de(&base).await;
            pronto(&m).then_some(m)
        })
        .await
    }
}
