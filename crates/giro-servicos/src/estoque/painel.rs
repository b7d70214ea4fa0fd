//! The dashboard's read-only queries (the original's `ConsultasPainel`, SPEC §6.2). They join
//! tables the other modules own, so they live here, in one place; nothing here changes state.
//! Only warehouse data: nothing about the market's minimums or its sold-out products.
//!
//! - `skusSemSaldo` counts **shippable** balance: products with no lot that has units left and is
//!   not expired (zero balance, or only expired lots) — unlike `saldo_disponivel`, which includes
//!   expired units.
//! - `lotesVencendo`: lots with units left whose `validade` is between today and today + 30 days,
//!   both inclusive ("today" in `America/Sao_Paulo` of the instant passed).
//! - `entregueEm` of a shipment is `reposicao_expedida.entregue_em`, filled by a trigger when its
//!   `ReposicaoEnviada` outbox row becomes `SENT` (migration V11): it survives the pruning of sent
//!   outbox rows, which the original's `LEFT JOIN outbox_event` would not.
//!
//! The charts (issue 26) read aggregated series, the SQL doing the aggregation over a bounded
//! window (`horas`, 1–48, [`horas`]):
//!
//! - `latencia`: restock latency per interval (24 intervals of the window), p50/p99 of request →
//!   shipment and request → shelf credit. The request's instant is when estoque received it: its
//!   waiting demand's `registrado_em` (a request served later) or its inbox row's `processado_em`
//!   (served at once; the inbox keeps it for `inbox.retencao`); the shipment's is `expedido_em`;
//!   the shelf credit's is `entregue_em`, when mercado acknowledged the `ReposicaoEnviada` it
//!   credits the shelf in. A shipment whose request instant is no longer known is left out.
//! - `demanda_por_idade`: open demand counted in age bands ([`FAIXAS_IDADE`]).
//!
//! Stock against the market's minimum and ideal is not here: estoque never learns them (a
//! restock request carries a quantity, not the thresholds), so that chart is on mercado's
//! operator home, which owns them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::lote::hoje_sql;
use giro_contracts::instante;
use giro_infra::db::Client;

/// Days ahead of today that count as "expiring" (inclusive).
pub const DIAS_ALERTA_VALIDADE: i32 = 30;
/// The most shipments `/painel/reposicoes` returns; the default is [`LIMITE_PADRAO`].
pub const LIMITE_MAXIMO: i64 = 100;
pub const LIMITE_PADRAO: i64 = 20;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resumo {
    pub skus_cadastrados: i64,
    pub skus_sem_saldo: i64,
    pub demandas_abertas: i64,
    pub lotes_vencendo: i64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DemandaAberta {
    pub id: i64,
    pub sku: String,
    pub descricao: String,
    pub qtd_solicitada: i32,
    #[serde(with = "instante")]
    pub registrado_em: DateTime<Utc>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReposicaoRecente {
    pub event_id: Uuid,
    pub sku: String,
    pub descricao: String,
    pub qtd: i32,
    pub codigo_lote: String,
    #[serde(with = "instante")]
    pub expedido_em: DateTime<Utc>,
    /// `null` while the `ReposicaoEnviada` has not reached the market ("enviando").
    #[serde(serialize_with = "instante::opcional::serialize")]
    pub entregue_em: Option<DateTime<Utc>>,
}

/// The four KPIs at `agora`.
pub async fn resumo(client: &Client, agora: DateTime<Utc>) -> Result<Resumo, tokio_postgres::Error> {
    let stmt = concat!(
        "SELECT (SELECT count(*) FROM produto_estoque) AS skus_cadastrados, \
                    (SELECT count(*) FROM produto_estoque p WHERE NOT EXISTS ( \
                         SELECT 1 FROM lote l WHERE l.sku = p.sku AND l.quantidade_disponivel > 0 \
                            AND (l.validade IS NULL OR l.validade >= ",
        hoje_sql!("$1"),
        "))) AS skus_sem_saldo, \
                    (SELECT count(*) FROM demanda_reprimida WHERE NOT atendida) AS demandas_abertas, \
                    (SELECT count(*) FROM lote WHERE quantidade_disponivel > 0 AND validade BETWEEN ",
        hoje_sql!("$1"),
        " AND ",
        hoje_sql!("$1"),
        " + $2::int) AS lotes_vencendo"
    );
    let row = client.query_one(stmt, &[&agora, &DIAS_ALERTA_VALIDADE]).await?;
    Ok(giro_infra::da_linha!(
        row,
        Resumo { skus_cadastrados, skus_sem_saldo, demandas_abertas, lotes_vencendo }
    ))
}

/// Open demands in the order they will be served (`registrado_em`, then `id`).
pub async fn demandas(client: &Client) -> Result<Vec<DemandaAberta>, tokio_postgres::Error> {
    let stmt = "SELECT d.id, d.sku, p.descricao, d.qtd_solicitada, d.registrado_em \
               FROM demanda_reprimida d JOIN produto_estoque p ON p.sku = d.sku \
              WHERE NOT d.atendida ORDER BY d.registrado_em, d.id";
    let rows = client.query(stmt, &[]).await?;
    giro_infra::da_linhas!(rows, DemandaAberta { id, sku, descricao, qtd_solicitada, registrado_em })
}

/// `limite` as `/painel/reposicoes` takes it: default 20, clamped to [1, 100].
pub fn limite(pedido: Option<i64>) -> i64 {
    pedido.unwrap_or(LIMITE_PADRAO).clamp(1, LIMITE_MAXIMO)
}

/// The latest `limite` shipments, newest first (`expedido_em DESC, id DESC`).
pub async fn reposicoes(
    client: &Client,
    limite: i64,
) -> Result<Vec<ReposicaoRecente>, tokio_postgres::Error> {
    let stmt = "SELECT r.event_id, r.sku, p.descricao, r.qtd, l.codigo_lote, r.expedido_em, r.entregue_em \
               FROM reposicao_expedida r \
               JOIN produto_estoque p ON p.sku = r.sku \
               JOIN lote l ON l.id = r.lote_id \
              ORDER BY r.expedido_em DESC, r.id DESC LIMIT $1";
    let rows = client.query(stmt, &[&limite]).await?;
    giro_infra::da_linhas!(
        rows,
        ReposicaoRecente { event_id, sku, descricao, qtd, codigo_lote, expedido_em, entregue_em }
    )
}

/// The charts' window when `horas` is absent, and the largest one.
pub const HORAS_PADRAO: i64 = 24;
pub const HORAS_MAXIMO: i64 = 48;
/// A latency window is cut into this many intervals.
pub const INTERVALOS: i64 = 24;

/// `horas` as the charts take it: absent or blank is [`HORAS_PADRAO`], else an integer 1–48.
pub fn horas(v: Option<&str>) -> Result<i64, String> {
    crate::parametro::inteiro("horas", v, HORAS_PADRAO, HORAS_MAXIMO)
}

/// p50 and p99 of one stretch of a restock, in seconds; `null` when nothing was measured.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Percentis {
    pub p50: Option<f64>,
    pub p99: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PontoLatencia {
    #[serde(with = "instante")]
    pub inicio: DateTime<Utc>,
    /// Shipments in the interval whose request instant is known.
    pub reposicoes: i64,
    /// Request → shipment.
    pub expedicao: Percentis,
    /// Request → shelf credit (only shipments already delivered).
    pub credito: Percentis,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Latencia {
    pub horas: i64,
    pub intervalo_segundos: i64,
    pub pontos: Vec<PontoLatencia>,
}

/// Restock latency over the `horas` before `agora`, per interval of `horas * 3600 / 24` s.
pub async fn latencia(
    client: &Client,
    agora: DateTime<Utc>,
    horas: i64,
) -> Result<Latencia, tokio_postgres::Error> {
    let intervalo = horas * 3600 / INTERVALOS;
    let stmt = "WITH j AS (SELECT $1::timestamptz - make_interval(hours => $2::int) AS desde), \
                  r AS ( \
                    SELECT floor(extract(epoch FROM r.expedido_em - j.desde) / $3::int)::int AS i, \
                           greatest(extract(epoch FROM r.expedido_em - s.em), 0)::float8 AS expedicao, \
                           greatest(extract(epoch FROM r.entregue_em - s.em), 0)::float8 AS credito \
                      FROM reposicao_expedida r CROSS JOIN j \
                      LEFT JOIN demanda_reprimida d ON d.solicitacao_original = r.correlation_id \
                      LEFT JOIN inbox_event ie ON ie.event_id = r.correlation_id \
                      CROSS JOIN LATERAL (SELECT coalesce(d.registrado_em, ie.processado_em) AS em) s \
                     WHERE r.expedido_em >= j.desde AND r.expedido_em < $1 AND s.em IS NOT NULL), \
                  a AS ( \
                    SELECT i, count(*) AS n, \
                           percentile_cont(0.5) WITHIN GROUP (ORDER BY expedicao) AS e50, \
                           percentile_cont(0.99) WITHIN GROUP (ORDER BY expedicao) AS e99, \
                           percentile_cont(0.5) WITHIN GROUP (ORDER BY credito) AS c50, \
                           percentile_cont(0.99) WITHIN GROUP (ORDER BY credito) AS c99 \
                      FROM r GROUP BY i) \
             SELECT j.desde + make_interval(secs => g.i * $3::int) AS inicio, coalesce(a.n, 0) AS n, \
                    a.e50, a.e99, a.c50, a.c99 \
               FROM j CROSS JOIN generate_series(0, $4::int - 1) AS g(i) LEFT JOIN a ON a.i = g.i \
              ORDER BY g.i";
    let (h, iv, n) = (horas as i32, intervalo as i32, INTERVALOS as i32);
    let pontos = client
        .query(stmt, &[&agora, &h, &iv, &n])
        .await?
        .iter()
        .map(|r| {
            Ok(PontoLatencia {
                inicio: r.try_get("inicio")?,
                reposicoes: r.try_get("n")?,
                expedicao: Percentis { p50: r.try_get("e50")?, p99: r.try_get("e99")? },
                credito: Percentis { p50: r.try_get("c50")?, p99: r.try_get("c99")? },
            })
        })
        .collect::<Result<_, tokio_postgres::Error>>()?;
    Ok(Latencia { horas, intervalo_segundos: intervalo, pontos })
}

/// The age bands of waiting demand: each one's lower bound in seconds and its name.
pub const FAIXAS_IDADE: [(i64, &str); 6] = [
    (0, "até 5 min"),
    (300, "5 a 30 min"),
    (1800, "30 min a 2 h"),
    (7200, "2 a 12 h"),
    (43_200, "12 a 24 h"),
    (86_400, "mais de 24 h"),
];

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FaixaDemanda {
    pub faixa: &'static str,
    pub desde_segundos: i64,
    pub demandas: i64,
    /// Units the demands of the band wait for.
    pub unidades: i64,
}

/// Open demand at `agora` by age band, every band present (zero when empty).
pub async fn demanda_por_idade(
    client: &Client,
    agora: DateTime<Utc>,
) -> Result<Vec<FaixaDemanda>, tokio_postgres::Error> {
    let limites: Vec<f64> = FAIXAS_IDADE.iter().skip(1).map(|(s, _)| *s as f64).collect();
    let stmt = "SELECT width_bucket(greatest(extract(epoch FROM $1::timestamptz - registrado_em), 0)::float8, $2::float8[]) AS faixa, \
                    count(*) AS n, coalesce(sum(qtd_solicitada), 0)::bigint AS unidades \
               FROM demanda_reprimida WHERE NOT atendida GROUP BY 1";
    let mut faixas: Vec<FaixaDemanda> = FAIXAS_IDADE
        .iter()
        .map(|(desde, nome)| FaixaDemanda { faixa: nome, desde_segundos: *desde, demandas: 0, unidades: 0 })
        .collect();
    for r in client.query(stmt, &[&agora, &limites]).await? {
        let i: i32 = r.try_get("faixa")?;
        if let Some(f) = faixas.get_mut(i as usize) {
            f.demandas = r.try_get("n")?;
            f.unidades = r.try_get("unidades")?;
        }
    }
    Ok(faixas)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn horas_defaults_to_24_and_accepts_1_to_48() {
        assert_eq!(horas(None), Ok(24));
        assert_eq!(horas(Some(" ")), Ok(24));
        assert_eq!(horas(Some("1")), Ok(1));
        assert_eq!(horas(Some("48")), Ok(48));
        for ruim in ["0", "49", "-1", "um", "1.5"] {
            assert!(horas(Some(ruim)).unwrap_err().starts_with("Parâmetro inválido: horas "), "{ruim}");
        }
    }

    #[test]
    fn limite_defaults_to_20_and_is_clamped_to_1_100() {
        assert_eq!(limite(None), 20);
        assert_eq!(limite(Some(0)), 1);
        assert_eq!(limite(Some(-5)), 1);
        assert_eq!(limite(Some(7)), 7);
        assert_eq!(limite(Some(100)), 100);
        assert_eq!(limite(Some(1000)), 100);
    }
}
