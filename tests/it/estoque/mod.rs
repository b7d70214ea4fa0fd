//! estoque, the warehouse: restock fulfilment ([`atendimento`]), classification by the
//! tag-worker, lot intake ([`entrada`]), the dashboard ([`painel`]), the inventory and write-off
//! ([`inventario`]), the real tag-worker's
//! contract, and the contract fixtures ([`fixtures`]).

mod atendimento;
mod classificacao;
mod entrada;
pub mod fixtures;
mod graficos;
mod inventario;
mod painel;
mod tag_worker;
