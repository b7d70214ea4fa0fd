//! Extractors whose rejections are problem+json, and the one input policy both services apply
//! before any SQL runs (issue 13). Use [`AppJson`], [`AppQuery`] and [`AppPath`] instead of
//! axum's.
//!
//! The policy, each a 400 whose detail names the field in the spec's words:
//! - text never carries a NUL character (PostgreSQL refuses it in `text`, and nothing legitimate
//!   sends one): checked in every JSON string, query parameter and path segment;
//! - a path is UTF-8;
//! - integers fit their column (`i32` fields reject anything larger while parsing; sums are
//!   checked where they are computed);
//! - dates are sane: see [`data_sensata`] (`validade`) and the contracts' `ocorridoEm` bound.
//!
//! Details never name a Rust type: [`traduzir`] rewrites serde's messages in pt-BR.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{Datelike, NaiveDate};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::Problem;
// Where serde's messages are put in pt-BR (the contracts use it too); re-exported for callers
// of the HTTP input policy.
pub use giro_infra::serde_pt::traduzir;
// A JSON body's content type, the receiver's and the publisher's one test of it.
pub use giro_infra::client::is_json;

/// The years a date of the business may fall in (`validade`): anything outside is a typo or an
/// attack, and PostgreSQL's own range (4713 BC to 5874897 AD) is no business rule.
pub const ANO_MIN: i32 = 2000;
pub const ANO_MAX: i32 = 2200;

/// `"<campo> não deve conter o caractere NUL"`, the policy's message.
pub fn nul(campo: &str) -> String {
    format!("{campo} não deve conter o caractere NUL")
}

/// A date within [`ANO_MIN`]..=[`ANO_MAX`], or the message naming `campo`.
pub fn data_sensata(campo: &str, d: NaiveDate) -> Result<(), String> {
    if (ANO_MIN..=ANO_MAX).contains(&d.year()) {
        Ok(())
    } else {
        Err(format!("{campo} deve estar entre {ANO_MIN}-01-01 e {ANO_MAX}-12-31"))
    }
}

/// `axum::Json` with the policy and rejections as problem+json: 400 for a malformed or
/// mistyped body or a NUL in any string (the detail names the field), 415 without a JSON
/// content type, 413 over the body limit.
#[derive(Debug, Clone, Copy, Default)]
pub struct AppJson<T>(pub T);

impl<T: serde::Serialize> IntoResponse for AppJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for AppJson<T> {
    type Rejection = Problem;

    async fn from_request(req: Request, state: &S) -> Result<Self, Problem> {
        if !is_json(req.headers()) {
            return Err(Problem::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Content-Type deve ser application/json",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(rejeicao_corpo)?;
        ler_json(&bytes).map(AppJson)
    }
}

/// Parses a JSON body under the policy (what [`AppJson`] does after reading it).
pub fn ler_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Problem> {
    let valor: Value = serde_json::from_slice(bytes)
        .map_err(|e| Problem::bad_request(format!("JSON ilegível: {}", traduzir(&e.to_string()))))?;
    if let Some(campo) = com_nul(&valor, "") {
        return Err(Problem::bad_request(nul(if campo.is_empty() { "corpo" } else { &campo })));
    }
    // Read again from the text (not from `valor`) so raw values such as a price keep their text.
    let d = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(d).map_err(|e| {
        let path = e.path().to_string();
        let onde = if path == "." || path.is_empty() { String::new() } else { format!("{path}: ") };
        Problem::bad_request(format!("corpo inválido: {onde}{}", traduzir(&e.into_inner().to_string())))
    })
}

/// The path (`itens[0].sku`) of the first string or key in `v` that holds a NUL.
fn com_nul(v: &Value, path: &str) -> Option<String> {
    match v {
        Value::String(s) => s.contains('\0').then(|| path.to_string()),
        Value::Array(a) => a.iter().enumerate().find_map(|(i, x)| com_nul(x, &format!("{path}[{i}]"))),
        Value::Object(m) => m.iter().find_map(|(k, x)| {
            let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
            if k.contains('\0') {
                return Some(if path.is_empty() { "corpo".into() } else { path.to_string() });
            }
            com_nul(x, &p)
        }),
        _ => None,
    }
}

/// A body that could not be read: over the limit (413), too slow, or cut.
pub fn rejeicao_corpo(r: BytesRejection) -> Problem {
    let status = r.status();
    let detail = match status {
        StatusCode::PAYLOAD_TOO_LARGE => "corpo da requisição grande demais",
        _ => "corpo da requisição ilegível",
    };
    Problem::new(status, detail)
}

/// `axum::extract::Query` under the policy, with rejections as a 400 problem naming the parameter.
#[derive(Debug, Clone, Copy, Default)]
pub struct AppQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for AppQuery<T> {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Problem> {
        let pares: axum::extract::Query<Vec<(String, String)>> =
            axum::extract::Query::try_from_uri(&parts.uri).map_err(rejeicao_query)?;
        if let Some((k, _)) = pares.0.iter().find(|(k, v)| k.contains('\0') || v.contains('\0')) {
            return Err(Problem::bad_request(nul(&k.replace('\0', ""))));
        }
        let q = axum::extract::Query::<T>::try_from_uri(&parts.uri).map_err(rejeicao_query)?;
        Ok(AppQuery(q.0))
    }
}

fn rejeicao_query(r: QueryRejection) -> Problem {
    let texto = r.body_text();
    let texto = texto.trim_start_matches("Failed to deserialize query string: ");
    Problem::bad_request(format!("parâmetro inválido: {}", traduzir(texto)))
}

/// `axum::extract::Path` under the policy: a segment that is not UTF-8 or holds a NUL is a 400
/// problem (never axum's plain-text 400, never a query with it).
#[derive(Debug, Clone)]
pub struct AppPath<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for AppPath<T> {
    type Rejection = Problem;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Problem> {
        use axum::extract::Path;
        let brutos = Path::<Vec<(String, String)>>::from_request_parts(parts, state)
            .await
            .map_err(|_| Problem::bad_request("caminho inválido: não é UTF-8"))?;
        if let Some((k, _)) = brutos.0.iter().find(|(_, v)| v.contains('\0')) {
            return Err(Problem::bad_request(nul(k)));
        }
        let Path(v) = Path::<T>::from_request_parts(parts, state)
            .await
            .map_err(|e| Problem::bad_request(format!("caminho inválido: {}", traduzir(&e.body_text()))))?;
        Ok(AppPath(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_is_found_by_path() {
        let v: Value = serde_json::json!({"itens": [{"sku": "1\u{0}"}]});
        assert_eq!(com_nul(&v, "").as_deref(), Some("itens[0].sku"));
        assert_eq!(com_nul(&serde_json::json!({"a": "b"}), ""), None);
    }

    #[test]
    fn dates_outside_2000_2200_are_refused() {
        let d = |y, m, dd| NaiveDate::from_ymd_opt(y, m, dd).unwrap_or_default();
        assert!(data_sensata("validade", d(2026, 1, 1)).is_ok());
        assert!(data_sensata("validade", d(1999, 12, 31)).is_err());
        assert!(data_sensata("validade", d(2201, 1, 1)).is_err());
    }
}
