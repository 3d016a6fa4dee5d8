//! The dashboard's shipments: each label bought through the product, as
//! its tracker was last read (`GET /api/shipments`, the session's mode).

use serde::{Deserialize, Serialize};

use crate::trackers::{TrackerEvent, TrackerStatus};

pub const SHIPMENTS_PATH: &str = "/api/shipments";
/// `GET` (members who read labels) and `PUT` (admins) the tracking page's [`Brand`].
pub const TRACKING_SETTINGS_PATH: &str = "/api/org/tracking";
/// A shipment's tracking page (`{id}`: the link's segment) and an order's lookup (`{id}`: the organization).
pub const TRACKING_PAGE_PATH: &str = "/t/{id}";
pub const TRACKING_LOOKUP_PATH: &str = "/track/{id}";
/// `GET` and `PUT` (admins) the shop's tracking events: [`ShopEvents`], set by [`EventSettings`].
pub const TRACKING_EVENTS_PATH: &str = "/api/org/tracking/events";
/// `POST` (admins): one delivery of [`ShopEvents::deliveries`] sent again now.
pub const RESEND_EVENT_PATH: &str = "/api/org/tracking/events/{id}";
/// At most this many deliveries per answer, newest first.
pub const DELIVERIES_PAGE: u32 = 50;

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
    /// The shopper's page of this shipment (a path on the Worker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
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

/// The organization's look and contacts for its tracking page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Brand {
    /// The shop's name as shoppers know it.
    pub name: String,
    /// An `https://` image.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo_url: Option<String>,
    /// An `https://` page or a `mailto:` address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub support_url: Option<String>,
    /// `#rgb` or `#rrggbb`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accent: Option<String>,
    /// Corner radius in px, 0 to 24.
    #[serde(default)]
    pub radius: Option<u8>,
    /// A font family name (letters, digits, spaces, hyphens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub font: Option<String>,
    /// `light`, `dark` or `auto` (the reader's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
}

/// `PUT /api/org/tracking/events`: where the shop's events go (`None`
/// stops them), and whether to make a new signing secret (the first URL
/// always makes one).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSettings {
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub new_secret: bool,
}

/// The shop's tracking events: where they go and the newest deliveries.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopEvents {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The signing secret, only in the answer of the change that made it:
    /// it is never shown again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    /// Whether a signing secret exists.
    pub signed: bool,
    /// Newest first, at most [`DELIVERIES_PAGE`].
    #[serde(default)]
    pub deliveries: Vec<Delivery>,
}

crate::names! {
    /// The shop's events, in the order a parcel makes them.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
    pub enum Event {
        InTransit = "shipment.in_transit",
        ArrivingSoon = "shipment.arriving_soon",
        OutForDelivery = "shipment.out_for_delivery",
        Delivered = "shipment.delivered",
    }
}

/// Where one delivery to the shop stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// Not answered with a 2xx yet: its next attempt is due.
    Pending,
    /// Being sent now.
    Sending,
    Delivered,
    /// Five attempts failed.
    Failed,
}

/// One attempt: when, and the shop's HTTP status (`None`: no answer in time).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attempt {
    pub at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Delivery {
    /// The event's id (`sev_…`), also in its body: a shop can drop a copy.
    pub id: String,
    pub event: Event,
    pub label_id: String,
    pub tracking_number: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// Unix seconds the change was seen.
    pub created_at: u64,
    pub state: DeliveryState,
    pub attempts: Vec<Attempt>,
    /// Unix seconds of the next attempt, while pending.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_attempt_at: Option<u64>,
}

/// What the shop receives: `POST` with `parcel-signature` (see
/// docs/tracking.md), one event per body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShopEvent {
    pub id: String,
    pub event: Event,
    /// Unix seconds the change was seen.
    pub created_at: u64,
    pub data: ShipmentMoved,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShipmentMoved {
    pub label_id: String,
    pub tracking_number: String,
    pub carrier: String,
    pub service: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// A label bought with a sandbox key.
    pub sandbox: bool,
    pub status: TrackerStatus,
    /// The shopper's page of this shipment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracking_url: Option<String>,
    /// `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimated_delivery: Option<String>,
    /// Unix seconds of the carrier's newest scan.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scanned_at: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carbon_grams: Option<i64>,
}
