//! The outboxes of the two services as `giro outbox` acts on them (giro_outbox names none):
//! each one's name for `--db`, its database, and the service's repair of its dead letters.

use std::sync::Arc;

use giro_infra::config::{Config, Servico};
use giro_outbox::operador::Alvo;

/// The outboxes `giro outbox` acts on: each service's, named as `--db` names it, with what its
/// service does when one of its dead letters is discarded or redone.
pub fn alvos(config: &Config) -> Vec<Alvo> {
    [Servico::Mercado, Servico::Estoque]
        .into_iter()
        .map(|s| {
            let db = config.servico(s).db.clone();
            let nomeado = db.clone();
            let nomear = move |e| giro_infra::db::nomear_conexao(e, s, &nomeado);
            match s {
                Servico::Mercado => {
                    Alvo::new(s.nome(), db, Arc::new(crate::mercado::saida::ReparoMercado), nomear)
                }
                Servico::Estoque => {
                    Alvo::new(s.nome(), db, Arc::new(crate::estoque::saida::ReparoEstoque), nomear)
                }
            }
        })
        .collect()
}
