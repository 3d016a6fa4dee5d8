//! The `WebhookInbox` Durable Object (one per organization, SQLite): the
//! label ledger with each label's `label.created` receipt, the refused
//! deliveries, and the dashboards' live feeds (hibernatable WebSockets
//! tagged by mode). Decisions are in `webhooks`; this only stores and
//! broadcasts. It is the ledger Worker's (`ledger/`): the main Worker binds
//! it by `script_name`, so none of this is in every main isolate.
//!
//! This file answers each call; below it the tables (`schema`), the
//! writes, the reads (insights, history, the CSV export, the inbox page),
//! the rows as stored (`rows`), the live feeds (`live`), the pruning
//! (`retention`), the labels followed (`trackers`), whose calls share
//! the alarm with the pruning, and the shoppers' tracking page (`page`).

use std::cell::Cell;

use worker::{
    Date, DurableObject, Env, Request, Response, Result, SqlStorage, State, WebSocket,
    WebSocketIncomingMessage, durable_object, event,
};

use domain::objects::reply;
use domain::webhooks::{
    AcceptEvent, InboxCall, InboxStore, ReadInbox, RecordJobLabels, RecordPurchase, RecordRefusal,
    RecordVoid,
};

mod live;
mod page;
mod reads;
mod retention;
mod rows;
mod schema;
mod shop_events;
mod trackers;
mod writes;

#[durable_object]
pub struct WebhookInbox {
    state: State,
    /// The ACCOUNTS binding and UPSTREAM_URL, for following labels.
    env: Env,
    /// Whether this instance stored its organization already.
    org_known: Cell<bool>,
    /// When this instance last pruned (unix seconds).
    pruned_at: Cell<u64>,
    /// Whether this instance already knows a prune alarm is set (saves a
    /// storage read per delivery).
    prune_set: Cell<bool>,
    /// Whether this instance created its tables already.
    tables_ready: Cell<bool>,
}

fn now() -> u64 {
    Date::now().as_millis() / 1000
}

fn internal(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

/// A JSON answer of the object.
fn json(body: &impl serde::Serialize) -> Result<Response> {
    let mut response = Response::ok(serde_json::to_string(body).map_err(internal)?)?;
    response
        .headers_mut()
        .set("Content-Type", "application/json")?;
    Ok(response)
}

/// An error in the v1 envelope, with the main Worker's request id.
fn refused(err: &impl domain::errors::Failure, req: &Request) -> Result<Response> {
    let request_id = req
        .headers()
        .get(domain::webhooks::REQUEST_ID_HEADER)?
        .unwrap_or_default();
    let response = platform::reply::error_response(err, &request_id, None)
        .map_err(|_| internal("no error response"))?;
    Ok(response.into())
}

impl WebhookInbox {
    fn sql(&self) -> SqlStorage {
        self.state.storage().sql()
    }

    async fn call(&self, call: InboxCall) -> Result<String> {
        self.tables()?;
        let now = now();
        let json = match call {
            InboxCall::Accept(a) => reply::<InboxStore, AcceptEvent>(&self.accept(a, now).await?),
            InboxCall::Bought(b) => {
                reply::<InboxStore, RecordPurchase>(&self.bought(b, now).await?)
            }
            InboxCall::JobLabels(j) => {
                reply::<InboxStore, RecordJobLabels>(&self.job_labels(j, now).await?)
            }
            InboxCall::Void(v) => reply::<InboxStore, RecordVoid>(&self.void(v)?),
            InboxCall::Reject(r) => reply::<InboxStore, RecordRefusal>(&self.reject(r, now).await?),
            InboxCall::Inbox(r) => reply::<InboxStore, ReadInbox>(&self.inbox(r)?),
        };
        json.map_err(internal)
    }
}

/// The ledger Worker has no URL of its own: only its object is reached,
/// through the main Worker's `INBOX` binding.
#[event(fetch)]
async fn fetch(_req: Request, _env: Env, _ctx: worker::Context) -> Result<Response> {
    Response::error("Not Found", 404)
}

impl DurableObject for WebhookInbox {
    fn new(state: State, env: Env) -> Self {
        Self {
            state,
            env,
            org_known: Cell::new(false),
            pruned_at: Cell::new(0),
            prune_set: Cell::new(false),
            tables_ready: Cell::new(false),
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        // The raw URL: parsing it would link the URL crate's IDNA tables
        // (about 190 KB of the wasm) for this one comparison.
        let url = req.inner().url();
        if let Some(mode) = url.strip_prefix(domain::webhooks::LIVE_URL) {
            // The Worker checked the session; the tag is the session's mode.
            return self.open_feed(mode == "?mode=sandbox");
        }
        if let Some(rest) = url.strip_prefix(domain::tracking::PAGE_URL) {
            return self.page(rest).await;
        }
        if let Some(rest) = url.strip_prefix(domain::tracking::events::EVENTS_URL) {
            return self.shop_events(req, rest).await;
        }
        if url == domain::tracking::SETTINGS_URL {
            return self.brand_settings(req).await;
        }
        if let Some(rest) = url.strip_prefix(domain::webhooks::READ_URL) {
            let (path, query) = match rest.split_once('?') {
                Some((p, q)) => (p, Some(q)),
                None => (rest, None),
            };
            let request_id = req
                .headers()
                .get(domain::webhooks::REQUEST_ID_HEADER)?
                .unwrap_or_default();
            return self.read(path, query, &request_id);
        }
        if let Some(name) = url.strip_prefix(domain::objects::CALL_URL) {
            self.tables()?;
            self.remember_org(name.trim_start_matches('/'))?;
        }
        let call: InboxCall = req.json().await?;
        Response::ok(self.call(call).await?)
    }

    async fn alarm(&self) -> Result<Response> {
        let now = now();
        if now >= self.pruned_at.get() + 60 {
            self.prune()?;
            self.pruned_at.set(now);
        }
        let tracked = self.track(now).await?;
        let sent = self.send_events(now).await?;
        if let Some(at) = tracked.into_iter().chain(sent).min() {
            self.wake(at).await?;
        }
        Response::empty()
    }

    async fn websocket_message(
        &self,
        _ws: WebSocket,
        _message: WebSocketIncomingMessage,
    ) -> Result<()> {
        // The feed is one-way: what a page sends is ignored (the trait's
        // default would abort the object).
        Ok(())
    }

    async fn websocket_close(
        &self,
        ws: WebSocket,
        code: usize,
        reason: String,
        _clean: bool,
    ) -> Result<()> {
        platform::objects::close_back(&ws, code, reason);
        Ok(())
    }

    async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> Result<()> {
        let _ = ws.close(Some(1011), Some("error"));
        Ok(())
    }
}
