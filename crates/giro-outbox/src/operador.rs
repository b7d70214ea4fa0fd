//! What an operator uses: the dead letters' ways out and the repair a service supplies for them
//! ([`Reparo`], [`reenviar`], [`executar`] …), the reads behind the admin commands, the console
//! and an audit ([`Linha`], [`statuses`] …), the `giro outbox …` commands ([`OutboxArgs`],
//! [`run`]), the event console's routes ([`router_console_com`]) and the gauges' `/metrics`
//! route ([`router_metricas`]).
//!
//! One module, so a service's code that touches operations says so in its `use` line.

#[cfg(feature = "operador")]
pub use crate::admin::{list, run, show_text, status_text, Alvo, Filtro, OutboxArgs, Prazos};
#[cfg(feature = "operador")]
pub use crate::console::{
    router as router_console, router_com as router_console_com, Ajustes as AjustesConsole,
};
#[cfg(feature = "http")]
pub use crate::metrics::{router_com as router_metricas, Extra as ExtraMetricas};
pub use crate::saida::{
    arquivados, executar, reenviar, reenviar_todos, Acao, Opcao, Recusa, Registro, Reparo, ReparoDe,
    SaidaErro, SemReparo,
};
pub use crate::store::{count, delayed, failed_with_key, pending_referencing, sent_since, statuses, Linha};
