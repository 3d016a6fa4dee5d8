//! What the main Worker asks the PDF Worker over its `PDF` service binding:
//! `POST` [`PRINT_URL`] with a [`PrintRequest`] (JSON). The answer is the
//! merged PDF (200, [`PDF_TYPE`]) or why there is none ([`Unprinted`],
//! JSON, with a 4xx or 5xx status).

use serde::{Deserialize, Serialize};

/// Where a print is asked for (a service binding ignores the host).
pub const PRINT_URL: &str = "https://parcel-pdf/print";
pub const PRINT_PATH: &str = "/print";
pub const PDF_TYPE: &str = "application/pdf";

/// One merged file of a job's labels. No `Debug`: it carries the key.
#[derive(Serialize, Deserialize)]
pub struct PrintRequest {
    /// The job: its labels and files are kept together, one Durable Object
    /// per job.
    pub job: String,
    /// The file's place in the job ([`slot`]): a newer file there replaces
    /// the older.
    pub slot: String,
    /// The labels, in the file's order.
    pub labels: Vec<LabelSource>,
    /// The key, for the labels with `with_key`; used for those fetches
    /// only, never stored.
    pub key: Option<String>,
    /// How long one label's fetch may take.
    pub timeout_ms: u32,
}

/// One label of the file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelSource {
    /// Its row's reference: named when its PDF cannot be had.
    pub reference: String,
    /// Its PDF (`label_url`).
    pub url: String,
    /// Whether the key goes with its fetch (the file is on the service's
    /// own origin; the main Worker decides, `edge::label_pdf::pdf_source`).
    pub with_key: bool,
}

/// Why no file came back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unprinted {
    /// This row's label PDF could not be fetched, or read by the merge.
    LabelUnavailable { reference: String },
    /// The print could not be made (a malformed request, storage): why,
    /// for the operator's log.
    Failed { reason: String },
}

/// The slot of `part` (1-based) of the job, or of one of its chunks.
pub fn slot(chunk: Option<u32>, part: u32) -> String {
    match chunk {
        Some(c) => format!("chunk {c} part {part}"),
        None => format!("part {part}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_part_of_the_job_and_of_a_chunk_has_its_own_slot() {
        assert_eq!(slot(None, 2), "part 2");
        assert_eq!(slot(Some(3), 1), "chunk 3 part 1");
        assert_ne!(slot(None, 1), slot(Some(1), 1));
    }
}
