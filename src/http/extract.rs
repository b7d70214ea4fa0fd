//! Extractors whose rejections are problem+json (axum's error-handling example): a bad body or
//! query never answers plain text. Use [`AppJson`] and [`AppQuery`] instead of axum's.

use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::http::Problem;

/// `axum::Json` with rejections as problem+json: 400 for malformed or mistyped bodies (the
/// detail names the field), 415 without a JSON content type, 413 over the body limit.
#[derive(Debug, Clone, Copy, Default, FromRequest)]
#[from_request(via(axum::Json), rejection(Problem))]
pub struct AppJson<T>(pub T);

impl<T: serde::Serialize> IntoResponse for AppJson<T> {
    fn into_response(self) -> Response {
        axum::Json(self.0).into_response()
    }
}

impl From<JsonRejection> for Problem {
    fn from(r: JsonRejection) -> Problem {
        let status = match r {
            JsonRejection::MissingJsonContentType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            JsonRejection::BytesRejection(ref b) => b.status(),
            _ => StatusCode::BAD_REQUEST,
        };
        let detail = match r {
            JsonRejection::JsonDataError(e) => format!(
                "corpo inválido: {}",
                e.body_text()
                    .trim_start_matches("Failed to deserialize the JSON body into the target type: ")
            ),
            JsonRejection::JsonSyntaxError(e) => format!(
                "JSON ilegível: {}",
                e.body_text().trim_start_matches("Failed to parse the request body as JSON: ")
            ),
            JsonRejection::MissingJsonContentType(_) => "Content-Type deve ser application/json".to_string(),
            other => other.body_text(),
        };
        Problem::new(status, detail)
    }
}

/// `axum::extract::Query` with rejections as a 400 problem naming the parameter.
#[derive(Debug, Clone, Copy, Default, FromRequestParts)]
#[from_request(via(axum::extract::Query), rejection(Problem))]
pub struct AppQuery<T>(pub T);

impl From<QueryRejection> for Problem {
    fn from(r: QueryRejection) -> Problem {
        Problem::bad_request(format!(
            "parâmetro inválido: {}",
            r.body_text().trim_start_matches("Failed to deserialize query string: ")
        ))
    }
}
