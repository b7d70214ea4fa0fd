//! The inventory (issue 26, SPEC §6.2.1): per SKU its valid and expired balance, open demand and
//! next expiry (`GET /painel/estoque`), its lots and history (`GET /painel/estoque/{sku}`), and
//! the write-off of a lot (`POST /painel/estoque/{sku}/lotes/{codigoLote}/baixa`), which this
//! module owns with its table, `baixa_lote` (migration V14; V19, issue 39: part of a lot, with a
//! reason, [`MOTIVOS`]).
//!
//! **Valid** units are those in lots whose `validade` is today or later, or absent ("today" in
//! `America/Sao_Paulo` of the instant passed, as FEFO counts it): what can ship. **Expired**
//! units are the rest. `produto_estoque.saldo_disponivel` still sums both (the bookkeeping
//! invariant of [`super::produto`]); every balance shown to a person or a peer is the valid one
//! ([`saldos`]).
//!
//! A SKU's **state** (`estado`), a partition: `com-saldo` (valid units > 0), `so-vencido` (no
//! valid unit, expired units > 0), `zerado` (no unit at all). The list also filters by
//! `sem-saldo-valido` (`so-vencido` ∪ `zerado`: the KPI "SKUs sem saldo válido"), `vencendo`
//! (a lot with units expiring between today and today + 30 days: the KPI "Lotes vencendo") and
//! `com-demanda` (open pent-up demand: the KPI "Demanda reprimida").

use chrono::{DateTime, NaiveDate, Utc};
use serde::Serialize;
use tokio_postgres::Row;
use uuid::Uuid;

use super::lote::{self, hoje_sql};
use super::painel::DIAS_ALERTA_VALIDADE;
use super::{produto, ErroEstoque, Tx};
use crate::parametro::{inteiro, presente, Pagina};
use giro_contracts::{instante, sku_valido};
use giro_infra::db::{Client, Db};

/// Rows per page of `GET /painel/estoque` when `tamanho` is absent, and the most it takes.
pub const TAMANHO_PADRAO: i64 = 20;
pub const TAMANHO_MAXIMO: i64 = 100;
/// The most characters `busca` takes.
pub const BUSCA_MAXIMA: usize = 100;
/// The most movements `GET /painel/estoque/{sku}` returns (newest first).
pub const MOVIMENTOS_MAXIMO: i64 = 100;

giro_infra::nomes! {
    /// The `estado` filter of the list (module doc).
    pub enum FiltroEstado {
        ComSaldo = "com-saldo",
        SoVencido = "so-vencido",
        Zerado = "zerado",
        SemSaldoValido = "sem-saldo-valido",
        Vencendo = "vencendo",
        ComDemanda = "com-demanda",
    }
}

/// The list's query, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Filtro {
    pub busca: Option<String>,
    pub estado: Option<FiltroEstado>,
    pub pagina: i64,
    pub tamanho: i64,
}

/// The list's query as it arrives (every parameter a string, so each bad one is named).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct FiltroRequest {
    pub busca: Option<String>,
    pub estado: Option<String>,
    pub pagina: Option<String>,
    pub tamanho: Option<String>,
}

impl FiltroRequest {
    /// Absent or blank parameters take their defaults; anything else out of range is a 400 whose
    /// detail names the parameter.
    pub fn validar(&self) -> Result<Filtro, ErroEstoque> {
        let invalido = |m: String| ErroEstoque::Invalido(m);
        let busca = presente(self.busca.as_deref()).map(str::to_string);
        if busca.as_ref().is_some_and(|b| b.chars().count() > BUSCA_MAXIMA) {
            return Err(invalido(format!(
                "Parâmetro inválido: busca deve ter no máximo {BUSCA_MAXIMA} caracteres."
            )));
        }
        let estado = match presente(self.estado.as_deref()) {
            None => None,
            Some(s) => Some(FiltroEstado::de_nome(s).ok_or_else(|| {
                let nomes = FiltroEstado::NOMES.join(", ");
                invalido(format!("Parâmetro inválido: estado deve ser um de {nomes}: {s}"))
            })?),
        };
        // A page past 1 000 000 cannot hold anything and would overflow the offset.
        let pagina = inteiro("pagina", self.pagina.as_deref(), 1, 1_000_000).map_err(invalido)?;
        let tamanho = inteiro("tamanho", self.tamanho.as_deref(), TAMANHO_PADRAO, TAMANHO_MAXIMO);
        let tamanho = tamanho.map_err(invalido)?;
        Ok(Filtro { busca, estado, pagina, tamanho })
    }
}

/// One SKU of the list.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ItemInventario {
    pub sku: String,
    pub descricao: String,
    pub categoria: Option<String>,
    /// `com-saldo`, `so-vencido` or `zerado`.
    pub estado: &'static str,
    pub saldo_valido: i64,
    pub saldo_vencido: i64,
    /// Units the open pent-up demands ask for, and how many demands.
    pub demanda_aberta: i64,
    pub demandas_abertas: i64,
    /// The earliest `validade` among lots with valid units; `null` when none expires.
    pub proxima_validade: Option<NaiveDate>,
}

fn estado(valido: i64, vencido: i64) -> &'static str {
    match (valido > 0, vencido > 0) {
        (true, _) => FiltroEstado::ComSaldo.nome(),
        (false, true) => FiltroEstado::SoVencido.nome(),
        (false, false) => FiltroEstado::Zerado.nome(),
    }
}

/// A SKU's row of the `saldos_sql!` columns, as the list and the SKU's page both show it.
fn item_de_linha(r: &Row) -> Result<ItemInventario, tokio_postgres::Error> {
    let (valido, vencido): (i64, i64) = (r.try_get("valido")?, r.try_get("vencido")?);
    Ok(ItemInventario {
        sku: r.try_get("sku")?,
        descricao: r.try_get("descricao")?,
        categoria: r.try_get("categoria")?,
        estado: estado(valido, vencido),
        saldo_valido: valido,
        saldo_vencido: vencido,
        demanda_aberta: r.try_get("demanda")?,
        demandas_abertas: r.try_get("demandas")?,
        proxima_validade: r.try_get("proxima_validade")?,
    })
}

/// `%` `_` `\` taken literally in a LIKE pattern.
fn escapar_like(s: &str) -> String {
    s.replace('\\', r"\\").replace('%', r"\%").replace('_', r"\_")
}

/// Per SKU (`$1` = agora): valid and expired units, next expiry, open demand.
macro_rules! saldos_sql {
    () => {
        concat!(
            "SELECT p.sku, p.descricao, p.categoria, \
                    coalesce(sum(l.quantidade_disponivel) FILTER (WHERE l.validade IS NULL OR l.validade >= ",
            hoje_sql!("$1"),
            "), 0)::bigint AS valido, \
                    coalesce(sum(l.quantidade_disponivel) FILTER (WHERE l.validade < ",
            hoje_sql!("$1"),
            "), 0)::bigint AS vencido, \
                    min(l.validade) FILTER (WHERE l.validade >= ",
            hoje_sql!("$1"),
            ") AS proxima_validade, \
                    coalesce(d.qtd, 0)::bigint AS demanda, coalesce(d.n, 0)::bigint AS demandas \
               FROM produto_estoque p \
               LEFT JOIN lote l ON l.sku = p.sku AND l.quantidade_disponivel > 0 \
               LEFT JOIN (SELECT sku, sum(qtd_solicitada) AS qtd, count(*) AS n FROM demanda_reprimida \
                           WHERE NOT atendida GROUP BY sku) d ON d.sku = p.sku "
        )
    };
}

/// One page of the inventory at `agora`, by `descricao` then SKU.
pub async fn listar(
    client: &Client,
    f: &Filtro,
    agora: DateTime<Utc>,
) -> Result<Pagina<ItemInventario>, tokio_postgres::Error> {
    let stmt = concat!(
        "WITH s AS (",
        saldos_sql!(),
        "WHERE ($2::text IS NULL OR p.sku LIKE $3 ESCAPE '\\' OR ",
        sem_acentos!("p.descricao"),
        " LIKE ",
        sem_acentos!("$2"),
        " ESCAPE '\\') \
              GROUP BY p.sku, d.qtd, d.n), \
             f AS (SELECT * FROM s WHERE CASE $4::text \
                WHEN 'com-saldo' THEN valido > 0 \
                WHEN 'so-vencido' THEN valido = 0 AND vencido > 0 \
                WHEN 'zerado' THEN valido = 0 AND vencido = 0 \
                WHEN 'sem-saldo-valido' THEN valido = 0 \
                WHEN 'vencendo' THEN proxima_validade <= ",
        hoje_sql!("$1"),
        " + $7::int \
                WHEN 'com-demanda' THEN demandas > 0 \
                ELSE true END) \
             SELECT t.total, pg.* FROM (SELECT count(*) AS total FROM f) t \
               LEFT JOIN LATERAL (SELECT * FROM f ORDER BY descricao, sku LIMIT $5 OFFSET $6) pg ON true"
    );
    let (contem, prefixo) = match &f.busca {
        Some(b) => {
            let e = escapar_like(b);
            (Some(format!("%{e}%")), Some(format!("{e}%")))
        }
        None => (None, None),
    };
    let estado_nome = f.estado.map(FiltroEstado::nome);
    let offset = (f.pagina - 1) * f.tamanho;
    let linhas = client
        .query(stmt, &[&agora, &contem, &prefixo, &estado_nome, &f.tamanho, &offset, &DIAS_ALERTA_VALIDADE])
        .await?;
    let mut total = 0;
    let mut itens = Vec::with_capacity(linhas.len());
    for r in &linhas {
        total = r.try_get("total")?;
        // No SKU on the page (none matches, or past the last page): one row with only the total.
        if r.try_get::<_, Option<String>>("sku")?.is_none() {
            continue;
        }
        itens.push(item_de_linha(r)?);
    }
    Ok(Pagina { itens, total, pagina: f.pagina, tamanho: f.tamanho })
}

/// A SKU's balance as shown: valid units (shippable) and expired units, never summed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Saldos {
    pub valido: i32,
    pub vencido: i32,
}

/// The [`Saldos`] of `sku` at `agora` (zero for an unknown SKU).
pub async fn saldos(
    c: &impl giro_infra::db::Sql,
    sku: &str,
    agora: DateTime<Utc>,
) -> Result<Saldos, tokio_postgres::Error> {
    let stmt = concat!(
        "SELECT coalesce(sum(quantidade_disponivel) FILTER (WHERE validade IS NULL OR validade >= ",
        hoje_sql!("$2"),
        "), 0)::int, coalesce(sum(quantidade_disponivel) FILTER (WHERE validade < ",
        hoje_sql!("$2"),
        "), 0)::int FROM lote WHERE sku = $1 AND quantidade_disponivel > 0"
    );
    let r = c.query_one(stmt, &[&sku, &agora]).await?;
    Ok(Saldos { valido: r.try_get(0)?, vencido: r.try_get(1)? })
}

/// A lot with units left, as the SKU's page shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LoteInventario {
    pub codigo_lote: String,
    /// Received, and still in the lot.
    pub quantidade: i32,
    pub quantidade_disponivel: i32,
    pub validade: Option<NaiveDate>,
    pub vencido: bool,
    #[serde(with = "instante")]
    pub recebido_em: DateTime<Utc>,
}

/// One movement of a SKU's history.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Movimento {
    /// `entrada` (a lot received), `expedicao` (a shipment to the market) or `baixa` (a write-off).
    pub tipo: String,
    #[serde(with = "instante")]
    pub quando: DateTime<Utc>,
    pub codigo_lote: String,
    pub qtd: i32,
    /// Who entered the lot (`entrada`, issue 39: absent for lots entered before estoque V19) or
    /// wrote it off (`baixa`); a shipment is the system's and names no one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operador: Option<String>,
    /// Why it was written off (`baixa` only): one of [`MOTIVOS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub motivo: Option<String>,
    /// The `ReposicaoEnviada`'s id (`expedicao` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_id: Option<Uuid>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Detalhe {
    #[serde(flatten)]
    pub item: ItemInventario,
    pub ncm: String,
    pub tags: Option<Vec<String>>,
    /// Lots with units left: the valid ones in FEFO order (the first ships next), then the
    /// expired ones by `validade` (they never ship; write them off).
    pub lotes: Vec<LoteInventario>,
    /// The newest [`MOVIMENTOS_MAXIMO`] movements, newest first.
    pub movimentos: Vec<Movimento>,
}

/// The SKU's page at `agora`; `None` when the SKU is unknown.
pub async fn detalhe(
    client: &Client,
    sku: &str,
    agora: DateTime<Utc>,
) -> Result<Option<Detalhe>, tokio_postgres::Error> {
    let stmt = concat!(saldos_sql!(), "WHERE p.sku = $2 GROUP BY p.sku, d.qtd, d.n");
    let Some(r) = client.query_opt(stmt, &[&agora, &sku]).await? else { return Ok(None) };
    let item = item_de_linha(&r)?;
    let p = produto::buscar(client, sku).await?;
    let (ncm, tags) = p.map(|p| (p.ncm, p.tags)).unwrap_or_default();

    let stmt = concat!(
        "SELECT codigo_lote, quantidade, quantidade_disponivel, validade, recebido_em, \
                    coalesce(validade < ",
        hoje_sql!("$2"),
        ", false) AS vencido \
               FROM lote WHERE sku = $1 AND quantidade_disponivel > 0 \
              ORDER BY 6, validade ASC NULLS LAST, recebido_em ASC, id ASC"
    );
    let lotes = giro_infra::da_linhas!(
        client.query(stmt, &[&sku, &agora]).await?,
        LoteInventario { codigo_lote, quantidade, quantidade_disponivel, validade, vencido, recebido_em }
    )?;

    // A lot's intake serves the open demands in its transaction, at the same instant: on a tie
    // the kind decides (entry, then shipment, then write-off), since the ids of different tables
    // say nothing about which came first (issue 39).
    let stmt = "SELECT tipo, quando, codigo_lote, qtd, operador, motivo, event_id FROM ( \
                 SELECT 'entrada' AS tipo, l.recebido_em AS quando, l.codigo_lote, l.quantidade AS qtd, \
                        l.operador::text AS operador, NULL::text AS motivo, NULL::uuid AS event_id, 0 AS etapa, l.id AS ordem \
                   FROM lote l WHERE l.sku = $1 \
                 UNION ALL \
                 SELECT 'expedicao', r.expedido_em, l.codigo_lote, r.qtd, NULL, NULL, r.event_id, 1, r.id \
                   FROM reposicao_expedida r JOIN lote l ON l.id = r.lote_id WHERE r.sku = $1 \
                 UNION ALL \
                 SELECT 'baixa', b.baixado_em, l.codigo_lote, b.qtd, b.operador::text, b.motivo::text, NULL, 2, b.id \
                   FROM baixa_lote b JOIN lote l ON l.id = b.lote_id WHERE b.sku = $1 \
             ) m ORDER BY quando DESC, etapa DESC, ordem DESC LIMIT $2";
    let movimentos = giro_infra::da_linhas!(
        client.query(stmt, &[&sku, &MOVIMENTOS_MAXIMO]).await?,
        Movimento { tipo, quando, codigo_lote, qtd, operador, motivo, event_id }
    )?;
    Ok(Some(Detalhe { item, ncm, tags, lotes, movimentos }))
}

/// Why units are written off (issue 39): `vencido` (the lot expired: only an expired lot),
/// `avaria` (damaged), `furto` (stolen), `ajuste` (a count found fewer units than recorded).
pub const MOTIVOS: [&str; 4] = ["vencido", "avaria", "furto", "ajuste"];

/// The optional body of a write-off: without it, or without a field, the whole lot and
/// `vencido` (what the route did before issue 39).
#[derive(Clone, Debug, Default, serde::Deserialize)]
pub struct BaixaRequest {
    /// From 1 to the lot's units left.
    pub quantidade: Option<i32>,
    /// One of [`MOTIVOS`].
    pub motivo: Option<String>,
    /// The lot's units as the operator saw them: when given and the lot now holds another count,
    /// 409 and nothing written — a write-off sent twice (a retry, a second click) applies once.
    #[serde(rename = "quantidadeDisponivel")]
    pub quantidade_disponivel: Option<i32>,
}

/// What a write-off answers (200).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Baixa {
    pub sku: String,
    pub codigo_lote: String,
    /// Units written off.
    pub qtd: i32,
    pub motivo: &'static str,
    /// Units the lot still holds.
    pub restante: i32,
    pub operador: String,
    #[serde(with = "instante")]
    pub baixado_em: DateTime<Utc>,
    /// The SKU's balances afterwards (an expired lot's write-off leaves the valid one unchanged).
    pub saldo_valido: i32,
    pub saldo_vencido: i32,
}

/// The 404 of a SKU the warehouse does not have (its page, its write-off).
pub fn sku_desconhecido(sku: &str) -> ErroEstoque {
    ErroEstoque::NaoEncontrado(format!("O SKU {sku} não está cadastrado no estoque. Confira o código."))
}

/// Writes off `pedido.quantidade` units (all left when absent) of the lot `codigo_lote` of `sku`
/// for `pedido.motivo` (`vencido` when absent) by `operador` at `agora`: in one transaction, with
/// the product locked, the lot and the product's bookkeeping balance go down, and a `baixa_lote`
/// row records how many, why, who and when. A bad reason or quantity is 400 (nothing written);
/// `vencido` for a lot still valid or without expiry, a lot with nothing left, or one whose units
/// are not `pedido.quantidade_disponivel`, is 409; an unknown SKU or lot is 404.
pub async fn baixar(
    db: &Db,
    sku: &str,
    codigo_lote: &str,
    pedido: &BaixaRequest,
    operador: &str,
    agora: DateTime<Utc>,
) -> Result<Baixa, ErroEstoque> {
    let invalida = |m: String| ErroEstoque::Invalido(format!("baixa inválida: {m}"));
    let motivo = match pedido.motivo.as_deref() {
        None => MOTIVOS[0],
        Some(m) => MOTIVOS
            .into_iter()
            .find(|x| *x == m)
            .ok_or_else(|| invalida(format!("motivo deve ser um de {}: {m}", MOTIVOS.join(", "))))?,
    };
    if let Some(q) = pedido.quantidade.filter(|q| *q <= 0) {
        return Err(invalida(format!("quantidade deve ser maior que 0: {q}")));
    }
    if let Some(v) = pedido.quantidade_disponivel.filter(|v| *v < 0) {
        return Err(invalida(format!("quantidadeDisponivel deve ser 0 ou mais: {v}")));
    }
    if !sku_valido(sku) {
        return Err(sku_desconhecido(sku));
    }
    let mut client = db.client().await?;
    let tx = Tx::begin(db, &mut client).await?;
    let Some(mut produto) = produto::bloquear(&tx, sku).await? else { return Err(sku_desconhecido(sku)) };
    let Some(l) = lote::por_codigo(&tx, sku, codigo_lote).await? else {
        return Err(ErroEstoque::NaoEncontrado(format!(
            "O lote {codigo_lote} não existe para o SKU {sku}. Confira o código na lista de lotes."
        )));
    };
    if let Some(visto) = pedido.quantidade_disponivel.filter(|v| *v != l.quantidade_disponivel) {
        return Err(ErroEstoque::Recusado(format!(
            "O lote {codigo_lote} mudou: tinha {visto} unidades na sua tela e agora tem {}. Confira e tente de novo.",
            l.quantidade_disponivel
        )));
    }
    let hoje = lote::hoje(&tx, agora).await?;
    let valido = match l.validade {
        _ if motivo != MOTIVOS[0] => None,
        None => Some("não tem validade, então não vence".to_string()),
        Some(v) if v >= hoje => Some(format!("ainda está na validade (vence em {})", v.format("%d/%m/%Y"))),
        Some(_) => None,
    };
    if let Some(porque) = valido {
        let m = format!("O lote {codigo_lote} {porque}: só um lote vencido pode ser baixado.");
        return Err(ErroEstoque::Recusado(m));
    }
    if l.quantidade_disponivel == 0 {
        return Err(ErroEstoque::Recusado(format!(
            "O lote {codigo_lote} já não tem unidades: não há o que baixar. Veja o histórico do SKU."
        )));
    }
    let qtd = pedido.quantidade.unwrap_or(l.quantidade_disponivel);
    if qtd > l.quantidade_disponivel {
        return Err(invalida(format!(
            "quantidade deve ser de 1 a {} (as unidades do lote {codigo_lote}): {qtd}",
            l.quantidade_disponivel
        )));
    }
    produto.baixar(&tx, &l, qtd).await?;
    let stmt = "INSERT INTO baixa_lote (lote_id, sku, qtd, operador, baixado_em, motivo) VALUES ($1, $2, $3, $4, $5, $6)";
    tx.execute(stmt, &[&l.id, &sku, &qtd, &operador, &agora, &motivo]).await?;
    let s = saldos(&tx, sku, agora).await?;
    tx.commit().await?;
    tracing::info!(sku, lote = codigo_lote, qtd, motivo, operador, "lot written off");
    Ok(Baixa {
        sku: sku.to_string(),
        codigo_lote: codigo_lote.to_string(),
        qtd,
        motivo,
        restante: l.quantidade_disponivel - qtd,
        operador: operador.to_string(),
        baixado_em: agora,
        saldo_valido: s.valido,
        saldo_vencido: s.vencido,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(pares: &[(&str, &str)]) -> FiltroRequest {
        let mut r = FiltroRequest::default();
        for (k, v) in pares {
            let v = Some(v.to_string());
            match *k {
                "busca" => r.busca = v,
                "estado" => r.estado = v,
                "pagina" => r.pagina = v,
                "tamanho" => r.tamanho = v,
                _ => unreachable!(),
            }
        }
        r
    }

    fn detalhe(r: FiltroRequest) -> String {
        match r.validar() {
            Err(ErroEstoque::Invalido(m)) => m,
            other => panic!("expected a violation, got {other:?}"),
        }
    }

    #[test]
    fn absent_or_blank_parameters_take_their_defaults() {
        let f = req(&[("busca", "  "), ("estado", ""), ("pagina", " ")]).validar().unwrap();
        assert_eq!(f, Filtro { busca: None, estado: None, pagina: 1, tamanho: TAMANHO_PADRAO });
        let f = req(&[("busca", " café "), ("estado", "so-vencido"), ("pagina", "3"), ("tamanho", "100")])
            .validar()
            .unwrap();
        assert_eq!(
            f,
            Filtro {
                busca: Some("café".into()),
                estado: Some(FiltroEstado::SoVencido),
                pagina: 3,
                tamanho: 100
            }
        );
    }

    #[test]
    fn each_bad_parameter_is_named() {
        assert!(
            detalhe(req(&[("estado", "vencido")])).contains("estado deve ser um de com-saldo, so-vencido")
        );
        assert!(detalhe(req(&[("pagina", "0")])).contains("pagina deve ser um número inteiro"));
        assert!(detalhe(req(&[("pagina", "x")])).contains("pagina"));
        assert!(detalhe(req(&[("tamanho", "101")])).contains("tamanho deve ser um número inteiro de 1 a 100"));
        assert!(detalhe(req(&[("busca", &"a".repeat(101))])).contains("busca deve ter no máximo 100"));
    }

    #[test]
    fn every_state_name_round_trips() {
        for f in FiltroEstado::TODOS {
            assert_eq!(FiltroEstado::de_nome(f.nome()), Some(f));
        }
    }

    #[test]
    fn like_wildcards_are_taken_literally() {
        assert_eq!(escapar_like(r"50%_a\b"), r"50\%\_a\\b");
    }

    #[test]
    fn state_is_a_partition() {
        assert_eq!(estado(1, 5), "com-saldo");
        assert_eq!(estado(0, 5), "so-vencido");
        assert_eq!(estado(0, 0), "zerado");
    }
}
