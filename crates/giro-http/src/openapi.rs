//! `GET /openapi.json` (issue 18): each service's OpenAPI 3.1 document, written by hand in
//! `openapi/<service>.json` and embedded at build time. Open to anyone, like health. The test
//! `tests/it/http/openapi.rs` fails when a route exists that the document does not describe or the
//! reverse, and when an example does not validate against its schema or the real answer.

use axum::http::header;
use axum::response::IntoResponse;

const ESTOQUE: &str = include_str!("../../../openapi/estoque.json");
const MERCADO: &str = include_str!("../../../openapi/mercado.json");

pub async fn estoque() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], ESTOQUE)
}

pub async fn mercado() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/json")], MERCADO)
}
