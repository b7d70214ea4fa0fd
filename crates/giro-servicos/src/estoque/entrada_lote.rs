//! Lot intake, `POST /lotes` (the original's `EntradaDeLote.registrar`, SPEC §3.13).
//!
//! 1. The request is validated as the original's bean validation ([`EntradaLoteRequest::validar`]);
//!    `descricao` and `ncm` matter only for a new SKU, which needs both (400 `"SKU novo exige
//!    descricao e ncm: <sku>"`, checked before the tag-worker is called).
//! 2. **Before the transaction**, only for a new or untagged product, the tag-worker is asked
//!    (its failure gives `None` and never blocks the intake; a slow worker never holds a lock).
//! 3. In one transaction: the product is locked (or created); if still untagged and a
//!    classification came back, it is stored with its `ProdutoClassificado`; the lot is received;
//!    then the SKU's open demands are served oldest first (FEFO may pick an older valid lot).
//! 4. The answer, [`LoteRegistrado`]: its `saldoDisponivel` counts valid units only (SPEC §6.2.1).
//!
//! A lot whose `validade` is before today is taken in as the original takes it (201, SPEC §3.13
//! and §6.2.1 "Lot intake"): it never ships (FEFO skips it), so the open demand stays registered;
//! it counts in no balance shown and waits for its write-off. A lot code already used for the SKU
//! is found under the product's lock → 409 saying what to do; the same new SKU created in
//! parallel is a unique violation → 409 ([`super::erro::CONFLITO`]).
//!
//! Decisions the spec leaves open: the 400 for field violations reads
//! `"entrada de lote inválida: <campo> <mensagem>; …"` (sorted, the original's pt-BR messages,
//! as `/eventos`); a missing `quantidade` counts as 0 (Java's `int`) and fails `@Positive`;
//! `descricao` is stored as sent, as the original.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::classificacao::{self, ClienteTags};
use super::Tx;
use super::{agora, demanda, inventario, lote, produto, ErroEstoque};
use giro_contracts::Violacoes;
use giro_infra::db::Db;

/// The body of `POST /lotes`. Everything optional at the JSON level so each missing field gets the
/// validation message that names it, instead of a parse error.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EntradaLoteRequest {
    pub sku: Option<String>,
    pub descricao: Option<String>,
    pub ncm: Option<String>,
    pub codigo_lote: Option<String>,
    pub quantidade: Option<i32>,
    /// `YYYY-MM-DD`; absent = no expiry.
    pub validade: Option<NaiveDate>,
    /// Sent by the dashboard once the operator confirmed a lot whose `validade` already passed.
    /// Accepted and ignored: such a lot is taken in with or without it, as the original's clients
    /// (which never send it) expect (SPEC §6.2.1).
    pub confirmar_vencido: Option<bool>,
}

/// A validated intake command (the original's `EntradaLote`).
#[derive(Clone, Debug, PartialEq)]
pub struct EntradaLote {
    pub sku: String,
    pub descricao: Option<String>,
    pub ncm: Option<String>,
    pub codigo_lote: String,
    pub quantidade: i32,
    pub validade: Option<NaiveDate>,
}

/// What `POST /lotes` answers (201).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoteRegistrado {
    pub lote_id: i64,
    pub sku: String,
    pub saldo_disponivel: i32,
    pub classificado: bool,
    pub demandas_atendidas: i32,
}

const NCM_REGEX: &str = "^[0-9]{8}$";

impl EntradaLoteRequest {
    /// Bean validation of the request: every violation, sorted, as `"<campo> <mensagem>"`.
    pub fn validar(self) -> Result<EntradaLote, ErroEstoque> {
        let mut v = Violacoes::default();
        v.sku("sku", self.sku.as_deref());
        if let Some(d) = &self.descricao {
            v.tamanho("descricao", d, 255);
        }
        if let Some(n) = &self.ncm {
            v.padrao("ncm", n.len() == 8 && n.bytes().all(|b| b.is_ascii_digit()), NCM_REGEX);
        }
        let codigo = self.codigo_lote.clone().unwrap_or_default();
        v.em_branco("codigoLote", &codigo);
        v.tamanho("codigoLote", &codigo, 50);
        let quantidade = self.quantidade.unwrap_or(0);
        v.positivo("quantidade", quantidade);
        if let Some(Err(m)) = self.validade.map(|d| giro_http::extract::data_sensata("validade", d)) {
            v.mensagem(m);
        }
        v.resultado("entrada de lote inválida: ").map_err(ErroEstoque::Invalido)?;
        Ok(EntradaLote {
            sku: self.sku.unwrap_or_default(),
            descricao: self.descricao,
            ncm: self.ncm,
            codigo_lote: codigo,
            quantidade,
            validade: self.validade,
        })
    }
}

fn vazio(v: &Option<String>) -> bool {
    v.as_deref().is_none_or(|s| s.trim().is_empty())
}

fn sku_novo(sku: &str) -> ErroEstoque {
    ErroEstoque::Invalido(format!("SKU novo exige descricao e ncm: {sku}"))
}

/// Registers the lot `e` entered by `operador` (steps 1–4 of the module doc).
pub async fn registrar(
    db: &Db,
    tags: &ClienteTags,
    e: EntradaLote,
    operador: &str,
) -> Result<LoteRegistrado, ErroEstoque> {
    let agora = agora();
    let existente = produto::buscar(&db.client().await?, &e.sku).await?;
    if existente.is_none() && (vazio(&e.descricao) || vazio(&e.ncm)) {
        return Err(sku_novo(&e.sku));
    }

    // HTTP before the transaction, and only when the product has no tags yet.
    let classificacao = match &existente {
        Some(p) if p.classificado() => None,
        Some(p) => tags.classificar(&e.sku, &p.descricao).await,
        None => tags.classificar(&e.sku, e.descricao.as_deref().unwrap_or_default()).await,
    };

    let mut client = db.client().await?;
    let tx = Tx::begin(db, &mut client).await?;
    let mut produto = match produto::bloquear(&tx, &e.sku).await? {
        Some(p) => p,
        None => match (e.descricao.as_deref(), e.ncm.as_deref()) {
            (Some(d), Some(n)) if !vazio(&e.descricao) && !vazio(&e.ncm) => {
                produto::criar(&tx, &e.sku, d, n).await?
            }
            _ => return Err(sku_novo(&e.sku)),
        },
    };
    // Under the product's lock no other intake of this SKU runs: the check is definitive, and
    // its message can say what to do (the constraint's cannot tell a repeat from a race).
    if lote::por_codigo(&tx, &e.sku, &e.codigo_lote).await?.is_some() {
        return Err(ErroEstoque::Recusado(format!(
            "O lote {} já foi registrado para o SKU {}. Confira se esta entrada já foi feita; se é \
             outro lote, use um código novo.",
            e.codigo_lote, e.sku
        )));
    }
    if !produto.classificado() {
        if let Some(c) = &classificacao {
            classificacao::aplicar(&tx, &mut produto, c, agora).await?;
        }
    }
    let lote_id =
        produto.receber_lote(&tx, &e.codigo_lote, e.quantidade, e.validade, agora, operador).await?;
    // An expired lot is recorded all the same (the original's 201, SPEC §6.2.1) and the demands
    // are offered to FEFO as after any lot: FEFO never picks an expired lot, so it ships nothing
    // and each open demand stays registered, waiting for a valid lot.
    let vencido = match e.validade {
        Some(v) => v < lote::hoje(&tx, agora).await?,
        None => false,
    };
    let demandas_atendidas = demanda::atender_abertas(&tx, &mut produto, agora).await?;
    let saldos = inventario::saldos(&tx, &e.sku, agora).await?;
    let produto = produto.liberar();
    tx.commit().await?;

    tracing::info!(
        sku = %produto.sku, lote = %e.codigo_lote, qtd = e.quantidade, saldo = produto.saldo_disponivel,
        classificado = produto.classificado(), demandas_atendidas, vencido, "lot registered"
    );
    Ok(LoteRegistrado {
        lote_id,
        sku: produto.sku.clone(),
        saldo_disponivel: saldos.valido,
        classificado: produto.classificado(),
        demandas_atendidas,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req() -> EntradaLoteRequest {
        EntradaLoteRequest {
            sku: Some("7894900011517".into()),
            codigo_lote: Some("L-1".into()),
            quantidade: Some(10),
            ..Default::default()
        }
    }

    fn detalhe(r: EntradaLoteRequest) -> String {
        match r.validar() {
            Err(ErroEstoque::Invalido(m)) => m,
            other => panic!("expected a violation, got {other:?}"),
        }
    }

    #[test]
    fn a_valid_request_becomes_a_command() {
        let c = req().validar().unwrap();
        assert_eq!(c.sku, "7894900011517");
        assert_eq!(c.quantidade, 10);
    }

    #[test]
    fn violations_name_each_field_sorted() {
        let r = EntradaLoteRequest { sku: Some("123".into()), ncm: Some("12".into()), ..Default::default() };
        assert_eq!(
            detalhe(r),
            "entrada de lote inválida: codigoLote não deve estar em branco; ncm deve corresponder a \"^[0-9]{8}$\"; \
             quantidade deve ser maior que 0; sku deve corresponder a \"^([0-9]{8}|[0-9]{12,14})$\""
        );
        assert_eq!(
            detalhe(EntradaLoteRequest { sku: None, ..req() }),
            "entrada de lote inválida: sku não deve ser nulo"
        );
        assert_eq!(
            detalhe(EntradaLoteRequest { codigo_lote: Some("x".repeat(51)), ..req() }),
            "entrada de lote inválida: codigoLote tamanho deve ser entre 0 e 50"
        );
        assert_eq!(
            detalhe(EntradaLoteRequest { descricao: Some("x".repeat(256)), ..req() }),
            "entrada de lote inválida: descricao tamanho deve ser entre 0 e 255"
        );
        assert_eq!(
            detalhe(EntradaLoteRequest { quantidade: Some(-1), ..req() }),
            "entrada de lote inválida: quantidade deve ser maior que 0"
        );
    }
}
