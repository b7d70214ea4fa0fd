//! The storefront's errors and the one place that decides their HTTP status (the original's
//! `TratamentoDeErros`, SPEC §6.3): each variant carries the pt-BR message people see.
//!
//! Database failures are logged here and answered without internals: the database's trouble (an
//! unreachable pool, a lost connection, a read-only database, a lock or statement timeout:
//! [`crate::db::trouble`]) is 503,
//! an integrity violation (a concurrent registration, the last-line CHECKs) is 409
//! `"conflito de cadastro; tente novamente"`, anything else 500.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use uuid::Uuid;

use crate::db::DbError;
use crate::http::Problem;

#[derive(Debug, thiserror::Error)]
pub enum ErroMercado {
    /// A rule broken by the input (the original's `IllegalArgumentException`) → 400.
    #[error("{0}")]
    Invalido(String),
    /// A transition the state does not allow (`IllegalStateException`) → 500: a bug, not input.
    #[error("{0}")]
    EstadoInvalido(String),
    #[error("Estoque insuficiente para o SKU {sku}: solicitado {solicitado}, disponível {disponivel}")]
    EstoqueInsuficiente { sku: String, solicitado: i32, disponivel: i32 },
    #[error("Produto não encontrado na vitrine: {0}")]
    ProdutoNaoEncontrado(String),
    #[error("Pedido não encontrado: {0}")]
    PedidoNaoEncontrado(Uuid),
    #[error("{0}")]
    PagamentoRecusado(String),
    #[error("Produto já cadastrado na vitrine: {0}")]
    ProdutoJaCadastrado(String),
    #[error("SKU desconhecido no estoque: {0}")]
    SkuDesconhecidoNoEstoque(String),
    /// An integrity constraint refused the write (the original's `DataIntegrityViolation`).
    #[error("conflito de cadastro; tente novamente")]
    Conflito,
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<tokio_postgres::Error> for ErroMercado {
    fn from(e: tokio_postgres::Error) -> Self {
        crate::db::note_error(&e);
        // Class 23 = integrity constraint violation (unique, foreign key, check, not null).
        if e.code().is_some_and(|c| c.code().starts_with("23")) {
            tracing::warn!(error = %e, "integrity constraint refused a write");
            return ErroMercado::Conflito;
        }
        ErroMercado::Db(DbError::Pg(e))
    }
}

impl ErroMercado {
    pub fn invalido(msg: impl Into<String>) -> Self {
        ErroMercado::Invalido(msg.into())
    }

    pub fn problem(&self) -> Problem {
        let msg = self.to_string();
        match self {
            ErroMercado::Invalido(_) => Problem::bad_request(msg),
            ErroMercado::EstoqueInsuficiente { sku, .. } => Problem::new(StatusCode::CONFLICT, msg)
                .with_title("Estoque insuficiente")
                .with("sku", sku.clone()),
            ErroMercado::ProdutoNaoEncontrado(_) | ErroMercado::SkuDesconhecidoNoEstoque(_) => {
                Problem::new(StatusCode::UNPROCESSABLE_ENTITY, msg)
            }
            ErroMercado::PedidoNaoEncontrado(_) => Problem::new(StatusCode::NOT_FOUND, msg),
            ErroMercado::PagamentoRecusado(_) => {
                Problem::new(StatusCode::CONFLICT, msg).with_title("Pagamento recusado")
            }
            ErroMercado::ProdutoJaCadastrado(_) | ErroMercado::Conflito => {
                Problem::new(StatusCode::CONFLICT, msg)
            }
            ErroMercado::EstadoInvalido(_) => {
                tracing::error!(error = %msg, "invalid state transition");
                Problem::internal()
            }
            ErroMercado::Db(DbError::Pool(e)) => {
                tracing::error!(error = %e, "database unavailable");
                Problem::unavailable()
            }
            // The database's trouble (lost connection, read-only, lock or statement timeout): 503.
            ErroMercado::Db(e @ DbError::Pg(_)) if e.indisponivel() => {
                tracing::warn!(error = %e, "database unavailable");
                Problem::unavailable()
            }
            ErroMercado::Db(DbError::Pg(e)) => {
                tracing::error!(error = %e, "database error");
                Problem::internal()
            }
        }
    }
}

impl IntoResponse for ErroMercado {
    fn into_response(self) -> Response {
        self.problem().into_response()
    }
}
