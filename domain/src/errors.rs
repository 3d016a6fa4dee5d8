//! How an error the Workers make themselves is answered: each feature has
//! its own error enum (`access::AccessError`, `jobs::JobError`, ...) and
//! says, through [`Failure`], its code, message and suggestion; each Worker
//! has one top error of `From` variants that delegates to them. They use the
//! v1 envelope and the `RESOURCE.CATEGORY.SPECIFIC` code form so the app
//! handles them like any upstream error; internals (and keys) never reach
//! the body. The errors no single feature owns are here.

use api::validation::{BodyError, MAX_BODY_BYTES};
use api::{ApiError, ErrorCode, ErrorEnvelope};

/// An error answered in the v1 envelope. The status is the code's, from the
/// one table in `api::error`.
pub trait Failure {
    fn code(&self) -> ErrorCode;
    /// What happened, in words for the person who made the call.
    fn message(&self) -> String;
    /// What to do next.
    fn suggestion(&self) -> String;
    /// Seconds after which a retry makes sense, sent as `Retry-After`.
    fn retry_after(&self) -> Option<u64> {
        None
    }
    /// Whether an earlier attempt of this purchase may have spent money
    /// (`api::ApiError::outcome_unknown`); `None` where it says nothing.
    fn outcome_unknown(&self) -> Option<bool> {
        None
    }
    /// The envelope's optional fields this error fills (the field at fault,
    /// the scopes, the retry time).
    fn detail(&self, error: ApiError) -> ApiError {
        error
    }

    fn status(&self) -> u16 {
        self.code().http_status()
    }

    /// The v1 envelope for this error.
    fn to_api_error(&self, request_id: &str) -> ApiError {
        let mut error = ApiError::new(
            self.code(),
            self.message(),
            self.suggestion(),
            request_id.to_string(),
        );
        error.outcome_unknown = self.outcome_unknown();
        self.detail(error)
    }

    fn to_body(&self, request_id: &str) -> String {
        let envelope = ErrorEnvelope {
            error: self.to_api_error(request_id),
        };
        serde_json::to_string(&envelope).unwrap_or_else(|_| String::from("{}"))
    }
}

/// Something a Worker needs from its runtime failed (the random source,
/// writing its answer); nothing was sent upstream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Internal {
    pub what: &'static str,
}

impl Failure for Internal {
    fn code(&self) -> ErrorCode {
        ErrorCode::EdgeInternal
    }
    fn message(&self) -> String {
        format!(
            "Parcel could not {}; nothing was sent to the shipping service.",
            self.what
        )
    }
    fn suggestion(&self) -> String {
        "Try again in a moment. If it keeps happening, contact support with this request id."
            .to_string()
    }
}

/// A setting is missing or malformed. Names the setting, never its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingError {
    pub setting: &'static str,
    pub problem: String,
}

impl SettingError {
    pub fn new(setting: &'static str, problem: impl Into<String>) -> SettingError {
        SettingError {
            setting,
            problem: problem.into(),
        }
    }
}

impl Failure for SettingError {
    fn code(&self) -> ErrorCode {
        ErrorCode::EdgeConfigInvalid
    }
    fn message(&self) -> String {
        format!(
            "The Worker setting {} is invalid: {}.",
            self.setting, self.problem
        )
    }
    fn suggestion(&self) -> String {
        format!(
            "Ask an administrator to fix {} (see README, Configuration) and redeploy.",
            self.setting
        )
    }
}

/// A request body refused before anything is sent or stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BadBody {
    /// The JSON body does not fit the contract type.
    Invalid(BodyError),
    TooLarge,
}

impl From<BodyError> for BadBody {
    fn from(e: BodyError) -> BadBody {
        BadBody::Invalid(e)
    }
}

impl Failure for BadBody {
    fn code(&self) -> ErrorCode {
        match self {
            BadBody::Invalid(e) => e.code(),
            BadBody::TooLarge => ErrorCode::ValidationBodyTooLarge,
        }
    }
    fn message(&self) -> String {
        match self {
            BadBody::Invalid(e) => e.message(),
            BadBody::TooLarge => format!("The request body is larger than {MAX_BODY_BYTES} bytes."),
        }
    }
    fn suggestion(&self) -> String {
        match self {
            BadBody::Invalid(e) => e.suggestion(),
            BadBody::TooLarge => "Send at most 5,000 batch items per request.".to_string(),
        }
    }
    fn detail(&self, error: ApiError) -> ApiError {
        match self {
            BadBody::Invalid(e) => error.with_field(e.field()),
            BadBody::TooLarge => error,
        }
    }
}

/// A request no endpoint takes as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteError {
    /// The path is not one of the endpoints (v1 forwarded, or our own).
    NotFound { path: String },
    /// The path is an endpoint, but not with this method.
    MethodNotAllowed {
        method: String,
        path: String,
        allowed: Vec<&'static str>,
    },
    /// The live feed is a WebSocket; a plain GET gets this.
    UpgradeRequired,
}

impl Failure for RouteError {
    fn code(&self) -> ErrorCode {
        match self {
            RouteError::NotFound { .. } => ErrorCode::EdgeRouteNotFound,
            RouteError::MethodNotAllowed { .. } => ErrorCode::EdgeRouteMethodNotAllowed,
            RouteError::UpgradeRequired => ErrorCode::EdgeWebsocketRequired,
        }
    }
    fn message(&self) -> String {
        match self {
            RouteError::NotFound { path } => format!("No v1 endpoint at {path}."),
            RouteError::MethodNotAllowed { method, path, .. } => {
                format!("{method} is not allowed on {path}.")
            }
            RouteError::UpgradeRequired => {
                "This is a live feed: it needs a WebSocket connection.".to_string()
            }
        }
    }
    fn suggestion(&self) -> String {
        match self {
            RouteError::NotFound { .. } => {
                "Use one of the /api/v1 endpoints listed in the v1 interface.".to_string()
            }
            RouteError::MethodNotAllowed { allowed, .. } => {
                format!("Use {}.", allowed.join(" or "))
            }
            RouteError::UpgradeRequired => {
                "Open it with `new WebSocket(...)`; for a one-off read use GET /api/webhooks/inbox."
                    .to_string()
            }
        }
    }
}

/// Where the keys and webhook secrets of the organization a message is
/// about are changed, so the message names that place: the deployment's
/// own organization in the Worker's settings, any other on its pages in
/// the app (`api::orgs::KEYS_PAGE`, `WEBHOOK_SETTINGS_PAGE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Managed {
    BySettings,
    InApp,
}

impl Managed {
    pub fn of(org: &api::orgs::OrgId) -> Managed {
        if org.is_deployment() {
            Managed::BySettings
        } else {
            Managed::InApp
        }
    }
}

/// The mode has no key in these settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeUnavailable {
    pub mode: &'static str,
    pub managed: Managed,
}

impl Failure for ModeUnavailable {
    fn code(&self) -> ErrorCode {
        ErrorCode::EdgeModeUnavailable
    }
    fn message(&self) -> String {
        match self.managed {
            Managed::BySettings => format!("This deployment has no {} key.", self.mode),
            Managed::InApp => format!("This organization has no {} key.", self.mode),
        }
    }
    fn suggestion(&self) -> String {
        match self.managed {
            Managed::BySettings => {
                "An admin can add it as a Worker secret (README, Configuration).".to_string()
            }
            Managed::InApp => format!(
                "An admin enters it in the “API key” field of the API keys page ({}).",
                api::orgs::KEYS_PAGE
            ),
        }
    }
}

/// Implements `From` for each listed error into `$top` (as its variant of
/// the same name) and [`Failure`] for `$top` by delegating to it: a
/// Worker's or a feature's error made of others.
#[macro_export]
macro_rules! failures {
    ($top:ident { $($variant:ident($inner:ty),)* }) => {
        $(
            impl From<$inner> for $top {
                fn from(e: $inner) -> $top {
                    $top::$variant(e)
                }
            }
        )*
        impl $crate::errors::Failure for $top {
            fn code(&self) -> api::ErrorCode {
                match self { $($top::$variant(e) => e.code(),)* }
            }
            fn message(&self) -> String {
                match self { $($top::$variant(e) => e.message(),)* }
            }
            fn suggestion(&self) -> String {
                match self { $($top::$variant(e) => e.suggestion(),)* }
            }
            fn retry_after(&self) -> Option<u64> {
                match self { $($top::$variant(e) => e.retry_after(),)* }
            }
            fn outcome_unknown(&self) -> Option<bool> {
                match self { $($top::$variant(e) => e.outcome_unknown(),)* }
            }
            fn detail(&self, error: api::ApiError) -> api::ApiError {
                match self { $($top::$variant(e) => e.detail(error),)* }
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Failure;

    #[test]
    fn setting_error_names_the_setting_not_the_value() {
        let err = SettingError::new("SVC_LIVE_KEY", "not a svc_live_ key");
        let body = err.to_body("req_2");
        assert!(body.contains("SVC_LIVE_KEY"));
        assert_eq!(err.status(), 503);
    }
}
