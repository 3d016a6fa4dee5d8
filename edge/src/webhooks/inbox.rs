//! The `WebhookInbox` Durable Object (one per organization, SQLite): the
//! label ledger with each label's `label.created` receipt, the refused
//! deliveries, and the dashboards' live feeds (hibernatable WebSockets
//! tagged by mode). Decisions are in `webhooks`; this only stores and
//! broadcasts. It is the ledger Worker's (`ledger/`): the main Worker binds
//! it by `script_name`, so none of this is in every main isolate.

use std::cell::Cell;
use std::time::Duration;

use api::Label;
use api::inbox::{
    Inbox, Ledger, LedgerEntry, LiveMessage, PAGE_ROWS, RETAIN_LABELS, RETAIN_REJECTED,
    RETAIN_REJECTED_SECONDS, RETAIN_SECONDS, Receipt, Rejected, SecretSlot,
};
use serde::Deserialize;
use worker::{
    Date, DurableObject, Env, Request, Response, Result, SqlStorage, SqlStorageValue, State,
    WebSocket, WebSocketIncomingMessage, WebSocketPair, durable_object, event,
};

use super::{
    AcceptEvent, Accepted, InboxCall, InboxStore, ReadInbox, ReadLedger, RecordPurchase,
    RecordRefusal,
};
use crate::objects::reply;

/// How often stored rows are pruned to the retention limits.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

#[durable_object]
pub struct WebhookInbox {
    state: State,
    /// Whether this instance already knows a prune alarm is set (saves a
    /// storage read per delivery).
    prune_set: Cell<bool>,
    /// Whether this instance created its tables already.
    tables_ready: Cell<bool>,
}

fn now() -> u64 {
    Date::now().as_millis() / 1000
}

fn mode_tag(sandbox: bool) -> &'static str {
    if sandbox { "sandbox" } else { "live" }
}

fn internal(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

/// One `labels` row; SQLite numbers arrive as JS numbers.
#[derive(Deserialize)]
struct LabelRow {
    json: String,
    seen_at: f64,
    bought_by: Option<String>,
    first_at: Option<f64>,
    last_at: Option<f64>,
    deliveries: f64,
    slot: Option<String>,
}

impl LabelRow {
    fn entry(self) -> Option<LedgerEntry> {
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
struct RejectedRow {
    id: f64,
    received_at: f64,
    reason: String,
    source_ip: String,
    excerpt: String,
    body_bytes: f64,
}

impl RejectedRow {
    fn rejected(self) -> Option<Rejected> {
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

const LABEL_COLUMNS: &str = "json, seen_at, bought_by, first_at, last_at, deliveries, slot";

/// `?1`..`?6` of both label writes: id, sandbox, seen_at, json, tracking, carrier.
fn label_values(label: &Label, now: u64) -> Result<Vec<SqlStorageValue>> {
    Ok(vec![
        label.id.as_str().into(),
        (label.sandbox as i32).into(),
        (now as f64).into(),
        serde_json::to_string(label).map_err(internal)?.into(),
        label.tracking_number.as_str().into(),
        label.carrier.as_str().into(),
    ])
}

fn text<T: serde::Serialize>(value: &T) -> Result<String> {
    match serde_json::to_value(value).map_err(internal)? {
        serde_json::Value::String(s) => Ok(s),
        other => Ok(other.to_string()),
    }
}

impl WebhookInbox {
    fn sql(&self) -> SqlStorage {
        self.state.storage().sql()
    }

    /// Creates the tables once per instance; an error here surfaces (the
    /// caller answers 503, and the service retries the delivery).
    fn tables(&self) -> Result<()> {
        if self.tables_ready.get() {
            return Ok(());
        }
        for ddl in [
            "CREATE TABLE IF NOT EXISTS labels (id TEXT PRIMARY KEY, sandbox INTEGER NOT NULL, seen_at INTEGER NOT NULL, json TEXT NOT NULL, tracking TEXT NOT NULL, carrier TEXT NOT NULL, bought_by TEXT, first_at INTEGER, last_at INTEGER, deliveries INTEGER NOT NULL DEFAULT 0, slot TEXT)",
            "CREATE INDEX IF NOT EXISTS labels_seen ON labels (sandbox, seen_at)",
            "CREATE INDEX IF NOT EXISTS labels_event ON labels (sandbox, last_at)",
            "CREATE TABLE IF NOT EXISTS rejected (id INTEGER PRIMARY KEY AUTOINCREMENT, received_at INTEGER NOT NULL, reason TEXT NOT NULL, source_ip TEXT NOT NULL, excerpt TEXT NOT NULL, body_bytes INTEGER NOT NULL)",
        ] {
            self.sql().exec(ddl, None)?;
        }
        self.tables_ready.set(true);
        Ok(())
    }

    fn labels(
        &self,
        sandbox: bool,
        needle: Option<&str>,
        events_only: bool,
    ) -> Result<Vec<LedgerEntry>> {
        let mut query = format!("SELECT {LABEL_COLUMNS} FROM labels WHERE sandbox = ?");
        let mut args: Vec<SqlStorageValue> = vec![(sandbox as i32).into()];
        if events_only {
            query.push_str(" AND deliveries > 0");
        }
        if let Some(needle) = needle {
            query.push_str(
                " AND (instr(lower(id), ?2) OR instr(lower(tracking), ?2) OR instr(lower(carrier), ?2))",
            );
            args.push(needle.into());
        }
        query.push_str(if events_only {
            " ORDER BY last_at DESC LIMIT ?"
        } else {
            " ORDER BY seen_at DESC, rowid DESC LIMIT ?"
        });
        args.push(i64::from(PAGE_ROWS).into());
        // `?2` names the pattern; the limit then binds as the next number.
        let query = query.replace("LIMIT ?", &format!("LIMIT ?{}", args.len()));
        let rows: Vec<LabelRow> = self.sql().exec(&query, args)?.to_array()?;
        Ok(rows.into_iter().filter_map(LabelRow::entry).collect())
    }

    fn rejected(&self, needle: Option<&str>) -> Result<Vec<Rejected>> {
        let cursor = match needle {
            Some(needle) => self.sql().exec(
                "SELECT * FROM rejected WHERE instr(lower(excerpt), ?1) OR instr(source_ip, ?1) ORDER BY id DESC LIMIT ?2",
                vec![needle.into(), i64::from(PAGE_ROWS).into()],
            )?,
            None => self.sql().exec(
                "SELECT * FROM rejected ORDER BY id DESC LIMIT ?",
                vec![i64::from(PAGE_ROWS).into()],
            )?,
        };
        let rows: Vec<RejectedRow> = cursor.to_array()?;
        Ok(rows.into_iter().filter_map(RejectedRow::rejected).collect())
    }

    async fn schedule_prune(&self) -> Result<()> {
        if self.prune_set.get() {
            return Ok(());
        }
        let storage = self.state.storage();
        if storage.get_alarm().await?.is_none() {
            storage.set_alarm(PRUNE_EVERY).await?;
        }
        self.prune_set.set(true);
        Ok(())
    }

    fn broadcast(&self, tag: Option<&str>, message: &LiveMessage) {
        let Ok(text) = serde_json::to_string(message) else {
            return;
        };
        let sockets = match tag {
            Some(tag) => self.state.get_websockets_with_tag(tag),
            None => self.state.get_websockets(),
        };
        for ws in sockets {
            // A socket that is closing just misses this one.
            let _ = ws.send_with_str(&text);
        }
    }

    async fn call(&self, call: InboxCall) -> Result<String> {
        self.tables()?;
        let now = now();
        let json = match call {
            InboxCall::Accept(AcceptEvent { label, slot }) => {
                let label: Label = serde_json::from_str(&label).map_err(internal)?;
                // Stored once per label: repeats only count and move the last time.
                let mut values = label_values(&label, now)?;
                values.push(text(&slot)?.into());
                let rows: Vec<LabelRow> = self
                    .sql()
                    .exec(
                        &format!(
                            "INSERT INTO labels (id, sandbox, seen_at, json, tracking, carrier, deliveries, first_at, last_at, slot) \
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?3, ?3, ?7) \
                             ON CONFLICT(id) DO UPDATE SET deliveries = deliveries + 1, \
                             first_at = COALESCE(first_at, excluded.first_at), last_at = excluded.last_at, \
                             slot = COALESCE(slot, excluded.slot) RETURNING {LABEL_COLUMNS}"
                        ),
                        values,
                    )?
                    .to_array()?;
                let entry = rows
                    .into_iter()
                    .next()
                    .and_then(LabelRow::entry)
                    .ok_or_else(|| internal("the upsert returned no row"))?;
                let deliveries = entry.event.as_ref().map_or(0, |e| e.deliveries);
                self.broadcast(
                    Some(mode_tag(label.sandbox)),
                    &LiveMessage::Accepted { entry },
                );
                self.schedule_prune().await?;
                reply::<InboxStore, AcceptEvent>(&Accepted { deliveries })
            }
            InboxCall::Bought(RecordPurchase { label, user }) => {
                let label: Label = serde_json::from_str(&label).map_err(internal)?;
                // The event may have come first: then only the buyer is added.
                let mut values = label_values(&label, now)?;
                values.push(user.into());
                self.sql().exec(
                    "INSERT INTO labels (id, sandbox, seen_at, json, tracking, carrier, bought_by) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
                     ON CONFLICT(id) DO UPDATE SET bought_by = excluded.bought_by",
                    values,
                )?;
                self.schedule_prune().await?;
                reply::<InboxStore, RecordPurchase>(&())
            }
            InboxCall::Reject(RecordRefusal {
                reason,
                source_ip,
                excerpt,
                body_bytes,
            }) => {
                let rows: Vec<RejectedRow> = self
                    .sql()
                    .exec(
                        "INSERT INTO rejected (received_at, reason, source_ip, excerpt, body_bytes) VALUES (?, ?, ?, ?, ?) RETURNING *",
                        vec![
                            (now as f64).into(),
                            text(&reason)?.into(),
                            source_ip.into(),
                            excerpt.into(),
                            (body_bytes as f64).into(),
                        ],
                    )?
                    .to_array()?;
                if let Some(row) = rows.into_iter().next() {
                    // Bounded at once, by the primary key: a flood of forgeries
                    // keeps only the newest RETAIN_REJECTED rows.
                    self.sql().exec(
                        "DELETE FROM rejected WHERE id <= ?",
                        vec![(row.id - f64::from(RETAIN_REJECTED)).into()],
                    )?;
                    if let Some(rejected) = row.rejected() {
                        self.broadcast(None, &LiveMessage::Rejected { rejected });
                    }
                }
                self.schedule_prune().await?;
                reply::<InboxStore, RecordRefusal>(&())
            }
            InboxCall::Ledger(ReadLedger { sandbox, needle }) => {
                reply::<InboxStore, ReadLedger>(&Ledger {
                    labels: self.labels(sandbox, needle.as_deref(), false)?,
                })
            }
            InboxCall::Inbox(ReadInbox {
                sandbox,
                needle,
                accepted,
                rejected,
            }) => reply::<InboxStore, ReadInbox>(&Inbox {
                accepted: if accepted {
                    self.labels(sandbox, needle.as_deref(), true)?
                } else {
                    vec![]
                },
                rejected: if rejected {
                    self.rejected(needle.as_deref())?
                } else {
                    vec![]
                },
                receiving: true,
            }),
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
    fn new(state: State, _env: Env) -> Self {
        Self {
            state,
            prune_set: Cell::new(false),
            tables_ready: Cell::new(false),
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        // The raw URL: parsing it would link the URL crate's IDNA tables
        // (about 190 KB of the wasm) for this one comparison.
        let url = req.inner().url();
        if let Some(mode) = url.strip_prefix(super::LIVE_URL) {
            // The Worker checked the session; the tag is the session's mode.
            let sandbox = mode == "?mode=sandbox";
            let pair = WebSocketPair::new()?;
            self.state
                .accept_websocket_with_tags(&pair.server, &[mode_tag(sandbox)]);
            return Response::from_websocket(pair.client);
        }
        let call: InboxCall = req.json().await?;
        Response::ok(self.call(call).await?)
    }

    async fn alarm(&self) -> Result<Response> {
        self.prune_set.set(false);
        self.tables()?;
        let sql = self.sql();
        let now = now();
        sql.exec(
            "DELETE FROM labels WHERE seen_at < ?",
            vec![(now.saturating_sub(RETAIN_SECONDS) as f64).into()],
        )?;
        sql.exec(
            "DELETE FROM labels WHERE rowid IN (SELECT rowid FROM labels ORDER BY seen_at DESC LIMIT -1 OFFSET ?)",
            vec![i64::from(RETAIN_LABELS).into()],
        )?;
        sql.exec(
            "DELETE FROM rejected WHERE received_at < ?",
            vec![(now.saturating_sub(RETAIN_REJECTED_SECONDS) as f64).into()],
        )?;
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
        crate::runtime::objects::close_back(&ws, code, reason);
        Ok(())
    }

    async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> Result<()> {
        let _ = ws.close(Some(1011), Some("error"));
        Ok(())
    }
}
