//! Batch jobs (`api::jobs`): up to 5,000 labels from one import, bought by
//! the Worker within the key's limits and the rates' 15-minute validity,
//! durably and exactly once. Each job is a `BatchJob` Durable Object
//! (`object`, SQLite) that runs [`engine`]'s plan from alarms; `plan`
//! decides which rate a row buys, the pace and the chunk size; `results`
//! writes the CSV; `glue` serves the endpoints (the PDF Worker, `pdf/`,
//! makes the merged label PDFs).

pub mod engine;
pub mod plan;
pub mod results;
pub mod runner;

use api::jobs::{Job, JobRequestError, RowState, RowsPage};
use api::{ErrorCode, KeyEnv};
use serde::{Deserialize, Serialize};

use crate::errors::EdgeError;
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
    fn unavailable() -> EdgeError {
        EdgeError::JobUnavailable
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
    /// The `CreateJob` body as the glue read and checked it. The object
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

/// A job request's refusal as the Worker answers it.
pub fn request_error(e: JobRequestError) -> EdgeError {
    match e {
        JobRequestError::NoRows => EdgeError::JobRows {
            code: ErrorCode::BatchItemsRequired,
            message: "The import has no rows.".into(),
            field: "rows".into(),
        },
        JobRequestError::TooManyRows { rows } => EdgeError::JobRows {
            code: ErrorCode::BatchSizeExceeded,
            message: format!(
                "The import has {rows} rows; a job takes at most {}.",
                api::jobs::MAX_ROWS
            ),
            field: "rows".into(),
        },
        JobRequestError::DuplicateReference {
            index,
            first,
            reference,
        } => EdgeError::JobRows {
            code: ErrorCode::ValidationFieldInvalid,
            message: format!(
                "Rows {first} and {index} have the same reference {reference:?}; each row needs its own."
            ),
            field: format!("rows[{index}].reference"),
        },
        JobRequestError::Body(e) => EdgeError::InvalidBody(e),
    }
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

    #[test]
    fn refusals_name_the_rows() {
        let e = request_error(JobRequestError::TooManyRows { rows: 5001 });
        let body = e.to_api_error("req");
        assert_eq!(body.code, ErrorCode::BatchSizeExceeded);
        assert!(body.message.contains("5001"), "{}", body.message);
        assert_eq!(body.field.as_deref(), Some("rows"));
    }
}
