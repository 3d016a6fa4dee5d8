//! The `label.created` delivery queue (part 6): one record per attempt, the
//! retry schedule by simulated time. `crate::webhooks` makes the attempts.

use api::Label;
use api::webhooks::{DeliveryStatus, RETRY_SCHEDULE_SECONDS, WebhookDelivery};

use super::World;

#[derive(Debug, Clone)]
pub struct DeliveryRecord {
    pub delivery: WebhookDelivery,
    pub account: String,
    pub body: Vec<u8>,
    pub secret: String,
    /// Due time of a pending attempt.
    pub due_at: u64,
    /// Handed to the dispatcher and not finished yet.
    pub in_flight: bool,
}

/// A delivery attempt handed to the dispatcher.
#[derive(Debug, Clone)]
pub struct DueDelivery {
    /// The world's generation when it was handed out; a reset in between
    /// makes the outcome irrelevant.
    pub generation: u64,
    pub index: usize,
    pub url: String,
    pub body: Vec<u8>,
    pub secret: String,
}

impl World {
    pub(super) fn emit_label_created(&mut self, account: &str, label: &Label, now: u64) {
        let Some((url, secret)) = self.account_mut(account).webhook.clone() else {
            return;
        };
        let event = api::WebhookEvent {
            event: api::webhooks::EVENT_LABEL_CREATED.into(),
            data: label.clone(),
        };
        let body = serde_json::to_vec(&event).unwrap_or_default();
        let id = self.next_id("dlv");
        self.deliveries.push(DeliveryRecord {
            delivery: WebhookDelivery {
                id,
                event: api::webhooks::EVENT_LABEL_CREATED.into(),
                label_id: label.id.clone(),
                url,
                attempt: 1,
                status: DeliveryStatus::Pending,
                response_status: None,
                error: None,
                attempted_at: None,
                next_attempt_at: Some(now),
            },
            account: account.into(),
            body,
            secret,
            due_at: now,
            in_flight: false,
        });
        self.pending_deliveries.push(self.deliveries.len() - 1);
    }

    /// Hands out the pending attempts due by `now`, oldest first, marking
    /// them in flight so no attempt is made twice.
    pub fn due_deliveries(&mut self, now: u64) -> Vec<DueDelivery> {
        let mut due = Vec::new();
        for &index in &self.pending_deliveries {
            let d = &mut self.deliveries[index];
            if !d.in_flight && d.due_at <= now {
                d.in_flight = true;
                due.push(DueDelivery {
                    generation: self.generation,
                    index,
                    url: d.delivery.url.clone(),
                    body: d.body.clone(),
                    secret: d.secret.clone(),
                });
            }
        }
        due
    }

    /// Records the outcome of an attempt made at `attempted_at` and, after a
    /// failure with attempts left, schedules the next one from that time.
    pub fn finish_delivery(
        &mut self,
        generation: u64,
        index: usize,
        outcome: Result<u16, String>,
        attempted_at: u64,
    ) {
        if generation != self.generation || index >= self.deliveries.len() {
            return; // the world was reset while the attempt was in flight
        }
        self.pending_deliveries.retain(|&i| i != index);
        let d = &mut self.deliveries[index];
        d.in_flight = false;
        d.delivery.attempted_at = Some(attempted_at);
        let ok = matches!(outcome, Ok(status) if api::webhooks::is_success_status(status));
        match outcome {
            Ok(status) => d.delivery.response_status = Some(status),
            Err(e) => d.delivery.error = Some(e),
        }
        if ok {
            d.delivery.status = DeliveryStatus::Succeeded;
            d.delivery.next_attempt_at = None;
            return;
        }
        d.delivery.status = DeliveryStatus::Failed;
        let attempt = d.delivery.attempt as usize;
        if attempt >= RETRY_SCHEDULE_SECONDS.len() {
            d.delivery.next_attempt_at = None;
            return;
        }
        let due = attempted_at + RETRY_SCHEDULE_SECONDS[attempt];
        d.delivery.next_attempt_at = Some(due);
        let mut next = d.clone();
        next.delivery.id = self.next_id("dlv");
        next.delivery.attempt += 1;
        next.delivery.status = DeliveryStatus::Pending;
        next.delivery.response_status = None;
        next.delivery.error = None;
        next.delivery.attempted_at = None;
        next.delivery.next_attempt_at = Some(due);
        next.due_at = due;
        self.deliveries.push(next);
        self.pending_deliveries.push(self.deliveries.len() - 1);
    }

    /// The account's delivery records, newest first, optionally of one label.
    pub fn deliveries(
        &self,
        account: &str,
        label_id: Option<&str>,
        limit: usize,
    ) -> Vec<WebhookDelivery> {
        self.deliveries
            .iter()
            .rev()
            .filter(|d| d.account == account)
            .filter(|d| label_id.is_none_or(|l| d.delivery.label_id == l))
            .take(limit)
            .map(|d| d.delivery.clone())
            .collect()
    }
}
