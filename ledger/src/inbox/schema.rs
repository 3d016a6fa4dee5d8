//! The inbox's tables: made once per instance, then the ledger's own
//! schema changes in order (`MIGRATIONS`), and the search trigrams kept in
//! step with each label write.

use serde::Deserialize;
use worker::Result;

use super::WebhookInbox;

/// The ledger's own schema changes, in order; `ledger_schema` says how many
/// ran. 1: insights (time, price, carbon, status, refunds, buyer's batch and
/// the quote's cheapest and lowest-carbon rates beside the one chosen);
/// 2: the labels followed; 3: the tracking page; 4: the shop's events;
/// 5: what a label ships (its addresses and parcel).
const MIGRATIONS: [&[&str]; 5] = [
    &[
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
        // Rates offered to the dashboard, as the object once recorded each
        // quote. Nothing writes them now (a purchase's record carries its
        // offer); the prune empties what an object still holds.
        "CREATE TABLE quotes (rate_id TEXT PRIMARY KEY, at INTEGER NOT NULL, carbon INTEGER NOT NULL, recipient TEXT, \
     cheapest_cents INTEGER NOT NULL, cheapest_carbon INTEGER NOT NULL, greenest_cents INTEGER NOT NULL, greenest_carbon INTEGER NOT NULL)",
        "CREATE INDEX quotes_at ON quotes (at)",
    ],
    &[
        // 2: every label followed (`trackers`): its `domain::tracking::schedule::Follow`
        // as JSON, when its next call is due, and its tracker as last read.
        "CREATE TABLE follows (label TEXT PRIMARY KEY, sandbox INTEGER NOT NULL, tracking TEXT NOT NULL, \
     carrier TEXT NOT NULL, bought_at INTEGER NOT NULL, due INTEGER, registering INTEGER NOT NULL DEFAULT 1, \
     follow TEXT NOT NULL, tracker TEXT, status TEXT, read_at INTEGER, estimated TEXT, events TEXT)",
        "CREATE INDEX follows_due ON follows (due) WHERE due IS NOT NULL",
        "CREATE INDEX follows_bought ON follows (sandbox, bought_at)",
        // The organization the object belongs to and the trackers' budgets.
        "CREATE TABLE tracking_state (name TEXT PRIMARY KEY, value TEXT NOT NULL)",
    ],
    &[
        // 3: the tracking page: each shipment's link token, where a label
        // goes (the lookup by reference and postcode), the rate's estimated
        // day, and the failed lookups of the last hour.
        "ALTER TABLE follows ADD COLUMN token TEXT",
        "CREATE UNIQUE INDEX follows_token ON follows (token)",
        "ALTER TABLE labels ADD COLUMN street TEXT",
        "ALTER TABLE labels ADD COLUMN city TEXT",
        "ALTER TABLE labels ADD COLUMN postcode TEXT",
        "ALTER TABLE labels ADD COLUMN eta TEXT",
        "CREATE INDEX labels_reference ON labels (reference, postcode)",
        "CREATE TABLE lookups (ref TEXT NOT NULL, at INTEGER NOT NULL)",
        "CREATE INDEX lookups_ref ON lookups (ref, at)",
    ],
    &[
        // 4: the shop's events (`shop_events`): one row per label and
        // event, its body as first sent, its attempts as JSON, and when
        // the next attempt (or a lease's end) is due.
        "CREATE TABLE shop_events (id TEXT PRIMARY KEY, label TEXT NOT NULL, event TEXT NOT NULL, \
     at INTEGER NOT NULL, body TEXT NOT NULL, state TEXT NOT NULL, attempts TEXT NOT NULL DEFAULT '[]', due INTEGER)",
        "CREATE UNIQUE INDEX shop_events_once ON shop_events (label, event)",
        "CREATE INDEX shop_events_due ON shop_events (due) WHERE due IS NOT NULL",
        "CREATE INDEX shop_events_at ON shop_events (at)",
    ],
    &[
        // 5: what a label bought here ships, for its page
        // (`webhooks::ledger::SHIPMENT_COLUMNS`): each address and the
        // parcel as JSON text, as written; NULL (not known) for the rest.
        "ALTER TABLE labels ADD COLUMN from_address TEXT",
        "ALTER TABLE labels ADD COLUMN to_address TEXT",
        "ALTER TABLE labels ADD COLUMN parcel TEXT",
    ],
];

/// After a write that may change a label's searched text: its trigrams again.
const INDEX_LABEL: &str = "INSERT OR REPLACE INTO label_search (rowid, text) SELECT rowid, search FROM labels WHERE id = ?";

impl WebhookInbox {
    /// Creates the tables once per instance; an error here surfaces (the
    /// caller answers 503, and the service retries the delivery).
    pub(super) fn tables(&self) -> Result<()> {
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

    pub(super) fn index_label(&self, id: &str) -> Result<()> {
        self.sql().exec(INDEX_LABEL, vec![id.into()])?;
        Ok(())
    }
}
