//! Every failure in the v1 envelope. Handlers return `SimError` without a
//! request id; the request pipeline (`http.rs`) stamps the id into the body
//! and the `X-Request-Id` header, so the two always agree.

use api::validation::BodyError;
use api::{ApiError, ErrorCode, ErrorEnvelope, Scope};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug, Clone)]
pub struct SimError {
    pub status: u16,
    pub error: Box<ApiError>,
    /// Extra response headers (e.g. Retry-After).
    pub headers: Vec<(&'static str, String)>,
    /// Extra top-level body fields next to `error` (e.g. `rates` on a 503).
    pub body_extra: Option<(&'static str, serde_json::Value)>,
}

impl SimError {
    pub fn new(
        code: ErrorCode,
        message: impl Into<String>,
        suggestion: impl Into<String>,
    ) -> SimError {
        let status = code.http_status();
        SimError {
            status,
            error: Box::new(ApiError::new(code, message, suggestion, "")),
            headers: vec![],
            body_extra: None,
        }
    }

    pub fn field(mut self, field: impl Into<String>) -> SimError {
        self.error.field = Some(field.into());
        self
    }

    /// `AUTH.KEY.INSUFFICIENT_SCOPE` for `action` (what needs `required`),
    /// naming the scope and listing the key's own.
    pub fn insufficient_scope(required: Scope, action: &str, key_scopes: &[Scope]) -> SimError {
        let mut e = SimError::new(
            ErrorCode::AuthKeyInsufficientScope,
            format!("This key lacks the scope {required} that {action} needs."),
            format!(
                "Create a key with the {required} scope in the dashboard, or use one that has it."
            ),
        );
        e.error.required_scope = Some(required.as_str().into());
        e.error.key_scopes = Some(key_scopes.iter().map(|s| s.as_str().to_string()).collect());
        e
    }

    pub fn required(field: &str) -> SimError {
        BodyError::Required {
            field: field.into(),
        }
        .into()
    }

    pub fn invalid(field: &str, why: &str) -> SimError {
        BodyError::Invalid {
            field: field.into(),
            reason: why.into(),
        }
        .into()
    }

    pub fn body(&self, request_id: &str) -> Vec<u8> {
        let mut error = (*self.error).clone();
        error.request_id = request_id.to_string();
        let mut value = serde_json::to_value(ErrorEnvelope { error }).unwrap_or_default();
        if let (Some((key, extra)), Some(obj)) = (&self.body_extra, value.as_object_mut()) {
            obj.insert((*key).to_string(), extra.clone());
        }
        serde_json::to_vec(&value).unwrap_or_default()
    }
}

/// Body and field errors read the same whether the edge or the simulator catches them.
impl From<BodyError> for SimError {
    fn from(e: BodyError) -> SimError {
        SimError::new(e.code(), e.message(), e.suggestion()).field(e.field())
    }
}

impl IntoResponse for SimError {
    /// The pipeline re-renders the body with the request id; this marker
    /// carries the error there.
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = status.into_response();
        response.extensions_mut().insert(self);
        response
    }
}
