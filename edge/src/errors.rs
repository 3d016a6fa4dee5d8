//! Errors the edge makes itself. They use the v1 envelope and the
//! `RESOURCE.CATEGORY.SPECIFIC` code form so the app handles them like any
//! upstream error; internals (and the key) never reach the body.

use api::{ApiError, ErrorCode, ErrorEnvelope};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeError {
    /// The path is not one of the v1 endpoints we forward.
    RouteNotFound { path: String },
    /// The path is a v1 endpoint but not with this method.
    MethodNotAllowed {
        method: String,
        path: String,
        allowed: Vec<&'static str>,
    },
    /// A setting is missing or malformed. Names the setting, never its value.
    Config {
        setting: &'static str,
        problem: String,
    },
    /// Upstream could not be reached. `outcome_unknown` is true when the
    /// request may have had an effect (a purchase that may have gone through).
    UpstreamUnreachable { outcome_unknown: bool },
}

impl EdgeError {
    pub fn status(&self) -> u16 {
        match self {
            EdgeError::RouteNotFound { .. } => 404,
            EdgeError::MethodNotAllowed { .. } => 405,
            EdgeError::Config { .. } => 503,
            EdgeError::UpstreamUnreachable { .. } => 502,
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            EdgeError::RouteNotFound { .. } => "EDGE.ROUTE.NOT_FOUND",
            EdgeError::MethodNotAllowed { .. } => "EDGE.ROUTE.METHOD_NOT_ALLOWED",
            EdgeError::Config { .. } => "EDGE.CONFIG.INVALID",
            EdgeError::UpstreamUnreachable { .. } => "EDGE.UPSTREAM.UNREACHABLE",
        }
    }

    /// The v1 envelope for this error.
    pub fn to_api_error(&self, request_id: &str) -> ApiError {
        let (message, suggestion) = match self {
            EdgeError::RouteNotFound { path } => (
                format!("No v1 endpoint at {path}."),
                "Use one of the /api/v1 endpoints listed in the v1 interface.".to_string(),
            ),
            EdgeError::MethodNotAllowed { method, path, allowed } => (
                format!("{method} is not allowed on {path}."),
                format!("Use {}.", allowed.join(" or ")),
            ),
            EdgeError::Config { setting, problem } => (
                format!("The Worker setting {setting} is invalid: {problem}."),
                format!("Ask an administrator to fix {setting} (see README, Configuration) and redeploy."),
            ),
            EdgeError::UpstreamUnreachable { outcome_unknown: true } => (
                "The shipping service could not be reached; the outcome of this request is unknown."
                    .to_string(),
                "Check your labels and wallet before trying again, so nothing is bought twice.".to_string(),
            ),
            EdgeError::UpstreamUnreachable { outcome_unknown: false } => (
                "The shipping service could not be reached; nothing was changed.".to_string(),
                "Try again in a moment.".to_string(),
            ),
        };
        ApiError::new(
            ErrorCode::Unknown(self.code().to_string()),
            message,
            suggestion,
            request_id.to_string(),
        )
    }

    pub fn to_body(&self, request_id: &str) -> String {
        let envelope = ErrorEnvelope {
            error: self.to_api_error(request_id),
        };
        serde_json::to_string(&envelope).unwrap_or_else(|_| String::from("{}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_has_every_field_and_code_form() {
        let err = EdgeError::UpstreamUnreachable {
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

    #[test]
    fn config_error_names_the_setting_not_the_value() {
        let err = EdgeError::Config {
            setting: "SVC_LIVE_KEY",
            problem: "not a svc_live_ key".into(),
        };
        let body = err.to_body("req_2");
        assert!(body.contains("SVC_LIVE_KEY"));
        assert_eq!(err.status(), 503);
    }
}
