//! What the Worker keeps across isolates, in one SQLite-backed Durable
//! Object per organization (class `EdgeControl`, `edge/src/control/store.rs`, named by
//! `orgs::object_name`): signed-out sessions (until they
//! would have expired anyway), the active key of each mode during a
//! rotation, and the revoked/expired state of keys seen upstream. This is
//! its protocol; `edge/src/control.rs` calls it, fronted by what this isolate last read
//! (`session_checks`, `active_keys`).

pub mod active_keys;
pub mod session_checks;

use api::jobs::JobSummary;
use api::{ErrorCode, KeyEnv};
use serde::{Deserialize, Serialize};

use crate::errors::Failure;
use crate::objects::Object;

pub struct Control;

/// The control store (sessions, active keys) did not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlUnavailable;

impl Failure for ControlUnavailable {
    fn code(&self) -> ErrorCode {
        ErrorCode::EdgeControlUnavailable
    }
    fn message(&self) -> String {
        "Parcel could not reach its session store; nothing was sent.".to_string()
    }
    fn suggestion(&self) -> String {
        "Try again in a moment.".to_string()
    }
}

impl Object for Control {
    const BINDING: &'static str = "CONTROL";
    type Request = ControlCall;
    type Error = ControlUnavailable;
    fn unavailable() -> ControlUnavailable {
        ControlUnavailable
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ControlCall {
    Revoke(Revoke),
    IsRevoked(IsRevoked),
    ActiveKey(ActiveKey),
    Activate(Activate),
    ReportProblem(ReportProblem),
    Problem(Problem),
    RecordJob(RecordJob),
    ListJobs(ListJobs),
}

/// A job's summary for the jobs list (upserted as the job changes), as
/// JSON text: the store reads it with the parser it lists jobs with, not
/// with a second deserializer compiled for the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordJob {
    pub job: String,
}

/// The jobs of one mode, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListJobs {
    pub mode: KeyEnv,
}

/// The jobs list keeps this many jobs per mode (the newest).
pub const JOBS_KEPT: u32 = 500;

/// Sign a session out everywhere (kept until it would have expired).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revoke {
    pub sid: String,
    pub expires_at: u64,
}

/// Whether a session was signed out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IsRevoked {
    pub sid: String,
}

/// The fingerprint of the mode's activated key, if a rotation activated one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveKey {
    pub mode: KeyEnv,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activate {
    pub mode: KeyEnv,
    pub fingerprint: String,
}

/// A revoked or expired key never recovers, so this is never cleared;
/// rotating to a new key (a new fingerprint) ends the alert.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportProblem {
    pub fingerprint: String,
    pub code: ErrorCode,
}

/// The problem reported for a key, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    pub fingerprint: String,
}

crate::calls! {
    ControlCall for Control:
    Revoke(Revoke) => (),
    IsRevoked(IsRevoked) => bool,
    ActiveKey(ActiveKey) => Option<String>,
    Activate(Activate) => (),
    ReportProblem(ReportProblem) => (),
    Problem(Problem) => Option<ErrorCode>,
    RecordJob(RecordJob) => (),
    ListJobs(ListJobs) => Vec<JobSummary>,
}

/// Upstream codes that mean the key must be replaced.
pub fn is_key_problem(code: &ErrorCode) -> bool {
    matches!(code, ErrorCode::AuthKeyRevoked | ErrorCode::AuthKeyExpired)
}
