//! The error of a request to `descent serve`: an HTTP status and a message for the person
//! (sent as `{"error": "..."}`), never a crash of the server.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// A request that could not be answered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct WebError {
    pub status: u16,
    pub message: String,
}

impl WebError {
    /// The request is wrong (a bad game spec, an illegal move, a bad agent spec).
    pub fn bad_request(message: impl Into<String>) -> Self {
        WebError {
            status: 400,
            message: message.into(),
        }
    }

    /// What the request names does not exist (a run, a page).
    pub fn not_found(message: impl Into<String>) -> Self {
        WebError {
            status: 404,
            message: message.into(),
        }
    }

    /// The server could not do what was asked (an unreadable file).
    /// 421: a request for another host than this server (`Host` check).
    pub fn misdirected(message: impl Into<String>) -> Self {
        WebError {
            status: 421,
            message: message.into(),
        }
    }

    /// 503: the server is busy with other requests (the budget of networks loading at once);
    /// the same request may succeed in a moment.
    pub fn unavailable(message: impl Into<String>) -> Self {
        WebError {
            status: 503,
            message: message.into(),
        }
    }

    pub fn internal(message: impl Into<String>) -> Self {
        WebError {
            status: 500,
            message: message.into(),
        }
    }
}

impl IntoResponse for WebError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response =
            (status, Json(serde_json::json!({ "error": self.message }))).into_response();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            // The client may ask again in a second (RFC 9110, 10.2.3).
            response.headers_mut().insert(
                axum::http::header::RETRY_AFTER,
                axum::http::HeaderValue::from_static("1"),
            );
        }
        response
    }
}
