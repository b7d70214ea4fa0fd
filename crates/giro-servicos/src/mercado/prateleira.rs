//! The storefront product and its shelf (SPEC §3.2): pure rules, no database, no HTTP.
//!
//! A [`ProdutoVitrine`] is loaded with its row locked (`produto::travar`, which wraps it in a
//! `produto::Travado`), changed by these rules, and written back (`produto::salvar_prateleira`)
//! in the same transaction. The rules that matter most:
//! ESGOTADO only with the shelf at 0; a restock is due only **strictly** below the minimum and
//! when no request is open; a classification older than (or as old as) the one applied is ignored.

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;

use super::erro::ErroMercado;

status! {
    StatusVitrine, "vitrine" {
        Disponivel = "DISPONIVEL",
        Esgotado = "ESGOTADO",
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ProdutoVitrine {
    pub sku: String,
    pub nome: String,
    pub tags: Option<Vec<String>>,
    pub categoria: Option<String>,
    /// `ocorridoEm` of the classification applied (or the registration instant when inherited).
    pub classificado_em: Option<DateTime<Utc>>,
    pub preco: Decimal,
    pub prateleira: i32,
    pub minimo: i32,
    pub ideal: i32,
    pub status: StatusVitrine,
    /// In the public catalogue (issue 26). An unlisted product keeps its shelf, its orders and its
    /// restocks; it is only out of the listing and cannot be bought.
    pub listado: bool,
    /// Written by the operator (issue 39), at most 2 000 characters.
    pub descricao: Option<String>,
    /// The md5 of the product's image, when it has one (issue 39).
    pub imagem_etag: Option<String>,
}

fn positiva(qtd: i32) -> Result<(), ErroMercado> {
    if qtd <= 0 {
        return Err(ErroMercado::invalido(format!("quantidade deve ser positiva: {qtd}")));
    }
    Ok(())
}

impl ProdutoVitrine {
    /// The original's constructor: a new product with `estoque_inicial` units (0 at registration).
    pub fn novo(
        sku: &str,
        nome: &str,
        preco: Decimal,
        estoque_inicial: i32,
        minimo: i32,
        ideal: i32,
    ) -> Result<Self, ErroMercado> {
        if !giro_contracts::sku_valido(sku) {
            return Err(ErroMercado::invalido(format!("SKU inválido (esperado GTIN-8/12/13/14): {sku}")));
        }
        let nome = nome.trim();
        if nome.is_empty() {
            return Err(ErroMercado::invalido("nome é obrigatório"));
        }
        if preco <= Decimal::ZERO {
            return Err(ErroMercado::invalido(format!("preço deve ser positivo: {preco}")));
        }
        if estoque_inicial < 0 {
            return Err(ErroMercado::invalido(format!(
                "estoque inicial não pode ser negativo: {estoque_inicial}"
            )));
        }
        verificar_limites(minimo, ideal)?;
        Ok(ProdutoVitrine {
            sku: sku.to_string(),
            nome: nome.to_string(),
            tags: None,
            categoria: None,
            classificado_em: None,
            preco,
            prateleira: estoque_inicial,
            minimo,
            ideal,
            status: if estoque_inicial > 0 { StatusVitrine::Disponivel } else { StatusVitrine::Esgotado },
            listado: true,
            descricao: None,
            imagem_etag: None,
        })
    }

    /// A sale (checkout): `qtd` leaves the shelf; at 0 the product is ESGOTADO.
    pub fn debitar(&mut self, qtd: i32) -> Result<(), ErroMercado> {
        positiva(qtd)?;
        if qtd > self.prateleira {
            return Err(ErroMercado::EstoqueInsuficiente {
                sku: self.sku.clone(),
                solicitado: qtd,
                disponivel: self.prateleira,
            });
        }
        self.prateleira -= qtd;
        if self.prateleira == 0 {
            self.status = StatusVitrine::Esgotado;
        }
        Ok(())
    }

    /// Goods arrived (ReposicaoEnviada): `qtd` joins the shelf, the product is available.
    pub fn creditar(&mut self, qtd: i32) -> Result<(), ErroMercado> {
        positiva(qtd)?;
        self.prateleira = self.prateleira.checked_add(qtd).ok_or_else(|| {
            ErroMercado::invalido(format!("prateleira excede o limite: {} + {qtd}", self.prateleira))
        })?;
        self.status = StatusVitrine::Disponivel;
        Ok(())
    }

    /// An expired reservation returns its units: a credit (may exceed ideal; never triggers).
    pub fn devolver(&mut self, qtd: i32) -> Result<(), ErroMercado> {
        self.creditar(qtd)
    }

    /// The warehouse could not ship: ESGOTADO only when nothing is left (units keep selling).
    pub fn registrar_reposicao_negada(&mut self) {
        if self.prateleira == 0 {
            self.status = StatusVitrine::Esgotado;
        }
    }

    /// Units to request: `ideal − shelf` when strictly below the minimum and no request is open.
    pub fn quantidade_a_repor(&self, tem_solicitacao_pendente: bool) -> Option<i32> {
        (self.prateleira < self.minimo && !tem_solicitacao_pendente).then(|| self.ideal - self.prateleira)
    }

    /// Applies a classification unless one at least as recent is already applied; returns
    /// whether it was applied. Never touches the shelf, the status or the restock.
    pub fn classificar(
        &mut self,
        tags: &[String],
        categoria: &str,
        classificado_em: DateTime<Utc>,
    ) -> Result<bool, ErroMercado> {
        if tags.is_empty() || categoria.trim().is_empty() {
            return Err(ErroMercado::invalido("classificação exige tags e categoria"));
        }
        if self.classificado_em.is_some_and(|atual| classificado_em <= atual) {
            return Ok(false);
        }
        self.tags = Some(tags.to_vec());
        self.categoria = Some(categoria.to_string());
        self.classificado_em = Some(classificado_em);
        Ok(true)
    }
}

/// `1 <= estoqueMinimo <= estoqueIdeal`.
pub fn verificar_limites(minimo: i32, ideal: i32) -> Result<(), ErroMercado> {
    if minimo < 1 || ideal < minimo {
        return Err(ErroMercado::invalido(format!(
            "exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min={minimo} ideal={ideal}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn produto(prateleira: i32, minimo: i32, ideal: i32) -> ProdutoVitrine {
        let mut p = ProdutoVitrine::novo(
            "7894900011517",
            " Coca-Cola 2L PET ",
            Decimal::new(899, 2),
            0,
            minimo,
            ideal,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        if prateleira > 0 {
            p.creditar(prateleira).unwrap_or_else(|e| panic!("{e}"));
        }
        p
    }

    #[test]
    fn a_new_product_with_no_units_is_sold_out_and_orders_its_ideal() {
        let p = produto(0, 6, 24);
        assert_eq!(p.nome, "Coca-Cola 2L PET", "name is stripped");
        assert_eq!((p.prateleira, p.status), (0, StatusVitrine::Esgotado));
        assert_eq!(p.quantidade_a_repor(false), Some(24));
    }

    #[test]
    fn the_constructor_checks_name_price_and_thresholds() {
        let novo = |nome: &str, preco: i64, min: i32, ideal: i32| {
            ProdutoVitrine::novo("12345678", nome, Decimal::new(preco, 2), 0, min, ideal)
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        assert_eq!(novo("  ", 100, 1, 1), Err("nome é obrigatório".into()));
        assert_eq!(novo("x", 0, 1, 1), Err("preço deve ser positivo: 0.00".into()));
        assert_eq!(
            novo("x", 100, 6, 5),
            Err("exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min=6 ideal=5".into())
        );
        assert_eq!(
            novo("x", 100, 0, 5),
            Err("exigido 1 <= estoqueMinimo <= estoqueIdeal; recebido min=0 ideal=5".into())
        );
        assert_eq!(novo("x", 100, 5, 5), Ok(()));
        assert!(ProdutoVitrine::novo("123", "x", Decimal::ONE, 0, 1, 1).is_err());
        let com_estoque =
            ProdutoVitrine::novo("12345678", "x", Decimal::ONE, 3, 1, 5).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(com_estoque.status, StatusVitrine::Disponivel);
    }

    #[test]
    fn debit_lowers_the_shelf_and_sells_out_only_at_zero() {
        let mut p = produto(10, 5, 20);
        p.debitar(6).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((p.prateleira, p.status), (4, StatusVitrine::Disponivel));
        p.debitar(4).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((p.prateleira, p.status), (0, StatusVitrine::Esgotado));
    }

    #[test]
    fn debit_beyond_the_shelf_is_refused_and_changes_nothing() {
        let mut p = produto(3, 2, 10);
        let e = p.debitar(4).map_err(|e| e.to_string());
        assert_eq!(
            e,
            Err("Estoque insuficiente para o SKU 7894900011517: solicitado 4, disponível 3".into())
        );
        assert_eq!(p.prateleira, 3);
        assert_eq!(p.debitar(0).map_err(|e| e.to_string()), Err("quantidade deve ser positiva: 0".into()));
        assert!(p.debitar(-1).is_err());
    }

    #[test]
    fn credit_and_return_make_the_product_available_even_above_ideal() {
        let mut p = produto(0, 2, 10);
        p.creditar(9).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((p.prateleira, p.status), (9, StatusVitrine::Disponivel));
        p.devolver(5).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.prateleira, 14, "a return may exceed ideal");
        assert!(p.creditar(0).is_err());
        assert!(p.creditar(i32::MAX).is_err(), "overflow is refused, not wrapped");
        assert_eq!(p.prateleira, 14);
    }

    #[test]
    fn restock_is_due_strictly_below_the_minimum_and_only_without_an_open_request() {
        assert_eq!(produto(4, 5, 20).quantidade_a_repor(false), Some(16));
        assert_eq!(produto(4, 5, 20).quantidade_a_repor(true), None);
        assert_eq!(produto(5, 5, 20).quantidade_a_repor(false), None, "at the minimum exactly, nothing");
        assert_eq!(produto(0, 2, 10).quantidade_a_repor(false), Some(10));
    }

    #[test]
    fn a_denied_restock_sells_out_only_an_empty_shelf() {
        let mut p = produto(3, 5, 20);
        p.registrar_reposicao_negada();
        assert_eq!(p.status, StatusVitrine::Disponivel);
        let mut vazio = produto(0, 5, 20);
        vazio.registrar_reposicao_negada();
        assert_eq!(vazio.status, StatusVitrine::Esgotado);
    }

    #[test]
    fn an_older_or_equal_classification_never_overwrites_a_newer_one() {
        let t = |s: u32| Utc.with_ymd_and_hms(2026, 9, 25, 12, 0, s).single().unwrap_or_default();
        let tags = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut p = produto(0, 5, 20);
        assert_eq!(p.classificar(&tags(&["refrigerante"]), "bebidas", t(5)).ok(), Some(true));
        assert_eq!(p.classificar(&tags(&["velho"]), "outros", t(4)).ok(), Some(false));
        assert_eq!(p.classificar(&tags(&["igual"]), "outros", t(5)).ok(), Some(false));
        assert_eq!(
            (p.categoria.as_deref(), p.tags.clone()),
            (Some("bebidas"), Some(tags(&["refrigerante"])))
        );
        assert_eq!(p.classificar(&tags(&["novo"]), "mercearia", t(6)).ok(), Some(true));
        assert_eq!(p.categoria.as_deref(), Some("mercearia"));
        assert!(p.classificar(&[], "bebidas", t(7)).is_err());
        assert!(p.classificar(&tags(&["x"]), " ", t(7)).is_err());
        assert_eq!(
            (p.prateleira, p.status),
            (0, StatusVitrine::Esgotado),
            "classification leaves the shelf alone"
        );
    }
}
