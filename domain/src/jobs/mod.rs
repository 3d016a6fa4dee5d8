//! Batch jobs (`api::jobs`): up to 5,000 labels from one import, bought by
//! the Worker within the key's limits and the rates' 15-minute validity,
//! durably and exactly once. Each job is a `BatchJob` Durable Object
//! (`edge/src/jobs/object.rs`, SQLite) that runs [`engine`]'s plan from alarms; `plan`
//! decides which rate a row buys, the pace and the chunk size; `results`
//! writes the CSV; `edge/src/jobs/` serves the endpoints (the PDF Worker, `pdf/`,
//! makes the merged label PDFs).

pub mod engine;
mod error;
pub mod plan;
pub mod results;
pub mod runner;
pub mod settings;

use api::KeyEnv;
use api::jobs::{Job, RowState, RowsPage};
use serde::{Deserialize, Serialize};

pub use error::JobError;

use crate::objects::Object;

/// Where a job object takes a live feed's WebSocket.
pub const LIVE_URL: &str = "https://object/live";

/// A job's id: `job_` and 24 hex digits; also its object's name.
pub fn is_job_id(id: &str) -> bool {
    id.strip_prefix("job_")
        .is_some_and(|hex| hex.len() == 24 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// The job objects' protocol.
pub struct Jobs;

impl Object for Jobs {
    const BINDING: &'static str = "JOBS";
    type Request = JobCall;
    type Error = JobError;
    fn unavailable() -> JobError {
        JobError::Unavailable
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobCall {
    Create(Create),
    Get(Get),
    Rows(Rows),
    Act(Act),
    Results(Results),
    Labels(Labels),
}

/// Store a checked job (nothing is sent until `start`).
#[derive(Debug, Serialize, Deserialize)]
pub struct Create {
    pub id: String,
    pub org: api::orgs::OrgId,
    /// The `CreateJob` body as the endpoint read and checked it. The object
    /// reads it with the same parser: a typed field here would compile a
    /// second serializer and deserializer of up to 5,000 rows into the wasm.
    pub request: String,
    pub mode: KeyEnv,
    pub created_by: String,
    /// The key's rates limit as last seen by the Worker (part 8's until then).
    pub rates_limit: Option<u32>,
    /// `BATCH_RATES_SHARE`.
    pub rates_share: f64,
    /// `BATCH_MAX_CHUNK_ROWS`.
    pub max_chunk_rows: u32,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Get {}

#[derive(Debug, Serialize, Deserialize)]
pub struct Rows {
    pub state: Option<RowState>,
    pub offset: u32,
    pub limit: u32,
}

/// A merchant's action; the reply is the job, or why the action does not apply.
#[derive(Debug, Serialize, Deserialize)]
pub struct Act {
    pub action: engine::Action,
}

/// The job's answer to an action.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Acted {
    Done {
        job: Box<Job>,
    },
    Refused {
        reason: String,
    },
    /// No job by this id.
    Missing,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Results {}

/// The label PDFs' sources for one merged file.
#[derive(Debug, Serialize, Deserialize)]
pub struct Labels {
    pub chunk: Option<u32>,
    pub part: u32,
}

crate::calls! {
    JobCall for Jobs:
    Create(Create) => Job,
    Get(Get) => Option<Job>,
    Rows(Rows) => Option<RowsPage>,
    Act(Act) => Acted,
    Results(Results) => Option<String>,
    Labels(Labels) => Option<Vec<(String, String)>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_ids() {
        assert!(is_job_id("job_0123456789abcdef01234567"));
        for bad in [
            "job_",
            "job_xyz",
            "lbl_0123456789abcdef01234567",
            "job_0123456789abcdef0123456",
        ] {
            assert!(!is_job_id(bad), "{bad}");
        }
    }
}
