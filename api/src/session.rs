//! The Worker's own endpoints for the dashboard (not part of v1): sign-in,
//! the session, the live/sandbox switch, key rotation and the limits last
//! seen. Stated here once so the app and the edge cannot disagree.
//!
//! | Method and path                   | Who        | Body → answer                      |
//! |-----------------------------------|------------|------------------------------------|
//! | `POST /api/session`               | anyone     | `SignInRequest` → `SessionInfo` + cookie |
//! | `GET /api/session`                | signed in  | → `SessionInfo`                    |
//! | `DELETE /api/session`             | signed in  | → 204, cookie cleared and revoked  |
//! | `PUT /api/session/mode`           | admin; operator if allowed (`orgs::ModeSwitch`) | `ModeRequest` → `SessionInfo` + cookie |
//! | `GET /api/keys`                   | admin      | → `KeysStatus`                     |
//! | `POST /api/keys/{mode}/verify`    | admin      | → `KeyVerification`                |
//! | `POST /api/keys/{mode}/activate`  | admin      | → `KeysStatus`                     |
//! | `GET /api/limits`                 | signed in  | → `LimitsSnapshot`                 |
//!
//! Errors use the v1 envelope. Codes the edge adds: `EDGE.SESSION.REQUIRED`
//! (401, sign in), `EDGE.SESSION.INVALID_TOKEN` (401), `EDGE.ROLE.FORBIDDEN`
//! (403, an admin action), `EDGE.ORIGIN.REFUSED` (403, cross-site write or an
//! origin not configured for the widget).

use crate::{ErrorCode, KeyEnv, Scope};
use serde::{Deserialize, Serialize};

// The session's answers carry a person's role and a key's slot.
pub use crate::keys::KeySlot;
pub use crate::role::Role;

pub const SESSION_PATH: &str = "/api/session";
pub const MODE_PATH: &str = "/api/session/mode";
pub const KEYS_PATH: &str = "/api/keys";
pub const VERIFY_KEY_PATH: &str = "/api/keys/{mode}/verify";
pub const ACTIVATE_KEY_PATH: &str = "/api/keys/{mode}/activate";
pub const LIMITS_PATH: &str = "/api/limits";

/// `POST /api/session`: the access token a deployment gave this user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignInRequest {
    pub token: String,
}

/// The signed-in user, what they may do, and which key their calls use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionInfo {
    pub user: String,
    /// The organization the session acts for, and the person's role in it.
    pub org: crate::orgs::OrgSummary,
    /// Every organization the person belongs to (the menu's switcher).
    pub orgs: Vec<crate::orgs::OrgSummary>,
    pub role: Role,
    /// The v1 scopes this user may use now: the role's scopes that the
    /// active key also has. The app hides every action outside them.
    pub scopes: Vec<Scope>,
    /// The key forwarded calls use for this session.
    pub mode: KeyEnv,
    /// Modes this deployment has a key for (both: the switch is offered).
    pub modes: Vec<KeyEnv>,
    /// May switch `mode`: admins, and operators when the organization
    /// allows it (`orgs::ModeSwitch`).
    pub can_switch_mode: bool,
    pub can_rotate_keys: bool,
    /// Problem with the active key the Worker has seen, for a "rotate the
    /// key" banner: `AUTH.KEY.REVOKED` or `AUTH.KEY.EXPIRED`.
    pub key_problem: Option<ErrorCode>,
    /// Unix seconds when the session ends.
    pub expires_at: u64,
    /// The shipping service behind the deployment, as merchants know it.
    pub service: Service,
}

/// The upstream shipping service as the deployment names it
/// (`SERVICE_NAME`, `SERVICE_DASHBOARD_URL`), so the dashboard can send
/// merchants to "its dashboard" by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Service {
    /// Used mid-sentence, as in "Check NAME's dashboard".
    pub name: String,
    /// An `https://` URL of the service's own dashboard, when set.
    pub dashboard_url: Option<String>,
}

impl Service {
    /// The name when `SERVICE_NAME` is unset: mid-sentence it reads as
    /// plain words ("Check the shipping service's dashboard").
    pub const DEFAULT_NAME: &str = "the shipping service";

    /// "NAME's dashboard".
    pub fn dashboard(&self) -> String {
        format!("{}'s dashboard", self.name)
    }
}

/// `PUT /api/session/mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeRequest {
    pub mode: KeyEnv,
}

/// One configured key, never its value: only `svc_live_…1234`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyInfo {
    pub slot: KeySlot,
    pub redacted: String,
    pub active: bool,
}

/// One mode's keys and what the Worker knows about them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeKeys {
    pub mode: KeyEnv,
    pub keys: Vec<KeyInfo>,
    /// The active key's scopes as last known (configuration, then upstream 403s).
    pub scopes: Vec<Scope>,
    /// `AUTH.KEY.REVOKED` / `AUTH.KEY.EXPIRED` seen on the active key.
    pub problem: Option<ErrorCode>,
}

/// `GET /api/keys`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeysStatus {
    pub modes: Vec<ModeKeys>,
}

/// `POST /api/keys/{mode}/verify`: one read call upstream with the `next` key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyVerification {
    pub mode: KeyEnv,
    pub ok: bool,
    /// The upstream's error code when `ok` is false.
    pub code: Option<ErrorCode>,
    pub message: String,
}

/// One endpoint's per-minute budget as the upstream last reported it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitSeen {
    /// The route pattern, e.g. `POST /v1/rates`.
    pub endpoint: String,
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds when the window resets.
    pub reset_at: u64,
}

/// `GET /api/limits`: for the session's mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LimitsSnapshot {
    pub mode: KeyEnv,
    pub limits: Vec<LimitSeen>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_round_trip_by_name() {
        for role in Role::ALL {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role));
            assert_eq!(serde_json::to_string(&role).unwrap(), format!("\"{role}\""));
        }
        assert!("root".parse::<Role>().is_err());
    }
}
