//! The idempotency ledger: one SQLite-backed Durable Object per
//! `(mode, Idempotency-Key)`, so repeats of one purchase are serialised in
//! one place. Decisions come from `idempotency`; this only stores them.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use worker::{Date, DurableObject, Env, Request, Response, Result, State, durable_object};

use crate::idempotency::{self, Entry, StoredResponse, TTL_SECONDS};

#[derive(Serialize, Deserialize)]
pub struct BeginCall {
    pub fingerprint: String,
}

#[derive(Serialize, Deserialize)]
pub struct FinishCall {
    pub fingerprint: String,
    pub response: StoredResponse,
}

#[derive(Deserialize)]
struct Row {
    json: String,
}

#[durable_object(alarm)] // fetch and alarm handlers
pub struct IdempotencyLedger {
    state: State,
}

fn now() -> u64 {
    Date::now().as_millis() / 1000
}

impl IdempotencyLedger {
    fn read(&self) -> Option<Entry> {
        let rows: Vec<Row> = self
            .state
            .storage()
            .sql()
            .exec("SELECT json FROM entry WHERE id = 1", None)
            .ok()?
            .to_array()
            .ok()?;
        rows.first()
            .and_then(|r| serde_json::from_str(&r.json).ok())
    }

    fn write(&self, entry: Option<&Entry>) -> Result<()> {
        let sql = self.state.storage().sql();
        match entry {
            Some(e) => {
                let json = serde_json::to_string(e)
                    .map_err(|e| worker::Error::RustError(e.to_string()))?;
                sql.exec(
                    "INSERT OR REPLACE INTO entry (id, json) VALUES (1, ?)",
                    vec![json.into()],
                )?;
            }
            None => {
                sql.exec("DELETE FROM entry WHERE id = 1", None)?;
            }
        }
        Ok(())
    }
}

impl DurableObject for IdempotencyLedger {
    fn new(state: State, _env: Env) -> Self {
        let _ = state.storage().sql().exec("CREATE TABLE IF NOT EXISTS entry (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)", None);
        Self { state }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        match req.path().as_str() {
            "/begin" => {
                let call: BeginCall = req.json().await?;
                let (decision, entry) =
                    idempotency::begin(self.read().as_ref(), &call.fingerprint, now());
                if entry.is_some() {
                    self.write(entry.as_ref())?;
                }
                Response::from_json(&decision)
            }
            "/finish" => {
                let call: FinishCall = req.json().await?;
                let entry = idempotency::finish(&call.fingerprint, call.response, now());
                self.write(entry.as_ref())?;
                // Storage stays bounded: the entry is dropped once it can no longer be replayed.
                self.state
                    .storage()
                    .set_alarm(Duration::from_secs(TTL_SECONDS))
                    .await?;
                Response::from_json(&())
            }
            _ => Response::error("not found", 404),
        }
    }

    async fn alarm(&self) -> Result<Response> {
        self.write(None)?;
        Response::empty()
    }
}
