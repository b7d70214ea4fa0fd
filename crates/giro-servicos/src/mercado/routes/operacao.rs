//! mercado's operator pages' own reads (issue 18), operator session only:
//!
//! - `GET /operacao/produtos`: the storefront as the operator sees it — shelf, minimum, ideal,
//!   status and the open restock request of each product, by name.
//! - `GET /operacao/estoque/produtos/{sku}`: the SKU looked up in estoque exactly as
//!   `POST /produtos` looks it up (mercado's service token), so the registration form can say what
//!   the warehouse knows before it is sent: 200 with what estoque answered, 404 unknown to estoque
//!   (problem, the words of the 422 it would get), 503 estoque did not answer, 400 not a SKU.
//! - `GET /operacao/pedidos` (issue 26): the orders, newest first, a page at a time, filtered by
//!   `status` and by the period `de`–`ate` (instants); `GET /operacao/pedidos/{id}`: one order
//!   with its reservations and payment.
//! - `PATCH /operacao/produtos/{sku}` (issues 26 and 39, session and CSRF): price, thresholds,
//!   listed, name, description, category (`cadastro::alterar`); answers the product as this list
//!   shows it. The image has routes of its own (`imagem`).

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::{validado, Estado};
use crate::mercado::cadastro::{self, Alteracao};
use crate::mercado::catalogo_estoque::Consulta;
use crate::mercado::dinheiro;
use crate::mercado::erro::ErroMercado;
use crate::mercado::pedido::{self, FiltroPedidos, StatusPedido};
use crate::parametro::{inteiro, presente, Pagina};
use giro_contracts::{instante, Violacoes};
use giro_http::extract::{AppJson, AppPath, AppQuery};
use giro_http::Problem;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SolicitacaoAberta {
    pub event_id: uuid::Uuid,
    pub qtd: i32,
    /// `PENDENTE` (sent, waiting for estoque) or `AGUARDANDO_LOTE` (estoque has no balance yet).
    pub status: String,
    #[serde(serialize_with = "instante::serialize")]
    pub criada_em: DateTime<Utc>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProdutoOperador {
    pub sku: String,
    pub nome: String,
    #[serde(serialize_with = "dinheiro::numero")]
    pub preco: Decimal,
    pub status: String,
    pub prateleira: i32,
    pub estoque_minimo: i32,
    pub estoque_ideal: i32,
    pub categoria: Option<String>,
    pub reposicao_aberta: Option<SolicitacaoAberta>,
    /// In the public catalogue (issue 26).
    pub listado: bool,
    pub descricao: Option<String>,
    /// The image's URL, versioned by its ETag (issue 39), or null.
    pub imagem: Option<String>,
}

pub async fn produtos(State(e): State<Arc<Estado>>) -> Result<AppJson<Vec<ProdutoOperador>>, ErroMercado> {
    let client = e.db.client().await?;
    Ok(AppJson(ler_produtos(&client, None).await?))
}

/// The operator's products (all, or the one `sku`).
async fn ler_produtos(
    client: &impl giro_infra::db::Sql,
    sku: Option<&str>,
) -> Result<Vec<ProdutoOperador>, ErroMercado> {
    // At most one open request per SKU (uk_solicitacao_reposicao_ativa_por_sku), so one row each.
    let rows = client
        .query(
            "SELECT p.sku, p.nome, p.preco, p.status, p.estoque_prateleira, p.estoque_minimo, p.estoque_ideal, \
                    p.categoria, s.event_id, s.qtd_solicitada, s.status, s.criado_em, p.listado, p.descricao, p.imagem_etag \
               FROM produto_vitrine p \
               LEFT JOIN solicitacao_reposicao s ON s.sku = p.sku AND s.status IN ('PENDENTE', 'AGUARDANDO_LOTE') \
              WHERE ($1::text IS NULL OR p.sku = $1) \
              ORDER BY p.nome, p.sku",
            &[&sku],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| ProdutoOperador {
            sku: r.get(0),
            nome: r.get(1),
            preco: r.get(2),
            status: r.get(3),
            prateleira: r.get(4),
            estoque_minimo: r.get(5),
            estoque_ideal: r.get(6),
            categoria: r.get(7),
            reposicao_aberta: r.get::<_, Option<uuid::Uuid>>(8).map(|event_id| SolicitacaoAberta {
                event_id,
                qtd: r.get(9),
                status: r.get(10),
                criada_em: r.get(11),
            }),
            listado: r.get(12),
            descricao: r.get(13),
            imagem: super::url_imagem(r.get(0), r.get(14)),
        })
        .collect())
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NoEstoque {
    pub sku: String,
    pub descricao: Option<String>,
    pub categoria: Option<String>,
    pub tags: Option<Vec<String>>,
}

pub async fn no_estoque(
    State(e): State<Arc<Estado>>,
    sku: Result<Path<String>, PathRejection>,
) -> Result<AppJson<NoEstoque>, Problem> {
    let sku = sku.map(|Path(s)| s).unwrap_or_default();
    if !giro_contracts::sku_valido(&sku) {
        return Err(Problem::bad_request(format!(
            "parâmetro inválido: sku deve corresponder a \"{}\": {sku}",
            giro_contracts::SKU_REGEX
        )));
    }
    match e.catalogo.consultar(&sku).await {
        Consulta::Encontrado(p) => Ok(AppJson(NoEstoque {
            sku: p.sku,
            descricao: p.descricao,
            categoria: p.categoria,
            tags: p.tags,
        })),
        Consulta::Desconhecido => {
            Err(Problem::new(StatusCode::NOT_FOUND, ErroMercado::SkuDesconhecidoNoEstoque(sku).to_string()))
        }
        Consulta::Indisponivel => Err(Problem::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "o estoque não respondeu; o produto pode ser cadastrado e será classificado depois",
        )),
    }
}

/// The order list's query as it arrives (every parameter a string, so each bad one is named).
#[derive(Debug, Default, Deserialize)]
pub struct FiltroPedidosRequest {
    status: Option<String>,
    de: Option<String>,
    ate: Option<String>,
    numero: Option<String>,
    pagina: Option<String>,
    tamanho: Option<String>,
}

impl FiltroPedidosRequest {
    /// Absent or blank parameters take their defaults; anything else out of range is a 400 whose
    /// detail names the parameter (estoque's inventory list words it the same way).
    fn validar(&self) -> Result<FiltroPedidos, ErroMercado> {
        let invalido = ErroMercado::Invalido;
        let status = presente(self.status.as_deref()).map(|s| {
            let nomes = StatusPedido::NOMES.join(", ");
            StatusPedido::de_nome(s)
                .ok_or_else(|| invalido(format!("Parâmetro inválido: status deve ser um de {nomes}: {s}")))
        });
        let status = status.transpose()?;
        let instante = |nome: &str, v: &Option<String>| -> Result<_, ErroMercado> {
            let Some(s) = presente(v.as_deref()) else { return Ok(None) };
            let d = DateTime::parse_from_rfc3339(s).map_err(|_| {
                invalido(format!(
                    "Parâmetro inválido: {nome} deve ser um instante ISO-8601 com fuso (ex.: 2026-12-04T00:00:00-03:00): {s}"
                ))
            })?;
            Ok(Some(d.with_timezone(&Utc)))
        };
        let (de, ate) = (instante("de", &self.de)?, instante("ate", &self.ate)?);
        if let (Some(de), Some(ate)) = (de, ate) {
            if ate <= de {
                return Err(invalido("Parâmetro inválido: ate deve ser posterior a de.".into()));
            }
        }
        let numero = presente(self.numero.as_deref()).map(|s| inteiro("numero", Some(s), 0, 999_999_999));
        let numero = numero.transpose().map_err(invalido)?;
        // A page past 1 000 000 cannot hold anything and would overflow the offset.
        let pagina = inteiro("pagina", self.pagina.as_deref(), 1, 1_000_000).map_err(invalido)?;
        let tamanho =
            inteiro("tamanho", self.tamanho.as_deref(), pedido::TAMANHO_PADRAO, pedido::TAMANHO_MAXIMO);
        let tamanho = tamanho.map_err(invalido)?;
        Ok(FiltroPedidos { status, de, ate, numero, pagina, tamanho })
    }
}

pub async fn pedidos(
    State(e): State<Arc<Estado>>,
    AppQuery(f): AppQuery<FiltroPedidosRequest>,
) -> Result<AppJson<Pagina<pedido::PedidoResumo>>, ErroMercado> {
    let f = f.validar()?;
    let client = e.db.client().await?;
    Ok(AppJson(pedido::listar(&client, &f).await?))
}

pub async fn pedido(State(e): State<Arc<Estado>>, id: AppPath<String>) -> Result<Response, ErroMercado> {
    let id = super::pedidos::id_do_pedido(id)?;
    ler_pedido(&e, id).await
}

pub async fn cancelar(State(e): State<Arc<Estado>>, id: AppPath<String>) -> Result<Response, ErroMercado> {
    let id = super::pedidos::id_do_pedido(id)?;
    crate::mercado::expiracao::cancelar(&e.db, id).await?;
    ler_pedido(&e, id).await
}

async fn ler_pedido(e: &Estado, id: uuid::Uuid) -> Result<Response, ErroMercado> {
    let client = e.db.client().await?;
    let d = pedido::detalhe_operador(&client, id).await?.ok_or(ErroMercado::PedidoNaoEncontrado(id))?;
    Ok(AppJson(d).into_response())
}

/// The body of `PATCH /operacao/produtos/{sku}`: each field optional; at least one present.
/// Kept as JSON values so a wrong type is reported by name like any other violation.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlteracaoRequest {
    preco: Option<Box<RawValue>>,
    estoque_minimo: Option<serde_json::Value>,
    estoque_ideal: Option<serde_json::Value>,
    listado: Option<serde_json::Value>,
    nome: Option<serde_json::Value>,
    descricao: Option<serde_json::Value>,
    categoria: Option<serde_json::Value>,
}

/// The longest description, in characters (issue 39).
pub const DESCRICAO_MAX: usize = 2000;

impl AlteracaoRequest {
    fn validar(self) -> Result<Alteracao, ErroMercado> {
        let mut v = Violacoes::default();
        let preco = self
            .preco
            .as_deref()
            .and_then(|raw| dinheiro::ler_preco(raw).map_err(|e| v.add("preco", e.nome())).ok());
        let mut inteiro = |campo: &str, valor: &Option<serde_json::Value>| {
            match valor.as_ref()?.as_i64().and_then(|n| i32::try_from(n).ok()) {
                Some(n) if n > 0 => return Some(n),
                Some(_) => v.add(campo, "deve ser maior que 0"),
                None => v.add(campo, "deve ser um número inteiro"),
            }
            None
        };
        let estoque_minimo = inteiro("estoqueMinimo", &self.estoque_minimo);
        let estoque_ideal = inteiro("estoqueIdeal", &self.estoque_ideal);
        if self.listado.as_ref().is_some_and(|l| !l.is_boolean()) {
            v.add("listado", "deve ser true ou false");
        }
        let listado = self.listado.as_ref().and_then(serde_json::Value::as_bool);
        // Texts are trimmed; a blank name or category is refused, a blank description clears it.
        let mut texto = |campo: &str, valor: &Option<serde_json::Value>, max: usize, vazio_ok: bool| {
            let Some(s) = valor.as_ref()?.as_str().map(str::trim) else {
                v.add(campo, "deve ser um texto");
                return None;
            };
            if !vazio_ok {
                v.em_branco(campo, s);
            }
            v.tamanho(campo, s, max);
            Some(s.to_string())
        };
        let nome = texto("nome", &self.nome, 255, false);
        let descricao = texto("descricao", &self.descricao, DESCRICAO_MAX, true);
        let categoria = texto("categoria", &self.categoria, 30, false);
        let nenhum = [&self.estoque_minimo, &self.estoque_ideal, &self.listado, &self.nome, &self.descricao];
        if self.preco.is_none() && self.categoria.is_none() && nenhum.iter().all(|c| c.is_none()) {
            v.mensagem(
                "informe ao menos um de nome, descricao, categoria, preco, estoqueMinimo, estoqueIdeal ou listado"
                    .into(),
            );
        }
        validado(v)?;
        let descricao = descricao.map(|d| Some(d).filter(|d| !d.is_empty()));
        Ok(Alteracao { preco, estoque_minimo, estoque_ideal, listado, nome, descricao, categoria })
    }
}

pub async fn alterar_produto(
    State(e): State<Arc<Estado>>,
    AppPath(sku): AppPath<String>,
    AppJson(req): AppJson<AlteracaoRequest>,
) -> Result<Response, ErroMercado> {
    sku_do_caminho(&sku)?;
    let alteracao = req.validar()?;
    if cadastro::alterar(&e.db, &sku, &alteracao, crate::mercado::agora()).await?.is_none() {
        return Ok(Problem::new(StatusCode::NOT_FOUND, ErroMercado::ProdutoNaoEncontrado(sku).to_string())
            .into_response());
    }
    produto_operador(&e, &sku).await
}

/// The 400 of a path's SKU that no product can have.
pub(super) fn sku_do_caminho(sku: &str) -> Result<(), ErroMercado> {
    if !giro_contracts::sku_valido(sku) {
        return Err(ErroMercado::invalido(format!(
            "Parâmetro inválido: sku deve corresponder a \"{}\": {sku}",
            giro_contracts::SKU_REGEX
        )));
    }
    Ok(())
}

/// The product `sku` as `GET /operacao/produtos` lists it, after a change.
pub(super) async fn produto_operador(e: &Estado, sku: &str) -> Result<Response, ErroMercado> {
    let client = e.db.client().await?;
    match ler_produtos(&client, Some(sku)).await?.pop() {
        Some(p) => Ok(AppJson(p).into_response()),
        None => Err(ErroMercado::EstadoInvalido(format!("produto {sku} sumiu depois de alterado"))),
    }
}
