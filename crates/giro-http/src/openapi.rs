//! `GET /openapi.json` (issue 18): a service's OpenAPI 3.1 document, which the service embeds at
//! build time and hands here. Open to anyone, like health. The test `tests/it/http/openapi.rs`
//! fails when a route exists that the document does not describe or the reverse, and when an
//! example does not validate against its schema or the real answer.

use std::future::{ready, Ready};

use axum::http::{header, HeaderName};

type Resposta = ([(HeaderName, &'static str); 1], &'static str);

/// The handler that serves `json` as `application/json` (`get(documento(OPENAPI))`).
pub fn documento(json: &'static str) -> impl Fn() -> Ready<Resposta> + Clone + Send + Sync + 'static {
    move || ready(([(header::CONTENT_TYPE, "application/json")], json))
}
