//! estoque's constraints by name (issue 13), beside [`ErroEstoque`](super::ErroEstoque): what each
//! refusal means for the caller. A constraint not listed is a 500 with its cause logged. With
//! them, [`POLITICA`]: estoque's statement of the one database-error policy ([`giro_http::pg`]).

use giro_http::pg::{Politica, Restricao};

/// The detail of estoque's 409 for a race on a constraint.
/// A repeated lot code is answered before the constraint with its own message (`entrada_lote`):
/// what reaches this one is a race, where sending again finds the SKU registered.
pub const CONFLITO: &str = "Outra entrada registrou este SKU ou este lote ao mesmo tempo. Confira os lotes \
     do SKU no painel e, se este ainda não estiver lá, envie a entrada de novo.";

/// estoque's database-error policy: its constraints, its 409.
pub const POLITICA: Politica = Politica { origem: "estoque", restricoes: RESTRICOES, conflito: CONFLITO };

pub const RESTRICOES: &[(&str, Restricao)] = &[
    // A repeated lot code, or the same new SKU created in parallel.
    ("uk_lote_sku_codigo", Restricao::Conflito),
    ("produto_estoque_pkey", Restricao::Conflito),
    ("uk_demanda_reprimida_solicitacao", Restricao::Conflito),
    ("uk_reposicao_expedida_evento", Restricao::Conflito),
    ("ck_lote_quantidade", Restricao::Invalido("quantidade do lote deve ser positiva")),
    ("ck_lote_quantidade_disponivel", Restricao::Invalido("quantidade do lote fora do intervalo")),
    ("ck_produto_estoque_saldo", Restricao::Invalido("saldo do SKU não pode ficar negativo")),
    ("ck_produto_estoque_ncm", Restricao::Invalido("NCM inválido (esperado 8 dígitos)")),
    ("ck_produto_estoque_sku_gtin", Restricao::Invalido("SKU inválido (esperado GTIN-8/12/13/14)")),
    ("ck_produto_estoque_tags_array", Restricao::Invalido("tags deve ser uma lista")),
    ("ck_demanda_reprimida_qtd", Restricao::Invalido("quantidade deve ser positiva")),
    ("ck_reposicao_expedida_qtd", Restricao::Invalido("quantidade deve ser positiva")),
];
