//! The `PurchaseRecords` Durable Object: one SQLite-backed instance per
//! `(mode, Idempotency-Key)`, so repeats of one purchase are serialised in
//! one place. Decisions come from `purchases`; this only stores them, and
//! fails closed: a record it cannot read is `Found::Unreadable`, never
//! "nothing yet", and a storage error is an error, never swallowed.

use std::cell::Cell;
use std::time::Duration;

use serde::Deserialize;
use worker::{Date, DurableObject, Env, Request, Response, Result, State, durable_object};

use domain::objects::reply;
use domain::purchases::{
    Begin, BeginCall, FinishCall, Found, PurchaseCall, Purchases, TTL_SECONDS, decode, encode,
};

#[derive(Deserialize)]
struct Row {
    json: String,
}

#[durable_object(alarm)] // fetch and alarm handlers
pub struct PurchaseRecords {
    state: State,
    /// Whether this instance created its table already (once per instance).
    table_ready: Cell<bool>,
}

fn now() -> u64 {
    Date::now().as_millis() / 1000
}

fn internal(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

impl PurchaseRecords {
    fn table(&self) -> Result<()> {
        if !self.table_ready.get() {
            self.state.storage().sql().exec(
                "CREATE TABLE IF NOT EXISTS entry (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)",
                None,
            )?;
            self.table_ready.set(true);
        }
        Ok(())
    }

    fn read(&self) -> Result<Found> {
        self.table()?;
        let rows: Vec<Row> = self
            .state
            .storage()
            .sql()
            .exec("SELECT json FROM entry WHERE id = 1", None)?
            .to_array()?;
        Ok(match rows.first() {
            None => Found::Nothing,
            Some(row) => decode(&row.json).map_or(Found::Unreadable, Found::Entry),
        })
    }

    fn write(&self, entry: Option<&domain::purchases::Entry>) -> Result<()> {
        self.table()?;
        let sql = self.state.storage().sql();
        match entry {
            Some(e) => {
                sql.exec(
                    "INSERT OR REPLACE INTO entry (id, json) VALUES (1, ?)",
                    vec![encode(e).map_err(internal)?.into()],
                )?;
            }
            None => {
                sql.exec("DELETE FROM entry WHERE id = 1", None)?;
            }
        }
        Ok(())
    }

    fn begin(&self, call: &BeginCall) -> Result<Begin> {
        // A read that fails outright is an error (the caller answers 503);
        // a record that reads but does not decode is `Unreadable`.
        let (decision, entry) = domain::purchases::begin(&self.read()?, &call.fingerprint, now());
        if entry.is_some() {
            self.write(entry.as_ref())?;
        }
        Ok(decision)
    }

    async fn finish(&self, call: FinishCall) -> Result<()> {
        let entry = domain::purchases::finish(&call.fingerprint, call.response, now());
        self.write(entry.as_ref())?;
        // Storage stays bounded: the entry is dropped once it can no longer be replayed.
        self.state
            .storage()
            .set_alarm(Duration::from_secs(TTL_SECONDS))
            .await
    }
}

impl DurableObject for PurchaseRecords {
    fn new(state: State, _env: Env) -> Self {
        Self {
            state,
            table_ready: Cell::new(false),
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let json = match req.json::<PurchaseCall>().await? {
            PurchaseCall::Begin(call) => {
                reply::<Purchases, BeginCall>(&self.begin(&call)?).map_err(internal)?
            }
            PurchaseCall::Finish(call) => {
                self.finish(call).await?;
                reply::<Purchases, FinishCall>(&()).map_err(internal)?
            }
        };
        Response::ok(json)
    }

    async fn alarm(&self) -> Result<Response> {
        self.write(None)?;
        Response::empty()
    }
}
