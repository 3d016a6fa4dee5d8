use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuyLabelRequest {
    pub rate_id: String,
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
