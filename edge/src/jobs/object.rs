//! The `BatchJob` Durable Object: one per job, SQLite. It stores the job
//! through `runner` (one write per step: the core and the rows it changed,
//! plus a log of every batch creation and buy, sent then answered), runs
//! `engine`'s steps from alarms, makes the upstream calls through the one
//! upstream path with the key of the job's mode, and pushes every change to
//! the job's live feeds (hibernatable WebSockets). A creation is stored as
//! sent before it goes out (the runtime holds outgoing requests until
//! storage writes are durable), so a restart can only ever find it "sent,
//! no answer": its outcome is then unknown.
//!
//! Writes made without an `.await` between them commit together (workerd's
//! SQLite-backed storage batches them into one transaction), which is what
//! makes each step's write atomic. A failed write drops the job from
//! memory: the next use restores it from storage (`runner`).

use domain::errors::Failure;
use domain::jobs::JobError;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use api::jobs::{
    CreateJob, Job as JobView, JobSummary, JobUpdate, MAX_PAGE_ROWS, RowView, RowsPage,
};
use api::orgs::OrgId;
use serde::Deserialize;
use worker::{
    Date, DurableObject, Env, Request, Response, Result, SqlStorage, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair, durable_object,
};

use super::calls::{self, Caller};
use crate::control;
use crate::error::EdgeError;
use api::KeyEnv;
use domain::config::Config;
use domain::jobs::engine::{Call, Core, Job, Next, Outcome, Plan, Row};
use domain::jobs::plan::{self, Pace};
use domain::jobs::runner::{self, Store, Writes};
use domain::jobs::{Act, Acted, Create, Get, JobCall, Jobs, Labels, Results, Rows};
use domain::objects::reply;
use domain::orgs::{Named, object_name};
use domain::webhooks::{InboxStore, JobLabel, RecordJobLabels};
use platform::objects::ask;
use platform::random_hex;

/// One alarm runs steps for at most this long, then hands over to the next
/// alarm, so no invocation runs long and the job's answers stay quick.
const SLICE_MS: u64 = 15_000;
/// The live feed is told at most this often while steps run.
const FEED_EVERY_MS: u64 = 500;
/// A live-feed message carries at most this many changed rows; a page that
/// falls behind reads the rows again.
const FEED_ROWS: usize = 500;

#[durable_object(alarm)]
pub struct BatchJob {
    state: State,
    env: Env,
    job: RefCell<Option<Job>>,
    tables_ready: Cell<bool>,
    last_feed_ms: Cell<u64>,
    /// Rows changed since the feed was last told, by index (the newest view).
    unsent: RefCell<BTreeMap<u32, RowView>>,
    /// An organization's settings with its keys, and when they were asked.
    org_config: RefCell<Option<(u64, Rc<Config>)>>,
}

/// How long a job trusts its organization's keys before asking again: a
/// rotation or a removed key reaches a running job within this time.
const ORG_SETTINGS_MS: u64 = 60_000;

#[derive(Deserialize)]
struct Text {
    json: String,
}

fn now_ms() -> u64 {
    Date::now().as_millis()
}

fn now() -> u64 {
    now_ms() / 1000
}

fn internal(e: impl std::fmt::Display) -> worker::Error {
    worker::Error::RustError(e.to_string())
}

fn request_id() -> String {
    format!("req_job_{}", random_hex(12).unwrap_or_default())
}

/// The job's SQLite tables as a [`Store`]; the rows it wrote are kept for the live feed.
struct SqlStore<'a> {
    sql: &'a SqlStorage,
    written: Vec<RowView>,
}

impl Store for SqlStore<'_> {
    type Error = worker::Error;

    fn write(&mut self, writes: Writes<'_>) -> Result<()> {
        let core = serde_json::to_string(writes.core).map_err(internal)?;
        self.sql.exec(
            "INSERT OR REPLACE INTO core (id, json) VALUES (1, ?)",
            vec![core.into()],
        )?;
        for row in writes.rows {
            self.sql.exec(
                "INSERT OR REPLACE INTO rows (idx, json) VALUES (?, ?)",
                vec![
                    i64::from(row.index).into(),
                    serde_json::to_string(row).map_err(internal)?.into(),
                ],
            )?;
            self.written.push(row.view());
        }
        if let Some(sent) = writes.sent {
            self.sql.exec(
                "INSERT INTO calls (kind, chunk, request_id, sent_at) VALUES (?, ?, ?, ?)",
                vec![
                    sent.kind.into(),
                    i64::from(sent.chunk).into(),
                    sent.request_id.into(),
                    (sent.at as i64).into(),
                ],
            )?;
        }
        if let Some(answered) = writes.answered {
            self.sql.exec(
                "UPDATE calls SET status = ?, outcome = ? WHERE request_id = ?",
                vec![
                    i64::from(answered.status).into(),
                    answered.outcome.into(),
                    answered.request_id.into(),
                ],
            )?;
        }
        Ok(())
    }
}

impl BatchJob {
    fn sql(&self) -> Result<SqlStorage> {
        let sql = self.state.storage().sql();
        if !self.tables_ready.get() {
            for ddl in [
                "CREATE TABLE IF NOT EXISTS core (id INTEGER PRIMARY KEY CHECK (id = 1), json TEXT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS rows (idx INTEGER PRIMARY KEY, json TEXT NOT NULL)",
                "CREATE TABLE IF NOT EXISTS calls (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, chunk INTEGER, request_id TEXT NOT NULL, sent_at INTEGER NOT NULL, status INTEGER, outcome TEXT)",
            ] {
                sql.exec(ddl, None)?;
            }
            self.tables_ready.set(true);
        }
        Ok(sql)
    }

    /// The settings of the job's organization: the deployment's, read as
    /// the fetch handler reads them, or another organization's with its
    /// own keys, never the deployment's.
    async fn config(&self, org: &OrgId) -> std::result::Result<Rc<Config>, EdgeError> {
        let base = crate::settings::config(&self.env)?;
        if org.is_deployment() {
            return Ok(base);
        }
        if let Some((at, config)) = self.org_config.borrow().as_ref()
            && now_ms().saturating_sub(*at) < ORG_SETTINGS_MS
        {
            return Ok(config.clone());
        }
        let config = Rc::new(crate::accounts::org_settings(&self.env, &base, org.clone()).await?);
        *self.org_config.borrow_mut() = Some((now_ms(), config.clone()));
        Ok(config)
    }

    /// The job, read from storage on first use (`false`: no job here).
    fn load(&self) -> Result<bool> {
        if self.job.borrow().is_some() {
            return Ok(true);
        }
        let sql = self.sql()?;
        let cores: Vec<Text> = sql
            .exec("SELECT json FROM core WHERE id = 1", None)?
            .to_array()?;
        let Some(core) = cores.first() else {
            return Ok(false);
        };
        let core: Core = serde_json::from_str(&core.json).map_err(internal)?;
        let stored: Vec<Text> = sql
            .exec("SELECT json FROM rows ORDER BY idx", None)?
            .to_array()?;
        let rows = stored
            .iter()
            .map(|t| serde_json::from_str::<Row>(&t.json))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(internal)?;
        *self.job.borrow_mut() = Some(Job::restore(core, rows));
        // What the restore decided (a lost creation, rows to plan again) is stored.
        self.step(|job, store| runner::save(job, store))?;
        Ok(true)
    }

    /// Runs `f` on the job with its store; a failed write drops the job
    /// from memory, so its next use restores it from storage. Returns the
    /// rows written, for the live feed.
    fn step<T>(
        &self,
        f: impl FnOnce(&mut Job, &mut SqlStore) -> Result<T>,
    ) -> Result<(T, Vec<RowView>)> {
        let sql = self.sql()?;
        let mut store = SqlStore {
            sql: &sql,
            written: vec![],
        };
        let mut slot = self.job.borrow_mut();
        let job = slot.as_mut().ok_or_else(|| internal("no job loaded"))?;
        match f(job, &mut store) {
            Ok(value) => Ok((value, store.written)),
            Err(e) => {
                *slot = None;
                Err(e)
            }
        }
    }

    fn with_job<T>(&self, f: impl FnOnce(&mut Job) -> T) -> Option<T> {
        self.job.borrow_mut().as_mut().map(f)
    }

    fn view(&self) -> Option<JobView> {
        self.with_job(|job| job.view(now()))
    }

    /// Tells the live feeds, and the jobs list, what changed: `rows` and
    /// every row changed since the feed was last told.
    async fn publish(&self, rows: Vec<RowView>, list: bool) {
        let rows: Vec<RowView> = {
            let mut unsent = self.unsent.borrow_mut();
            unsent.extend(rows.into_iter().map(|r| (r.index, r)));
            std::mem::take(&mut *unsent).into_values().collect()
        };
        let Some(job) = self.view() else { return };
        self.last_feed_ms.set(now_ms());
        let sockets = self.state.get_websockets();
        if !sockets.is_empty() {
            for chunk in rows
                .chunks(FEED_ROWS)
                .chain(rows.is_empty().then_some(&[][..]))
            {
                let update = JobUpdate {
                    job: job.clone(),
                    rows: chunk.to_vec(),
                };
                if let Ok(text) = serde_json::to_string(&update) {
                    for ws in &sockets {
                        // A socket that is closing just misses this one.
                        let _ = ws.send_with_str(&text);
                    }
                }
            }
        }
        if list {
            let summary = JobSummary::from(&job);
            let Some(org) = self.with_job(|j| j.core.org.clone()) else {
                return;
            };
            if let Err(e) = control::record_job(&self.env, &org, summary).await {
                worker::console_error!("the jobs list missed job {}: {}", job.id, e.code());
            }
        }
    }

    /// Rows that became labels join the organization's ledger with what
    /// only the job knows (itself, the row's reference, addresses and
    /// parcel, the rate's carbon). The labels stand whether or not this is recorded:
    /// their events add them too.
    async fn record_labels(&self, rows: &[RowView]) {
        let Some((org, job, user, sandbox)) = self.with_job(|j| {
            let c = &j.core;
            (
                c.org.clone(),
                c.id.clone(),
                c.created_by.clone(),
                c.mode == KeyEnv::Sandbox,
            )
        }) else {
            return;
        };
        // The job's own rows: a row's view has no sender address.
        let labels: Vec<JobLabel> = self
            .with_job(|j| {
                rows.iter()
                    .filter_map(|r| JobLabel::of_bought(j.rows().get(r.index)?, sandbox))
                    .collect()
            })
            .unwrap_or_default();
        if labels.is_empty() {
            return;
        }
        let call = RecordJobLabels { job, user, labels };
        let name = object_name(&org, Named::Inbox);
        if let Err(e) = ask::<InboxStore, _>(&self.env, &name, call).await {
            worker::console_error!("a job's labels missed the ledger: {}", e.code());
        }
    }

    /// After a restart the job's alarm may be gone: a job with work sets it again.
    async fn keep_running(&self) -> Result<()> {
        if self.with_job(|j| j.has_work()).unwrap_or(false)
            && self.state.storage().get_alarm().await?.is_none()
        {
            self.wake(0).await?;
        }
        Ok(())
    }

    async fn wake(&self, seconds: u64) -> Result<()> {
        self.state
            .storage()
            .set_alarm(Duration::from_secs(seconds))
            .await
    }

    /// Makes `call` with the key of the job's mode, through the one upstream path.
    async fn call(&self, call: &Call, request_id: &str) -> Outcome {
        let Some((org, mode)) = self.with_job(|j| (j.core.org.clone(), j.core.mode)) else {
            return calls::unsent(call, JobError::Unavailable.into(), request_id);
        };
        let config = match self.config(&org).await {
            Ok(config) => config,
            Err(e) => return calls::unsent(call, e, request_id),
        };
        let caller = Caller {
            env: &self.env,
            config: &config,
            mode,
        };
        let (outcome, window) = caller.call(call, request_id).await;
        if let Some(window) = window {
            self.with_job(|j| j.saw_rates_window(window));
        }
        outcome
    }

    /// The plan's estimate uses the rates limit the service reports: when
    /// the Worker has not seen it, one row is quoted at creation (nothing
    /// is bought) and the plan is paced again with what the answer says.
    async fn probe_limit(&self) {
        let Some(call) = self.with_job(|j| j.limit_probe()).flatten() else {
            return;
        };
        self.call(&call, &request_id()).await;
        self.with_job(|j| j.probed(now()));
    }

    /// Runs steps until the job waits, is idle, or its slice is used.
    async fn run(&self) -> Result<()> {
        if !self.load()? {
            return Ok(());
        }
        let started = now_ms();
        let mut last_state = self.with_job(|j| j.state());
        loop {
            let request_id = request_id();
            let (next, mut changed) =
                self.step(|job, store| runner::begin(job, store, now(), &request_id))?;
            let call = match next {
                Next::Idle => break,
                Next::Wait { seconds } => {
                    self.wake(seconds).await?;
                    break;
                }
                Next::Call(call) => call,
            };
            let outcome = self.call(&call, &request_id).await;
            let ((), rows) = self.step(|job, store| {
                runner::finish(job, store, &call, outcome, now(), &request_id)
            })?;
            self.record_labels(&rows).await;
            changed.extend(rows);
            // The feed hears of changes at most every FEED_EVERY_MS, and at
            // once of a new state (which also goes to the jobs list).
            let state = self.with_job(|j| j.state());
            let state_changed = state != last_state;
            last_state = state;
            if now_ms() - self.last_feed_ms.get() >= FEED_EVERY_MS || state_changed {
                self.publish(changed, state_changed).await;
            } else {
                self.unsent
                    .borrow_mut()
                    .extend(changed.into_iter().map(|r| (r.index, r)));
            }
            if now_ms() - started >= SLICE_MS {
                self.wake(0).await?;
                break;
            }
        }
        self.publish(vec![], true).await;
        Ok(())
    }

    // ---- the Worker's calls ----------------------------------------------

    async fn answer(&self, call: JobCall) -> Result<String> {
        match call {
            JobCall::Create(Create {
                id,
                org,
                request,
                mode,
                created_by,
                rates_limit,
                rates_share,
                max_chunk_rows,
            }) => {
                let request: CreateJob = api::validation::parse_json(request.as_bytes())
                    .map_err(|e| internal(e.message()))?;
                let name = request
                    .name
                    .clone()
                    .filter(|n| !n.trim().is_empty())
                    .unwrap_or_else(|| format!("{} rows", request.rows.len()));
                let job = Job::plan(
                    Plan {
                        id,
                        org,
                        name,
                        mode,
                        created_by,
                        rule: request.rule,
                        approval: request.approval,
                        pace: Pace {
                            limit: rates_limit.unwrap_or(plan::DEFAULT_RATES_PER_MINUTE),
                            share: rates_share,
                            max_chunk: max_chunk_rows,
                        },
                        rows: request.rows,
                    },
                    now(),
                );
                self.sql()?.exec("DELETE FROM rows", None)?;
                *self.job.borrow_mut() = Some(job);
                self.step(|job, store| runner::save(job, store))?;
                self.probe_limit().await;
                self.step(|job, store| runner::save(job, store))?;
                let view = self
                    .view()
                    .ok_or_else(|| internal("the job was just stored"))?;
                self.publish(vec![], true).await;
                reply::<Jobs, Create>(&view).map_err(internal)
            }
            JobCall::Get(Get {}) => {
                self.load()?;
                reply::<Jobs, Get>(&self.view()).map_err(internal)
            }
            JobCall::Rows(Rows {
                state,
                offset,
                limit,
            }) => {
                self.load()?;
                let page = self.with_job(|j| {
                    let (rows, total) = domain::jobs::engine::page(
                        j.rows(),
                        state,
                        offset,
                        limit.clamp(1, MAX_PAGE_ROWS),
                    );
                    RowsPage {
                        rows,
                        offset,
                        total,
                    }
                });
                reply::<Jobs, Rows>(&page).map_err(internal)
            }
            JobCall::Act(Act { action }) => {
                if !self.load()? {
                    return reply::<Jobs, Act>(&Acted::Missing).map_err(internal);
                }
                let (result, rows) = self.step(|job, store| {
                    let result = job.act(action, now());
                    runner::save(job, store)?;
                    Ok(result)
                })?;
                let acted = match result {
                    Ok(()) => {
                        // The engine takes it from here.
                        self.wake(0).await?;
                        self.publish(rows, true).await;
                        match self.view() {
                            Some(job) => Acted::Done { job: Box::new(job) },
                            None => Acted::Missing,
                        }
                    }
                    Err(refusal) => Acted::Refused { reason: refusal.0 },
                };
                reply::<Jobs, Act>(&acted).map_err(internal)
            }
            JobCall::Results(Results {}) => {
                self.load()?;
                let csv = self
                    .with_job(|j| domain::jobs::results::csv(j.rows().as_slice()))
                    .transpose()
                    .map_err(internal)?;
                reply::<Jobs, Results>(&csv).map_err(internal)
            }
            JobCall::Labels(Labels { chunk, part }) => {
                self.load()?;
                let labels =
                    self.with_job(|j| j.labels(chunk, part as usize, api::jobs::LABELS_PER_PDF));
                reply::<Jobs, Labels>(&labels).map_err(internal)
            }
        }
    }
}

impl DurableObject for BatchJob {
    fn new(state: State, env: Env) -> Self {
        Self {
            state,
            env,
            job: RefCell::new(None),
            tables_ready: Cell::new(false),
            last_feed_ms: Cell::new(0),
            unsent: RefCell::new(BTreeMap::new()),
            org_config: RefCell::new(None),
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        // The raw URL: parsing it would link the URL crate's IDNA tables
        // (about 190 KB of the wasm) for this one comparison.
        if req.inner().url() == domain::jobs::LIVE_URL {
            // The Worker checked the session and the scope.
            let pair = WebSocketPair::new()?;
            self.state.accept_web_socket(&pair.server);
            return Response::from_websocket(pair.client);
        }
        let call: JobCall = req.json().await?;
        let create = matches!(call, JobCall::Create(_));
        let answer = self.answer(call).await?;
        if !create {
            self.keep_running().await?;
        }
        Response::ok(answer)
    }

    async fn alarm(&self) -> Result<Response> {
        self.run().await?;
        Response::empty()
    }

    async fn websocket_message(
        &self,
        _ws: WebSocket,
        _message: WebSocketIncomingMessage,
    ) -> Result<()> {
        // The feed is one-way: what a page sends is ignored.
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
