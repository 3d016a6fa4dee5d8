//! The inbox's stored labels and refused deliveries as SQLite answers
//! them (numbers arrive as JS numbers), read into the API's types.

use api::Label;
use api::inbox::{LedgerEntry, Receipt, Rejected, SecretSlot};
use serde::Deserialize;

/// The columns a `LabelRow` reads.
pub(super) const LABEL_COLUMNS: &str =
    "json, seen_at, bought_by, first_at, last_at, deliveries, slot";

/// One `labels` row; SQLite numbers arrive as JS numbers.
#[derive(Deserialize)]
pub(super) struct LabelRow {
    json: String,
    seen_at: f64,
    bought_by: Option<String>,
    first_at: Option<f64>,
    last_at: Option<f64>,
    deliveries: f64,
    slot: Option<String>,
}

impl LabelRow {
    pub(super) fn entry(self) -> Option<LedgerEntry> {
        let label: Label = serde_json::from_str(&self.json).ok()?;
        let event = match (self.first_at, self.last_at) {
            (Some(first), Some(last)) if self.deliveries > 0.0 => Some(Receipt {
                first_received_at: first as u64,
                last_received_at: last as u64,
                deliveries: self.deliveries as u32,
                verified_with: if self.slot.as_deref() == Some("next") {
                    SecretSlot::Next
                } else {
                    SecretSlot::Current
                },
            }),
            _ => None,
        };
        Some(LedgerEntry {
            label,
            seen_at: self.seen_at as u64,
            bought_by: self.bought_by,
            event,
        })
    }
}

#[derive(Deserialize)]
pub(super) struct RejectedRow {
    pub(super) id: f64,
    received_at: f64,
    reason: String,
    source_ip: String,
    excerpt: String,
    body_bytes: f64,
}

impl RejectedRow {
    pub(super) fn rejected(self) -> Option<Rejected> {
        Some(Rejected {
            id: self.id as u64,
            received_at: self.received_at as u64,
            reason: serde_json::from_value(serde_json::Value::String(self.reason)).ok()?,
            source_ip: self.source_ip,
            excerpt: self.excerpt,
            body_bytes: self.body_bytes as u64,
        })
    }
}
