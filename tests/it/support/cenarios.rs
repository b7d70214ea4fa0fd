//! One runner for the long end-to-end scenarios (tests/it/e2e.rs, resiliencia.rs `mod e2e`): they
//! run one after the other in one test, each in a task of its own so a panic ends that scenario
//! only; the test fails at the end naming every scenario that failed. One test per list because
//! each scenario keeps both cores busy: the harness's other thread stays with the rest of the suite.

use std::time::Instant;

use futures_util::future::BoxFuture;

/// A scenario, as a function the runner can start in a task of its own.
pub type Cenario = fn() -> BoxFuture<'static, ()>;

/// Runs `cenarios` in order, printing each one's outcome and duration prefixed with `rotulo`.
/// `GIRO_E2E=kill-9,rejeitado` runs only the scenarios whose name contains one of the words.
pub async fn rodar(rotulo: &str, cenarios: &[(&str, Cenario)]) {
    let filtro = std::env::var("GIRO_E2E").ok().filter(|f| !f.trim().is_empty());
    let mut falhas = Vec::new();
    let t0 = Instant::now();
    for (nome, cenario) in cenarios {
        if let Some(f) = &filtro {
            if !f.split(',').any(|w| nome.contains(w.trim())) {
                continue;
            }
        }
        let t = Instant::now();
        let r = tokio::spawn(cenario()).await;
        let dur = t.elapsed().as_secs_f64();
        match r {
            Ok(()) => eprintln!("{rotulo} ok     {dur:6.1} s  {nome}"),
            Err(e) => {
                let msg = match e.try_into_panic() {
                    Ok(p) => p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default(),
                    Err(e) => e.to_string(),
                };
                eprintln!("{rotulo} FAILED {dur:6.1} s  {nome}: {msg}");
                falhas.push(format!("{nome}: {msg}"));
            }
        }
    }
    eprintln!("{rotulo} total  {:6.1} s", t0.elapsed().as_secs_f64());
    assert!(falhas.is_empty(), "{} scenario(s) failed:\n{}", falhas.len(), falhas.join("\n"));
}
