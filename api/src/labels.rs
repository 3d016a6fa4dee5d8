use serde::{Deserialize, Serialize};

use crate::validation::BodyError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuyLabelRequest {
    pub rate_id: String,
}

/// Our addition to `POST /v1/labels` (whose body is only `rate_id`): the
/// merchant's reference for the label (an order number), percent-encoded
/// UTF-8 as `encodeURIComponent` writes it. Our Worker checks it before
/// anything is bought and records it in the organization's ledger with
/// the label; it is never sent to the service.
pub const REFERENCE_HEADER: &str = "Parcel-Reference";

/// A purchase's reference, its header decoded: trimmed, `None` when blank;
/// refused, naming the header, past a batch row's 100 characters or with
/// control characters (the rule of a batch row's reference).
pub fn purchase_reference(decoded: &str) -> Result<Option<String>, BodyError> {
    let reference = decoded.trim();
    if reference.is_empty() {
        return Ok(None);
    }
    match crate::jobs::reference_problem(reference) {
        None => Ok(Some(reference.to_string())),
        Some(problem) => Err(problem.to_body_error(REFERENCE_HEADER.into())),
    }
}

/// A bought label (part 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    pub id: String,
    pub tracking_number: String,
    pub label_url: String,
    pub carrier: String,
    pub service: String,
    pub rate_cents: i64,
    pub sandbox: bool,
    pub wallet_balance_after_cents: i64,
    /// Unix seconds the service made the label. Not in v1's Label table:
    /// the simulator sends it (the event's "other label fields"); the
    /// ledger uses it as the label's time when present, else its receipt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<u64>,
}

crate::names! {
    /// The void status of a label (field name and values are our choice).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum VoidStatus {
        /// Never voided.
        None = "none",
        /// A void was requested and the carrier has not confirmed it yet.
        Requested = "requested",
        /// The carrier confirmed; the label cannot be used and was refunded.
        Voided = "voided",
    }
}

/// `GET /v1/labels/{id}`: the label plus its state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelDetails {
    #[serde(flatten)]
    pub label: Label,
    pub void_status: VoidStatus,
    /// True once the carrier scanned the package (a void is then ineligible).
    /// (Its `created_at` is the label's.)
    pub scanned: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracker_id: Option<String>,
}

/// `DELETE /v1/labels/{id}` (body shape is our choice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VoidResponse {
    pub id: String,
    pub void_status: VoidStatus,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_purchase_reference_is_trimmed_optional_and_bounded_like_a_batch_row_s() {
        assert_eq!(
            purchase_reference("  #1042 ").unwrap().as_deref(),
            Some("#1042")
        );
        assert_eq!(purchase_reference(" \t ").unwrap(), None);
        let hundred = "é".repeat(100);
        assert_eq!(purchase_reference(&hundred).unwrap(), Some(hundred));
        for refused in ["x".repeat(101), "a\nb".to_string()] {
            let Err(BodyError::Invalid { field, reason }) = purchase_reference(&refused) else {
                panic!("{refused:?} accepted")
            };
            assert_eq!(field, REFERENCE_HEADER);
            assert!(reason.contains("100 characters"), "{reason}");
        }
    }
}
