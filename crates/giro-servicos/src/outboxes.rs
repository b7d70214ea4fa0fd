//! The outboxes of the two services as `giro outbox` acts on them (giro_outbox names none):
//! each one's name for `--db`, its database, and the service's repair of its dead letters. Only
//! the outboxes a command acts on need their database URL.

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
    let servicos = args.db().map_or(Servico::TODOS.to_vec(), |s| vec![*s]);
    let alvos = alvos(config, &servicos)?;
    giro_outbox::operador::run::<giro_contracts::EventoIntegracao, _>(args, &prazos, &alvos).await
}

/// The outboxes of `servicos` as `giro outbox` acts on them: each named as `--db` names it, with
/// what its service does when one of its dead letters is discarded or redone. A service without
/// its database URL is a configuration error naming the variable.
pub fn alvos(config: &Config, servicos: &[Servico]) -> Result<Vec<Alvo>, giro_infra::config::ConfigError> {
    servicos
        .iter()
        .map(|&s| {
            let db = config.db(s)?.clone();
            let nomeado = db.clone();
            let nomear = move |e| giro_infra::db::nomear_conexao(e, s.nome(), s.var_db_url(), &nomeado);
            Ok(match s {
                Servico::Mercado => {
                    Alvo::new(s.nome(), db, Arc::new(crate::mercado::saida::ReparoMercado), nomear)
                }
                Servico::Estoque => {
                    Alvo::new(s.nome(), db, Arc::new(crate::estoque::saida::ReparoEstoque), nomear)
                }
            })
        })
        .collect()
}
