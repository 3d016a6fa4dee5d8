//! The `EdgeControl` Durable Object: stores what `control` describes.

use crate::control::{ControlCall, ControlReply};
use serde::Deserialize;
use worker::{
    Date, DurableObject, Env, Request, Response, Result, SqlStorage, State, durable_object,
};

#[durable_object]
pub struct EdgeControl {
    state: State,
}

#[derive(Deserialize)]
struct Text {
    value: String,
}

fn now() -> u64 {
    Date::now().as_millis() / 1000
}

fn one(sql: &SqlStorage, query: &str, arg: String) -> Result<Option<String>> {
    let rows: Vec<Text> = sql.exec(query, vec![arg.into()])?.to_array()?;
    Ok(rows.into_iter().next().map(|r| r.value))
}

impl DurableObject for EdgeControl {
    fn new(state: State, _env: Env) -> Self {
        let sql = state.storage().sql();
        for ddl in [
            "CREATE TABLE IF NOT EXISTS revoked (sid TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)",
            "CREATE TABLE IF NOT EXISTS active_key (mode TEXT PRIMARY KEY, fingerprint TEXT NOT NULL)",
            "CREATE TABLE IF NOT EXISTS key_problem (fingerprint TEXT PRIMARY KEY, code TEXT NOT NULL)",
        ] {
            let _ = sql.exec(ddl, None);
        }
        Self { state }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        let sql = self.state.storage().sql();
        let call: ControlCall = req.json().await?;
        let mut reply = ControlReply::default();
        match call {
            ControlCall::Revoke { sid, expires_at } => {
                // Bounded: rows go once their session would have expired anyway.
                sql.exec(
                    "DELETE FROM revoked WHERE expires_at <= ?",
                    vec![(now() as i64).into()],
                )?;
                sql.exec(
                    "INSERT OR REPLACE INTO revoked (sid, expires_at) VALUES (?, ?)",
                    vec![sid.into(), (expires_at as i64).into()],
                )?;
                reply.revoked = true;
            }
            ControlCall::IsRevoked { sid } => {
                reply.revoked =
                    one(&sql, "SELECT sid AS value FROM revoked WHERE sid = ?", sid)?.is_some();
            }
            ControlCall::ActiveKey { mode } => {
                reply.fingerprint = one(
                    &sql,
                    "SELECT fingerprint AS value FROM active_key WHERE mode = ?",
                    mode.as_str().into(),
                )?;
            }
            ControlCall::Activate { mode, fingerprint } => {
                sql.exec(
                    "INSERT OR REPLACE INTO active_key (mode, fingerprint) VALUES (?, ?)",
                    vec![mode.as_str().into(), fingerprint.clone().into()],
                )?;
                reply.fingerprint = Some(fingerprint);
            }
            ControlCall::ReportProblem { fingerprint, code } => {
                sql.exec(
                    "INSERT OR REPLACE INTO key_problem (fingerprint, code) VALUES (?, ?)",
                    vec![fingerprint.into(), code.clone().into()],
                )?;
                reply.problem = Some(code);
            }
            ControlCall::Problem { fingerprint } => {
                reply.problem = one(
                    &sql,
                    "SELECT code AS value FROM key_problem WHERE fingerprint = ?",
                    fingerprint,
                )?;
            }
        }
        Response::from_json(&reply)
    }
}
