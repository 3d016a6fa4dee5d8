//! Trackers: registered by tracking number, advancing with the simulated
//! clock after the carrier's scan.

use api::{ErrorCode, KeyEnv, Tracker, TrackerEvent, TrackerStatus};

use super::labels::LabelRecord;
use super::{World, check_mode, sandbox_in_production};
use crate::clock::date;
use crate::errors::SimError;

#[derive(Debug, Clone)]
pub struct TrackerRecord {
    pub id: String,
    pub account: String,
    pub env: KeyEnv,
    pub tracking_number: String,
    pub carrier: String,
    pub label_id: Option<String>,
}

impl World {
    /// Registers tracking. A number of this account's labels links the
    /// tracker to the label (live and sandbox are kept apart as for labels);
    /// any other number is tracked with status `unknown`.
    pub fn create_tracker(
        &mut self,
        account: &str,
        env: KeyEnv,
        tracking_number: &str,
        carrier: Option<&str>,
    ) -> Result<TrackerRecord, SimError> {
        let label = self
            .by_tracking_number
            .get(tracking_number)
            .and_then(|id| self.labels.get(id))
            .filter(|l| l.account == account);
        if let Some(l) = label.filter(|l| l.env == KeyEnv::Live && env == KeyEnv::Sandbox) {
            return Err(sandbox_in_production("label", &l.label.id));
        }
        let label = label.filter(|l| l.env == env);
        let label_id = label.map(|l| l.label.id.clone());
        let carrier = label
            .map(|l| l.label.carrier.clone())
            .or(carrier.map(str::to_string))
            .unwrap_or_default();
        let id = self.next_id("trk");
        let record = TrackerRecord {
            id: id.clone(),
            account: account.into(),
            tracking_number: tracking_number.into(),
            carrier,
            label_id,
            env,
        };
        self.trackers.insert(id, record.clone());
        Ok(record)
    }

    pub fn tracker(
        &self,
        account: &str,
        env: KeyEnv,
        id: &str,
        now: u64,
    ) -> Result<Tracker, SimError> {
        let not_found = || {
            SimError::new(
                ErrorCode::TrackerNotFound,
                format!("No tracker {id} exists for this account."),
                "Register tracking with POST /v1/trackers first.",
            )
        };
        let t = self
            .trackers
            .get(id)
            .filter(|t| t.account == account)
            .ok_or_else(not_found)?;
        check_mode(t.env, env, "tracker", id, not_found)?;
        let label = t.label_id.as_ref().and_then(|l| self.labels.get(l));
        let events = label.map(|l| tracker_events(l, now)).unwrap_or_default();
        let status = match (label, events.last()) {
            (None, _) => TrackerStatus::Unknown,
            (Some(_), Some(e)) => e.status,
            (Some(_), None) => TrackerStatus::PreTransit,
        };
        let estimated_delivery = label
            .and_then(|l| l.scanned_at)
            .map(|at| date(at + DELIVERED_AFTER));
        Ok(Tracker {
            id: t.id.clone(),
            tracking_number: t.tracking_number.clone(),
            carrier: t.carrier.clone(),
            status,
            events,
            estimated_delivery,
        })
    }

    /// The tracker following label `id`, if one was registered.
    pub(super) fn tracker_of_label(&self, id: &str) -> Option<String> {
        self.trackers
            .values()
            .find(|t| t.label_id.as_deref() == Some(id))
            .map(|t| t.id.clone())
    }
}

/// Tracking after the scan: accepted, departed (+6 h), arrived (+24 h),
/// out for delivery (+36 h), delivered (+40 h).
const DELIVERED_AFTER: u64 = 40 * 3600;

fn tracker_events(label: &LabelRecord, now: u64) -> Vec<TrackerEvent> {
    let mut events = vec![TrackerEvent {
        status: TrackerStatus::PreTransit,
        message: "Label created; awaiting the package".into(),
        location: "".into(),
        occurred_at: label.created_at,
    }];
    let Some(scan) = label.scanned_at else {
        return events;
    };
    let steps = [
        (
            0,
            TrackerStatus::InTransit,
            "Accepted at origin facility",
            "Origin hub",
        ),
        (
            6 * 3600,
            TrackerStatus::InTransit,
            "Departed facility",
            "Origin hub",
        ),
        (
            24 * 3600,
            TrackerStatus::InTransit,
            "Arrived at destination facility",
            "Destination hub",
        ),
        (
            36 * 3600,
            TrackerStatus::OutForDelivery,
            "Out for delivery",
            "Destination hub",
        ),
        (
            DELIVERED_AFTER,
            TrackerStatus::Delivered,
            "Delivered",
            "Front door",
        ),
    ];
    events.extend(steps.iter().filter(|(after, ..)| scan + after <= now).map(
        |(after, status, message, location)| TrackerEvent {
            status: *status,
            message: (*message).into(),
            location: (*location).into(),
            occurred_at: scan + after,
        },
    ));
    events
}
