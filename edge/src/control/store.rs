//! The `EdgeControl` Durable Object: stores what `control` describes.

use std::cell::Cell;

use serde::Deserialize;
use worker::{
    Date, DurableObject, Env, Request, Response, Result, SqlStorage, State, durable_object,
};

use super::{Activate, ActiveKey, Control, ControlCall, IsRevoked, Problem, ReportProblem, Revoke};
use crate::objects::reply;
use api::ErrorCode;

#[durable_object]
pub struct EdgeControl {
    state: State,
    /// Whether this instance created its tables already.
    tables_ready: Cell<bool>,
}

#[derive(Deserialize)]
struct Text {
    value: String,
}

fn now() -> u64 {
    Date::now().as_millis() / 1000
}

fn internal(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

fn one(sql: &SqlStorage, query: &str, arg: String) -> Result<Option<String>> {
    let rows: Vec<Text> = sql.exec(query, vec![arg.into()])?.to_array()?;
    Ok(rows.into_iter().next().map(|r| r.value))
}

impl EdgeControl {
    fn sql(&self) -> Result<SqlStorage> {
        let sql = self.state.storage().sql();
        if !self.tables_ready.get() {
            for ddl in [
                "CREATE TABLE IF NOT EXISTS revoked (sid TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)",
                "CREATE TABLE IF NOT EXISTS active_key (mode TEXT PRIMARY KEY, fingerprint TEXT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS key_problem (fingerprint TEXT PRIMARY KEY, code TEXT NOT NULL)",
            ] {
                sql.exec(ddl, None)?;
            }
            self.tables_ready.set(true);
        }
        Ok(sql)
    }
}

impl DurableObject for EdgeControl {
    fn new(state: State, _env: Env) -> Self {
        Self {
            state,
            tables_ready: Cell::new(false),
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let sql = self.sql()?;
        let json = match req.json::<ControlCall>().await? {
            ControlCall::Revoke(Revoke { sid, expires_at }) => {
                // Bounded: rows go once their session would have expired anyway.
                sql.exec(
                    "DELETE FROM revoked WHERE expires_at <= ?",
                    vec![(now() as i64).into()],
                )?;
                sql.exec(
                    "INSERT OR REPLACE INTO revoked (sid, expires_at) VALUES (?, ?)",
                    vec![sid.into(), (expires_at as i64).into()],
                )?;
                reply::<Control, Revoke>(&())
            }
            ControlCall::IsRevoked(IsRevoked { sid }) => {
                let revoked =
                    one(&sql, "SELECT sid AS value FROM revoked WHERE sid = ?", sid)?.is_some();
                reply::<Control, IsRevoked>(&revoked)
            }
            ControlCall::ActiveKey(ActiveKey { mode }) => {
                let fingerprint = one(
                    &sql,
                    "SELECT fingerprint AS value FROM active_key WHERE mode = ?",
                    mode.as_str().into(),
                )?;
                reply::<Control, ActiveKey>(&fingerprint)
            }
            ControlCall::Activate(Activate { mode, fingerprint }) => {
                sql.exec(
                    "INSERT OR REPLACE INTO active_key (mode, fingerprint) VALUES (?, ?)",
                    vec![mode.as_str().into(), fingerprint.into()],
                )?;
                reply::<Control, Activate>(&())
            }
            ControlCall::ReportProblem(ReportProblem { fingerprint, code }) => {
                sql.exec(
                    "INSERT OR REPLACE INTO key_problem (fingerprint, code) VALUES (?, ?)",
                    vec![fingerprint.into(), code.to_string().into()],
                )?;
                reply::<Control, ReportProblem>(&())
            }
            ControlCall::Problem(Problem { fingerprint }) => {
                let code = one(
                    &sql,
                    "SELECT code AS value FROM key_problem WHERE fingerprint = ?",
                    fingerprint,
                )?
                .map(|code| ErrorCode::parse(&code));
                reply::<Control, Problem>(&code)
            }
        }
        .map_err(internal)?;
        Response::ok(json)
    }
}
