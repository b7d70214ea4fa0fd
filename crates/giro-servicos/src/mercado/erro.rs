//! The storefront's errors and the one place that decides their HTTP status (the original's
//! `TratamentoDeErros`, SPEC §6.3): each variant carries the pt-BR message people see.
//!
//! Database failures follow the one policy of every route ([`giro_http::pg`], stated for
//! mercado in [`POLITICA`]), logged and answered without internals: the database's trouble (an
//! unreachable pool, a lost connection, a read-only database, a lock or statement timeout) is
//! 503; a constraint violation is looked up by name in [`RESTRICOES`] (a race is 409 `"conflito
//! de cadastro; tente novamente"`, a broken rule 400); a value a column cannot hold is 400;
//! anything else 500, logged with its SQLSTATE, message and constraint.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use uuid::Uuid;

use giro_http::pg::{Politica, Restricao};
use giro_http::Problem;
use giro_infra::db::DbError;

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
    /// The owner took the product out of the catalogue (issue 26) → 422, as an unknown product.
    #[error("O produto {0} saiu do catálogo e não pode ser comprado; retire-o do carrinho para continuar")]
    ProdutoForaDoCatalogo(String),
    #[error("Pedido não encontrado: {0}")]
    PedidoNaoEncontrado(Uuid),
    #[error("{0}")]
    PagamentoRecusado(String),
    /// The operator's cancel of an order that is paid, closed or past its deadline (issue 39) → 409.
    #[error("{0}")]
    CancelamentoRecusado(String),
    #[error("Produto já cadastrado na vitrine: {0}")]
    ProdutoJaCadastrado(String),
    #[error("SKU desconhecido no estoque: {0}")]
    SkuDesconhecidoNoEstoque(String),
    /// An integrity constraint refused the write (the original's `DataIntegrityViolation`).
    #[error("{}", CONFLITO)]
    Conflito,
    /// The client address holds too many units in unpaid reservations (issue 13) → 429.
    #[error("reservas demais deste endereço: pague ou espere um pedido expirar")]
    ReservasDemais { espera: Option<std::time::Duration> },
    /// The client address holds too many units of one SKU in unpaid reservations
    /// (`checkout.max-unidades-por-produto`, issue 25) → 429.
    #[error("reservas demais do SKU {sku} deste endereço (máximo de {max} unidades por produto): pague ou espere um pedido expirar")]
    ReservasDemaisDoProduto { sku: String, max: i64, espera: Option<std::time::Duration> },
    /// An `Idempotency-Key` reused for other items → 422.
    #[error("Idempotency-Key já usada com outros itens")]
    IdempotenciaDivergente,
    #[error(transparent)]
    Db(#[from] DbError),
}

/// The detail of mercado's 409 for a race on a constraint.
const CONFLITO: &str = "conflito de cadastro; tente novamente";

/// mercado's database-error policy: its constraints, its 409.
pub const POLITICA: Politica = Politica { origem: "mercado", restricoes: RESTRICOES, conflito: CONFLITO };

/// mercado's constraints by name (issue 13): what each refusal means for the caller. A
/// constraint not listed is a 500 with its cause logged: a bug to fix, not an input to blame.
pub const RESTRICOES: &[(&str, Restricao)] = &[
    ("produto_vitrine_pkey", Restricao::Conflito),
    ("pedido_pkey", Restricao::Conflito),
    ("uk_solicitacao_reposicao_ativa_por_sku", Restricao::Conflito),
    ("uk_solicitacao_reposicao_event_id", Restricao::Conflito),
    // The last line against overselling: a concurrent checkout took the units.
    ("ck_produto_vitrine_prateleira", Restricao::Conflito),
    ("uk_item_pedido_sku", Restricao::Invalido("SKU repetido no pedido")),
    ("ck_item_pedido_qtd", Restricao::Invalido("quantidade deve ser positiva")),
    ("ck_item_pedido_preco", Restricao::Invalido("preço deve ser positivo")),
    ("ck_reserva_qtd", Restricao::Invalido("quantidade deve ser positiva")),
    ("ck_solicitacao_reposicao_qtd", Restricao::Invalido("quantidade deve ser positiva")),
    ("ck_pedido_total", Restricao::Invalido("total do pedido deve ser positivo")),
    ("ck_produto_vitrine_preco", Restricao::Invalido("preço deve ser positivo")),
    ("ck_produto_vitrine_min_max", Restricao::Invalido("exigido 1 <= estoqueMinimo <= estoqueIdeal")),
    ("ck_produto_vitrine_sku_gtin", Restricao::Invalido("SKU inválido (esperado GTIN-8/12/13/14)")),
    ("ck_produto_vitrine_tags_array", Restricao::Invalido("tags deve ser uma lista")),
];

impl From<tokio_postgres::Error> for ErroMercado {
    fn from(e: tokio_postgres::Error) -> Self {
        match POLITICA.recusa(&e) {
            Some(Restricao::Conflito) => ErroMercado::Conflito,
            Some(Restricao::Invalido(m)) => ErroMercado::Invalido(m.to_string()),
            // Answered by the policy itself, where its log line is written.
            None => ErroMercado::Db(DbError::Pg(e)),
        }
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
            ErroMercado::ReservasDemais { .. } => Problem::new(StatusCode::TOO_MANY_REQUESTS, msg),
            ErroMercado::ReservasDemaisDoProduto { sku, max, .. } => {
                Problem::new(StatusCode::TOO_MANY_REQUESTS, msg).with("sku", sku.clone()).with("maximo", *max)
            }
            ErroMercado::ProdutoForaDoCatalogo(sku) => {
                Problem::new(StatusCode::UNPROCESSABLE_ENTITY, msg).with("sku", sku.clone())
            }
            ErroMercado::ProdutoNaoEncontrado(_)
            | ErroMercado::SkuDesconhecidoNoEstoque(_)
            | ErroMercado::IdempotenciaDivergente => Problem::new(StatusCode::UNPROCESSABLE_ENTITY, msg),
            ErroMercado::PedidoNaoEncontrado(_) => Problem::new(StatusCode::NOT_FOUND, msg),
            ErroMercado::PagamentoRecusado(_) => {
                Problem::new(StatusCode::CONFLICT, msg).with_title("Pagamento recusado")
            }
            ErroMercado::CancelamentoRecusado(_) => {
                Problem::new(StatusCode::CONFLICT, msg).with_title("Cancelamento recusado")
            }
            ErroMercado::ProdutoJaCadastrado(_) | ErroMercado::Conflito => {
                Problem::new(StatusCode::CONFLICT, msg)
            }
            ErroMercado::EstadoInvalido(_) => {
                tracing::error!(error = %msg, "invalid state transition");
                Problem::internal()
            }
            ErroMercado::Db(e) => POLITICA.responder(e),
        }
    }
}

impl IntoResponse for ErroMercado {
    fn into_response(self) -> Response {
        let mut res = self.problem().into_response();
        if let ErroMercado::ReservasDemais { espera } | ErroMercado::ReservasDemaisDoProduto { espera, .. } =
            self
        {
            // Until the address's first reservation expires (or a minute when unknown).
            let s = espera.map_or(60, |d| d.as_secs().max(1));
            if let Ok(v) = axum::http::HeaderValue::from_str(&s.to_string()) {
                res.headers_mut().insert(axum::http::header::RETRY_AFTER, v);
            }
        }
        res
    }
}
