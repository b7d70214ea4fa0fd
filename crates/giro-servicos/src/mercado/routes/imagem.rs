//! A product's image (issue 39 §4, SPEC §6.3): the operator uploads it (`PUT
//! /operacao/produtos/{sku}/imagem`, the raw bytes, session and CSRF) or removes it (`DELETE`);
//! anyone reads it (`GET /produtos/{sku}/imagem`) with an ETag and a 304 on `If-None-Match`.
//!
//! Only JPEG, PNG and WebP, whose first bytes must match the declared `Content-Type` (a file
//! renamed to `.png` is refused), and at most [`IMAGEM_MAX`] bytes: this route alone raises the
//! body limit, and above it answers 413. The product JSON names the image with its ETag
//! (`/produtos/{sku}/imagem?v=<etag>`), so that URL never changes meaning: it is cached for a
//! year, while the bare URL (or a stale `v`) is revalidated each time.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};

use super::{operacao, Estado};
use crate::mercado::erro::ErroMercado;
use crate::mercado::produto;
use giro_http::extract::AppPath;
use giro_http::Problem;

/// The largest image accepted, in bytes (1 MiB).
pub const IMAGEM_MAX: usize = 1024 * 1024;

/// Whether bytes start as a file of one type does.
type Assinatura = fn(&[u8]) -> bool;

/// The types accepted, each with a check of its first bytes.
const TIPOS: &[(&str, Assinatura)] = &[
    ("image/jpeg", |b| b.starts_with(&[0xFF, 0xD8, 0xFF])),
    ("image/png", |b| b.starts_with(b"\x89PNG\r\n\x1a\n")),
    ("image/webp", |b| b.len() >= 12 && b.starts_with(b"RIFF") && &b[8..12] == b"WEBP"),
];

pub async fn servir(
    State(e): State<Arc<Estado>>,
    AppPath(sku): AppPath<String>,
    uri: Uri,
    headers: HeaderMap,
) -> Result<Response, ErroMercado> {
    // The ETags the client holds, unquoted (weak or strong alike): the database answers a match
    // without the bytes.
    let if_none_match = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).unwrap_or("");
    let conhecidas: Vec<&str> =
        if_none_match.split(',').map(|t| t.trim().trim_start_matches("W/").trim_matches('"')).collect();
    let achada = match giro_contracts::sku_valido(&sku) {
        true => produto::imagem(&e.db.leitura().await?, &sku, &conhecidas).await?,
        false => None,
    };
    let Some((bytes, tipo, md5)) = achada else {
        return Ok(Problem::new(StatusCode::NOT_FOUND, format!("Produto sem imagem: {sku}")).into_response());
    };
    let cache = match uri.query() == Some(&format!("v={md5}")) {
        true => "public, max-age=31536000, immutable",
        false => "public, no-cache",
    };
    let cabecalhos = [(header::ETAG, format!("\"{md5}\"")), (header::CACHE_CONTROL, cache.into())];
    let Some(bytes) = bytes else {
        return Ok((StatusCode::NOT_MODIFIED, cabecalhos).into_response());
    };
    // Bytes, never a document: not sniffed, and sandboxed should a browser open one as a page.
    let seguros = [
        (header::CONTENT_TYPE, tipo),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_string()),
        (header::CONTENT_SECURITY_POLICY, "default-src 'none'; sandbox".to_string()),
    ];
    Ok((cabecalhos, seguros, bytes).into_response())
}

pub async fn enviar(
    State(e): State<Arc<Estado>>,
    AppPath(sku): AppPath<String>,
    headers: HeaderMap,
    corpo: Result<Bytes, BytesRejection>,
) -> Result<Response, ErroMercado> {
    operacao::sku_do_caminho(&sku)?;
    let declarado = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    let declarado = declarado.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    let Some((tipo, confere)) = TIPOS.iter().find(|(t, _)| *t == declarado) else {
        let detail =
            format!("Content-Type da imagem deve ser image/jpeg, image/png ou image/webp: {declarado}");
        return Ok(Problem::new(StatusCode::UNSUPPORTED_MEDIA_TYPE, detail).into_response());
    };
    let bytes = match corpo {
        Ok(b) => b,
        Err(r) if r.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            let detail = format!("imagem grande demais: o máximo é {} MB", IMAGEM_MAX >> 20);
            return Ok(Problem::new(StatusCode::PAYLOAD_TOO_LARGE, detail).into_response());
        }
        Err(r) => return Ok(giro_http::extract::rejeicao_corpo(r).into_response()),
    };
    if bytes.is_empty() {
        return Err(ErroMercado::invalido("imagem não deve estar vazia"));
    }
    if !confere(&bytes) {
        return Err(ErroMercado::invalido(format!("imagem: o conteúdo não é um arquivo {tipo}")));
    }
    gravar(&e, &sku, Some((&bytes, tipo))).await
}

pub async fn remover(
    State(e): State<Arc<Estado>>,
    AppPath(sku): AppPath<String>,
) -> Result<Response, ErroMercado> {
    operacao::sku_do_caminho(&sku)?;
    gravar(&e, &sku, None).await
}

/// Stores or removes the image; answers the product as `PATCH` does (404 when unknown).
async fn gravar(e: &Estado, sku: &str, imagem: Option<(&[u8], &str)>) -> Result<Response, ErroMercado> {
    if !produto::salvar_imagem(&e.db.client().await?, sku, imagem).await? {
        let detail = ErroMercado::ProdutoNaoEncontrado(sku.to_string()).to_string();
        return Ok(Problem::new(StatusCode::NOT_FOUND, detail).into_response());
    }
    tracing::info!(sku, bytes = imagem.map_or(0, |i| i.0.len()), "product image changed by the operator");
    operacao::produto_operador(e, sku).await
}
