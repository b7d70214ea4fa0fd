//! The seeded nemesis (issue 38 §5): the real binaries under steady checkouts and lot intake while
//! a schedule of faults drawn from a seed runs one fault after another — kill -9 and restart of
//! any process, a publisher stopped (SIGSTOP) past its lease, a partition or lost answers between
//! the services, a service's database cut or all its sessions terminated (what a PostgreSQL
//! restart does to them), a process restarted on a clock days or seconds off — then, every fault
//! healed, the pipeline drains and `fim` checks it all: nothing dead-lettered, lost or applied
//! twice (`verificar` and the history check of every event) and `giro audit` clean.
//!
//! `GIRO_NEMESIS_SEMENTE` (default below) picks the schedule, printed before the run: the same seed
//! replays the same faults in the same order with the same timings (the processes' own
//! interleavings are the machine's). `GIRO_NEMESIS_SEGUNDOS` (default 40, the e2e stage's run) is
//! how long the schedule lasts; docs/benchmarks.md records a 30-minute run. Patroni failover and
//! switchover are the `ha::patroni` scenarios' (the shared test cluster cannot fail over).

use std::sync::Arc;
use std::time::{Duration, Instant};

use giro_servicos::config::Servico;

use super::{aceitar_503, fim_tolerando, sob_carga, ModoProxy, Proxy};
use crate::support::chaos::{self, ChaosProxy};
use crate::support::e2e::{Papel, Sistema};

/// The e2e stage's seed, so CI replays one schedule; any other by `GIRO_NEMESIS_SEMENTE`.
const SEMENTE: u64 = 0x006e_656d_6573_6973;

/// The lease of the run (`GIRO_OUTBOX_VISIBILIDADE`): a stopped publisher is held past it.
const LEASE: Duration = Duration::from_secs(2);

const PAPEIS: [Papel; 4] = [Papel::Mercado, Papel::Estoque, Papel::PublisherMercado, Papel::PublisherEstoque];

#[derive(Clone, Copy, Debug)]
enum Falha {
    /// kill -9, down for the fault's duration, started again.
    Kill9(Papel),
    /// SIGSTOP past the lease, then SIGCONT: its claimed rows are claimed by no one else meanwhile
    /// only if the lease holds; after it, another claim may take them and the woken publisher's
    /// settle must be fenced off.
    Pausa(Papel),
    /// Both directions between the services.
    Rede(ModoProxy),
    /// The service's database unreachable: connections cut, new ones refused.
    BancoFora(Servico),
    /// Every session of the service's database terminated, again and again, as a restart does.
    ReinicioPg(Servico),
    /// Restarted on another clock (libfaketime's offset; "" = the true clock again).
    Relogio(Papel, &'static str),
}

struct Passo {
    /// Quiet time before the fault.
    espera: Duration,
    falha: Falha,
    dura: Duration,
}

/// The schedule `semente` draws, lasting about `total`.
fn agenda(semente: u64, total: Duration) -> Vec<Passo> {
    let mut rng = fastrand::Rng::with_seed(semente);
    let (mut t, mut passos, mut tipos) = (Duration::ZERO, Vec::new(), Vec::new());
    while t < total {
        // Each kind once in every six faults, in the seed's order: a short run meets them all.
        if tipos.is_empty() {
            tipos = (0..6u8).collect();
            rng.shuffle(&mut tipos);
        }
        let espera = Duration::from_millis(rng.u64(500..3000));
        let mut dura = Duration::from_millis(rng.u64(300..5000));
        let falha = match tipos.pop().unwrap_or_default() {
            0 => Falha::Kill9(PAPEIS[rng.usize(0..4)]),
            1 => {
                dura = dura.max(LEASE + Duration::from_secs(1));
                Falha::Pausa(PAPEIS[2 + rng.usize(0..2)])
            }
            2 => Falha::Rede(
                [ModoProxy::BuracoNegro, ModoProxy::SemResposta, ModoProxy::Recusar, ModoProxy::Lenta(LEASE)]
                    [rng.usize(0..4)],
            ),
            3 => Falha::BancoFora(if rng.bool() { Servico::Mercado } else { Servico::Estoque }),
            4 => Falha::ReinicioPg(if rng.bool() { Servico::Mercado } else { Servico::Estoque }),
            _ => Falha::Relogio(PAPEIS[rng.usize(0..4)], ["+2d", "-2d", "+90s", "-90s", ""][rng.usize(0..5)]),
        };
        t += espera + dura;
        passos.push(Passo { espera, falha, dura });
    }
    passos
}

fn numero(var: &str) -> Option<u64> {
    let v = std::env::var(var).ok()?;
    let v = v.trim();
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

pub(super) async fn nemesis() {
    let semente = numero("GIRO_NEMESIS_SEMENTE").unwrap_or(SEMENTE);
    let total = Duration::from_secs(numero("GIRO_NEMESIS_SEGUNDOS").unwrap_or(40));
    let passos = agenda(semente, total);
    let mut s = Sistema::new(
        "nemesis",
        &[
            ("GIRO_OUTBOX_VISIBILIDADE", "2s"),
            ("GIRO_OUTBOX_TIMEOUT", "1s"),
            ("GIRO_OUTBOX_BACKOFF_MAXIMO", "2s"),
        ],
    )
    .await;
    eprintln!("[nemesis] seed {semente:#x}, {} faults over about {total:?}:", passos.len());
    for (i, p) in passos.iter().enumerate() {
        eprintln!("[nemesis]   {i:3}: after {:?}, {:?} for {:?}", p.espera, p.falha, p.dura);
    }
    // Events cross a proxy each way; each service reaches its database through one.
    let ida = Proxy::start(s.estoque_url()).await;
    let volta = Proxy::start(s.mercado_url()).await;
    s.definir("ESTOQUE_EVENTOS_URL", ida.url.clone());
    s.definir("MERCADO_EVENTOS_URL", volta.url.clone());
    let (banco_m, url_m) = chaos::in_front_of(&s.mercado_db).await;
    let (banco_e, url_e) = chaos::in_front_of(&s.estoque_db).await;
    s.definir("MERCADO_DB_URL", url_m);
    s.definir("ESTOQUE_DB_URL", url_e);
    let banco = |srv: Servico| -> &Arc<ChaosProxy> {
        match srv {
            Servico::Mercado => &banco_m,
            Servico::Estoque => &banco_e,
        }
    };
    let (repositor, mut clientes) = sob_carga(&mut s, 4, Duration::from_millis(20)).await;
    let admin = crate::support::db::admin().await;
    let t0 = Instant::now();
    for (i, p) in passos.iter().enumerate() {
        tokio::time::sleep(p.espera).await;
        eprintln!("[nemesis] {:6.1} s fault {i}: {:?} for {:?}", t0.elapsed().as_secs_f64(), p.falha, p.dura);
        match p.falha {
            Falha::Kill9(papel) => {
                s.kill(papel).await;
                tokio::time::sleep(p.dura).await;
                s.start(papel).await;
            }
            Falha::Pausa(papel) => {
                s.sinal(papel, "STOP");
                tokio::time::sleep(p.dura).await;
                s.sinal(papel, "CONT");
            }
            Falha::Rede(modo) => {
                ida.modo(modo);
                volta.modo(modo);
                tokio::time::sleep(p.dura).await;
                ida.modo(ModoProxy::Encaminhar);
                volta.modo(ModoProxy::Encaminhar);
            }
            Falha::BancoFora(srv) => {
                banco(srv).cut();
                tokio::time::sleep(p.dura).await;
                banco(srv).restore();
            }
            Falha::ReinicioPg(srv) => {
                let nome = match srv {
                    Servico::Mercado => s.mercado_db.name.clone(),
                    Servico::Estoque => s.estoque_db.name.clone(),
                };
                let ate = Instant::now() + p.dura;
                while Instant::now() < ate {
                    admin
                        .execute(
                            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                            &[&nome],
                        )
                        .await
                        .expect("terminate the sessions");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
            Falha::Relogio(papel, desvio) => {
                let vars = if desvio.is_empty() {
                    Vec::new()
                } else {
                    crate::support::relogio::fora_de_hora(desvio)
                };
                s.definir_para(papel, vars);
                s.kill(papel).await;
                s.start(papel).await;
                tokio::time::sleep(p.dura).await;
            }
        }
        s.assert_alive();
    }
    eprintln!(
        "[nemesis] {} faults injected in {:.1} s; every fault healed",
        passos.len(),
        t0.elapsed().as_secs_f64()
    );
    let stats = clientes.parar().await;
    let quinhentos: Vec<String> =
        stats.inesperadas.lock().unwrap().iter().filter(|m| m.contains("answered 500")).cloned().collect();
    assert!(quinhentos.is_empty(), "[nemesis] answered 500: {quinhentos:#?}");
    let n503 = aceitar_503(&stats);
    eprintln!("[nemesis] {n503} answers were 503 while a database was in trouble");
    fim_tolerando(&mut s, repositor, stats, true).await;
}

#[test]
fn the_same_seed_draws_the_same_schedule_and_another_seed_another() {
    let texto = |s| {
        format!(
            "{:?}",
            agenda(s, Duration::from_secs(600))
                .iter()
                .map(|p| (p.espera, p.falha, p.dura))
                .collect::<Vec<_>>()
        )
    };
    assert_eq!(texto(SEMENTE), texto(SEMENTE));
    assert_ne!(texto(SEMENTE), texto(SEMENTE + 1));
    // Every kind of fault in the e2e stage's 40 s.
    let curta =
        format!("{:?}", agenda(SEMENTE, Duration::from_secs(40)).iter().map(|p| p.falha).collect::<Vec<_>>());
    for k in ["Kill9", "Pausa", "Rede", "BancoFora", "ReinicioPg", "Relogio"] {
        assert!(curta.contains(k), "{k} not drawn in 40 s: {curta}");
    }
}
