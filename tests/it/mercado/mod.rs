//! mercado, the storefront: product registration ([`cadastro`]), checkout and its per-client
//! limits, payment, the consumers of estoque's answers, its HTTP surface, and the contract
//! fixtures ([`fixtures`]).

mod busca;
mod cadastro;
mod cancelamento;
mod checkout;
mod checkout_limits;
mod consumidores;
pub mod fixtures;
mod graficos;
mod http;
mod metricas;
mod operacao_loja;
mod pagamento;
mod produto_editado;
mod relogio;
