//! The outboxes of the two services as `giro outbox` acts on them (giro_outbox names none):
//! each one's name for `--db`, its database, and the service's repair of its dead letters.

use std::sync::Arc;

use crate::config::{Config, Servico};
use giro_outbox::operador::{Alvo, OutboxArgs, Prazos};

/// `giro outbox`: the command on the two services' outboxes.
pub async fn run(args: OutboxArgs<Servico>, config: &Config) -> anyhow::Result<()> {
    let prazos = Prazos {
        db: config.db_timeout,
        atraso: config.audit_atraso,
        inbox_retencao: config.inbox_retencao,
        requisicao: config.limites_http.timeout_requisicao,
    };
    giro_outbox::operador::run::<giro_contracts::EventoIntegracao, _>(args, &prazos, &alvos(config)).await
}

/// The outboxes `giro outbox` acts on: each service's, named as `--db` names it, with what its
/// service does when one of its dead letters is discarded or redone.
pub fn alvos(config: &Config) -> Vec<Alvo> {
    [Servico::Mercado, Servico::Estoque]
        .into_iter()
        .map(|s| {
            let db = config.servico(s).db.clone();
            let nomeado = db.clone();
            let nomear = move |e| giro_infra::db::nomear_conexao(e, s.nome(), s.var_db_url(), &nomeado);
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
