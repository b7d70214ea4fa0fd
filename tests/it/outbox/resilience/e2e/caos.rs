//! The chaos run of issue 14 as scenarios of `outbox::resilience::e2e::cenarios`, compressed to fit the
//! e2e stage: kill -9 of the services themselves (with their embedded publishers), a partition
//! between the services (black hole, then refusals), a proxy that forwards each delivery and drops its answer, and a peer
//! slower than the delivery timeout. Each asserts that its fault really happened (kills, held
//! requests, lost answers, duplicates received) and then, through `fim`, that nothing was
//! dead-lettered, lost or applied twice and that `giro audit` is clean.

use std::sync::Arc;
use std::time::{Duration, Instant};

use giro_servicos::config::Servico;

use super::{contar, fim, sob_carga, ModoProxy, Proxy};
use crate::support::e2e::{Clientes, Papel, Repositor, Sistema};
use crate::support::wait_until;

/// Kills in the services scenario: alternating estoque and mercado, 5 each.
const KILLS: usize = 10;

/// The delivery timeout of the network scenarios, shrunk from 2 s so the fault bites often.
const TIMEOUT: Duration = Duration::from_secs(1);

/// How long each network fault lasts (the chaos run held them 60 s).
const JANELA: Duration = Duration::from_secs(15);

/// kill -9 of mercado and estoque themselves, alternating every few seconds under load, each with
/// the publisher embedded in it (the chaos run: every 15 s, 35 restarts).
pub(super) async fn kill_servicos() {
    // A short lease: the rows a killed service's publisher had claimed come back within 2 s.
    let mut s = Sistema::new("kill-servicos", &[("GIRO_OUTBOX_VISIBILIDADE", "2s")]).await;
    s.embutido = true;
    let (repositor, mut clientes) = sob_carga(&mut s, 6, Duration::from_millis(20)).await;
    let mut rng = fastrand::Rng::with_seed(0x7365_7276);
    let mut orfaos = 0i64;
    let mut prontos: Vec<Duration> = Vec::new();
    for i in 0..KILLS {
        let (papel, servico) =
            if i % 2 == 0 { (Papel::Estoque, Servico::Estoque) } else { (Papel::Mercado, Servico::Mercado) };
        // A PENDING row with a lease token and a future attempt: claimed by the service's
        // publisher and not settled yet (a settled failure clears the token).
        let sql = "SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND lease_token IS NOT NULL AND proxima_tentativa_em > now()";
        // Load pacing: a few seconds of traffic between kills.
        tokio::time::sleep(Duration::from_millis(rng.u64(2000..5000))).await;
        if i % 4 >= 2 {
            // Every other pair of kills aims at a publisher in the middle of a delivery (up to 1 s).
            let ate = Instant::now() + Duration::from_secs(1);
            while contar(&s, servico, sql).await == 0 && Instant::now() < ate {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
        }
        s.kill(papel).await;
        orfaos += contar(&s, servico, sql).await;
        // Down a moment (the fault window), sometimes none at all.
        tokio::time::sleep(Duration::from_millis(rng.u64(0..1000))).await;
        let t = Instant::now();
        s.start(papel).await;
        prontos.push(t.elapsed());
    }
    let antes = clientes.stats.criados();
    wait_until(Duration::from_secs(60), "checkouts flowing after the last restart", || async {
        (clientes.stats.criados() >= antes + 50).then_some(())
    })
    .await;
    let stats = clientes.parar().await;
    prontos.sort();
    eprintln!(
        "[kill-servicos] {KILLS} kills ({} estoque, {} mercado), leaving {orfaos} leased events behind; \
         ready after a restart in {:.2}–{:.2} s (median {:.2} s)",
        s.inicios[&Papel::Estoque] - 1,
        s.inicios[&Papel::Mercado] - 1,
        prontos[0].as_secs_f64(),
        prontos[prontos.len() - 1].as_secs_f64(),
        prontos[prontos.len() / 2].as_secs_f64()
    );
    assert_eq!(s.inicios[&Papel::Estoque], KILLS / 2 + 1, "estoque was killed and restarted");
    assert_eq!(s.inicios[&Papel::Mercado], KILLS / 2 + 1, "mercado was killed and restarted");
    assert!(orfaos >= 1, "no kill caught a publisher holding a lease");
    fim(&mut s, repositor, stats).await;
}

/// Both directions cut: for half of [`JANELA`] the proxies take each delivery and never answer
/// (packets dropped), for the other half they reset every connection (the peer's side refuses).
pub(super) async fn particao() {
    use std::sync::atomic::Ordering;
    let mut r = Rede::start("particao").await;
    r.falhar(ModoProxy::BuracoNegro, JANELA / 2).await;
    let (retidas, tentadas) =
        wait_until(Duration::from_secs(30), "deliveries held both ways and retried", || async {
            let retidas = [&r.ida, &r.volta].map(|p| p.retidas.load(Ordering::SeqCst));
            let sql = "SELECT count(*) FROM outbox_event WHERE status = 'PENDING' AND tentativas >= 2";
            let tentadas =
                [contar(&r.s, Servico::Mercado, sql).await, contar(&r.s, Servico::Estoque, sql).await];
            (retidas.iter().all(|n| *n > 0) && tentadas.iter().all(|n| *n > 0)).then_some((retidas, tentadas))
        })
        .await;
    eprintln!(
        "[particao] held deliveries {retidas:?}, events retried twice or more {tentadas:?} (→ estoque, → mercado)"
    );
    // What waits from the first half is retried (backoff cap 2 s) against refusals now.
    r.falhar(ModoProxy::Recusar, JANELA / 2).await;
    let recusadas = wait_until(Duration::from_secs(30), "connections refused both ways", || async {
        let n = [&r.ida, &r.volta].map(|p| p.recusadas.load(Ordering::SeqCst));
        n.iter().all(|n| *n > 0).then_some(n)
    })
    .await;
    eprintln!("[particao] connections reset {recusadas:?} (→ estoque, → mercado)");
    r.curar().await;
}

/// For [`JANELA`] each delivery reaches the receiver, which commits, and its answer is dropped.
pub(super) async fn sem_resposta() {
    let mut r = Rede::start("sem-resposta").await;
    r.falhar(ModoProxy::SemResposta, JANELA).await;
    r.respostas_perdidas().await;
    r.curar().await;
}

/// For [`JANELA`] the peer answers 3 s after the sender's timeout.
pub(super) async fn lento() {
    let mut r = Rede::start("lento").await;
    r.falhar(ModoProxy::Lenta(TIMEOUT + Duration::from_secs(3)), JANELA).await;
    r.respostas_perdidas().await;
    r.curar().await;
}

/// A market whose events cross a proxy each way, under load, for the network faults.
struct Rede {
    s: Sistema,
    /// mercado → estoque.
    ida: Arc<Proxy>,
    /// estoque → mercado.
    volta: Arc<Proxy>,
    repositor: Repositor,
    clientes: Clientes,
    /// When the load was up and the fault could begin.
    inicio_falha: Instant,
}

impl Rede {
    async fn start(nome: &'static str) -> Rede {
        let t = format!("{}ms", TIMEOUT.as_millis());
        // A short backoff cap: what failed in the window is retried soon after it.
        let mut s =
            Sistema::new(nome, &[("GIRO_OUTBOX_TIMEOUT", &t), ("GIRO_OUTBOX_BACKOFF_MAXIMO", "2s")]).await;
        let ida = Proxy::start(s.estoque_url()).await;
        let volta = Proxy::start(s.mercado_url()).await;
        s.definir("ESTOQUE_EVENTOS_URL", ida.url.clone());
        s.definir("MERCADO_EVENTOS_URL", volta.url.clone());
        let (repositor, clientes) = sob_carga(&mut s, 4, Duration::from_millis(20)).await;
        // The operator waits: pent-up demand piles up in estoque, so that lots entered during
        // the fault send shipments the other way.
        repositor.pausar(true);
        let (e, _) = s.operadores().await;
        wait_until(Duration::from_secs(60), "pent-up demand for 2 SKUs", || async {
            let (_, d) = e.get("/painel/demandas").await.ok()?;
            (d.as_array()?.len() >= 2).then_some(())
        })
        .await;
        let inicio_falha = Instant::now();
        Rede { s, ida, volta, repositor, clientes, inicio_falha }
    }

    /// Both proxies switch to `modo` and the operator enters lots: traffic both ways meets the
    /// fault. Returns after `janela` (the fault stays until [`Rede::curar`]).
    async fn falhar(&mut self, modo: ModoProxy, janela: Duration) {
        self.ida.modo(modo);
        self.volta.modo(modo);
        eprintln!("[{}] {modo:?} both ways", self.s.nome);
        self.repositor.pausar(false);
        // The fault window itself.
        tokio::time::sleep(janela).await;
        self.s.assert_alive();
    }

    /// Waits (the fault still on) until deliveries reached the receiver both ways without their
    /// answer reaching the sender.
    async fn respostas_perdidas(&self) {
        use std::sync::atomic::Ordering;
        let n = wait_until(Duration::from_secs(30), "answers lost both ways", || async {
            let n = [&self.ida, &self.volta].map(|p| p.perdidas.load(Ordering::SeqCst));
            n.iter().all(|n| *n > 0).then_some(n)
        })
        .await;
        eprintln!(
            "[{}] deliveries whose answer was lost: {} → estoque, {} → mercado",
            self.s.nome, n[0], n[1]
        );
    }

    /// Ends the fault, lets the pipeline drain and checks it all: nothing FAILED, lost or applied
    /// twice, the audit clean; and where answers were lost, the receivers saw the redeliveries
    /// (duplicates) and applied each event once.
    async fn curar(self) {
        use std::sync::atomic::Ordering;
        let Rede { mut s, ida, volta, repositor, mut clientes, inicio_falha } = self;
        ida.modo(ModoProxy::Encaminhar);
        volta.modo(ModoProxy::Encaminhar);
        eprintln!(
            "[{}] fault lifted after {:.1} s; held {} / {}, answers lost {} / {}, connections reset {} / {} \
             (→ estoque / → mercado)",
            s.nome,
            inicio_falha.elapsed().as_secs_f64(),
            ida.retidas.load(Ordering::SeqCst),
            volta.retidas.load(Ordering::SeqCst),
            ida.perdidas.load(Ordering::SeqCst),
            volta.perdidas.load(Ordering::SeqCst),
            ida.recusadas.load(Ordering::SeqCst),
            volta.recusadas.load(Ordering::SeqCst)
        );
        let stats = clientes.parar().await;
        fim(&mut s, repositor, stats).await;
        for (srv, p) in [(Servico::Estoque, &ida), (Servico::Mercado, &volta)] {
            let duplicados = s.inbox_metric(srv, "duplicate").await;
            eprintln!("[{}] {srv} received {duplicados} duplicates", s.nome);
            if p.perdidas.load(Ordering::SeqCst) > 0 {
                // Each delivery whose answer was lost was applied and comes again: a duplicate
                // (verificar, in fim, showed each applied once: inbox rows = events applied).
                assert!(duplicados > 0, "[{}] {srv}: the redeliveries reached it as duplicates", s.nome);
            }
        }
    }
}
