//! Following every label of the ledger (docs/tracking.md): each label
//! written here gets a follow row; the object's alarm registers its v1
//! tracker and reads it on the status's schedule, within the trackers'
//! share of the key's limits (`domain::tracking`), with the current key of
//! the label's mode that the accounts Worker gives for tracking. The key is
//! held for one alarm, never stored.

use api::shipments::{Following, SHIPMENTS_PAGE, Shipment, ShipmentList};
use api::{CreateTrackerRequest, EndpointId, KeyEnv, Tracker, TrackerEvent, TrackerStatus};
use domain::orgs::wire::{self, Checked, KeyLine};
use domain::tracking::schedule::{Follow, Outcome};
use domain::tracking::share::{Answer, Budget, PER_ALARM, wake_at};
use serde::Deserialize;
use worker::wasm_bindgen::JsCast;
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys;
use worker::{Date, Result, SqlStorageValue};

use super::{WebhookInbox, internal};

/// How long one call to the service may take.
const CALL_TIMEOUT_MS: u32 = 10_000;

/// The headers a budget learns from.
const LIMIT_HEADERS: [&str; 4] = [
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "retry-after",
];

/// One due follow row.
#[derive(Deserialize)]
struct DueRow {
    label: String,
    sandbox: f64,
    tracking: String,
    carrier: String,
    bought_at: f64,
    follow: String,
}

#[derive(Deserialize)]
struct FirstDue {
    sandbox: f64,
    registering: f64,
    due: f64,
}

#[derive(Deserialize)]
struct Value {
    value: String,
}

#[derive(Deserialize)]
struct ShipmentRow {
    id: String,
    tracking: String,
    carrier: String,
    service: String,
    reference: Option<String>,
    bought_at: f64,
    follow: String,
    status: Option<String>,
    tracker: Option<String>,
    read_at: Option<f64>,
    estimated: Option<String>,
    events: Option<String>,
    token: Option<String>,
}

/// The stored name of a budget: mode and endpoint.
fn budget_name(sandbox: bool, registering: bool) -> &'static str {
    match (sandbox, registering) {
        (false, true) => "budget:live:post",
        (false, false) => "budget:live:get",
        (true, true) => "budget:sandbox:post",
        (true, false) => "budget:sandbox:get",
    }
}

/// The organization an inbox named `{org}/inbox/control` belongs to; the
/// deployment's inbox (`control`) names none.
pub(super) fn org_of(name: &str) -> Option<&str> {
    name.strip_suffix("/inbox/control")
        .filter(|org| !org.is_empty() && !org.contains('/'))
}

/// What a call to the service came to.
struct Called {
    answer: Answer,
    outcome: Outcome,
    tracker: Option<Tracker>,
}

impl WebhookInbox {
    /// Remembers the organization once per instance, from the call's URL.
    pub(super) fn remember_org(&self, name: &str) -> Result<()> {
        if self.org_known.get() {
            return Ok(());
        }
        if let Some(org) = org_of(name) {
            self.put_value("org", org)?;
        }
        self.org_known.set(true);
        Ok(())
    }

    pub(super) fn value(&self, name: &str) -> Result<Option<String>> {
        let rows: Vec<Value> = self
            .sql()
            .exec(
                "SELECT value FROM tracking_state WHERE name = ?",
                vec![name.into()],
            )?
            .to_array()?;
        Ok(rows.into_iter().next().map(|v| v.value))
    }

    pub(super) fn put_value(&self, name: &str, value: &str) -> Result<()> {
        self.sql().exec(
            "INSERT OR REPLACE INTO tracking_state (name, value) VALUES (?, ?)",
            vec![name.into(), value.into()],
        )?;
        Ok(())
    }

    /// A label just written: followed from now (once), and the alarm woken.
    pub(super) async fn follow(&self, label: &str, now: u64) -> Result<()> {
        let follow = serde_json::to_string(&Follow::new(now)).map_err(internal)?;
        // The shipment's link: unguessable, made once with its row.
        let token =
            platform::random_hex(domain::tracking::TOKEN_BYTES).map_err(|e| internal(e.what))?;
        self.sql().exec(
            "INSERT OR IGNORE INTO follows (label, sandbox, tracking, carrier, bought_at, due, follow, token) \
             SELECT id, sandbox, tracking, carrier, ?2, ?2, ?3, ?4 FROM labels WHERE id = ?1",
            vec![label.into(), (now as f64).into(), follow.into(), token.into()],
        )?;
        self.wake(now).await
    }

    /// A voided label is not followed further.
    pub(super) fn unfollow(&self, label: &str) -> Result<()> {
        let stopped = serde_json::to_string(&Follow::Abandoned).map_err(internal)?;
        self.sql().exec(
            "UPDATE follows SET due = NULL, follow = ? WHERE label = ?",
            vec![stopped.into(), label.into()],
        )?;
        Ok(())
    }

    /// The alarm rings by a second after `at` (unix seconds).
    pub(super) async fn wake(&self, at: u64) -> Result<()> {
        let storage = self.state.storage();
        // A second after `at`: a burst of writes sets the alarm once
        // (setting it again and again makes workerd run it out of step).
        let at_ms = (at * 1000) as i64 + 1000;
        match storage.get_alarm().await? {
            Some(set) if set <= at_ms => Ok(()),
            _ => {
                let offset = at_ms - Date::now().as_millis() as i64;
                storage.set_alarm(offset.max(0)).await
            }
        }
    }

    /// The alarm's tracking: the calls due that the budgets allow, then
    /// when the next are due.
    pub(super) async fn track(&self, now: u64) -> Result<Option<u64>> {
        let Some(org) = self.value("org")? else {
            return Ok(None);
        };
        let due: Vec<DueRow> = self
            .sql()
            .exec(
                "SELECT label, sandbox, tracking, carrier, bought_at, follow FROM follows \
                 WHERE due <= ? ORDER BY due LIMIT ?",
                vec![(now as f64).into(), ((PER_ALARM * 4) as i32).into()],
            )?
            .to_array()?;
        let mut budgets: Vec<(&str, Budget)> = Vec::new();
        for sandbox in [false, true] {
            for registering in [true, false] {
                let name = budget_name(sandbox, registering);
                let stored = self
                    .value(name)?
                    .and_then(|b| serde_json::from_str(&b).ok());
                let endpoint = if registering {
                    EndpointId::CreateTracker
                } else {
                    EndpointId::GetTracker
                };
                budgets.push((name, stored.unwrap_or_else(|| Budget::new(endpoint))));
            }
        }
        if !due.is_empty() {
            let keys = self.tracking_keys(&org).await;
            let mut calls = 0;
            for row in due {
                if calls == PER_ALARM {
                    break;
                }
                let Ok(follow) = serde_json::from_str::<Follow>(&row.follow) else {
                    continue;
                };
                let sandbox = row.sandbox != 0.0;
                let registering = matches!(follow, Follow::Registering { .. });
                let name = budget_name(sandbox, registering);
                let Some((_, budget)) = budgets.iter_mut().find(|(n, _)| *n == name) else {
                    continue;
                };
                if budget.allowance(now) == 0 {
                    continue;
                }
                let mode = if sandbox {
                    KeyEnv::Sandbox
                } else {
                    KeyEnv::Live
                };
                let called = match keys.iter().find(|k| k.mode == mode) {
                    Some(key) => {
                        calls += 1;
                        budget.spend(now);
                        self.call_service(key, &follow, &row).await
                    }
                    // No key that may track: tried again later.
                    None => Called {
                        answer: Answer::Silent,
                        outcome: Outcome::Retry,
                        tracker: None,
                    },
                };
                budget.observe(now, called.answer);
                let bought_at = row.bought_at as u64;
                let next = if registering {
                    let id = called.tracker.as_ref().map(|t| t.id.clone());
                    follow.registered(called.outcome, id, now, bought_at)
                } else {
                    follow.read(called.outcome, now, bought_at)
                };
                self.store_follow(&row.label, &next, called.tracker.as_ref(), now)?;
                if let Some(tracker) = &called.tracker {
                    self.make_events(&org, &row.label, tracker, now)?;
                }
            }
            for (name, budget) in &budgets {
                self.put_value(name, &serde_json::to_string(budget).map_err(internal)?)?;
            }
        }
        let firsts: Vec<FirstDue> = self
            .sql()
            .exec(
                "SELECT sandbox, registering, min(due) AS due FROM follows WHERE due IS NOT NULL \
                 GROUP BY sandbox, registering",
                None,
            )?
            .to_array()?;
        let wake = firsts
            .iter()
            .filter_map(|f| {
                let name = budget_name(f.sandbox != 0.0, f.registering != 0.0);
                let (_, budget) = budgets.iter().find(|(n, _)| *n == name)?;
                wake_at(now, Some(f.due as u64), budget)
            })
            .min();
        Ok(wake.map(|at| at.max(now + 1)))
    }

    fn store_follow(
        &self,
        label: &str,
        follow: &Follow,
        tracker: Option<&Tracker>,
        now: u64,
    ) -> Result<()> {
        let registering = matches!(follow, Follow::Registering { .. });
        let due = follow
            .due()
            .map_or(SqlStorageValue::Null, |d| (d as f64).into());
        let text = |v: Option<String>| v.map_or(SqlStorageValue::Null, Into::into);
        let events = tracker
            .map(|t| serde_json::to_string(&t.events))
            .transpose()
            .map_err(internal)?;
        self.sql().exec(
            "UPDATE follows SET follow = ?2, due = ?3, registering = ?4, \
             tracker = coalesce(?5, tracker), status = coalesce(?6, status), \
             read_at = CASE WHEN ?6 IS NULL THEN read_at ELSE ?7 END, \
             estimated = coalesce(?8, estimated), events = coalesce(?9, events) WHERE label = ?1",
            vec![
                label.into(),
                serde_json::to_string(follow).map_err(internal)?.into(),
                due,
                (registering as i32).into(),
                text(tracker.map(|t| t.id.clone())),
                text(tracker.map(|t| t.status.as_str().to_string())),
                (now as f64).into(),
                text(tracker.and_then(|t| t.estimated_delivery.clone())),
                text(events),
            ],
        )?;
        Ok(())
    }

    /// The organization's keys that may track, from the accounts Worker;
    /// none when it cannot say (the calls are tried again later).
    async fn tracking_keys(&self, org: &str) -> Vec<KeyLine> {
        let asked = async {
            let service = self.env.service(wire::BINDING).ok()?;
            let request = platform::objects::new_request(
                wire::TRACKING_KEYS_URL,
                "POST",
                &[(wire::ORG_HEADER, org)],
                None,
            )?;
            let mut answer = service.fetch_request(request).await.ok()?;
            let text = answer.text().await.ok()?;
            (answer.status_code() == 200)
                .then(|| Checked::decode(&text))
                .flatten()
        };
        match asked.await {
            Some(checked) => checked.keys,
            None => {
                worker::console_error!("tracking: the accounts Worker gave no keys");
                Vec::new()
            }
        }
    }

    /// Registers a tracker, or reads one, with `key`.
    async fn call_service(&self, key: &KeyLine, follow: &Follow, row: &DueRow) -> Called {
        let Ok(upstream) = self.env.var(domain::upstream::settings::UPSTREAM_URL) else {
            worker::console_error!("tracking: UPSTREAM_URL is not set");
            return Called {
                answer: Answer::Silent,
                outcome: Outcome::Retry,
                tracker: None,
            };
        };
        let base = upstream.to_string();
        let base = base.trim_end_matches('/');
        let (method, url, body) = match follow {
            Follow::Following { id, .. } => ("GET", format!("{base}/v1/trackers/{id}"), None),
            _ => {
                let body = serde_json::to_string(&CreateTrackerRequest {
                    tracking_number: row.tracking.clone(),
                    carrier: Some(row.carrier.clone()),
                })
                .ok();
                ("POST", format!("{base}/v1/trackers"), body)
            }
        };
        let bearer = format!("Bearer {}", key.key);
        let headers = platform::js::lines([
            ("Authorization", bearer.as_str()),
            ("Accept", "application/json"),
            ("Content-Type", "application/json"),
        ]);
        let promise = platform::js::send_upstream(
            &url,
            method,
            &headers,
            body.as_deref().map(str::as_bytes),
            CALL_TIMEOUT_MS,
            false,
        );
        let Some(response) = JsFuture::from(promise)
            .await
            .ok()
            .and_then(|r| r.dyn_into::<web_sys::Response>().ok())
        else {
            return Called {
                answer: Answer::Silent,
                outcome: Outcome::Retry,
                tracker: None,
            };
        };
        let status = response.status();
        let picked =
            platform::js::pick_headers(&response.headers(), &platform::js::names(&LIMIT_HEADERS));
        let mut parts = picked.split('\n');
        let mut found: Vec<(&str, u64)> = Vec::new();
        while let (Some(name), Some(value)) = (parts.next(), parts.next()) {
            if let Ok(n) = value.trim().parse::<u64>() {
                found.push((name, n));
            }
        }
        let get = |name: &str| found.iter().find(|(n, _)| *n == name).map(|(_, v)| *v);
        let answer = if status == 429 {
            Answer::TooMany {
                retry_after: get("retry-after").unwrap_or(60),
            }
        } else {
            match (
                get("x-ratelimit-limit"),
                get("x-ratelimit-remaining"),
                get("x-ratelimit-reset"),
            ) {
                (Some(limit), Some(remaining), Some(reset_at)) => Answer::Limits {
                    limit: limit as u32,
                    remaining: remaining as u32,
                    reset_at,
                },
                _ => Answer::Silent,
            }
        };
        let text = match response.text() {
            Ok(p) => JsFuture::from(p).await.ok().and_then(|v| v.as_string()),
            Err(_) => None,
        };
        let tracker = (200..300)
            .contains(&status)
            .then(|| text.and_then(|t| serde_json::from_str::<Tracker>(&t).ok()))
            .flatten();
        let outcome = match (status, &tracker) {
            (_, Some(t)) => Outcome::Tracked(t.status),
            (400..=499, _) if ![401, 403, 408, 429].contains(&status) => Outcome::Refused,
            _ => Outcome::Retry,
        };
        Called {
            answer,
            outcome,
            tracker,
        }
    }

    /// `GET /api/shipments`: the mode's followed labels, newest first.
    pub(super) fn shipments(&self, sandbox: bool) -> Result<String> {
        let org = self.value("org")?;
        let rows: Vec<ShipmentRow> = self
            .sql()
            .exec(
                "SELECT l.id, l.tracking, l.carrier, l.service, l.reference, f.bought_at, f.follow, \
                 f.status, f.tracker, f.read_at, coalesce(f.estimated, l.eta) AS estimated, f.events, f.token \
                 FROM follows f JOIN labels l ON l.id = f.label WHERE f.sandbox = ? \
                 ORDER BY f.bought_at DESC, l.id LIMIT ?",
                vec![(sandbox as i32).into(), (SHIPMENTS_PAGE as i32).into()],
            )?
            .to_array()?;
        let shipments = rows
            .into_iter()
            .map(|r| {
                let status = r.status.as_deref().and_then(TrackerStatus::from_name);
                let following = match serde_json::from_str::<Follow>(&r.follow) {
                    Ok(Follow::Registering { .. }) => Following::Registering,
                    Ok(Follow::Following { due: Some(_), .. }) => Following::Following,
                    Ok(Follow::Following { .. }) if status == Some(TrackerStatus::Delivered) => {
                        Following::Done
                    }
                    _ => Following::Stopped,
                };
                let events: Vec<TrackerEvent> = r
                    .events
                    .and_then(|e| serde_json::from_str(&e).ok())
                    .unwrap_or_default();
                Shipment {
                    label_id: r.id,
                    tracking_number: r.tracking,
                    carrier: r.carrier,
                    service: r.service,
                    reference: r.reference,
                    link: org
                        .as_deref()
                        .zip(r.token.as_deref())
                        .map(|(org, token)| domain::tracking::link(org, token)),
                    bought_at: r.bought_at as u64,
                    following,
                    status,
                    tracker_id: r.tracker,
                    read_at: r.read_at.map(|t| t as u64),
                    estimated_delivery: r.estimated,
                    events,
                }
            })
            .collect();
        serde_json::to_string(&ShipmentList { shipments }).map_err(internal)
    }
}
