//! The error envelope of part 7 (the codes and their statuses: `code`).

use serde::{Deserialize, Serialize};
use std::fmt;

use crate::address::Address;
use crate::code::ErrorCode;

/// Base of every `docs_url`; an error's page is `{DOCS_BASE_URL}/errors/{code}`.
pub const DOCS_BASE_URL: &str = "https://docs.parcel.example/v1";

/// The `error` object of every error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    pub suggestion: String,
    pub docs_url: String,
    pub request_id: String,
    /// The offending field, for validation errors (dotted path, e.g. `to_address.zip`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_scopes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_carrier_error: Option<String>,
    /// Our choice (part 7 does not show it): candidate addresses for
    /// `ADDRESS.VALIDATION.AMBIGUOUS`, best first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestions: Option<Vec<Address>>,
    /// Our choice: the carriers that did not answer, for `RATE.CARRIER.UNAVAILABLE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable_carriers: Option<Vec<String>>,
    /// Our choice: seconds until a retry may succeed, mirrors `Retry-After` on 429.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_seconds: Option<u64>,
    /// The Worker's, on purchases it could not see through: `true` when an
    /// earlier attempt with this `Idempotency-Key` may have spent money
    /// (no answer, a timeout, a purchase still running, its record out of
    /// reach). A client retries such an intent with the same key, never a
    /// new one; `false` says nothing was changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome_unknown: Option<bool>,
}

impl ApiError {
    pub fn new(
        code: ErrorCode,
        message: impl Into<String>,
        suggestion: impl Into<String>,
        request_id: impl Into<String>,
    ) -> ApiError {
        let docs_url = format!("{DOCS_BASE_URL}/errors/{code}");
        ApiError {
            code,
            message: message.into(),
            suggestion: suggestion.into(),
            docs_url,
            request_id: request_id.into(),
            field: None,
            required_scope: None,
            key_scopes: None,
            raw_carrier_error: None,
            suggestions: None,
            unavailable_carriers: None,
            retry_after_seconds: None,
            outcome_unknown: None,
        }
    }

    pub fn with_field(mut self, field: impl Into<String>) -> ApiError {
        self.field = Some(field.into());
        self
    }

    pub fn status(&self) -> u16 {
        self.code.http_status()
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

/// Every error response body: `{"error": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorEnvelope {
    pub error: ApiError,
}

impl From<ApiError> for ErrorEnvelope {
    fn from(error: ApiError) -> Self {
        ErrorEnvelope { error }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_codes_decode_instead_of_failing() {
        let body = r#"{"error":{"code":"SHIPMENT.NEW.THING","message":"m","suggestion":"s","docs_url":"d","request_id":"r","extra":1}}"#;
        let env: ErrorEnvelope = serde_json::from_str(body).unwrap();
        assert_eq!(
            env.error.code,
            ErrorCode::Unknown("SHIPMENT.NEW.THING".into())
        );
        assert_eq!(env.error.code.resource(), "SHIPMENT");
    }

    #[test]
    fn envelope_carries_the_optional_fields_only_when_set() {
        let err = ApiError::new(ErrorCode::ValidationFieldRequired, "m", "s", "req_1")
            .with_field("rate_id");
        let json = serde_json::to_value(ErrorEnvelope::from(err)).unwrap();
        assert_eq!(json["error"]["field"], "rate_id");
        assert_eq!(
            json["error"]["docs_url"],
            format!("{DOCS_BASE_URL}/errors/VALIDATION.FIELD.REQUIRED")
        );
        assert!(json["error"].get("key_scopes").is_none());
    }
}
