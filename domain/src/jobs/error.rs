//! Why a batch job's call or download was refused.

use api::jobs::JobRequestError;
use api::{ApiError, ErrorCode};

use crate::errors::{BadBody, Failure};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobError {
    /// The job object did not answer.
    Unavailable,
    NotFound {
        id: String,
    },
    /// The action does not apply to the job as it is (why, for the merchant).
    ActionRefused {
        reason: String,
    },
    /// A job request's rows refused before anything is stored.
    Rows {
        code: ErrorCode,
        message: String,
        field: String,
    },
    /// The request's body as a whole.
    Body(BadBody),
    /// No bought label in that part of the job.
    LabelsNone {
        part: u32,
    },
    /// A label's PDF could not be fetched or read for a merged file.
    LabelPdf {
        reference: String,
    },
    /// The PDF Worker did not merge the labels (unreachable, or it failed).
    PrintUnavailable,
}

/// A job request's refusal as the Worker answers it.
impl From<JobRequestError> for JobError {
    fn from(e: JobRequestError) -> JobError {
        match e {
            JobRequestError::NoRows => JobError::Rows {
                code: ErrorCode::BatchItemsRequired,
                message: "The import has no rows.".into(),
                field: "rows".into(),
            },
            JobRequestError::TooManyRows { rows } => JobError::Rows {
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
            } => JobError::Rows {
                code: ErrorCode::ValidationFieldInvalid,
                message: format!(
                    "Rows {first} and {index} have the same reference {reference:?}; each row needs its own."
                ),
                field: format!("rows[{index}].reference"),
            },
            JobRequestError::Body(e) => JobError::Body(BadBody::Invalid(e)),
        }
    }
}

const BOUGHT_UNCHANGED: &str =
    "The labels are bought and unchanged: try the download again in a minute.";

impl Failure for JobError {
    fn code(&self) -> ErrorCode {
        match self {
            JobError::Unavailable => ErrorCode::EdgeJobUnavailable,
            JobError::NotFound { .. } => ErrorCode::EdgeJobNotFound,
            JobError::ActionRefused { .. } => ErrorCode::EdgeJobActionRefused,
            JobError::Rows { code, .. } => code.clone(),
            JobError::Body(e) => e.code(),
            JobError::LabelsNone { .. } => ErrorCode::EdgeJobNoLabels,
            JobError::LabelPdf { .. } => ErrorCode::EdgeJobLabelPdfUnavailable,
            JobError::PrintUnavailable => ErrorCode::EdgeJobPrintUnavailable,
        }
    }

    fn message(&self) -> String {
        match self {
            JobError::Unavailable => {
                "The batch job could not be reached; nothing was sent for it.".to_string()
            }
            JobError::NotFound { id } => format!("There is no batch job {id} in this mode."),
            JobError::ActionRefused { reason } => reason.clone(),
            JobError::Rows { message, .. } => message.clone(),
            JobError::Body(e) => e.message(),
            JobError::LabelsNone { part } => {
                format!("Part {part} of this job has no bought label yet.")
            }
            JobError::LabelPdf { reference } => {
                format!("The label PDF of row {reference} could not be fetched or read.")
            }
            JobError::PrintUnavailable => {
                "The labels could not be merged into one PDF just now.".to_string()
            }
        }
    }

    fn suggestion(&self) -> String {
        match self {
            JobError::Unavailable => "Try again in a moment: the job keeps its state.".to_string(),
            JobError::NotFound { .. } => "Open the jobs list; jobs of the other mode (live or sandbox) show there when you switch.".to_string(),
            JobError::ActionRefused { .. } => "Reload the job to see where it stands.".to_string(),
            JobError::Rows { field, .. } => {
                format!("Correct {field} and upload the rows again; nothing was bought.")
            }
            JobError::Body(e) => e.suggestion(),
            JobError::LabelsNone { .. } => "Download the parts listed on the job; each holds 100 labels in row order.".to_string(),
            JobError::LabelPdf { .. } | JobError::PrintUnavailable => BOUGHT_UNCHANGED.to_string(),
        }
    }

    fn detail(&self, error: ApiError) -> ApiError {
        match self {
            JobError::Rows { field, .. } => error.with_field(field.clone()),
            JobError::Body(e) => e.detail(error),
            _ => error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Failure;

    #[test]
    fn refusals_name_the_rows() {
        let e = JobError::from(JobRequestError::TooManyRows { rows: 5001 });
        let body = e.to_api_error("req");
        assert_eq!(body.code, ErrorCode::BatchSizeExceeded);
        assert!(body.message.contains("5001"), "{}", body.message);
        assert_eq!(body.field.as_deref(), Some("rows"));
    }
}
