//! The `WebhookInbox` Durable Object (one per organization, SQLite): the
//! label ledger with each label's `label.created` receipt, the refused
//! deliveries, and the dashboards' live feeds (hibernatable WebSockets
//! tagged by mode). Decisions are in `webhooks`; this only stores and
//! broadcasts. It is the ledger Worker's (`ledger/`): the main Worker binds
//! it by `script_name`, so none of this is in every main isolate.

use domain::errors::BadBody;
use std::cell::Cell;
use std::time::Duration;

use api::Label;
use api::inbox::{
    Inbox, LedgerEntry, LiveMessage, PAGE_ROWS, RETAIN_LABELS, RETAIN_REJECTED,
    RETAIN_REJECTED_SECONDS, RETAIN_SECONDS, Receipt, Rejected, SecretSlot,
};
use api::insights::{
    Choices, HistoryPage, HistoryQuery, HistoryRow, InsightsQuery, Offered, Totals,
};
use serde::Deserialize;
use worker::{
    Date, DurableObject, Env, Request, Response, Result, SqlStorage, SqlStorageValue, State,
    WebSocket, WebSocketIncomingMessage, WebSocketPair, durable_object, event,
};

use domain::objects::reply;
use domain::routes::query_param;
use domain::webhooks::ledger::{self, AggregateRow, Arg, Sql};
use domain::webhooks::offers::Offer;
use domain::webhooks::{
    AcceptEvent, Accepted, InboxCall, InboxStore, JobLabel, ReadInbox, RecordJobLabels,
    RecordPurchase, RecordRefusal, RecordVoid,
};

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

/// The columns of `?1`..`?9` of both label writes.
const LABEL_WRITE: &str = "id, sandbox, seen_at, json, tracking, carrier, at, service, price";

/// `?1`..`?9` of both label writes: id, sandbox, seen_at, json, tracking,
/// carrier, at (the service's creation time when the label says, else
/// now), service, price.
fn label_values(label: &Label, now: u64) -> Result<Vec<SqlStorageValue>> {
    Ok(vec![
        label.id.as_str().into(),
        (label.sandbox as i32).into(),
        (now as f64).into(),
        serde_json::to_string(label).map_err(internal)?.into(),
        label.tracking_number.as_str().into(),
        label.carrier.as_str().into(),
        (label.created_at.unwrap_or(now) as f64).into(),
        label.service.as_str().into(),
        label.rate_cents.into(),
    ])
}

fn values(sql: Sql) -> (String, Vec<SqlStorageValue>) {
    let args = sql
        .args
        .into_iter()
        .map(|a| match a {
            Arg::Int(n) => n.into(),
            Arg::Text(t) => t.into(),
        })
        .collect();
    (sql.text, args)
}

/// One row of `ledger::history_sql`; SQLite numbers arrive as JS numbers.
#[derive(Deserialize)]
struct HistorySqlRow {
    id: String,
    at: f64,
    carrier: String,
    service: String,
    tracking: String,
    price: f64,
    refund: f64,
    carbon: Option<f64>,
    status: String,
    bought_by: Option<String>,
    job: Option<String>,
    reference: Option<String>,
    recipient: Option<String>,
    deliveries: f64,
}

impl From<HistorySqlRow> for HistoryRow {
    fn from(r: HistorySqlRow) -> Self {
        HistoryRow {
            id: r.id,
            at: r.at as u64,
            carrier: r.carrier,
            service: r.service,
            tracking_number: r.tracking,
            price_cents: r.price as i64,
            refund_cents: r.refund as i64,
            carbon_grams: r.carbon.map(|c| c as i64),
            status: ledger::status(&r.status),
            bought_by: r.bought_by,
            job: r.job,
            reference: r.reference,
            recipient: r.recipient,
            deliveries: r.deliveries as u32,
        }
    }
}

#[derive(Deserialize)]
struct AggregateSqlRow {
    carrier: String,
    first: f64,
    labels: f64,
    spend: f64,
    voided: f64,
    refunded: f64,
    carbon: f64,
    carbon_labels: f64,
}

#[derive(Deserialize)]
struct ChoicesSqlRow {
    labels: f64,
    chosen_cents: f64,
    chosen_carbon: f64,
    cheapest_cents: f64,
    cheapest_carbon: f64,
    greenest_cents: f64,
    greenest_carbon: f64,
}

/// The ledger's own schema changes, in order; `ledger_schema` says how many
/// ran. 1: insights (time, price, carbon, status, refunds, buyer's batch and
/// the quote's cheapest and lowest-carbon rates beside the one chosen).
const MIGRATIONS: [&[&str]; 1] = [&[
    "ALTER TABLE labels ADD COLUMN at INTEGER",
    "ALTER TABLE labels ADD COLUMN service TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE labels ADD COLUMN price INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE labels ADD COLUMN carbon INTEGER",
    "ALTER TABLE labels ADD COLUMN status TEXT NOT NULL DEFAULT 'bought'",
    "ALTER TABLE labels ADD COLUMN refund INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE labels ADD COLUMN job TEXT",
    "ALTER TABLE labels ADD COLUMN reference TEXT",
    "ALTER TABLE labels ADD COLUMN recipient TEXT",
    "ALTER TABLE labels ADD COLUMN cheapest_cents INTEGER",
    "ALTER TABLE labels ADD COLUMN cheapest_carbon INTEGER",
    "ALTER TABLE labels ADD COLUMN greenest_cents INTEGER",
    "ALTER TABLE labels ADD COLUMN greenest_carbon INTEGER",
    // What a search looks in: computed when read, never stored.
    "ALTER TABLE labels ADD COLUMN search TEXT GENERATED ALWAYS AS (lower(tracking || ' ' || coalesce(reference, '') || ' ' || coalesce(recipient, ''))) VIRTUAL",
    "UPDATE labels SET at = coalesce(json_extract(json, '$.created_at'), seen_at), \
     service = coalesce(json_extract(json, '$.service'), ''), price = coalesce(json_extract(json, '$.rate_cents'), 0)",
    // History pages (newest first, by carrier or not) and the insights'
    // sums, which this index covers: a period is one range of it.
    "CREATE INDEX labels_at ON labels (sandbox, at, id)",
    "CREATE INDEX labels_carrier ON labels (sandbox, carrier, at, id)",
    "CREATE INDEX labels_sums ON labels (sandbox, at, carrier, price, status, refund, carbon)",
    // Voids are few: found without reading every label.
    "CREATE INDEX labels_status ON labels (sandbox, status, at, id)",
    // Searches of three characters or more (`ledger::history_sql`): each
    // label's `search` text by trigrams, under the label's rowid.
    "CREATE VIRTUAL TABLE label_search USING fts5(text, tokenize = 'trigram')",
    "INSERT INTO label_search (rowid, text) SELECT rowid, search FROM labels",
    // Rates offered to the dashboard as an object recorded them when each
    // quote was sent to it. None are written: purchase records carry their
    // offer. Rows an object already holds are read for a purchase that
    // comes without one until the prune ages them out (`QUOTE_SECONDS`).
    "CREATE TABLE quotes (rate_id TEXT PRIMARY KEY, at INTEGER NOT NULL, carbon INTEGER NOT NULL, recipient TEXT, \
     cheapest_cents INTEGER NOT NULL, cheapest_carbon INTEGER NOT NULL, greenest_cents INTEGER NOT NULL, greenest_carbon INTEGER NOT NULL)",
    "CREATE INDEX quotes_at ON quotes (at)",
]];

/// After a write that may change a label's searched text: its trigrams again.
const INDEX_LABEL: &str = "INSERT OR REPLACE INTO label_search (rowid, text) SELECT rowid, search FROM labels WHERE id = ?";

/// How long an offered rate is kept: v1's 15 minutes and some.
const QUOTE_SECONDS: u64 = 20 * 60;
/// Rows per page of a CSV export: each page is read, written and let go.
const EXPORT_PAGE_ROWS: u32 = 1000;

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
            "CREATE TABLE IF NOT EXISTS ledger_schema (version INTEGER NOT NULL)",
        ] {
            self.sql().exec(ddl, None)?;
        }
        #[derive(Deserialize)]
        struct Version {
            version: f64,
        }
        let done: Vec<Version> = self
            .sql()
            .exec("SELECT version FROM ledger_schema", None)?
            .to_array()?;
        let done = done.first().map_or(0, |v| v.version as usize);
        if done < MIGRATIONS.len() {
            // One event: the object commits these together or not at all.
            for step in &MIGRATIONS[done..] {
                for statement in *step {
                    self.sql().exec(statement, None)?;
                }
            }
            self.sql().exec("DELETE FROM ledger_schema", None)?;
            self.sql().exec(
                "INSERT INTO ledger_schema (version) VALUES (?)",
                vec![(MIGRATIONS.len() as i32).into()],
            )?;
        }
        self.tables_ready.set(true);
        Ok(())
    }

    fn index_label(&self, id: &str) -> Result<()> {
        self.sql().exec(INDEX_LABEL, vec![id.into()])?;
        Ok(())
    }

    fn insights(&self, sandbox: bool, query: &InsightsQuery) -> Result<String> {
        let now = now();
        let (text, args) = values(ledger::aggregate_sql(sandbox, query, now));
        let rows: Vec<AggregateSqlRow> = self.sql().exec(&text, args)?.to_array()?;
        let rows = rows
            .into_iter()
            .map(|r| AggregateRow {
                carrier: r.carrier,
                first: r.first as u64,
                totals: Totals {
                    labels: r.labels as u32,
                    spend_cents: r.spend as i64,
                    voided: r.voided as u32,
                    refunded_cents: r.refunded as i64,
                    carbon_grams: r.carbon as i64,
                    carbon_labels: r.carbon_labels as u32,
                },
            })
            .collect();
        let (text, args) = values(ledger::choices_sql(sandbox, query.since(now)));
        let choices = self
            .sql()
            .exec(&text, args)?
            .to_array::<ChoicesSqlRow>()?
            .into_iter()
            .next()
            .map(|c| Choices {
                labels: c.labels as u32,
                chosen_cents: c.chosen_cents as i64,
                chosen_carbon_grams: c.chosen_carbon as i64,
                cheapest_cents: c.cheapest_cents as i64,
                cheapest_carbon_grams: c.cheapest_carbon as i64,
                greenest_cents: c.greenest_cents as i64,
                greenest_carbon_grams: c.greenest_carbon as i64,
            })
            .unwrap_or_default();
        serde_json::to_string(&ledger::insights(sandbox, query, now, rows, choices))
            .map_err(internal)
    }

    fn history_rows(
        &self,
        sandbox: bool,
        query: &HistoryQuery,
        limit: u32,
    ) -> Result<Vec<HistoryRow>> {
        let (text, args) = values(ledger::history_sql(sandbox, query, limit));
        let rows: Vec<HistorySqlRow> = self.sql().exec(&text, args)?.to_array()?;
        Ok(rows.into_iter().map(HistoryRow::from).collect())
    }

    fn history(&self, sandbox: bool, query: &HistoryQuery) -> Result<String> {
        let mut rows = self.history_rows(sandbox, query, query.limit)?;
        let next = ledger::page_end(&mut rows, query.limit);
        serde_json::to_string(&HistoryPage { rows, next }).map_err(internal)
    }

    /// The export as a stream of pages, each read when the reader wants
    /// more: never every row at once.
    fn export(&self, sandbox: bool, query: HistoryQuery) -> Result<Response> {
        let sql = self.sql();
        let first = Some((query, true));
        let pages = futures_util::stream::try_unfold(first, move |state| {
            let sql = sql.clone();
            async move {
                let Some((mut query, header)) = state else {
                    return Ok::<_, worker::Error>(None);
                };
                if !header {
                    // A page's SQL never awaits: without a turn of the event
                    // loop between pages the runtime takes every page in one
                    // go, and the answer leaves whole (measured: headers
                    // with the last byte). The turn lets each page go out,
                    // and the reader's pace decide when the next is read.
                    worker::Delay::from(std::time::Duration::ZERO).await;
                }
                let (text, args) = values(ledger::history_sql(sandbox, &query, EXPORT_PAGE_ROWS));
                let rows: Vec<HistorySqlRow> = sql.exec(&text, args)?.to_array()?;
                let mut rows: Vec<HistoryRow> = rows.into_iter().map(HistoryRow::from).collect();
                let next = ledger::page_end(&mut rows, EXPORT_PAGE_ROWS);
                let chunk = ledger::csv_lines(&rows, header).map_err(internal)?;
                query.cursor = next.as_deref().and_then(api::insights::Cursor::decode);
                let more = query.cursor.is_some().then_some((query, false));
                Ok(Some((chunk, more)))
            }
        });
        let mut response = Response::from_stream(pages)?;
        let headers = response.headers_mut();
        headers.set("Content-Type", "text/csv; charset=utf-8")?;
        headers.set("Content-Disposition", "attachment; filename=\"labels.csv\"")?;
        Ok(response)
    }

    /// A dashboard read (`domain::webhooks::READ_URL`): the answer, or the envelope of
    /// a bad query with the main Worker's request id.
    fn read(&self, path: &str, query: Option<&str>, request_id: &str) -> Result<Response> {
        self.tables()?;
        let param = |name: &str| query_param(query, name);
        let (kind, mode) = path.split_once('/').unwrap_or((path, ""));
        let sandbox = mode == "sandbox";
        let answer = match kind {
            "insights" => InsightsQuery::from_params(param).map(|q| self.insights(sandbox, &q)),
            "history" => HistoryQuery::from_params(param).map(|q| self.history(sandbox, &q)),
            "export" => match HistoryQuery::from_params(param) {
                Ok(q) => return self.export(sandbox, q),
                Err(e) => Err(e),
            },
            _ => return Response::error("Not Found", 404),
        };
        match answer {
            Ok(json) => {
                let mut response = Response::ok(json?)?;
                response
                    .headers_mut()
                    .set("Content-Type", "application/json")?;
                Ok(response)
            }
            Err(e) => {
                let response =
                    platform::reply::error_response(&BadBody::Invalid(e), request_id, None)
                        .map_err(|_| internal("no error response"))?;
                Ok(response.into())
            }
        }
    }

    /// The labels a `label.created` event announced, latest event first.
    fn announced(&self, sandbox: bool, needle: Option<&str>) -> Result<Vec<LedgerEntry>> {
        let mut query =
            format!("SELECT {LABEL_COLUMNS} FROM labels WHERE sandbox = ? AND deliveries > 0");
        let mut args: Vec<SqlStorageValue> = vec![(sandbox as i32).into()];
        if let Some(needle) = needle {
            query.push_str(
                " AND (instr(lower(id), ?2) OR instr(lower(tracking), ?2) OR instr(lower(carrier), ?2))",
            );
            args.push(needle.into());
        }
        query.push_str(" ORDER BY last_at DESC LIMIT ?");
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
                            "INSERT INTO labels ({LABEL_WRITE}, deliveries, first_at, last_at, slot) \
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1, ?3, ?3, ?10) \
                             ON CONFLICT(id) DO UPDATE SET deliveries = deliveries + 1, \
                             json = excluded.json, at = coalesce(json_extract(excluded.json, '$.created_at'), at), \
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
                self.index_label(&label.id)?;
                let deliveries = entry.event.as_ref().map_or(0, |e| e.deliveries);
                self.broadcast(
                    Some(mode_tag(label.sandbox)),
                    &LiveMessage::Accepted { entry },
                );
                self.schedule_prune().await?;
                reply::<InboxStore, AcceptEvent>(&Accepted { deliveries })
            }
            InboxCall::Bought(RecordPurchase {
                label,
                user,
                rate_id,
                offer,
            }) => {
                let label: Label = serde_json::from_str(&label).map_err(internal)?;
                // The event may have come first: then only the buyer and
                // what the quote offered are added.
                let mut values = label_values(&label, now)?;
                values.push(user.into());
                // Without the offer: NULLs, "offer not known" to insights.
                let column = |v: fn(&Offer) -> SqlStorageValue| {
                    offer.as_ref().map_or(SqlStorageValue::Null, v)
                };
                values.extend([
                    column(|o| o.carbon_grams.into()),
                    column(|o| {
                        o.recipient
                            .clone()
                            .map_or(SqlStorageValue::Null, Into::into)
                    }),
                    column(|o| o.offered.cheapest_cents.into()),
                    column(|o| o.offered.cheapest_carbon_grams.into()),
                    column(|o| o.offered.greenest_cents.into()),
                    column(|o| o.offered.greenest_carbon_grams.into()),
                ]);
                self.sql().exec(
                    &format!(
                        "INSERT INTO labels ({LABEL_WRITE}, bought_by, carbon, recipient, \
                         cheapest_cents, cheapest_carbon, greenest_cents, greenest_carbon) \
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16) \
                         ON CONFLICT(id) DO UPDATE SET bought_by = excluded.bought_by, \
                         carbon = coalesce(excluded.carbon, carbon), recipient = coalesce(excluded.recipient, recipient), \
                         cheapest_cents = coalesce(excluded.cheapest_cents, cheapest_cents), \
                         cheapest_carbon = coalesce(excluded.cheapest_carbon, cheapest_carbon), \
                         greenest_cents = coalesce(excluded.greenest_cents, greenest_cents), \
                         greenest_carbon = coalesce(excluded.greenest_carbon, greenest_carbon)"
                    ),
                    values,
                )?;
                if let (None, Some(rate_id)) = (&offer, rate_id) {
                    // A quote this object kept (`quotes`), if it holds one.
                    self.sql().exec(
                        "UPDATE labels SET (carbon, recipient, cheapest_cents, cheapest_carbon, greenest_cents, greenest_carbon) = \
                         (SELECT carbon, recipient, cheapest_cents, cheapest_carbon, greenest_cents, greenest_carbon FROM quotes WHERE rate_id = ?2) \
                         WHERE id = ?1 AND EXISTS (SELECT 1 FROM quotes WHERE rate_id = ?2)",
                        vec![label.id.as_str().into(), rate_id.into()],
                    )?;
                }
                self.index_label(&label.id)?;
                self.schedule_prune().await?;
                reply::<InboxStore, RecordPurchase>(&())
            }
            InboxCall::JobLabels(RecordJobLabels { job, user, labels }) => {
                for JobLabel {
                    label,
                    reference,
                    recipient,
                    carbon_grams,
                    offered,
                } in labels
                {
                    let label: Label = serde_json::from_str(&label).map_err(internal)?;
                    let mut values = label_values(&label, now)?;
                    let offer = |v: fn(&Offered) -> i64| {
                        offered
                            .as_ref()
                            .map_or(SqlStorageValue::Null, |o| v(o).into())
                    };
                    values.extend([
                        user.as_str().into(),
                        job.as_str().into(),
                        reference.into(),
                        recipient.into(),
                        carbon_grams.into(),
                        offer(|o| o.cheapest_cents),
                        offer(|o| o.cheapest_carbon_grams),
                        offer(|o| o.greenest_cents),
                        offer(|o| o.greenest_carbon_grams),
                    ]);
                    // Its event may have come first: it keeps the service's copy.
                    self.sql().exec(
                        &format!(
                            "INSERT INTO labels ({LABEL_WRITE}, bought_by, job, reference, recipient, carbon, \
                             cheapest_cents, cheapest_carbon, greenest_cents, greenest_carbon) \
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18) \
                             ON CONFLICT(id) DO UPDATE SET bought_by = excluded.bought_by, job = excluded.job, \
                             reference = excluded.reference, recipient = excluded.recipient, carbon = excluded.carbon, \
                             cheapest_cents = excluded.cheapest_cents, cheapest_carbon = excluded.cheapest_carbon, \
                             greenest_cents = excluded.greenest_cents, greenest_carbon = excluded.greenest_carbon"
                        ),
                        values,
                    )?;
                    self.index_label(&label.id)?;
                }
                self.schedule_prune().await?;
                reply::<InboxStore, RecordJobLabels>(&())
            }
            InboxCall::Void(RecordVoid { id, confirmed }) => {
                // A confirmed void refunds the label's price; a request
                // never undoes a confirmation.
                self.sql().exec(
                    "UPDATE labels SET status = CASE WHEN ?2 THEN 'voided' ELSE 'void_requested' END, \
                     refund = CASE WHEN ?2 THEN price ELSE 0 END WHERE id = ?1 AND status != 'voided'",
                    vec![id.into(), (confirmed as i32).into()],
                )?;
                reply::<InboxStore, RecordVoid>(&())
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
            InboxCall::Inbox(ReadInbox {
                sandbox,
                needle,
                accepted,
                rejected,
            }) => reply::<InboxStore, ReadInbox>(&Inbox {
                accepted: if accepted {
                    self.announced(sandbox, needle.as_deref())?
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
        if let Some(mode) = url.strip_prefix(domain::webhooks::LIVE_URL) {
            // The Worker checked the session; the tag is the session's mode.
            let sandbox = mode == "?mode=sandbox";
            let pair = WebSocketPair::new()?;
            self.state
                .accept_websocket_with_tags(&pair.server, &[mode_tag(sandbox)]);
            return Response::from_websocket(pair.client);
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
        let call: InboxCall = req.json().await?;
        Response::ok(self.call(call).await?)
    }

    async fn alarm(&self) -> Result<Response> {
        self.prune_set.set(false);
        self.tables()?;
        let sql = self.sql();
        let now = now();
        // Labels past the retention go with their search trigrams: those
        // older than it (a range of `labels_at` in each mode), then, past
        // the row limit, the oldest (sorted only when there are too many).
        #[derive(Deserialize)]
        struct Count {
            n: f64,
        }
        let count: Vec<Count> = sql
            .exec("SELECT count(*) AS n FROM labels", None)?
            .to_array()?;
        let over = count.first().map_or(0, |c| c.n as i64) - i64::from(RETAIN_LABELS);
        let old = if over > 0 {
            "SELECT rowid FROM labels WHERE sandbox IN (0, 1) AND at < ?1 \
             UNION SELECT rowid FROM (SELECT rowid FROM labels ORDER BY at LIMIT ?2)"
        } else {
            "SELECT rowid FROM labels WHERE sandbox IN (0, 1) AND at < ?1 AND ?2 = 0"
        };
        let bounds = || -> Vec<SqlStorageValue> {
            vec![
                (now.saturating_sub(RETAIN_SECONDS) as f64).into(),
                over.max(0).into(),
            ]
        };
        sql.exec(
            &format!("DELETE FROM label_search WHERE rowid IN ({old})"),
            bounds(),
        )?;
        sql.exec(
            &format!("DELETE FROM labels WHERE rowid IN ({old})"),
            bounds(),
        )?;
        sql.exec(
            "DELETE FROM quotes WHERE at < ?",
            vec![(now.saturating_sub(QUOTE_SECONDS) as f64).into()],
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
        platform::objects::close_back(&ws, code, reason);
        Ok(())
    }

    async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> Result<()> {
        let _ = ws.close(Some(1011), Some("error"));
        Ok(())
    }
}
