//! The shop's tracking events (docs/tracking.md): an admin's URL and the
//! signing secret (`domain::tracking::events::EVENTS_URL`, passed through by
//! the main Worker), the events a tracker's read makes (each once per
//! label: a unique row), and their deliveries on v1's schedule from the
//! object's alarm. A delivery on its way holds a lease (`sending`, due
//! when the lease ends), so the alarm and a resend never send it twice at
//! once, and one the object lost mid-send is tried again.

use api::Tracker;
use api::shipments::{
    Attempt, DELIVERIES_PAGE, Delivery, DeliveryState, EventSettings, ShipmentMoved, ShopEvent,
    ShopEvents,
};
use api::validation::BodyError;
use domain::errors::BadBody;
use domain::routes::query_param;
use domain::tracking::events::{self, Event, Next, ResendError};
use domain::tracking::page::day_of;
use serde::Deserialize;
use worker::wasm_bindgen::JsCast;
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys;
use worker::{Method, Request, Response, Result, SqlStorageValue};

use super::{WebhookInbox, internal, json, now, refused};

/// A delivery's lease while an attempt is on its way: past the shop's
/// timeout, so an attempt the object lost is tried again.
const LEASE_SECONDS: u64 = 60;

/// Of `e`'s label, the deliveries made before `e` that are still to go
/// (waiting or on their way). `e` goes only when there are none, so a shop
/// receives a parcel's events in order even while one of them is retried.
const BEFORE_IT: &str = "FROM shop_events b WHERE b.label = e.label AND b.rowid < e.rowid \
     AND b.state IN ('pending', 'sending')";

#[derive(Deserialize)]
struct Sent {
    event: Event,
}

#[derive(Deserialize)]
struct Moved {
    tracking: String,
    carrier: String,
    service: String,
    reference: Option<String>,
    sandbox: f64,
    carbon: Option<f64>,
    estimated: Option<String>,
    token: Option<String>,
}

#[derive(Deserialize)]
struct DueEvent {
    id: String,
    body: String,
    attempts: String,
    state: String,
    due: Option<f64>,
}

#[derive(Deserialize)]
struct DeliveryRow {
    id: String,
    event: Event,
    label: String,
    at: f64,
    state: String,
    attempts: String,
    due: Option<f64>,
    tracking: String,
    reference: Option<String>,
}

/// The shop's URL and signing secret, read once per alarm or resend.
struct Destination {
    url: String,
    secret: String,
}

#[derive(Deserialize)]
struct MinDue {
    due: Option<f64>,
}

fn state_of(name: &str) -> DeliveryState {
    match name {
        "sending" => DeliveryState::Sending,
        "delivered" => DeliveryState::Delivered,
        "failed" => DeliveryState::Failed,
        _ => DeliveryState::Pending,
    }
}

impl WebhookInbox {
    /// `GET` the settings and the newest deliveries, `PUT` the settings
    /// (`?origin=` the deployment's), or `POST /{id}`: send one again now.
    pub(super) async fn shop_events(&self, mut req: Request, rest: &str) -> Result<Response> {
        self.tables()?;
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        if let (Some(id), Method::Post) = (path.strip_prefix('/'), req.method()) {
            return match self.resend(id, now()).await? {
                Ok(()) => json(&self.shop_events_answer(None)?),
                Err(e) => refused(&e, &req),
            };
        }
        let mut secret = None;
        if req.method() == Method::Put {
            let body = req.bytes().await?;
            let checked =
                api::validation::parse_json::<EventSettings>(&body).and_then(|s| {
                    match s.url.as_deref().map(events::check_url) {
                        Some(Err(reason)) => Err(BodyError::Invalid {
                            field: "url".into(),
                            reason: reason.into(),
                        }),
                        _ => Ok(s),
                    }
                });
            let settings = match checked {
                Ok(s) => s,
                Err(e) => return refused(&BadBody::Invalid(e), &req),
            };
            secret = self.set_shop_events(settings, query_param(Some(query), "origin"))?;
        }
        json(&self.shop_events_answer(secret)?)
    }

    /// Keeps the settings; the new secret, when one was made.
    fn set_shop_events(
        &self,
        settings: EventSettings,
        origin: Option<String>,
    ) -> Result<Option<String>> {
        let Some(url) = settings.url else {
            self.sql()
                .exec("DELETE FROM tracking_state WHERE name = 'events_url'", None)?;
            // Off: what was waiting is not sent.
            self.sql().exec(
                "UPDATE shop_events SET state = 'failed', due = NULL WHERE state = 'pending'",
                None,
            )?;
            return Ok(None);
        };
        self.put_value("events_url", &url)?;
        if let Some(origin) = origin {
            self.put_value("events_origin", origin.trim_end_matches('/'))?;
        }
        if self.value("events_secret")?.is_some() && !settings.new_secret {
            return Ok(None);
        }
        let secret = format!(
            "{}{}",
            events::SECRET_PREFIX,
            platform::random_hex(events::SECRET_BYTES).map_err(|e| internal(e.what))?
        );
        self.put_value("events_secret", &secret)?;
        Ok(Some(secret))
    }

    fn shop_events_answer(&self, secret: Option<String>) -> Result<ShopEvents> {
        // One waiting behind another goes at the earliest when that one does.
        let rows: Vec<DeliveryRow> = self
            .sql()
            .exec(
                &format!(
                    "SELECT e.id, e.event, e.label, e.at, e.state, e.attempts, \
                     max(e.due, coalesce((SELECT max(b.due) {BEFORE_IT}), 0)) AS due, l.tracking, l.reference \
                     FROM shop_events e JOIN labels l ON l.id = e.label ORDER BY e.at DESC, e.rowid DESC LIMIT ?"
                ),
                vec![(DELIVERIES_PAGE as i32).into()],
            )?
            .to_array()?;
        let deliveries = rows
            .into_iter()
            .map(|r| {
                let state = state_of(&r.state);
                Delivery {
                    id: r.id,
                    event: r.event,
                    label_id: r.label,
                    tracking_number: r.tracking,
                    reference: r.reference,
                    created_at: r.at as u64,
                    state,
                    attempts: serde_json::from_str(&r.attempts).unwrap_or_default(),
                    next_attempt_at: r
                        .due
                        .filter(|_| state == DeliveryState::Pending)
                        .map(|d| d as u64),
                }
            })
            .collect();
        Ok(ShopEvents {
            url: self.value("events_url")?,
            secret,
            signed: self.value("events_secret")?.is_some(),
            deliveries,
        })
    }

    /// After a read of `label`'s tracker: the events it makes that the
    /// label has not had, due now (none while events are off).
    pub(super) fn make_events(
        &self,
        org: &str,
        label: &str,
        tracker: &Tracker,
        now: u64,
    ) -> Result<()> {
        if self.value("events_url")?.is_none() {
            return Ok(());
        }
        let sent: Vec<Sent> = self
            .sql()
            .exec(
                "SELECT event FROM shop_events WHERE label = ?",
                vec![label.into()],
            )?
            .to_array()?;
        let sent: Vec<Event> = sent.iter().map(|s| s.event).collect();
        let Some(row) = self
            .sql()
            .exec(
                "SELECT l.tracking, l.carrier, l.service, l.reference, l.sandbox, l.carbon, \
                 coalesce(f.estimated, l.eta) AS estimated, f.token \
                 FROM labels l JOIN follows f ON f.label = l.id WHERE l.id = ?",
                vec![label.into()],
            )?
            .to_array::<Moved>()?
            .into_iter()
            .next()
        else {
            return Ok(());
        };
        let due = events::due(
            &sent,
            tracker.status,
            row.estimated.as_deref(),
            &day_of(now),
        );
        if due.is_empty() {
            return Ok(());
        }
        let origin = self.value("events_origin")?.unwrap_or_default();
        let data = ShipmentMoved {
            label_id: label.to_string(),
            tracking_number: row.tracking,
            carrier: row.carrier,
            service: row.service,
            reference: row.reference,
            sandbox: row.sandbox != 0.0,
            status: tracker.status,
            tracking_url: row
                .token
                .map(|t| format!("{origin}{}", domain::tracking::link(org, &t))),
            estimated_delivery: row.estimated,
            scanned_at: tracker.events.iter().map(|e| e.occurred_at).max(),
            carbon_grams: row.carbon.map(|c| c as i64),
        };
        for event in due {
            let id = format!(
                "{}{}",
                events::ID_PREFIX,
                platform::random_hex(events::ID_BYTES).map_err(|e| internal(e.what))?
            );
            let body = ShopEvent {
                id: id.clone(),
                event,
                created_at: now,
                data: data.clone(),
            };
            self.sql().exec(
                "INSERT OR IGNORE INTO shop_events (id, label, event, at, body, state, due) \
                 VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?4)",
                vec![
                    id.into(),
                    label.into(),
                    event.as_str().into(),
                    (now as f64).into(),
                    serde_json::to_string(&body).map_err(internal)?.into(),
                ],
            )?;
        }
        Ok(())
    }

    /// The alarm's deliveries: those due and first of their label's still to
    /// go, oldest first, at most `SENDS_PER_ALARM`; then when the next is due.
    pub(super) async fn send_events(&self, now: u64) -> Result<Option<u64>> {
        self.tables()?;
        let Some(to) = self.destination()? else {
            // Off: nothing is due (a lease that ended after they stopped).
            self.sql().exec(
                "UPDATE shop_events SET state = 'failed', due = NULL WHERE due IS NOT NULL",
                None,
            )?;
            return Ok(None);
        };
        let due: Vec<DueEvent> = self
            .sql()
            .exec(
                &format!(
                    "SELECT id, body, attempts, state, due FROM shop_events e \
                     WHERE due <= ? AND NOT EXISTS (SELECT 1 {BEFORE_IT}) ORDER BY due, rowid LIMIT ?"
                ),
                vec![(now as f64).into(), (events::SENDS_PER_ALARM as i32).into()],
            )?
            .to_array()?;
        for row in &due {
            self.attempt(&to, row, now).await?;
        }
        let next: Vec<MinDue> = self
            .sql()
            .exec(
                &format!(
                    "SELECT min(due) AS due FROM shop_events e \
                     WHERE due IS NOT NULL AND NOT EXISTS (SELECT 1 {BEFORE_IT})"
                ),
                None,
            )?
            .to_array()?;
        Ok(next
            .first()
            .and_then(|n| n.due)
            .map(|d| (d as u64).max(now + 1)))
    }

    /// `POST {EVENTS_URL}/{id}`: one attempt now, whatever the schedule.
    async fn resend(&self, id: &str, now: u64) -> Result<std::result::Result<(), ResendError>> {
        let rows: Vec<DueEvent> = self
            .sql()
            .exec(
                "SELECT id, body, attempts, state, due FROM shop_events WHERE id = ?",
                vec![id.into()],
            )?
            .to_array()?;
        let Some(row) = rows.first() else {
            return Ok(Err(ResendError::NotFound));
        };
        let Some(to) = self.destination()? else {
            return Ok(Err(ResendError::Off));
        };
        if row.state == "sending" && row.due.is_some_and(|d| d as u64 > now) {
            return Ok(Err(ResendError::Sending));
        }
        self.attempt(&to, row, now).await?;
        // Those of its label that waited behind it go now.
        self.wake(now).await?;
        Ok(Ok(()))
    }

    /// Where events go and what signs them; `None` while they are off
    /// (the first URL always comes with a secret).
    fn destination(&self) -> Result<Option<Destination>> {
        Ok(self
            .value("events_url")?
            .zip(self.value("events_secret")?)
            .map(|(url, secret)| Destination { url, secret }))
    }

    /// One attempt of a delivery to `to`, under its lease; then where it stands.
    async fn attempt(&self, to: &Destination, row: &DueEvent, now: u64) -> Result<()> {
        let Destination { url, secret } = to;
        self.sql().exec(
            "UPDATE shop_events SET state = 'sending', due = ? WHERE id = ?",
            vec![
                ((now + LEASE_SECONDS) as f64).into(),
                row.id.as_str().into(),
            ],
        )?;
        let signature = events::sign(secret.as_bytes(), now, row.body.as_bytes());
        let headers = platform::js::lines([
            ("Content-Type", "application/json"),
            (events::SIGNATURE_HEADER, signature.as_str()),
            ("User-Agent", "Parcel-Events/1"),
        ]);
        let promise = platform::js::send_upstream(
            url,
            "POST",
            &headers,
            Some(row.body.as_bytes()),
            events::SEND_TIMEOUT_MS,
            false,
        );
        let status = JsFuture::from(promise)
            .await
            .ok()
            .and_then(|r| r.dyn_into::<web_sys::Response>().ok())
            .map(|r| r.status());
        let mut attempts: Vec<Attempt> = serde_json::from_str(&row.attempts).unwrap_or_default();
        attempts.push(Attempt { at: now, status });
        let (state, due) = match events::after_attempt(attempts.len() as u32, status, now) {
            Next::Delivered => ("delivered", SqlStorageValue::Null),
            Next::Retry(at) => ("pending", (at as f64).into()),
            Next::GaveUp => ("failed", SqlStorageValue::Null),
        };
        self.sql().exec(
            "UPDATE shop_events SET state = ?, due = ?, attempts = ? WHERE id = ?",
            vec![
                state.into(),
                due,
                serde_json::to_string(&attempts).map_err(internal)?.into(),
                row.id.as_str().into(),
            ],
        )?;
        Ok(())
    }
}
