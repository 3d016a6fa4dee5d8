use serde::{Deserialize, Serialize};

/// `POST /v1/trackers` body (our choice): the tracking number to follow, and
/// optionally the carrier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateTrackerRequest {
    pub tracking_number: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carrier: Option<String>,
}

crate::names! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum TrackerStatus {
        PreTransit = "pre_transit",
        InTransit = "in_transit",
        OutForDelivery = "out_for_delivery",
        Delivered = "delivered",
        Unknown = "unknown",
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrackerEvent {
    pub status: TrackerStatus,
    pub message: String,
    pub location: String,
    /// Unix seconds.
    pub occurred_at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tracker {
    pub id: String,
    pub tracking_number: String,
    pub carrier: String,
    pub status: TrackerStatus,
    /// Oldest first.
    pub events: Vec<TrackerEvent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_delivery: Option<String>,
}
