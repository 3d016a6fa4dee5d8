use serde::{Deserialize, Serialize};

use crate::address::Address;
use crate::parcel::Parcel;

pub const MAX_BATCH_ITEMS: usize = 5000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BatchItem {
    pub from_address: Address,
    pub to_address: Address,
    pub parcel: Parcel,
    pub rate_id: String,
    pub carrier: String,
    pub service: String,
    pub rate_cents: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CreateBatchRequest {
    pub items: Vec<BatchItem>,
}

/// `POST /v1/batches/{id}/buy` body (our choice; the interface shows none):
/// optional; when sent, a JSON object, whose fields are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BuyBatchRequest {}

/// Batch states (names are our choice).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BatchState {
    /// Created and paid; `buy` not called yet.
    Created,
    Processing,
    Completed,
}

/// The same enum under the name used in the brief (`batch.state` on the wire).
pub type BatchStatus = BatchState;

/// A batch as returned by create and read. Items are not echoed back (a
/// 5,000-item batch would be megabytes); `item_count` and the label ids are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Batch {
    pub id: String,
    pub state: BatchState,
    pub item_count: u32,
    pub total_cost_cents: i64,
    pub wallet_balance_after_cents: i64,
    pub estimated_completion_percentage: u32,
    pub estimated_time_remaining_seconds: u64,
    pub labels_created: u32,
    #[serde(default)]
    pub label_ids: Vec<String>,
    pub sandbox: bool,
}
