//! The access feature's refusals: who may call, and with which key.

use api::session::Role;
use api::{ApiError, ErrorCode, KeyEnv, Scope};

use crate::errors::{Failure, Managed, ModeUnavailable};
use crate::upstream::keys::settings_of;

/// Why a call needs the caller to sign in (again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInReason {
    NoSession,
    /// Expired, signed out, forged, or the user or role changed since.
    SessionEnded,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccessError {
    SignInRequired(SignInReason),
    InvalidToken,
    /// A cross-site write, or a widget call from an origin not configured.
    OriginRefused {
        origin: String,
    },
    /// An admin-only action (mode switch, key rotation).
    AdminOnly {
        action: &'static str,
    },
    /// An operator switching between live and sandbox while the
    /// organization lets only admins (`gate::may_switch_mode`).
    ModeSwitchAdminsOnly,
    /// The principal lacks the endpoint's scope. `key_lacks` when the role
    /// would allow it but the API key itself does not have it.
    InsufficientScope {
        required: Scope,
        scopes: Vec<Scope>,
        role: Option<Role>,
        key_lacks: bool,
    },
    /// The principal's mode has no key.
    NoKey(ModeUnavailable),
    /// Verifying or activating a next key that is not configured.
    NoNextKey {
        mode: KeyEnv,
        managed: Managed,
    },
}

impl From<ModeUnavailable> for AccessError {
    fn from(e: ModeUnavailable) -> AccessError {
        AccessError::NoKey(e)
    }
}

impl Failure for AccessError {
    fn code(&self) -> ErrorCode {
        match self {
            AccessError::SignInRequired(_) => ErrorCode::EdgeSessionRequired,
            AccessError::InvalidToken => ErrorCode::EdgeSessionInvalidToken,
            AccessError::OriginRefused { .. } => ErrorCode::EdgeOriginRefused,
            AccessError::AdminOnly { .. } | AccessError::ModeSwitchAdminsOnly => {
                ErrorCode::EdgeRoleForbidden
            }
            AccessError::InsufficientScope { .. } => ErrorCode::AuthKeyInsufficientScope,
            AccessError::NoKey(e) => e.code(),
            AccessError::NoNextKey { .. } => ErrorCode::EdgeKeyNoNextKey,
        }
    }

    fn message(&self) -> String {
        match self {
            AccessError::SignInRequired(SignInReason::NoSession) => {
                "You are not signed in.".to_string()
            }
            AccessError::SignInRequired(SignInReason::SessionEnded) => {
                "Your session has ended (expired, signed out, or your access changed).".to_string()
            }
            AccessError::InvalidToken => "That access token is not valid.".to_string(),
            AccessError::OriginRefused { origin } => {
                format!("Requests from {origin} are not allowed here.")
            }
            AccessError::AdminOnly { action } => format!("Only an admin can {action}."),
            AccessError::ModeSwitchAdminsOnly => {
                "This organization lets only admins switch between live and sandbox.".to_string()
            }
            AccessError::InsufficientScope {
                required,
                key_lacks: true,
                ..
            } => {
                format!("The account's API key does not have the {required} scope.")
            }
            AccessError::InsufficientScope { required, role, .. } => match role {
                Some(role) => format!("Your role ({role}) does not allow {required}."),
                None => format!("The storefront widget may not use {required}."),
            },
            AccessError::NoKey(e) => e.message(),
            AccessError::NoNextKey {
                mode,
                managed: Managed::BySettings,
            } => format!("No new key is set in {}.", settings_of(*mode).1),
            AccessError::NoNextKey { mode, .. } => {
                format!("This organization has no next {mode} key.")
            }
        }
    }

    fn suggestion(&self) -> String {
        match self {
            AccessError::SignInRequired(SignInReason::NoSession) => {
                "Sign in with your email and password (or an access token).".to_string()
            }
            AccessError::SignInRequired(SignInReason::SessionEnded) => "Sign in again.".to_string(),
            AccessError::InvalidToken => "Paste the whole token; one that expired or was revoked needs a new one (the Access tokens page, or your administrator).".to_string(),
            AccessError::OriginRefused { .. } => "Call the dashboard API from the dashboard itself; storefront widgets must be served from an origin listed in WIDGET_ORIGINS.".to_string(),
            AccessError::AdminOnly { .. } => "Ask an admin of this account.".to_string(),
            AccessError::ModeSwitchAdminsOnly => format!(
                "An admin can allow operators to switch on the Team page ({}).",
                api::orgs::TEAM_PAGE
            ),
            AccessError::InsufficientScope { required, key_lacks: true, .. } => format!(
                "An admin can create a key with {required} in the service's dashboard and rotate to it (API status page)."
            ),
            AccessError::InsufficientScope { .. } => "Ask an admin for a role that allows it.".to_string(),
            AccessError::NoKey(e) => e.suggestion(),
            AccessError::NoNextKey {
                mode,
                managed: Managed::BySettings,
            } => format!(
                "Set the new key with `wrangler secret put {}`, verify it, then activate it.",
                settings_of(*mode).1
            ),
            AccessError::NoNextKey { .. } => format!(
                "An admin enters the new key in the “API key” field of the API keys page ({}), then verifies and activates it.",
                api::orgs::KEYS_PAGE
            ),
        }
    }

    fn detail(&self, error: ApiError) -> ApiError {
        match self {
            AccessError::InsufficientScope {
                required, scopes, ..
            } => ApiError {
                required_scope: Some(required.to_string()),
                key_scopes: Some(scopes.iter().map(|s| s.to_string()).collect()),
                ..error
            },
            _ => error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_next_key_is_where_the_organization_enters_one() {
        let mode = KeyEnv::Sandbox;
        let org = AccessError::NoNextKey {
            mode,
            managed: Managed::InApp,
        };
        assert_eq!(org.message(), "This organization has no next sandbox key.");
        assert!(
            org.suggestion()
                .contains("“API key” field of the API keys page (/keys)")
        );
        let deployment = AccessError::NoNextKey {
            mode,
            managed: Managed::BySettings,
        };
        assert_eq!(
            deployment.message(),
            "No new key is set in SVC_SANDBOX_KEY_NEXT."
        );
    }
}
