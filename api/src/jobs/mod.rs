//! Batch jobs: the Worker's own API (not v1) for buying up to 5,000 labels
//! from one import. The Worker runs each job in a Durable Object of its
//! own: it quotes the rows (paced under the key's rates limit), buys them
//! through v1 batches in chunks whose rates are still valid, never sends a
//! batch twice, and keeps every row's state. Stated here once so the
//! dashboard and the Worker cannot disagree.
//!
//! | Method and path                     | Who                     | Body → answer |
//! |-------------------------------------|-------------------------|---------------|
//! | `POST /api/jobs`                    | batches:write + rates:read | [`CreateJob`] → 201 [`Job`] |
//! | `GET /api/jobs`                     | batches:read            | → [`JobList`] |
//! | `GET /api/jobs/{id}`                | batches:read            | → [`Job`] |
//! | `GET /api/jobs/{id}/rows`           | batches:read            | `?state=&offset=&limit=` → [`RowsPage`] |
//! | `POST /api/jobs/{id}/start`         | batches:write + rates:read | → [`Job`] (quoting begins) |
//! | `POST /api/jobs/{id}/approve`       | batches:write + rates:read | → [`Job`] (review mode: buy the approved prices) |
//! | `POST /api/jobs/{id}/decide`        | batches:write + rates:read | [`Decide`] → [`Job`] |
//! | `POST /api/jobs/{id}/retry`         | batches:write + rates:read | → [`Job`] (failed rows, as a new chunk; never released ones) |
//! | `POST /api/jobs/{id}/release`       | batches:write + rates:read | → [`Job`] (see [`JobProblem::OutcomeUnknown`]) |
//! | `POST /api/jobs/{id}/retry-released` | batches:write + rates:read | [`RetryReleased`] → [`Job`] (named released rows, acknowledged) |
//! | `POST /api/jobs/{id}/cancel`        | batches:write + rates:read | → [`Job`] |
//! | `GET /api/jobs/{id}/live`           | batches:read            | WebSocket: one [`JobUpdate`] per change |
//! | `GET /api/jobs/{id}/results.csv`    | batches:read            | → CSV, one line per row ([`RESULT_COLUMNS`]) |
//! | `GET /api/jobs/{id}/labels.pdf`     | batches:read + labels:read | `?part=N` (100 labels each, row order) or `?chunk=N` → PDF |

use serde::{Deserialize, Serialize};

use crate::address::{Address, FieldProblem};
use crate::batches::MAX_BATCH_ITEMS;
use crate::parcel::Parcel;
use crate::validation::BodyError;

pub const JOBS_PATH: &str = "/api/jobs";
pub const JOB_PATH: &str = "/api/jobs/{id}";
pub const JOB_ROWS_PATH: &str = "/api/jobs/{id}/rows";
pub const JOB_START_PATH: &str = "/api/jobs/{id}/start";
pub const JOB_APPROVE_PATH: &str = "/api/jobs/{id}/approve";
pub const JOB_DECIDE_PATH: &str = "/api/jobs/{id}/decide";
pub const JOB_RETRY_PATH: &str = "/api/jobs/{id}/retry";
pub const JOB_RELEASE_PATH: &str = "/api/jobs/{id}/release";
pub const JOB_RETRY_RELEASED_PATH: &str = "/api/jobs/{id}/retry-released";
pub const JOB_CANCEL_PATH: &str = "/api/jobs/{id}/cancel";
pub const JOB_LIVE_PATH: &str = "/api/jobs/{id}/live";
pub const JOB_RESULTS_PATH: &str = "/api/jobs/{id}/results.csv";
pub const JOB_LABELS_PATH: &str = "/api/jobs/{id}/labels.pdf";

/// At most this many rows per job: a v1 batch's maximum.
pub const MAX_ROWS: usize = MAX_BATCH_ITEMS;
/// A merged labels PDF holds at most this many labels.
pub const LABELS_PER_PDF: usize = 100;
/// A page of rows holds at most this many.
pub const MAX_PAGE_ROWS: u32 = 1000;
/// A row's reference (the merchant's order number) is at most this long.
pub const MAX_REFERENCE_CHARS: usize = 100;
/// A job's name (the imported file's) is at most this long: file names
/// stop at 255. The jobs list carries every name, so a name is kept short.
pub const MAX_NAME_CHARS: usize = 255;
/// A named carrier or service ([`Rule::Service`]) is at most this long.
pub const MAX_SERVICE_CHARS: usize = 100;

/// The results CSV's columns, in order.
pub const RESULT_COLUMNS: [&str; 10] = [
    "reference",
    "status",
    "tracking_number",
    "label_id",
    "carrier",
    "service",
    "rate_cents",
    "carbon_grams",
    "error_code",
    "error",
];

/// What is wrong with a row's reference, if anything (the dashboard checks
/// imports with it before anything is sent).
pub fn reference_problem(reference: &str) -> Option<FieldProblem> {
    let reference = reference.trim();
    if reference.is_empty() {
        Some(FieldProblem::Missing)
    } else if reference.chars().count() > MAX_REFERENCE_CHARS
        || reference.chars().any(char::is_control)
    {
        Some(FieldProblem::Invalid(
            "must be at most 100 characters, without control characters",
        ))
    } else {
        None
    }
}

/// One shipment of an import, as the dashboard uploads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobRow {
    /// The merchant's reference (an order number): unique within the job;
    /// results come back under it.
    pub reference: String,
    pub from_address: Address,
    pub to_address: Address,
    pub parcel: Parcel,
}

impl JobRow {
    /// The row's first problem, as the v1 validation error, its field
    /// under `rows[i]` (`rows[17].to_address.zip`).
    pub fn check(&self, index: usize) -> Result<(), BodyError> {
        let at = |field: &str| format!("rows[{index}].{field}");
        if let Some(problem) = reference_problem(&self.reference) {
            return Err(problem.to_body_error(at("reference")));
        }
        self.from_address.check(&at("from_address"))?;
        self.to_address.check(&at("to_address"))?;
        if let Some((field, reason)) = self.parcel.invalid_field() {
            return Err(BodyError::Invalid {
                field: at(&format!("parcel.{field}")),
                reason: reason.to_string(),
            });
        }
        Ok(())
    }
}

/// Which of a shipment's rates a row buys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Rule {
    Cheapest,
    /// The earliest delivery date; the cheaper of equals.
    Fastest,
    /// The least carbon; the cheaper of equals.
    LowestCarbon,
    /// A named carrier and service; when the shipment has no such rate, the fallback.
    Service {
        carrier: String,
        service: String,
        fallback: Fallback,
    },
}

crate::names! {
    /// What a [`Rule::Service`] row buys when its service is not offered.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Fallback {
        Cheapest = "cheapest",
        Fastest = "fastest",
        LowestCarbon = "lowest_carbon",
        /// Nothing: the row fails, saying the service is not offered.
        None = "none",
    }
}

/// How prices are approved before money is spent. Chosen before starting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "approval", rename_all = "snake_case")]
pub enum Approval {
    /// One pass quotes every row; the job then waits for approval of the
    /// total. At buy time a row whose quote aged out is re-quoted and bought
    /// only if it is not dearer than approved; otherwise it waits for a decision.
    ReviewFirst,
    /// Rows are bought as quoted, within a ceiling per row (a dearer row
    /// waits for a decision) and in total (the job pauses at it).
    BuyAsQuoted {
        max_row_cents: i64,
        max_total_cents: i64,
    },
}

/// `POST /api/jobs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateJob {
    /// A name for the jobs list (the file name, say).
    #[serde(default)]
    pub name: Option<String>,
    pub rule: Rule,
    pub approval: Approval,
    pub rows: Vec<JobRow>,
}

impl CreateJob {
    /// Every rule of a job request, before anything is stored or spent: 1
    /// to [`MAX_ROWS`] rows, each valid, references unique, ceilings positive.
    pub fn check(&self) -> Result<(), JobRequestError> {
        if self.rows.is_empty() {
            return Err(JobRequestError::NoRows);
        }
        if self.rows.len() > MAX_ROWS {
            return Err(JobRequestError::TooManyRows {
                rows: self.rows.len(),
            });
        }
        let too_long = |field: &str, text: &str, max| match FieldProblem::length(text, max) {
            Some(problem) => Err(JobRequestError::Body(problem.to_body_error(field.into()))),
            None => Ok(()),
        };
        too_long(
            "name",
            self.name.as_deref().unwrap_or_default(),
            MAX_NAME_CHARS,
        )?;
        if let Approval::BuyAsQuoted {
            max_row_cents,
            max_total_cents,
        } = self.approval
        {
            for (field, cents) in [
                ("approval.max_row_cents", max_row_cents),
                ("approval.max_total_cents", max_total_cents),
            ] {
                if cents <= 0 {
                    return Err(JobRequestError::Body(BodyError::Invalid {
                        field: field.into(),
                        reason: "must be a positive number of cents".into(),
                    }));
                }
            }
        }
        if let Rule::Service {
            carrier, service, ..
        } = &self.rule
        {
            for (field, value) in [("rule.carrier", carrier), ("rule.service", service)] {
                if value.trim().is_empty() {
                    return Err(JobRequestError::Body(BodyError::Required {
                        field: field.into(),
                    }));
                }
                too_long(field, value, MAX_SERVICE_CHARS)?;
            }
        }
        let mut seen = std::collections::HashMap::with_capacity(self.rows.len());
        for (index, row) in self.rows.iter().enumerate() {
            row.check(index).map_err(JobRequestError::Body)?;
            if let Some(first) = seen.insert(row.reference.trim(), index) {
                return Err(JobRequestError::DuplicateReference {
                    index,
                    first,
                    reference: row.reference.trim().to_string(),
                });
            }
        }
        Ok(())
    }
}

/// Why a job request was refused (nothing stored, nothing spent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobRequestError {
    /// `BATCH.ITEMS.REQUIRED`.
    NoRows,
    /// `BATCH.SIZE.EXCEEDED`, with the count.
    TooManyRows { rows: usize },
    DuplicateReference {
        index: usize,
        first: usize,
        reference: String,
    },
    /// A field of the request or of a row (`rows[17].to_address.zip`).
    Body(BodyError),
}

mod view;
pub use view::*;

#[cfg(test)]
mod tests {
    use super::*;

    fn address(name: &str) -> Address {
        Address {
            name: name.into(),
            street1: "1 Main St".into(),
            street2: None,
            city: "Springfield".into(),
            state: "IL".into(),
            zip: "62701".into(),
            country: "US".into(),
            phone: None,
            email: None,
        }
    }

    fn row(reference: &str) -> JobRow {
        JobRow {
            reference: reference.into(),
            from_address: address("Shop"),
            to_address: address("Ada"),
            parcel: Parcel {
                weight_oz: 10.0,
                length: 6.0,
                width: 4.0,
                height: 2.0,
            },
        }
    }

    fn job(rows: Vec<JobRow>) -> CreateJob {
        CreateJob {
            name: None,
            rule: Rule::Cheapest,
            approval: Approval::ReviewFirst,
            rows,
        }
    }

    #[test]
    fn a_job_is_1_to_5000_valid_rows_with_unique_references() {
        assert_eq!(job(vec![]).check(), Err(JobRequestError::NoRows));
        let many: Vec<JobRow> = (0..=MAX_ROWS).map(|i| row(&format!("#{i}"))).collect();
        assert_eq!(
            job(many).check(),
            Err(JobRequestError::TooManyRows { rows: 5001 })
        );
        assert_eq!(job(vec![row("#1"), row("#2")]).check(), Ok(()));
        assert_eq!(
            job(vec![row("#1"), row("#2"), row(" #1 ")]).check(),
            Err(JobRequestError::DuplicateReference {
                index: 2,
                first: 0,
                reference: "#1".into()
            })
        );
        let mut bad = row("#3");
        bad.to_address.country = "USA".into();
        let Err(JobRequestError::Body(e)) = job(vec![row("#1"), bad]).check() else {
            panic!("USA accepted")
        };
        assert_eq!(e.field(), "rows[1].to_address.country");
        let mut heavy = row("#4");
        heavy.parcel.weight_oz = 0.0;
        let Err(JobRequestError::Body(e)) = job(vec![heavy]).check() else {
            panic!("0 oz accepted")
        };
        assert_eq!(e.field(), "rows[0].parcel.weight_oz");
        let Err(JobRequestError::Body(e)) = job(vec![row(" ")]).check() else {
            panic!("blank reference accepted")
        };
        assert_eq!(e.field(), "rows[0].reference");
        let Some(FieldProblem::Invalid(reason)) = reference_problem(&"x".repeat(101)) else {
            panic!("101 characters accepted")
        };
        assert!(reason.contains(&MAX_REFERENCE_CHARS.to_string()));
        assert_eq!(reference_problem(&"x".repeat(100)), None);
    }

    #[test]
    fn ceilings_must_be_positive() {
        let mut j = job(vec![row("#1")]);
        j.approval = Approval::BuyAsQuoted {
            max_row_cents: 0,
            max_total_cents: 100,
        };
        let Err(JobRequestError::Body(e)) = j.check() else {
            panic!("zero ceiling accepted")
        };
        assert_eq!(e.field(), "approval.max_row_cents");
    }

    /// Issue 19, defect g: a 3 MiB name or a 2.5 MiB `street2` passed the
    /// checks, then failed in the job's object (SQLITE_TOOBIG) as a 503
    /// "try again" that never helped.
    #[test]
    fn defect_g_unbounded_text_is_refused_naming_the_field_and_its_limit() {
        let mut big_name = job(vec![row("#1")]);
        big_name.name = Some("n".repeat(3 * 1024 * 1024));
        let Err(JobRequestError::Body(e)) = big_name.check() else {
            panic!("a 3 MiB name accepted")
        };
        assert_eq!(e.field(), "name");
        assert!(
            e.message().contains("at most 255 characters"),
            "{}",
            e.message()
        );
        big_name.name = Some("n".repeat(255));
        assert_eq!(big_name.check(), Ok(()));

        let mut long_line = row("#2");
        long_line.to_address.street2 = Some("s".repeat(5 * 512 * 1024));
        let Err(JobRequestError::Body(e)) = job(vec![row("#1"), long_line]).check() else {
            panic!("a 2.5 MiB street2 accepted")
        };
        assert_eq!(e.code(), crate::ErrorCode::ValidationFieldInvalid);
        assert_eq!(e.field(), "rows[1].to_address.street2");
        assert!(
            e.message().contains("at most 100 characters"),
            "{}",
            e.message()
        );

        let mut service = job(vec![row("#1")]);
        service.rule = Rule::Service {
            carrier: "Comet Express".into(),
            service: "g".repeat(101),
            fallback: Fallback::None,
        };
        let Err(JobRequestError::Body(e)) = service.check() else {
            panic!("a long service accepted")
        };
        assert_eq!(e.field(), "rule.service");
    }

    #[test]
    fn wire_shapes() {
        let rule = Rule::Service {
            carrier: "Comet Express".into(),
            service: "Ground".into(),
            fallback: Fallback::Cheapest,
        };
        assert_eq!(
            serde_json::to_value(&rule).unwrap(),
            serde_json::json!({"rule":"service","carrier":"Comet Express","service":"Ground","fallback":"cheapest"})
        );
        let approval: Approval = serde_json::from_str(
            r#"{"approval":"buy_as_quoted","max_row_cents":2000,"max_total_cents":100000}"#,
        )
        .unwrap();
        assert!(matches!(approval, Approval::BuyAsQuoted { .. }));
        for state in RowState::ALL {
            assert_eq!(RowState::from_name(state.as_str()), Some(state));
            assert_eq!(
                serde_json::to_value(state).unwrap(),
                serde_json::json!(state.as_str())
            );
        }
    }
}
