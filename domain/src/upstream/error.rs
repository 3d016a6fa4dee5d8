//! The upstream call's failures, and the per-minute budgets answered
//! locally.

use api::{ApiError, ErrorCode};

use crate::errors::Failure;

/// Which per-minute budget a local 429 protects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Budget {
    /// The upstream's own limit for this key and endpoint, as last reported.
    Upstream { endpoint: String },
    /// The share of that limit the storefront widget may use.
    WidgetShare { endpoint: String },
    /// One shopper's (client IP's) widget calls per minute.
    WidgetClient { per_minute: u32 },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpstreamError {
    /// Upstream could not be reached. `outcome_unknown` is true when the
    /// request may have had an effect (a purchase that may have gone through).
    Unreachable { outcome_unknown: bool },
    /// Upstream did not answer in time; same meaning of `outcome_unknown`.
    Timeout { outcome_unknown: bool, seconds: u64 },
    /// A per-minute budget is spent; the Worker answers without calling upstream.
    RateLimited { budget: Budget, retry_after: u64 },
}

const CHECK_FIRST: &str =
    "Check your labels and wallet before trying again, so nothing is bought twice.";

impl Failure for UpstreamError {
    fn code(&self) -> ErrorCode {
        match self {
            UpstreamError::Unreachable { .. } => ErrorCode::EdgeUpstreamUnreachable,
            UpstreamError::Timeout { .. } => ErrorCode::EdgeUpstreamTimeout,
            UpstreamError::RateLimited { .. } => ErrorCode::AuthRateLimitExceeded,
        }
    }

    fn message(&self) -> String {
        match self {
            UpstreamError::Unreachable {
                outcome_unknown: true,
            } => {
                "The shipping service could not be reached; the outcome of this request is unknown."
                    .to_string()
            }
            UpstreamError::Unreachable {
                outcome_unknown: false,
            } => "The shipping service could not be reached; nothing was changed.".to_string(),
            UpstreamError::Timeout {
                outcome_unknown: true,
                seconds,
            } => format!(
                "The shipping service did not answer within {seconds} s; the outcome of this request is unknown."
            ),
            UpstreamError::Timeout {
                outcome_unknown: false,
                seconds,
            } => format!(
                "The shipping service did not answer within {seconds} s; nothing was changed."
            ),
            UpstreamError::RateLimited { budget, .. } => match budget {
                Budget::Upstream { endpoint } => format!(
                    "The per-minute limit for {endpoint} is used up (as the service last reported it); it was not called."
                ),
                Budget::WidgetShare { endpoint } => format!(
                    "The storefront's share of the per-minute limit for {endpoint} is used up; the rest is kept for the merchant's dashboard."
                ),
                Budget::WidgetClient { per_minute } => {
                    format!("Too many requests from this shopper: at most {per_minute} per minute.")
                }
            },
        }
    }

    fn suggestion(&self) -> String {
        match self {
            UpstreamError::Unreachable {
                outcome_unknown: true,
            }
            | UpstreamError::Timeout {
                outcome_unknown: true,
                ..
            } => CHECK_FIRST.to_string(),
            UpstreamError::Unreachable { .. } | UpstreamError::Timeout { .. } => {
                "Try again in a moment.".to_string()
            }
            UpstreamError::RateLimited { retry_after, .. } => format!("Retry in {retry_after} s."),
        }
    }

    fn retry_after(&self) -> Option<u64> {
        match self {
            UpstreamError::RateLimited { retry_after, .. } => Some(*retry_after),
            _ => None,
        }
    }

    fn outcome_unknown(&self) -> Option<bool> {
        match self {
            UpstreamError::Unreachable { outcome_unknown }
            | UpstreamError::Timeout {
                outcome_unknown, ..
            } => Some(*outcome_unknown),
            UpstreamError::RateLimited { .. } => None,
        }
    }

    fn detail(&self, error: ApiError) -> ApiError {
        match self {
            UpstreamError::RateLimited { retry_after, .. } => ApiError {
                retry_after_seconds: Some(*retry_after),
                ..error
            },
            _ => error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Failure;

    #[test]
    fn envelope_has_every_field_and_code_form() {
        let err = UpstreamError::Unreachable {
            outcome_unknown: true,
        };
        let body: serde_json::Value = serde_json::from_str(&err.to_body("req_1")).unwrap();
        let e = &body["error"];
        assert_eq!(e["code"], "EDGE.UPSTREAM.UNREACHABLE");
        assert_eq!(e["request_id"], "req_1");
        assert!(e["message"].as_str().unwrap().contains("unknown"));
        assert!(
            e["suggestion"]
                .as_str()
                .unwrap()
                .contains("before trying again")
        );
        assert!(e["docs_url"].as_str().unwrap().starts_with("http"));
        assert_eq!(err.status(), 502);
    }
}
