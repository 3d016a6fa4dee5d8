//! The `BatchJob` Durable Object: one per job, SQLite. It stores the job
//! (its core and one row per import row), runs `engine`'s steps from
//! alarms, makes the upstream calls with the key of the job's mode, and
//! pushes every change to the job's live feeds (hibernatable WebSockets).
//! A batch creation is stored as sent before it goes out (the runtime holds
//! outgoing requests until storage writes are durable), so a restart can
//! only ever find it "sent, no answer": its outcome is then unknown.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use api::batches::{Batch, CreateBatchRequest, ResultsPage};
use api::jobs::{Job as JobView, JobSummary, JobUpdate, MAX_PAGE_ROWS, RowsPage};
use api::{ApiError, ErrorCode, ErrorEnvelope, Rate, RatesRequest, RatesResponse, Wallet};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use worker::{
    Date, DurableObject, Env, Request, Response, Result, SqlStorage, State, WebSocket,
    WebSocketIncomingMessage, WebSocketPair, durable_object,
};

use super::engine::{Answer, Core, Job, Outcome, Row, Step};
use super::plan::{self, Pace};
use super::{Act, Acted, Create, Get, JobCall, Jobs, Labels, Results, Rows};
use crate::config::Config;
use crate::control::glue as control;
use crate::errors::EdgeError;
use crate::objects::reply;
use crate::runtime::{Trace, random_hex};
use crate::upstream::budget::Window;
use crate::upstream::{proxy, send};

/// One alarm runs steps for at most this long, then hands over to the next
/// alarm, so no invocation runs long and the job's answers stay quick.
const SLICE_MS: u64 = 15_000;
/// The live feed is told at most this often while steps run.
const FEED_EVERY_MS: u64 = 500;
/// A live-feed message carries at most this many changed rows; a page that
/// falls behind reads the rows again.
const FEED_ROWS: usize = 500;
/// While quoting, the core (counters, the rates window) is stored every so
/// many quotes; a chunk's state is stored at every change.
const CORE_EVERY_QUOTES: u32 = 25;

#[durable_object(alarm)]
pub struct BatchJob {
    state: State,
    env: Env,
    job: RefCell<Option<Job>>,
    tables_ready: Cell<bool>,
    config: RefCell<Option<Rc<Config>>>,
    last_feed_ms: Cell<u64>,
    /// Rows changed since the feed was last told, by index (the newest view).
    unsent: RefCell<BTreeMap<u32, api::jobs::RowView>>,
}

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

    fn config(&self) -> std::result::Result<Rc<Config>, EdgeError> {
        if let Some(config) = self.config.borrow().clone() {
            return Ok(config);
        }
        let config = Rc::new(Config::from_lookup(|name| {
            self.env.var(name).ok().map(|v| v.to_string())
        })?);
        *self.config.borrow_mut() = Some(config.clone());
        Ok(config)
    }

    /// The job, read from storage on first use (`None`: no job here).
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
        let job = Job::restore(core, rows);
        if job.core.state == api::jobs::JobState::Stopped {
            // The restore may have found a lost creation: store what it decided.
            self.save_core(&job.core)?;
        }
        *self.job.borrow_mut() = Some(job);
        Ok(true)
    }

    fn save_core(&self, core: &Core) -> Result<()> {
        self.sql()?.exec(
            "INSERT OR REPLACE INTO core (id, json) VALUES (1, ?)",
            vec![serde_json::to_string(core).map_err(internal)?.into()],
        )?;
        Ok(())
    }

    /// Stores the rows that changed (and the core, when `core`); returns the
    /// changed rows' views.
    fn save(&self, save_core: bool) -> Result<Vec<api::jobs::RowView>> {
        let (core, rows) = {
            let mut slot = self.job.borrow_mut();
            let Some(job) = slot.as_mut() else {
                return Ok(vec![]);
            };
            let changed = job.take_changed();
            let rows: Vec<Row> = changed
                .iter()
                .filter_map(|&i| job.rows.get(i as usize).cloned())
                .collect();
            (save_core.then(|| job.core.clone()), rows)
        };
        if let Some(core) = core {
            self.save_core(&core)?;
        }
        let sql = self.sql()?;
        for row in &rows {
            sql.exec(
                "INSERT OR REPLACE INTO rows (idx, json) VALUES (?, ?)",
                vec![
                    i64::from(row.index).into(),
                    serde_json::to_string(row).map_err(internal)?.into(),
                ],
            )?;
        }
        Ok(rows.iter().map(Row::view).collect())
    }

    fn with_job<T>(&self, f: impl FnOnce(&mut Job) -> T) -> Option<T> {
        self.job.borrow_mut().as_mut().map(f)
    }

    fn view(&self) -> Option<JobView> {
        self.with_job(|job| job.view(now()))
    }

    /// Tells the live feeds, and the jobs list, what changed: `rows` and
    /// every row changed since the feed was last told.
    async fn publish(&self, rows: Vec<api::jobs::RowView>, list: bool) {
        let rows: Vec<api::jobs::RowView> = {
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
            if let Err(e) = control::record_job(&self.env, summary).await {
                worker::console_error!("the jobs list missed job {}: {}", job.id, e.code());
            }
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

    // ---- the calls -------------------------------------------------------

    /// One upstream call with the key of the job's mode.
    async fn exchange<T: DeserializeOwned>(
        &self,
        method: &str,
        path: &str,
        query: Option<&str>,
        body: &[u8],
        request_id: &str,
    ) -> (Answer<T>, Option<Window>) {
        let failed = |e: EdgeError| (Answer::Failed(e.to_api_error(request_id)), None);
        let config = match self.config() {
            Ok(c) => c,
            Err(e) => return failed(e),
        };
        let Some(mode) = self.with_job(|j| j.core.mode) else {
            return failed(EdgeError::JobUnavailable);
        };
        let keys = config.keys_for(mode);
        let (key, _) = control::active_key(&self.env, keys).await;
        let forward = match proxy::plan(method, &format!("/api{path}"), query, &config.upstream) {
            Ok(f) => f,
            Err(e) => return failed(e),
        };
        let mut trace = Trace::default();
        let answer = match send::send(
            &forward,
            method,
            key.expose(),
            body,
            config.upstream_timeout_ms,
            &mut trace,
        )
        .await
        {
            Ok(a) => a,
            Err(e) => return failed(e),
        };
        let header = |name: &str| {
            answer
                .headers
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
        };
        let window = Window::from_headers(
            header("x-ratelimit-limit").as_deref(),
            header("x-ratelimit-remaining").as_deref(),
            header("x-ratelimit-reset").as_deref(),
        );
        let retry_after = header("retry-after").and_then(|v| v.parse::<u64>().ok());
        let status = answer.status;
        let stored = match answer.store().await {
            Ok(s) => s,
            Err(e) => return failed(e),
        };
        let result = match serde_json::from_str::<T>(&stored.body) {
            // A 503 of the rates call (some carriers down) still carries rates.
            Ok(value) if status < 300 || status == 503 => Answer::Ok(value),
            Err(e) if status < 300 => Answer::Failed(ApiError::new(
                ErrorCode::EdgeUpstreamUnreachable,
                format!("The service's answer could not be read: {e}."),
                "The job stops here; contact support with this request id.",
                request_id,
            )),
            _ => {
                let error = serde_json::from_str::<ErrorEnvelope>(&stored.body)
                    .map(|e| e.error)
                    .unwrap_or_else(|_| {
                        ApiError::new(
                            ErrorCode::EdgeUpstreamUnreachable,
                            format!("The service answered {status} without an error body."),
                            "Try again later.",
                            request_id,
                        )
                    });
                match status {
                    429 => Answer::RateLimited {
                        retry_after: retry_after.or(error.retry_after_seconds).unwrap_or(1),
                    },
                    400..=499 => Answer::Refused(error),
                    _ => Answer::Failed(error),
                }
            }
        };
        (result, window)
    }

    /// Quotes, reading the rates of a 503 (some carriers down) as rates.
    async fn quote(&self, row: u32, request_id: &str) -> Answer<Vec<Rate>> {
        let Some(request) = self
            .with_job(|j| {
                j.rows.get(row as usize).map(|r| RatesRequest {
                    from_address: r.row.from_address.clone(),
                    to_address: r.row.to_address.clone(),
                    parcel: r.row.parcel,
                })
            })
            .flatten()
        else {
            return Answer::Failed(EdgeError::JobUnavailable.to_api_error(request_id));
        };
        let body = serde_json::to_vec(&request).unwrap_or_default();
        let (answer, window) = self
            .exchange::<RatesResponse>("POST", "/v1/rates", None, &body, request_id)
            .await;
        if let Some(window) = window {
            self.with_job(|j| j.core.rates_window = Some(window));
        }
        match answer {
            // Every carrier down: no rate to choose; the row is tried again.
            Answer::Ok(RatesResponse {
                rates,
                error: Some(e),
            }) if rates.is_empty() => Answer::Failed(e),
            Answer::Ok(r) => Answer::Ok(r.rates),
            Answer::Refused(e) => Answer::Refused(e),
            Answer::RateLimited { retry_after } => Answer::RateLimited { retry_after },
            Answer::Failed(e) => Answer::Failed(e),
        }
    }

    async fn call(&self, step: &Step, request_id: &str) -> Outcome {
        match *step {
            Step::Quote { row } => Outcome::Quoted(self.quote(row, request_id).await),
            Step::ReadWallet { .. } => Outcome::Wallet(
                self.exchange::<Wallet>("GET", "/v1/wallet", None, &[], request_id)
                    .await
                    .0,
            ),
            Step::CreateBatch { chunk } => {
                let items = self.with_job(|j| j.batch_items(chunk)).unwrap_or_default();
                let body = serde_json::to_vec(&CreateBatchRequest { items }).unwrap_or_default();
                Outcome::Created(
                    self.exchange::<Batch>("POST", "/v1/batches", None, &body, request_id)
                        .await
                        .0,
                )
            }
            Step::BuyBatch { chunk } => {
                let id = self.batch_id(chunk);
                Outcome::Bought(
                    self.exchange::<Batch>(
                        "POST",
                        &format!("/v1/batches/{id}/buy"),
                        None,
                        b"{}",
                        request_id,
                    )
                    .await
                    .0,
                )
            }
            Step::ReadBatch { chunk, offset } => {
                let id = self.batch_id(chunk);
                let query = ResultsPage {
                    offset,
                    limit: api::batches::MAX_RESULTS_LIMIT,
                }
                .to_query();
                Outcome::Read(
                    self.exchange::<Batch>(
                        "GET",
                        &format!("/v1/batches/{id}"),
                        Some(&query),
                        &[],
                        request_id,
                    )
                    .await
                    .0,
                )
            }
            // Never asked: the loop stops at these before a call, and an
            // outcome that does not fit its step changes nothing.
            Step::Idle | Step::Wait { .. } => Outcome::Quoted(Answer::Ok(vec![])),
        }
    }

    /// The plan's estimate uses the rates limit the service reports: when
    /// the Worker has not seen it, the first row is quoted now (nothing is
    /// bought; the quote is kept for the run) and the plan redone with it.
    async fn observe_limit(&self) -> Result<()> {
        let known = self
            .with_job(|j| j.core.rates_window.is_some() || j.rows.is_empty())
            .unwrap_or(true);
        if known {
            return Ok(());
        }
        let step = Step::Quote { row: 0 };
        let request_id = format!("req_job_{}", random_hex(12).unwrap_or_default());
        let outcome = self.call(&step, &request_id).await;
        self.with_job(|j| {
            j.apply(&step, outcome, now());
            j.replan();
        });
        self.save(true)?;
        Ok(())
    }

    fn batch_id(&self, chunk: u32) -> String {
        self.with_job(|j| {
            j.core
                .chunks
                .iter()
                .find(|c| c.number == chunk)
                .and_then(|c| c.batch_id.clone())
        })
        .flatten()
        .unwrap_or_default()
    }

    fn record_call(&self, step: &Step, request_id: &str) -> Result<Option<i64>> {
        let (kind, chunk) = match step {
            Step::CreateBatch { chunk } => ("create_batch", *chunk),
            Step::BuyBatch { chunk } => ("buy_batch", *chunk),
            _ => return Ok(None),
        };
        #[derive(Deserialize)]
        struct Id {
            id: i64,
        }
        let ids: Vec<Id> = self
            .sql()?
            .exec(
                "INSERT INTO calls (kind, chunk, request_id, sent_at) VALUES (?, ?, ?, ?) RETURNING id",
                vec![
                    kind.into(),
                    i64::from(chunk).into(),
                    request_id.into(),
                    (now() as i64).into(),
                ],
            )?
            .to_array()?;
        Ok(ids.first().map(|i| i.id))
    }

    fn record_answer(&self, call: i64, outcome: &Outcome) -> Result<()> {
        let (status, text) = match outcome {
            Outcome::Created(a) | Outcome::Bought(a) => match a {
                Answer::Ok(b) => (200, format!("batch {}", b.id)),
                Answer::Refused(e) => (422, e.code.to_string()),
                Answer::RateLimited { retry_after } => {
                    (429, format!("retry after {retry_after} s"))
                }
                Answer::Failed(e) => (0, e.code.to_string()),
            },
            _ => return Ok(()),
        };
        self.sql()?.exec(
            "UPDATE calls SET status = ?, outcome = ? WHERE id = ?",
            vec![status.into(), text.into(), call.into()],
        )?;
        Ok(())
    }

    /// Runs steps until the job waits, is idle, or its slice is used.
    async fn run(&self) -> Result<()> {
        if !self.load()? {
            return Ok(());
        }
        let started = now_ms();
        let mut last_state = self.with_job(|j| j.core.state);
        let mut steps: u32 = 0;
        loop {
            let at = now();
            let step = self
                .with_job(|j| match j.wants_wallet_after() {
                    Some(chunk) => Step::ReadWallet { chunk },
                    None => j.next_step(at),
                })
                .unwrap_or(Step::Idle);
            match step {
                Step::Idle => break,
                Step::Wait { seconds } => {
                    self.wake(seconds).await?;
                    break;
                }
                _ => {}
            }
            let request_id = format!("req_job_{}", random_hex(12).unwrap_or_default());
            if let Step::CreateBatch { chunk } = step {
                self.with_job(|j| j.sending(chunk, &request_id));
            }
            // A quote changes only rows (and counters that may be lost with
            // a crash: the row is quoted again); anything else is stored
            // whole, and before its call goes out.
            let quote = matches!(step, Step::Quote { .. });
            steps += 1;
            let rows = self.save(!quote)?;
            let call = self.record_call(&step, &request_id)?;
            let outcome = self.call(&step, &request_id).await;
            if let Some(call) = call {
                self.record_answer(call, &outcome)?;
            }
            self.with_job(|j| j.apply(&step, outcome, now()));
            let mut changed = rows;
            changed.extend(self.save(!quote || steps.is_multiple_of(CORE_EVERY_QUOTES))?);
            // The feed hears of changes at most every FEED_EVERY_MS, and at
            // once of a new state (which also goes to the jobs list).
            let state = self.with_job(|j| j.core.state);
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
        let rows = self.save(true)?;
        self.publish(rows, true).await;
        Ok(())
    }

    // ---- the Worker's calls ----------------------------------------------

    async fn answer(&self, call: JobCall) -> Result<String> {
        match call {
            JobCall::Create(Create {
                id,
                request,
                mode,
                created_by,
                rates_limit,
                rates_share,
                max_chunk_rows,
            }) => {
                let now = now();
                let pace = Pace {
                    limit: rates_limit.unwrap_or(plan::DEFAULT_RATES_PER_MINUTE),
                    share: rates_share,
                    max_chunk: max_chunk_rows,
                };
                let estimate = plan::estimate(&request.rows, pace);
                let core = Core {
                    id: id.clone(),
                    name: request
                        .name
                        .clone()
                        .filter(|n| !n.trim().is_empty())
                        .unwrap_or_else(|| format!("{} rows", request.rows.len())),
                    mode,
                    created_by,
                    created_at: now,
                    updated_at: now,
                    state: api::jobs::JobState::Planned,
                    rule: request.rule.clone(),
                    approval: request.approval,
                    estimate,
                    problem: None,
                    pace,
                    rates_window: None,
                    hold_until: 0,
                    cost: Default::default(),
                    chunks: vec![],
                    next_chunk: 1,
                    stats: Default::default(),
                    labels_per_second: None,
                };
                let mut job = Job::new(core, request.rows);
                let sql = self.sql()?;
                sql.exec("DELETE FROM rows", None)?;
                for row in &job.rows {
                    sql.exec(
                        "INSERT INTO rows (idx, json) VALUES (?, ?)",
                        vec![
                            i64::from(row.index).into(),
                            serde_json::to_string(row).map_err(internal)?.into(),
                        ],
                    )?;
                }
                self.save_core(&job.core)?;
                job.take_changed();
                *self.job.borrow_mut() = Some(job);
                self.observe_limit().await?;
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
                    let (rows, total) =
                        super::engine::page(&j.rows, state, offset, limit.clamp(1, MAX_PAGE_ROWS));
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
                let result = self.with_job(|j| j.act(action, now()));
                let acted = match result {
                    Some(Ok(())) => {
                        let rows = self.save(true)?;
                        // The engine takes it from here.
                        self.wake(0).await?;
                        self.publish(rows, true).await;
                        match self.view() {
                            Some(job) => Acted::Done { job: Box::new(job) },
                            None => Acted::Missing,
                        }
                    }
                    Some(Err(refusal)) => Acted::Refused { reason: refusal.0 },
                    None => Acted::Missing,
                };
                reply::<Jobs, Act>(&acted).map_err(internal)
            }
            JobCall::Results(Results {}) => {
                self.load()?;
                let csv = self
                    .with_job(|j| super::results::csv(&j.rows))
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
            config: RefCell::new(None),
            last_feed_ms: Cell::new(0),
            unsent: RefCell::new(BTreeMap::new()),
        }
    }

    async fn fetch(&self, mut req: Request) -> Result<Response> {
        // The raw URL: parsing it would link the URL crate's IDNA tables
        // (about 190 KB of the wasm) for this one comparison.
        if req.inner().url() == super::LIVE_URL {
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
        crate::runtime::objects::close_back(&ws, code, reason);
        Ok(())
    }

    async fn websocket_error(&self, ws: WebSocket, _error: worker::Error) -> Result<()> {
        let _ = ws.close(Some(1011), Some("error"));
        Ok(())
    }
}
