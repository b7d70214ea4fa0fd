//! The chaos run of issue 14 as scenarios of `resiliencia::e2e::cenarios`, compressed to fit the
//! e2e stage: kill -9 of the services themselves (with their embedded publishers). Each asserts
//! that its fault really happened and then, through `fim`, that nothing was dead-lettered, lost
//! or applied twice and that `giro audit` is clean.

use std::time::{Duration, Instant};

use giro::config::Servico;

use super::{contar, fim};
use crate::support::e2e::{Clientes, Papel, Repositor, Sistema};
use crate::support::wait_until;

/// Kills in the services scenario: alternating estoque and mercado, 5 each.
const KILLS: usize = 10;

/// kill -9 of mercado and estoque themselves, alternating every few seconds under load, each with
/// the publisher embedded in it (the chaos run: every 15 s, 35 restarts).
pub(super) async fn kill_servicos() {
    // A short lease: the rows a killed service's publisher had claimed come back within 2 s.
    let mut s = Sistema::new("kill-servicos", &[("GIRO_OUTBOX_VISIBILIDADE", "2s")]).await;
    s.embutido = true;
    s.start_all().await;
    s.carregar_demo().await;
    let repositor = Repositor::start(s.estoque_url());
    let mut clientes = Clientes::start(s.mercado_url(), 6, u64::MAX, Duration::from_millis(20), 0.5);
    wait_until(Duration::from_secs(60), "some checkouts", || async {
        (clientes.stats.criados() >= 100).then_some(())
    })
    .await;
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
