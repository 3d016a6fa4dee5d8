//! The dashboard's shipments: each label bought through the product, as
//! its tracker was last read (`GET /api/shipments`, the session's mode).

use serde::{Deserialize, Serialize};

use crate::trackers::{TrackerEvent, TrackerStatus};

pub const SHIPMENTS_PATH: &str = "/api/shipments";

/// At most this many shipments per answer, newest first.
pub const SHIPMENTS_PAGE: u32 = 200;

/// Where following one label stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Following {
    /// Its tracker is not registered yet (being tried again).
    Registering,
    /// Its tracker is read on the status's schedule.
    Following,
    /// Delivered: no more reads.
    Done,
    /// The service refused to track it, or it is past the time labels are followed.
    Stopped,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shipment {
    pub label_id: String,
    pub tracking_number: String,
    pub carrier: String,
    pub service: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Unix seconds.
    pub bought_at: u64,
    pub following: Following,
    /// As last read; `None` before the first read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<TrackerStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracker_id: Option<String>,
    /// Unix seconds of the last read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_at: Option<u64>,
    /// `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_delivery: Option<String>,
    /// Oldest first.
    #[serde(default)]
    pub events: Vec<TrackerEvent>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShipmentList {
    pub shipments: Vec<Shipment>,
}
