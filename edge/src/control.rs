//! What the Worker keeps across isolates, in one SQLite-backed Durable
//! Object (`control_store`): signed-out sessions (until they would have
//! expired anyway), the active key of each mode during a rotation, and the
//! revoked/expired state of keys seen upstream. This is the protocol.

use api::KeyEnv;
use serde::{Deserialize, Serialize};

/// The one instance's name.
pub const INSTANCE: &str = "control";

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ControlCall {
    Revoke {
        sid: String,
        expires_at: u64,
    },
    IsRevoked {
        sid: String,
    },
    ActiveKey {
        mode: KeyEnv,
    },
    Activate {
        mode: KeyEnv,
        fingerprint: String,
    },
    /// A revoked or expired key never recovers, so this is never cleared;
    /// rotating to a new key (a new fingerprint) ends the alert.
    ReportProblem {
        fingerprint: String,
        code: String,
    },
    Problem {
        fingerprint: String,
    },
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControlReply {
    #[serde(default)]
    pub revoked: bool,
    #[serde(default)]
    pub fingerprint: Option<String>,
    #[serde(default)]
    pub problem: Option<String>,
}

/// Upstream codes that mean the key must be replaced.
pub fn is_key_problem(code: &api::ErrorCode) -> bool {
    matches!(
        code,
        api::ErrorCode::AuthKeyRevoked | api::ErrorCode::AuthKeyExpired
    )
}
