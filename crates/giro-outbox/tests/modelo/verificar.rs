//! Running a check and telling what it found: the bounds, the states explored, the time, and a
//! counterexample's trace in short form. Written straight to stderr, not through `eprintln!`,
//! so `cargo test` shows it without `--nocapture` (the unit stage's log keeps the numbers).

use std::collections::BTreeSet;
use std::io::Write;
use std::time::Instant;

use stateright::{Checker, HasDiscoveries, Model, Path};

use crate::protocolo::{Estado, Passo, Protocolo};

/// What one check explored.
pub struct Resultado {
    pub descobertas: Vec<(&'static str, Path<Estado, Passo>)>,
    pub estados: usize,
}

impl Resultado {
    pub fn achou(&self, propriedade: &str) -> Option<&Path<Estado, Passo>> {
        self.descobertas.iter().find(|(n, _)| *n == propriedade).map(|(_, p)| p)
    }
}

pub fn diz(texto: &str) {
    let _ = writeln!(std::io::stderr(), "{texto}");
}

/// Checks `m` exhaustively (breadth first, 2 threads), or until `ate` has a discovery.
pub fn verificar(nome: &str, m: Protocolo, ate: Option<&'static str>) -> Resultado {
    diz(&format!("modelo [{nome}]: {:?}", m.l));
    let inicio = Instant::now();
    let mut b = m.checker().threads(2);
    if let Some(p) = ate {
        b = b.finish_when(HasDiscoveries::AnyOf(BTreeSet::from([p])));
    }
    let c = b.spawn_bfs().join();
    let mut descobertas: Vec<_> = c.discoveries().into_iter().collect();
    descobertas.sort_by_key(|(n, _)| *n);
    diz(&format!(
        "modelo [{nome}]: {} states ({} with repeats), depth {}, {:.1} s{}",
        c.unique_state_count(),
        c.state_count(),
        c.max_depth(),
        inicio.elapsed().as_secs_f64(),
        if c.is_done() && ate.is_none() { ", exhaustive" } else { "" }
    ));
    for (n, _) in &descobertas {
        diz(&format!("modelo [{nome}]: found \"{n}\""));
    }
    let estados = c.unique_state_count();
    Resultado { descobertas, estados }
}

/// A trace in short form: one line a step, with the database's second it was taken at.
pub fn traco(m: &Protocolo, caminho: &Path<Estado, Passo>) -> String {
    let mut out = String::new();
    let passos = caminho.clone().into_vec();
    for (s, passo) in &passos {
        if let Some(p) = passo {
            out.push_str(&format!("  t={} {}\n", s.agora, m.format_action(p)));
        }
    }
    let fim = caminho.last_state();
    out.push_str(&format!(
        "  end: applied per shipment {:?}; events {}\n",
        fim.aplicados,
        fim.eventos
            .iter()
            .enumerate()
            .map(|(i, e)| format!(
                "#{i} shipment {} {:?}{}{}",
                e.remessa,
                e.situacao.status,
                e.porque.map(|w| format!(" ({w:?})")).unwrap_or_default(),
                if e.arquivado { " archived" } else { "" }
            ))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    out
}
