//! The `EdgeControl` Durable Object: stores what `control` describes.

use std::cell::Cell;

use serde::Deserialize;
use worker::{
    Date, DurableObject, Env, Request, Response, Result, SqlStorage, State, durable_object,
};

use api::ErrorCode;
use api::jobs::JobSummary;
use domain::control::{
    Activate, ActiveKey, Control, ControlCall, IsRevoked, JOBS_KEPT, ListJobs, Problem, RecordJob,
    ReportProblem, Revoke,
};
use domain::objects::reply;

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
                "CREATE TABLE IF NOT EXISTS jobs (id TEXT PRIMARY KEY, mode TEXT NOT NULL, created_at INTEGER NOT NULL, json TEXT NOT NULL)",
                "CREATE INDEX IF NOT EXISTS jobs_mode ON jobs (mode, created_at)",
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
            ControlCall::RecordJob(RecordJob { job: json }) => {
                let job: JobSummary = serde_json::from_str(&json).map_err(internal)?;
                sql.exec(
                    "INSERT OR REPLACE INTO jobs (id, mode, created_at, json) VALUES (?, ?, ?, ?)",
                    vec![
                        job.id.clone().into(),
                        job.mode.as_str().into(),
                        (job.created_at as i64).into(),
                        json.into(),
                    ],
                )?;
                // Bounded: the oldest jobs of the mode leave the list (their
                // objects keep them, by id).
                sql.exec(
                    "DELETE FROM jobs WHERE mode = ?1 AND id NOT IN (SELECT id FROM jobs WHERE mode = ?1 ORDER BY created_at DESC LIMIT ?2)",
                    vec![job.mode.as_str().into(), i64::from(JOBS_KEPT).into()],
                )?;
                reply::<Control, RecordJob>(&())
            }
            ControlCall::ListJobs(ListJobs { mode }) => {
                #[derive(Deserialize)]
                struct Json {
                    json: String,
                }
                let rows: Vec<Json> = sql
                    .exec(
                        "SELECT json FROM jobs WHERE mode = ? ORDER BY created_at DESC, id",
                        vec![mode.as_str().into()],
                    )?
                    .to_array()?;
                let jobs: Vec<JobSummary> = rows
                    .iter()
                    .filter_map(|r| serde_json::from_str(&r.json).ok())
                    .collect();
                reply::<Control, ListJobs>(&jobs)
            }
        }
        .map_err(internal)?;
        Response::ok(json)
    }
}
