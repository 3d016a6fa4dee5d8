//! A job's engine, without I/O: [`Job::next_step`] says which upstream call
//! comes next (or how long to wait), and [`Job::apply`] takes its outcome.
//! The Durable Object (`object`) only stores the job, makes the calls and
//! sets alarms, so every decision here is tested natively with canned
//! answers.
//!
//! Money rules, all enforced here:
//! - a batch creation is recorded as sent before it goes out; if its answer
//!   is lost (a restart, a timeout, a 5xx) the chunk is `OutcomeUnknown`
//!   and the job stops: it is never sent again automatically;
//! - no rate older than [`MAX_QUOTE_AGE_SECONDS`] is ever sent: it is quoted again;
//! - buying a created batch may be repeated (`BATCH.ALREADY_PROCESSING` means it took);
//! - the live wallet is read before each chunk; a short balance pauses the job;
//! - a bought row is never quoted, sent or retried again.

use std::collections::{HashMap, HashSet};

use api::batches::{Batch, BatchItem, BatchItemState, BatchState};
use api::jobs::{
    Approval, ChunkState, ChunkView, Cost, Counts, Decide, Estimate, Job as JobView, JobProblem,
    JobRow, JobState, JobStats, RowQuote, RowState, RowView, Rule,
};
use api::{ApiError, ErrorCode, KeyEnv, Rate, Wallet};
use serde::{Deserialize, Serialize};

use super::plan::{self, ASSUMED_LABELS_PER_SECOND, MAX_QUOTE_AGE_SECONDS, NoRate, Pace};
use crate::upstream::budget::Window;

/// How often a quote of a row is tried before the row fails (a carrier
/// outage, a 5xx): the row's error then says what happened.
pub const MAX_QUOTE_ATTEMPTS: u8 = 3;
/// How long to wait after an upstream failure that may pass (5xx, unreachable).
pub const RETRY_AFTER_FAILURE_SECONDS: u64 = 5;
/// A processing batch is read at most this often, and at least this rarely.
pub const MIN_READ_SECONDS: u64 = 1;
pub const MAX_READ_SECONDS: u64 = 10;

/// One row of the job, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub index: u32,
    /// Identical shipments share a key and one quote (`plan::shipment_key`).
    pub key: String,
    pub row: JobRow,
    pub state: RowState,
    pub quote: Option<RowQuote>,
    pub approved_cents: Option<i64>,
    pub chunk: Option<u32>,
    pub batch_id: Option<String>,
    pub label_id: Option<String>,
    pub tracking_number: Option<String>,
    pub label_url: Option<String>,
    pub error: Option<ApiError>,
    pub attempts: u8,
}

impl Row {
    pub fn new(index: u32, row: JobRow) -> Row {
        Row {
            index,
            key: plan::shipment_key(&row),
            row,
            state: RowState::Pending,
            quote: None,
            approved_cents: None,
            chunk: None,
            batch_id: None,
            label_id: None,
            tracking_number: None,
            label_url: None,
            error: None,
            attempts: 0,
        }
    }

    pub fn view(&self) -> RowView {
        RowView {
            index: self.index,
            reference: self.row.reference.clone(),
            state: self.state,
            to_address: self.row.to_address.clone(),
            parcel: self.row.parcel,
            quote: self.quote.clone(),
            approved_cents: self.approved_cents,
            chunk: self.chunk,
            batch_id: self.batch_id.clone(),
            label_id: self.label_id.clone(),
            tracking_number: self.tracking_number.clone(),
            error: self.error.clone(),
        }
    }

    fn fresh(&self, now: u64) -> bool {
        self.quote
            .as_ref()
            .is_some_and(|q| now.saturating_sub(q.quoted_at) < MAX_QUOTE_AGE_SECONDS)
    }
}

/// One chunk: the rows of one v1 batch, in row order (item `i` is `rows[i]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub number: u32,
    pub rows: Vec<u32>,
    pub state: ChunkState,
    pub total_cents: i64,
    pub batch_id: Option<String>,
    pub request_id: Option<String>,
    pub wallet_before_cents: Option<i64>,
    pub wallet_after_cents: Option<i64>,
    /// The live wallet read and found sufficient for this chunk.
    pub wallet_checked: bool,
    pub completion_percentage: Option<u32>,
    /// Items before this index are all settled (bought or failed).
    pub settled_prefix: u32,
    /// When the next read of the processing batch is due.
    pub next_read_at: u64,
    pub bought_at: Option<u64>,
}

impl Chunk {
    fn view(&self) -> ChunkView {
        ChunkView {
            number: self.number,
            rows: self.rows.len() as u32,
            state: self.state,
            total_cents: self.total_cents,
            batch_id: self.batch_id.clone(),
            request_id: self.request_id.clone(),
            wallet_before_cents: self.wallet_before_cents,
            wallet_after_cents: self.wallet_after_cents,
            completion_percentage: self.completion_percentage,
        }
    }
}

/// The next thing the job does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Nothing until the merchant acts, or ever (finished).
    Idle,
    /// Nothing for this long (the pace, a `Retry-After`, a batch processing).
    Wait { seconds: u64 },
    /// Quote the shipment of this row (its twins get the same rate).
    Quote { row: u32 },
    /// Read the wallet before creating this chunk (or after its outcome was lost).
    ReadWallet { chunk: u32 },
    /// Create this chunk's batch: a write, recorded as sent before it goes out.
    CreateBatch { chunk: u32 },
    /// Buy this chunk's batch (safe to repeat).
    BuyBatch { chunk: u32 },
    /// Read this chunk's batch: progress, and results from `offset`.
    ReadBatch { chunk: u32, offset: u32 },
}

/// How an upstream call ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer<T> {
    Ok(T),
    /// The service refused; nothing happened (4xx other than 429).
    Refused(ApiError),
    /// 429: wait this long.
    RateLimited {
        retry_after: u64,
    },
    /// No clear answer (timeout, unreachable, 5xx): for a write, the outcome is unknown.
    Failed(ApiError),
}

/// The outcome of a [`Step`]'s call.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Rates (also those of a 503 with some carriers down).
    Quoted(Answer<Vec<Rate>>),
    Wallet(Answer<Wallet>),
    Created(Answer<Batch>),
    Bought(Answer<Batch>),
    Read(Answer<Batch>),
}

/// What the Worker knows of the job besides its rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Core {
    pub id: String,
    pub name: String,
    pub mode: KeyEnv,
    pub created_by: String,
    pub created_at: u64,
    pub updated_at: u64,
    pub state: JobState,
    pub rule: Rule,
    pub approval: Approval,
    pub estimate: Estimate,
    pub problem: Option<JobProblem>,
    pub pace: Pace,
    /// The rates window as the service last reported it to this job.
    pub rates_window: Option<Window>,
    /// Until when nothing may be sent (a 429's `Retry-After`, a failure).
    pub hold_until: u64,
    pub cost: Cost,
    pub chunks: Vec<Chunk>,
    /// The number the next chunk gets (numbers are never reused).
    #[serde(default)]
    pub next_chunk: u32,
    /// What the calls met: quotes made (and when), 429s, refused creations.
    pub stats: JobStats,
    /// Labels per second the service made, once observed.
    pub labels_per_second: Option<f64>,
}

/// A job: its core and its rows (row `i` at index `i`).
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub core: Core,
    pub rows: Vec<Row>,
    /// Rows changed since the last [`Job::take_changed`].
    changed: HashSet<u32>,
}

/// A merchant's action on a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum Action {
    Start,
    Approve,
    Decide(Decide),
    Retry,
    Release,
    Cancel,
}

/// Why an action does not apply now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl Job {
    pub fn new(core: Core, rows: Vec<JobRow>) -> Job {
        let rows = rows
            .into_iter()
            .enumerate()
            .map(|(i, r)| Row::new(i as u32, r))
            .collect();
        Job {
            core,
            rows,
            changed: HashSet::new(),
        }
    }

    /// A job read back from storage. A batch creation that was sent and
    /// never answered (the Worker restarted) has an unknown outcome now.
    pub fn restore(core: Core, rows: Vec<Row>) -> Job {
        let mut job = Job {
            core,
            rows,
            changed: HashSet::new(),
        };
        let lost: Vec<u32> = job
            .core
            .chunks
            .iter()
            .filter(|c| c.state == ChunkState::Creating)
            .map(|c| c.number)
            .collect();
        for number in lost {
            let error = ApiError::new(
                ErrorCode::EdgeUpstreamUnreachable,
                "The Worker restarted while this chunk's batch was being created; its outcome is unknown.",
                "Check the service's dashboard for a batch of this total, then release the chunk (its rows fail and can be retried) or cancel the job.",
                "",
            );
            job.outcome_unknown(number, error);
        }
        job
    }

    fn row_mut(&mut self, index: u32) -> Option<&mut Row> {
        self.changed.insert(index);
        self.rows.get_mut(index as usize)
    }

    fn chunk_mut(&mut self, number: u32) -> Option<&mut Chunk> {
        self.core.chunks.iter_mut().find(|c| c.number == number)
    }

    /// Rows changed since the last call (for storage and the live feed).
    pub fn take_changed(&mut self) -> Vec<u32> {
        let mut changed: Vec<u32> = self.changed.drain().collect();
        changed.sort_unstable();
        changed
    }

    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for row in &self.rows {
            counts.add(row.state, 1);
        }
        counts
    }

    fn review(&self) -> bool {
        self.core.approval == Approval::ReviewFirst
    }

    /// The chunk whose rows are being quoted, if any.
    fn forming(&self) -> Option<&Chunk> {
        self.core
            .chunks
            .iter()
            .find(|c| c.state == ChunkState::Quoting)
    }

    // ---- the merchant's actions ------------------------------------------

    pub fn act(&mut self, action: Action, now: u64) -> Result<(), Refusal> {
        use JobState::*;
        let state = self.core.state;
        let refuse = |what: &str| {
            Err(Refusal(format!(
                "The job is {state:?}: it cannot {what} now."
            )))
        };
        match action {
            Action::Start => match state {
                Planned => {
                    self.core.state = if self.review() { Quoting } else { Buying };
                }
                // Resuming after funds were added or the ceiling was raised elsewhere.
                Paused => {
                    self.core.problem = None;
                    self.core.state = Buying;
                    for chunk in &mut self.core.chunks {
                        chunk.wallet_checked = false;
                    }
                }
                _ => return refuse("start"),
            },
            Action::Approve => match state {
                AwaitingApproval => {
                    for row in &mut self.rows {
                        if row.state == RowState::Quoted {
                            row.approved_cents = row.quote.as_ref().map(|q| q.rate_cents);
                            self.changed.insert(row.index);
                        }
                    }
                    self.core.state = Buying;
                }
                _ => return refuse("be approved"),
            },
            Action::Decide(decide) => {
                if state.is_finished() {
                    return refuse("take decisions");
                }
                for index in decide.rows {
                    let Some(row) = self.row_mut(index) else {
                        continue;
                    };
                    if row.state != RowState::NeedsDecision {
                        continue;
                    }
                    row.chunk = None;
                    row.error = None;
                    if decide.accept {
                        row.approved_cents = row.quote.as_ref().map(|q| q.rate_cents);
                        row.state = RowState::Quoted;
                    } else {
                        row.state = RowState::Skipped;
                    }
                }
                if state == Paused
                    && matches!(self.core.problem, Some(JobProblem::Decisions { .. }))
                {
                    self.core.problem = None;
                    self.core.state = Buying;
                }
            }
            Action::Retry => {
                if matches!(state, Planned | Quoting | AwaitingApproval | Stopped) {
                    return refuse("retry rows");
                }
                let failed: Vec<u32> = self
                    .rows
                    .iter()
                    .filter(|r| r.state == RowState::Failed)
                    .map(|r| r.index)
                    .collect();
                if failed.is_empty() {
                    return Err(Refusal("No row failed: nothing to retry.".into()));
                }
                for index in failed {
                    if let Some(row) = self.row_mut(index) {
                        row.state = RowState::Pending;
                        row.error = None;
                        row.chunk = None;
                        row.batch_id = None;
                        row.attempts = 0;
                        // The merchant retries at today's price.
                        row.approved_cents = None;
                        row.quote = None;
                    }
                }
                self.core.problem = None;
                self.core.state = Buying;
            }
            Action::Release => {
                let Some(JobProblem::OutcomeUnknown { chunk, .. }) = self.core.problem.clone()
                else {
                    return Err(Refusal("No chunk has an unknown outcome.".into()));
                };
                let rows = self
                    .core
                    .chunks
                    .iter()
                    .find(|c| c.number == chunk)
                    .map(|c| c.rows.clone())
                    .unwrap_or_default();
                for index in rows {
                    if let Some(row) = self.row_mut(index) {
                        row.state = RowState::Failed;
                        row.error = Some(ApiError::new(
                            ErrorCode::EdgeUpstreamUnreachable,
                            format!(
                                "Chunk {chunk}'s batch may or may not have been created; it was released by the merchant."
                            ),
                            "Retry this row only if the service's dashboard shows no label for it.",
                            "",
                        ));
                    }
                }
                self.core.problem = None;
                self.core.state = Buying;
            }
            Action::Cancel => {
                if state.is_finished() {
                    return refuse("be cancelled");
                }
                // Chunks already created are paid: they are still bought and
                // followed. Nothing else is sent.
                let forming: Vec<u32> = self
                    .core
                    .chunks
                    .iter()
                    .filter(|c| c.state == ChunkState::Quoting)
                    .map(|c| c.number)
                    .collect();
                self.core.chunks.retain(|c| c.state != ChunkState::Quoting);
                for row in &mut self.rows {
                    if row.chunk.is_some_and(|c| forming.contains(&c)) {
                        row.chunk = None;
                    }
                    if matches!(
                        row.state,
                        RowState::Pending | RowState::Quoted | RowState::NeedsDecision
                    ) {
                        row.state = RowState::Skipped;
                        self.changed.insert(row.index);
                    }
                }
                self.core.state = Cancelled;
            }
        }
        self.core.updated_at = now;
        Ok(())
    }

    // ---- what comes next --------------------------------------------------

    /// Whether the job has work of its own to do (its alarm must be set).
    pub fn has_work(&self) -> bool {
        matches!(self.core.state, JobState::Quoting | JobState::Buying)
            || self
                .core
                .chunks
                .iter()
                .any(|c| matches!(c.state, ChunkState::Created | ChunkState::Processing))
    }

    /// The next call, or how long to wait, or nothing until the merchant acts.
    pub fn next_step(&mut self, now: u64) -> Step {
        if now < self.core.hold_until {
            return Step::Wait {
                seconds: self.core.hold_until - now,
            };
        }
        match self.core.state {
            JobState::Quoting => self.next_review_quote(now),
            JobState::Buying => self.next_buying_step(now),
            // Created chunks are paid: they are bought and followed to the end.
            JobState::Cancelled => self.next_chunk_follow_up(now).unwrap_or(Step::Idle),
            JobState::Paused | JobState::Stopped => {
                self.next_chunk_follow_up(now).unwrap_or(Step::Idle)
            }
            JobState::Planned | JobState::AwaitingApproval | JobState::Completed => Step::Idle,
        }
    }

    /// The pace at the limit the service last reported (the configured
    /// guess until it has reported one).
    fn pace(&self) -> Pace {
        Pace {
            limit: self
                .core
                .rates_window
                .map_or(self.core.pace.limit, |w| w.limit),
            ..self.core.pace
        }
    }

    /// Waits for the rates window when quoting would take `Remaining` into the reserve.
    fn pace_wait(&self, now: u64) -> Option<Step> {
        let window = self.core.rates_window?;
        if now >= window.reset_at {
            return None;
        }
        let reserve = self.pace().reserve();
        (window.remaining <= reserve).then(|| Step::Wait {
            seconds: (window.reset_at - now).max(1),
        })
    }

    fn quote_step(&self, row: u32, now: u64) -> Step {
        self.pace_wait(now).unwrap_or(Step::Quote { row })
    }

    fn next_review_quote(&mut self, now: u64) -> Step {
        match self.rows.iter().find(|r| r.state == RowState::Pending) {
            Some(row) => self.quote_step(row.index, now),
            None => {
                self.core.state = JobState::AwaitingApproval;
                self.core.updated_at = now;
                Step::Idle
            }
        }
    }

    /// Buying or reading chunks already created, if one needs it now.
    fn next_chunk_follow_up(&self, now: u64) -> Option<Step> {
        let mut wait: Option<u64> = None;
        for chunk in &self.core.chunks {
            match chunk.state {
                ChunkState::Created => {
                    return Some(Step::BuyBatch {
                        chunk: chunk.number,
                    });
                }
                ChunkState::Processing if chunk.next_read_at <= now => {
                    return Some(Step::ReadBatch {
                        chunk: chunk.number,
                        offset: chunk.settled_prefix,
                    });
                }
                ChunkState::Processing => {
                    let w = chunk.next_read_at - now;
                    wait = Some(wait.map_or(w, |x| x.min(w)));
                }
                _ => {}
            }
        }
        wait.map(|seconds| Step::Wait { seconds })
    }

    fn next_buying_step(&mut self, now: u64) -> Step {
        let follow_up = self.next_chunk_follow_up(now);
        if let Some(step @ (Step::BuyBatch { .. } | Step::ReadBatch { .. })) = &follow_up {
            return step.clone();
        }
        // The first chunk is sized from the limit the service reports: one
        // row is quoted first to learn it (its quote is kept).
        if self.core.stats.quote_calls == 0
            && self.forming().is_none()
            && let Some(row) = self
                .rows
                .iter()
                .find(|r| r.state == RowState::Pending && r.chunk.is_none())
        {
            return self.quote_step(row.index, now);
        }
        if self.forming().is_none() && !self.form_chunk(now) {
            // Nothing left to send: the job ends once its batches are done.
            if let Some(step) = follow_up {
                return step;
            }
            return self.finish(now);
        }
        match self.chunk_step(now) {
            Step::Idle => follow_up.unwrap_or(Step::Idle),
            // A quote that must wait does not hold up a batch being read.
            Step::Wait { seconds } => match follow_up {
                Some(Step::Wait { seconds: s }) => Step::Wait {
                    seconds: s.min(seconds),
                },
                _ => Step::Wait { seconds },
            },
            step => step,
        }
    }

    /// The job's end (or its pause for decisions), once nothing is left to send.
    fn finish(&mut self, now: u64) -> Step {
        let waiting = self
            .rows
            .iter()
            .filter(|r| r.state == RowState::NeedsDecision)
            .count() as u32;
        if waiting > 0 {
            self.core.state = JobState::Paused;
            self.core.problem = Some(JobProblem::Decisions { rows: waiting });
        } else {
            self.core.state = JobState::Completed;
            self.core.problem = None;
        }
        self.core.updated_at = now;
        Step::Idle
    }

    /// Puts the next rows into a new chunk; false when none is left.
    fn form_chunk(&mut self, now: u64) -> bool {
        let review = self.review();
        let limit = self.pace().chunk_shipments() as usize;
        let mut keys: HashSet<&str> = HashSet::new();
        let mut rows = Vec::new();
        for row in &self.rows {
            // Pending rows go (in review mode only a retried one is pending:
            // the merchant buys it at today's price); a quoted one goes once
            // approved in review mode.
            let eligible = row.chunk.is_none()
                && match row.state {
                    RowState::Pending => true,
                    RowState::Quoted => !review || row.approved_cents.is_some(),
                    _ => false,
                };
            if !eligible {
                continue;
            }
            if !keys.contains(row.key.as_str()) && keys.len() >= limit {
                continue;
            }
            keys.insert(row.key.as_str());
            rows.push(row.index);
        }
        if rows.is_empty() {
            return false;
        }
        let number = self.core.next_chunk.max(1);
        self.core.next_chunk = number + 1;
        for &index in &rows {
            if let Some(row) = self.row_mut(index) {
                row.chunk = Some(number);
            }
        }
        self.core.chunks.push(Chunk {
            number,
            rows,
            state: ChunkState::Quoting,
            total_cents: 0,
            batch_id: None,
            request_id: None,
            wallet_before_cents: None,
            wallet_after_cents: None,
            wallet_checked: false,
            completion_percentage: None,
            settled_prefix: 0,
            next_read_at: 0,
            bought_at: None,
        });
        self.core.updated_at = now;
        true
    }

    /// The forming chunk's next step: quote what is not fresh, then check
    /// the ceiling and the wallet, then create its batch.
    fn chunk_step(&mut self, now: u64) -> Step {
        let Some(chunk) = self.forming().cloned() else {
            return Step::Idle;
        };
        // Rows that cannot go (failed, skipped, waiting for a decision) leave the chunk.
        let (ready, rest): (Vec<u32>, Vec<u32>) = chunk.rows.iter().partition(|&&i| {
            matches!(
                self.rows[i as usize].state,
                RowState::Pending | RowState::Quoted
            )
        });
        for index in rest {
            if let Some(row) = self.row_mut(index) {
                row.chunk = None;
            }
        }
        if let Some(stale) = ready.iter().find(|&&i| !self.rows[i as usize].fresh(now)) {
            let row = *stale;
            if let Some(c) = self.chunk_mut(chunk.number) {
                c.rows = ready;
            }
            return self.quote_step(row, now);
        }
        if ready.is_empty() {
            self.core.chunks.retain(|c| c.number != chunk.number);
            return self.next_buying_step(now);
        }
        let mut ready = ready;
        let prices: HashMap<u32, i64> = ready
            .iter()
            .map(|&i| {
                let cents = self.rows[i as usize]
                    .quote
                    .as_ref()
                    .map_or(0, |q| q.rate_cents);
                (i, cents)
            })
            .collect();
        let price = |i: &u32| prices.get(i).copied().unwrap_or(0);
        // The total ceiling: the rows that fit go, the rest wait.
        if let Approval::BuyAsQuoted {
            max_total_cents, ..
        } = self.core.approval
        {
            let mut spent = self.core.cost.charged_cents - self.core.cost.refunded_cents;
            let mut fitting = Vec::new();
            for i in &ready {
                if spent + price(i) <= max_total_cents {
                    spent += price(i);
                    fitting.push(*i);
                }
            }
            if fitting.len() < ready.len() {
                for i in ready.iter().filter(|i| !fitting.contains(i)) {
                    if let Some(row) = self.row_mut(*i) {
                        row.chunk = None;
                    }
                }
                if fitting.is_empty() {
                    self.core.chunks.retain(|c| c.number != chunk.number);
                    self.core.state = JobState::Paused;
                    self.core.problem = Some(JobProblem::CeilingReached {
                        max_total_cents,
                        spent_cents: self.core.cost.charged_cents - self.core.cost.refunded_cents,
                    });
                    return Step::Idle;
                }
                ready = fitting;
            }
        }
        let total: i64 = ready.iter().map(price).sum();
        let live = self.core.mode == KeyEnv::Live;
        let Some(c) = self.chunk_mut(chunk.number) else {
            return Step::Idle;
        };
        c.rows = ready;
        c.total_cents = total;
        if live && !c.wallet_checked {
            return Step::ReadWallet {
                chunk: chunk.number,
            };
        }
        Step::CreateBatch {
            chunk: chunk.number,
        }
    }

    /// The items of a chunk's batch, in its row order.
    pub fn batch_items(&self, chunk: u32) -> Vec<BatchItem> {
        let Some(chunk) = self.core.chunks.iter().find(|c| c.number == chunk) else {
            return vec![];
        };
        chunk
            .rows
            .iter()
            .filter_map(|&i| {
                let row = &self.rows[i as usize];
                let quote = row.quote.as_ref()?;
                Some(BatchItem {
                    from_address: row.row.from_address.clone(),
                    to_address: row.row.to_address.clone(),
                    parcel: row.row.parcel,
                    rate_id: quote.rate_id.clone(),
                    carrier: quote.carrier.clone(),
                    service: quote.service.clone(),
                    rate_cents: quote.rate_cents,
                })
            })
            .collect()
    }

    /// Marks a chunk's creation as sent: stored before the call goes out.
    pub fn sending(&mut self, chunk: u32, request_id: &str) {
        if let Some(c) = self.chunk_mut(chunk) {
            c.state = ChunkState::Creating;
            c.request_id = Some(request_id.to_string());
        }
    }

    fn outcome_unknown(&mut self, chunk: u32, error: ApiError) {
        let Some(c) = self.chunk_mut(chunk) else {
            return;
        };
        c.state = ChunkState::OutcomeUnknown;
        let problem = JobProblem::OutcomeUnknown {
            chunk,
            request_id: c.request_id.clone().unwrap_or_default(),
            total_cents: c.total_cents,
            wallet_before_cents: c.wallet_before_cents,
            wallet_after_cents: c.wallet_after_cents,
            error,
        };
        self.core.state = JobState::Stopped;
        self.core.problem = Some(problem);
    }

    // ---- outcomes ------------------------------------------------------------

    /// Takes the outcome of `step`'s call.
    pub fn apply(&mut self, step: &Step, outcome: Outcome, now: u64) {
        self.core.updated_at = now;
        match (step, outcome) {
            (Step::Quote { row }, Outcome::Quoted(answer)) => self.quoted(*row, answer, now),
            (Step::ReadWallet { chunk }, Outcome::Wallet(answer)) => {
                self.wallet_read(*chunk, answer, now)
            }
            (Step::CreateBatch { chunk }, Outcome::Created(answer)) => {
                self.created(*chunk, answer, now)
            }
            (Step::BuyBatch { chunk }, Outcome::Bought(answer)) => self.bought(*chunk, answer, now),
            (Step::ReadBatch { chunk, .. }, Outcome::Read(answer)) => {
                self.read(*chunk, answer, now)
            }
            // A step and an outcome that do not belong together change nothing.
            _ => {}
        }
    }

    fn hold(&mut self, seconds: u64, now: u64) {
        self.core.hold_until = self.core.hold_until.max(now + seconds.max(1));
    }

    /// A refusal of the key itself (revoked, expired, a scope missing):
    /// nothing the job can fix, so it waits for the merchant.
    fn refused_by_key(&mut self, error: &ApiError) -> bool {
        if error.code.resource() != "AUTH" {
            return false;
        }
        self.core.state = JobState::Paused;
        self.core.problem = Some(JobProblem::Refused {
            error: error.clone(),
        });
        true
    }

    fn quoted(&mut self, index: u32, answer: Answer<Vec<Rate>>, now: u64) {
        let stats = &mut self.core.stats;
        stats.quote_calls += 1;
        stats.first_quote_at.get_or_insert(now);
        stats.last_quote_at = Some(now);
        let key = self.rows[index as usize].key.clone();
        let twins: Vec<u32> = self
            .rows
            .iter()
            .filter(|r| {
                r.key == key
                    && matches!(r.state, RowState::Pending | RowState::Quoted)
                    && (r.index == index || r.chunk == self.rows[index as usize].chunk)
            })
            .map(|r| r.index)
            .collect();
        match answer {
            Answer::Ok(rates) => match plan::choose(&rates, &self.core.rule) {
                Ok(rate) => {
                    let quote = RowQuote {
                        rate_id: rate.id.clone(),
                        carrier: rate.carrier.clone(),
                        service: rate.service.clone(),
                        rate_cents: rate.rate_cents,
                        carbon_grams: rate.carbon_grams,
                        carrier_eta: rate.carrier_eta.clone(),
                        quoted_at: now,
                    };
                    for i in twins {
                        self.take_quote(i, quote.clone());
                    }
                }
                Err(no_rate) => {
                    let error = match no_rate {
                        NoRate::NoRates => ApiError::new(
                            ErrorCode::RateCarrierUnavailable,
                            "No carrier offered a rate for this shipment.",
                            "Check the addresses and the parcel, then retry the row.",
                            "",
                        ),
                        NoRate::ServiceNotOffered { carrier, service } => ApiError::new(
                            ErrorCode::LabelServiceUnavailable,
                            format!("{carrier} {service} is not offered for this shipment."),
                            "Choose a fallback rule, or another service, and retry the row.",
                            "",
                        ),
                    };
                    for i in twins {
                        self.fail(i, error.clone());
                    }
                }
            },
            Answer::Refused(error) => {
                if !self.refused_by_key(&error) {
                    for i in twins {
                        self.fail(i, error.clone());
                    }
                }
            }
            Answer::RateLimited { retry_after } => {
                // Not the row's fault: it is quoted again after the wait.
                self.core.stats.rate_limited += 1;
                self.hold(retry_after, now);
            }
            Answer::Failed(error) => {
                let attempts = {
                    let Some(row) = self.row_mut(index) else {
                        return;
                    };
                    row.attempts += 1;
                    row.attempts
                };
                if attempts >= MAX_QUOTE_ATTEMPTS {
                    for i in twins {
                        self.fail(i, error.clone());
                    }
                } else {
                    self.hold(RETRY_AFTER_FAILURE_SECONDS, now);
                }
            }
        }
    }

    fn take_quote(&mut self, index: u32, quote: RowQuote) {
        let review = self.review();
        let approval = self.core.approval;
        let Some(row) = self.row_mut(index) else {
            return;
        };
        let price = quote.rate_cents;
        row.quote = Some(quote);
        row.error = None;
        row.state = RowState::Quoted;
        let rose_above = match (review, approval) {
            (true, _) => row.approved_cents.filter(|approved| price > *approved),
            (false, Approval::BuyAsQuoted { max_row_cents, .. }) => {
                (price > max_row_cents).then_some(max_row_cents)
            }
            (false, Approval::ReviewFirst) => None,
        };
        if let Some(limit) = rose_above {
            row.state = RowState::NeedsDecision;
            row.chunk = None;
            row.error = Some(ApiError::new(
                ErrorCode::ValidationFieldInvalid,
                format!(
                    "The price is now {price} cents, above the {limit} cents {}.",
                    if review {
                        "you approved"
                    } else {
                        "ceiling per row"
                    }
                ),
                "Accept the new price or skip the row.",
                "",
            ));
        }
    }

    fn fail(&mut self, index: u32, error: ApiError) {
        if let Some(row) = self.row_mut(index) {
            row.state = RowState::Failed;
            row.chunk = None;
            row.error = Some(error);
        }
    }

    fn wallet_read(&mut self, chunk: u32, answer: Answer<Wallet>, now: u64) {
        let lost = self
            .core
            .chunks
            .iter()
            .any(|c| c.number == chunk && c.state == ChunkState::OutcomeUnknown);
        let wallet = match answer {
            Answer::Ok(wallet) => wallet,
            Answer::RateLimited { retry_after } => return self.hold(retry_after, now),
            Answer::Failed(_) => return self.hold(RETRY_AFTER_FAILURE_SECONDS, now),
            Answer::Refused(error) => {
                if !self.refused_by_key(&error) {
                    self.hold(RETRY_AFTER_FAILURE_SECONDS, now);
                }
                return;
            }
        };
        if lost {
            // After a lost creation: the balance the merchant compares with before.
            if let Some(c) = self.chunk_mut(chunk) {
                c.wallet_after_cents = Some(wallet.balance_cents);
            }
            if let Some(JobProblem::OutcomeUnknown {
                wallet_after_cents, ..
            }) = &mut self.core.problem
            {
                *wallet_after_cents = Some(wallet.balance_cents);
            }
            return;
        }
        let Some(c) = self.chunk_mut(chunk) else {
            return;
        };
        c.wallet_before_cents = Some(wallet.balance_cents);
        let needed = c.total_cents;
        let covered = wallet.unlimited
            || wallet.balance_cents >= needed
            || (wallet.card == api::CardState::Ok && wallet.auto_reload.is_some());
        if covered {
            c.wallet_checked = true;
            return;
        }
        self.core.state = JobState::Paused;
        self.core.problem = Some(JobProblem::NeedsFunds {
            needed_cents: needed - wallet.balance_cents,
            balance_cents: wallet.balance_cents,
            chunk,
        });
    }

    /// After a creation the Worker could not see through: the wallet is read
    /// once more, so the merchant sees the balance before and after.
    pub fn wants_wallet_after(&self) -> Option<u32> {
        match &self.core.problem {
            Some(JobProblem::OutcomeUnknown {
                chunk,
                wallet_after_cents: None,
                ..
            }) if self.core.mode == KeyEnv::Live => Some(*chunk),
            _ => None,
        }
    }

    fn created(&mut self, chunk: u32, answer: Answer<Batch>, now: u64) {
        match answer {
            Answer::Ok(batch) => {
                let rows = self
                    .core
                    .chunks
                    .iter()
                    .find(|c| c.number == chunk)
                    .map(|c| c.rows.clone())
                    .unwrap_or_default();
                for &i in &rows {
                    if let Some(row) = self.row_mut(i) {
                        row.state = RowState::InBatch;
                        row.batch_id = Some(batch.id.clone());
                    }
                }
                self.core.cost.charged_cents += batch.total_cost_cents;
                if let Some(c) = self.chunk_mut(chunk) {
                    c.state = ChunkState::Created;
                    c.batch_id = Some(batch.id.clone());
                    c.total_cents = batch.total_cost_cents;
                    if !batch.sandbox {
                        c.wallet_after_cents = Some(batch.wallet_balance_after_cents);
                    }
                }
            }
            Answer::Refused(error) => {
                self.core.stats.batches_refused += 1;
                // Nothing was charged. A stale or unknown rate is quoted again;
                // another bad item fails; a short wallet pauses the job.
                if let Some(c) = self.chunk_mut(chunk) {
                    c.state = ChunkState::Quoting;
                    c.wallet_checked = false;
                }
                if self.refused_by_key(&error) {
                    return;
                }
                if error.code.resource() == "WALLET" {
                    let (total, before) = self
                        .core
                        .chunks
                        .iter()
                        .find(|c| c.number == chunk)
                        .map(|c| (c.total_cents, c.wallet_before_cents.unwrap_or(0)))
                        .unwrap_or((0, 0));
                    self.core.state = JobState::Paused;
                    self.core.problem = Some(JobProblem::NeedsFunds {
                        needed_cents: (total - before).max(0),
                        balance_cents: before,
                        chunk,
                    });
                    return;
                }
                let item = error
                    .field
                    .as_deref()
                    .and_then(|f| f.strip_prefix("items["))
                    .and_then(|f| f.split(']').next())
                    .and_then(|n| n.parse::<usize>().ok());
                let row = item.and_then(|i| {
                    self.core
                        .chunks
                        .iter()
                        .find(|c| c.number == chunk)
                        .and_then(|c| c.rows.get(i).copied())
                });
                match (row, &error.code) {
                    (Some(row), ErrorCode::RateExpired | ErrorCode::RateNotFound) => {
                        if let Some(r) = self.row_mut(row) {
                            r.quote = None;
                            r.state = RowState::Pending;
                        }
                    }
                    (Some(row), _) => self.fail(row, error),
                    // A refusal of the whole batch names no item: its rows fail with it.
                    (None, _) => {
                        let rows = self
                            .core
                            .chunks
                            .iter()
                            .find(|c| c.number == chunk)
                            .map(|c| c.rows.clone())
                            .unwrap_or_default();
                        for r in rows {
                            self.fail(r, error.clone());
                        }
                        if let Some(c) = self.chunk_mut(chunk) {
                            c.state = ChunkState::Refused;
                        }
                    }
                }
            }
            Answer::RateLimited { retry_after } => {
                // A 429 is a refusal: nothing was created; the same items go after the wait.
                if let Some(c) = self.chunk_mut(chunk) {
                    c.state = ChunkState::Quoting;
                }
                self.core.stats.rate_limited += 1;
                self.hold(retry_after, now);
            }
            Answer::Failed(error) => self.outcome_unknown(chunk, error),
        }
    }

    fn bought(&mut self, chunk: u32, answer: Answer<Batch>, now: u64) {
        let took = match &answer {
            Answer::Ok(_) => true,
            Answer::Refused(e) => e.code == ErrorCode::BatchAlreadyProcessing,
            _ => false,
        };
        if took {
            if let Some(c) = self.chunk_mut(chunk) {
                c.state = ChunkState::Processing;
                c.bought_at = Some(now);
                c.next_read_at = now + MIN_READ_SECONDS;
            }
            return;
        }
        match answer {
            Answer::RateLimited { retry_after } => self.hold(retry_after, now),
            // Buying again is safe: it is tried again after a pause.
            Answer::Failed(_) => self.hold(RETRY_AFTER_FAILURE_SECONDS, now),
            Answer::Refused(error) => {
                if !self.refused_by_key(&error) {
                    self.core.state = JobState::Paused;
                    self.core.problem = Some(JobProblem::Refused { error });
                }
            }
            Answer::Ok(_) => {}
        }
    }

    fn read(&mut self, chunk: u32, answer: Answer<Batch>, now: u64) {
        let batch = match answer {
            Answer::Ok(batch) => batch,
            Answer::RateLimited { retry_after } => return self.hold(retry_after, now),
            Answer::Failed(_) | Answer::Refused(_) => {
                if let Some(c) = self.chunk_mut(chunk) {
                    c.next_read_at = now + MAX_READ_SECONDS;
                }
                return;
            }
        };
        let Some(rows) = self
            .core
            .chunks
            .iter()
            .find(|c| c.number == chunk)
            .map(|c| c.rows.clone())
        else {
            return;
        };
        for result in &batch.results {
            let Some(&index) = rows.get(result.index as usize) else {
                continue;
            };
            if self.rows[index as usize].state != RowState::InBatch {
                continue; // already settled
            }
            match result.state {
                BatchItemState::Created => {
                    if let Some(row) = self.row_mut(index) {
                        row.state = RowState::Bought;
                        row.label_id = result.label_id.clone();
                        row.tracking_number = result.tracking_number.clone();
                        row.label_url = result.label_url.clone();
                        row.error = None;
                    }
                    self.core.cost.bought_cents += result.rate_cents;
                }
                BatchItemState::Failed => {
                    if batch.sandbox {
                        // Sandbox labels are free: nothing to refund.
                    } else {
                        self.core.cost.refunded_cents += result.rate_cents;
                    }
                    let error = result.error.clone().unwrap_or_else(|| {
                        ApiError::new(
                            ErrorCode::LabelCreationFailed,
                            "The service could not make this label; its price was refunded.",
                            "Check the row and retry it.",
                            "",
                        )
                    });
                    self.fail(index, error);
                }
                BatchItemState::Pending => {}
            }
        }
        // The settled prefix moves past every settled item in row order.
        let settled = rows
            .iter()
            .take_while(|&&i| self.rows[i as usize].state != RowState::InBatch)
            .count() as u32;
        let done = batch.state == BatchState::Completed && settled as usize >= rows.len();
        let remaining = batch.estimated_time_remaining_seconds;
        if let Some(c) = self.chunk_mut(chunk) {
            c.settled_prefix = settled;
            c.completion_percentage = Some(batch.estimated_completion_percentage);
            c.state = if done {
                ChunkState::Done
            } else {
                ChunkState::Processing
            };
            c.next_read_at = now + (remaining / 4).clamp(MIN_READ_SECONDS, MAX_READ_SECONDS);
            if done && let Some(bought_at) = c.bought_at {
                let seconds = now.saturating_sub(bought_at).max(1) as f64;
                self.core.labels_per_second = Some(rows.len() as f64 / seconds);
            }
        }
    }

    /// The estimate again, at the pace of the limit the service reported.
    pub fn replan(&mut self) {
        let rows: Vec<JobRow> = self.rows.iter().map(|r| r.row.clone()).collect();
        self.core.estimate = plan::estimate(&rows, self.pace());
    }

    // ---- the view --------------------------------------------------------

    /// Quoting plus processing: done so far, 0 to 100, and the seconds left.
    pub fn progress(&self, now: u64) -> (u32, Option<u64>) {
        let counts = self.counts();
        let total = counts.total.max(1);
        let mut keys_left: HashSet<&str> = HashSet::new();
        for row in &self.rows {
            if row.state == RowState::Pending || (row.state == RowState::Quoted && !row.fresh(now))
            {
                keys_left.insert(&row.key);
            }
        }
        let quote_left = self.pace().quote_seconds(keys_left.len() as u32);
        let unsettled = u64::from(total - counts.settled());
        let per_second = self
            .core
            .labels_per_second
            .unwrap_or(ASSUMED_LABELS_PER_SECOND as f64)
            .max(0.1);
        let process_left = (unsettled as f64 / per_second).ceil() as u64;
        let quote_total = self.core.estimate.quote_seconds.max(1);
        let process_total = self.core.estimate.process_seconds.max(1);
        let quote_done = 1.0 - (quote_left as f64 / quote_total as f64).min(1.0);
        let process_done = f64::from(counts.settled()) / f64::from(total);
        let weight = quote_total as f64 / (quote_total + process_total) as f64;
        let mut percent = ((quote_done * weight + process_done * (1.0 - weight)) * 100.0) as u32;
        if self.core.state == JobState::Completed {
            percent = 100;
        }
        let running = matches!(self.core.state, JobState::Quoting | JobState::Buying);
        (
            percent.min(100),
            running.then_some(quote_left + process_left),
        )
    }

    pub fn view(&self, now: u64) -> JobView {
        let (progress_percentage, eta_seconds) = self.progress(now);
        let mut cost = self.core.cost;
        cost.quoted_cents = self
            .rows
            .iter()
            .filter(|r| matches!(r.state, RowState::Quoted | RowState::NeedsDecision))
            .filter_map(|r| r.quote.as_ref().map(|q| q.rate_cents))
            .sum();
        JobView {
            id: self.core.id.clone(),
            name: self.core.name.clone(),
            mode: self.core.mode,
            created_by: self.core.created_by.clone(),
            created_at: self.core.created_at,
            updated_at: self.core.updated_at,
            state: self.core.state,
            rule: self.core.rule.clone(),
            approval: self.core.approval,
            counts: self.counts(),
            cost,
            estimate: self.core.estimate,
            progress_percentage,
            eta_seconds,
            chunks: self.core.chunks.iter().map(Chunk::view).collect(),
            problem: self.core.problem.clone(),
            free: self.core.mode == KeyEnv::Sandbox,
            stats: self.core.stats,
        }
    }

    /// The labels of the job (or of one chunk) in row order, as
    /// `(reference, label URL)`, a page of at most `per_page`.
    pub fn labels(
        &self,
        chunk: Option<u32>,
        part: usize,
        per_page: usize,
    ) -> Vec<(String, String)> {
        self.rows
            .iter()
            .filter(|r| r.state == RowState::Bought && chunk.is_none_or(|c| r.chunk == Some(c)))
            .filter_map(|r| Some((r.row.reference.clone(), r.label_url.clone()?)))
            .skip(part.saturating_sub(1) * per_page)
            .take(per_page)
            .collect()
    }
}

/// The rows of a page: `state` filters, in row order.
pub fn page(rows: &[Row], state: Option<RowState>, offset: u32, limit: u32) -> (Vec<RowView>, u32) {
    let matching: Vec<&Row> = rows
        .iter()
        .filter(|r| state.is_none_or(|s| r.state == s))
        .collect();
    let total = matching.len() as u32;
    let page = matching
        .into_iter()
        .skip(offset as usize)
        .take(limit as usize)
        .map(Row::view)
        .collect();
    (page, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::batches::BatchItemResult;
    use api::{AccountType, Address, AutoReload, CardState, Parcel};

    const T0: u64 = 1_000_000;

    fn address(name: &str, street: &str) -> Address {
        Address {
            name: name.into(),
            street1: street.into(),
            street2: None,
            city: "Springfield".into(),
            state: "IL".into(),
            zip: "62701".into(),
            country: "US".into(),
            phone: None,
            email: None,
        }
    }

    fn rows(n: usize) -> Vec<JobRow> {
        (0..n)
            .map(|i| JobRow {
                reference: format!("#{i}"),
                from_address: address("Shop", "1 Main St"),
                // Rows 0 and 1 are the same shipment.
                to_address: address("Ada", &format!("{} Elm St", i.max(1))),
                parcel: Parcel {
                    weight_oz: 10.0,
                    length: 6.0,
                    width: 4.0,
                    height: 2.0,
                },
            })
            .collect()
    }

    fn job(n: usize, approval: Approval, mode: KeyEnv) -> Job {
        let rows = rows(n);
        let pace = Pace {
            limit: 100,
            share: 0.6,
            max_chunk: 5000,
        };
        let core = Core {
            id: "job_1".into(),
            name: "test".into(),
            mode,
            created_by: "olga".into(),
            created_at: T0,
            updated_at: T0,
            state: JobState::Planned,
            rule: Rule::Cheapest,
            approval,
            estimate: plan::estimate(&rows, pace),
            problem: None,
            pace,
            rates_window: None,
            hold_until: 0,
            cost: Cost::default(),
            chunks: vec![],
            next_chunk: 1,
            stats: JobStats::default(),
            labels_per_second: None,
        };
        Job::new(core, rows)
    }

    fn rates(row: u32, cents: i64) -> Vec<Rate> {
        vec![Rate {
            id: format!("rate_{row}"),
            carrier: "Pacific Post".into(),
            service: "Ground".into(),
            rate_cents: cents,
            carrier_eta: "2026-11-30".into(),
            carbon_grams: 100,
            account_type: AccountType::Platform,
            expires_at: None,
        }]
    }

    fn wallet(balance: i64) -> Wallet {
        Wallet {
            balance_cents: balance,
            currency: "USD".into(),
            sandbox: false,
            unlimited: false,
            auto_reload: None,
            card: CardState::Ok,
        }
    }

    fn batch(id: &str, total: i64, results: Vec<BatchItemResult>, done: bool) -> Batch {
        Batch {
            id: id.into(),
            state: if done {
                BatchState::Completed
            } else {
                BatchState::Processing
            },
            item_count: results.len() as u32,
            total_cost_cents: total,
            wallet_balance_after_cents: 0,
            estimated_completion_percentage: if done { 100 } else { 0 },
            estimated_time_remaining_seconds: 0,
            labels_created: 0,
            labels_failed: 0,
            refunded_cents: 0,
            sandbox: false,
            results_offset: 0,
            results_total: results.len() as u32,
            results,
        }
    }

    fn result(index: u32, cents: i64, ok: bool) -> BatchItemResult {
        BatchItemResult {
            index,
            state: if ok {
                BatchItemState::Created
            } else {
                BatchItemState::Failed
            },
            rate_cents: cents,
            label_id: ok.then(|| format!("lbl_{index}")),
            tracking_number: ok.then(|| format!("94{index}")),
            label_url: ok.then(|| format!("https://svc/l/{index}.pdf")),
            error: (!ok)
                .then(|| ApiError::new(ErrorCode::LabelAddressUndeliverable, "m", "s", "r")),
        }
    }

    /// Answers every quote at `cents`, until the job needs something else.
    fn quote_all(job: &mut Job, now: u64, cents: i64) -> Step {
        loop {
            match job.next_step(now) {
                step @ Step::Quote { row } => {
                    job.apply(&step, Outcome::Quoted(Answer::Ok(rates(row, cents))), now)
                }
                other => return other,
            }
        }
    }

    #[test]
    fn buy_as_quoted_runs_quote_wallet_create_buy_read_to_the_end() {
        let mut j = job(
            3,
            Approval::BuyAsQuoted {
                max_row_cents: 1000,
                max_total_cents: 100_000,
            },
            KeyEnv::Live,
        );
        assert_eq!(j.next_step(T0), Step::Idle, "nothing before start");
        j.act(Action::Start, T0).unwrap();
        // Rows 0 and 1 share a shipment: two quotes for three rows.
        let step = quote_all(&mut j, T0, 500);
        assert_eq!(j.core.stats.quote_calls, 2);
        assert_eq!(step, Step::ReadWallet { chunk: 1 });
        j.apply(&step, Outcome::Wallet(Answer::Ok(wallet(10_000))), T0);
        let step = j.next_step(T0);
        assert_eq!(step, Step::CreateBatch { chunk: 1 });
        let items = j.batch_items(1);
        assert_eq!(items.len(), 3);
        assert_eq!(items[0].rate_id, items[1].rate_id, "twins share the rate");
        j.sending(1, "req_1");
        j.apply(
            &step,
            Outcome::Created(Answer::Ok(batch("b1", 1500, vec![], false))),
            T0,
        );
        assert_eq!(j.core.cost.charged_cents, 1500);
        let step = j.next_step(T0);
        assert_eq!(step, Step::BuyBatch { chunk: 1 });
        // A repeated buy that finds the batch processing took.
        let already = ApiError::new(ErrorCode::BatchAlreadyProcessing, "m", "s", "r");
        j.apply(&step, Outcome::Bought(Answer::Refused(already)), T0);
        assert_eq!(j.next_step(T0), Step::Wait { seconds: 1 });
        let step = j.next_step(T0 + 1);
        assert_eq!(
            step,
            Step::ReadBatch {
                chunk: 1,
                offset: 0
            }
        );
        let results = vec![
            result(0, 500, true),
            result(1, 500, true),
            result(2, 500, false),
        ];
        j.apply(
            &step,
            Outcome::Read(Answer::Ok(batch("b1", 1500, results, true))),
            T0 + 1,
        );
        assert_eq!(j.next_step(T0 + 1), Step::Idle);
        let view = j.view(T0 + 1);
        assert_eq!(view.state, JobState::Completed);
        assert_eq!((view.counts.bought, view.counts.failed), (2, 1));
        assert_eq!(
            (view.cost.bought_cents, view.cost.refunded_cents),
            (1000, 500)
        );
        assert_eq!(view.progress_percentage, 100);
        assert_eq!(j.labels(None, 1, 100).len(), 2);
    }

    #[test]
    fn a_lost_creation_stops_the_job_and_is_never_sent_again() {
        let mut j = job(2, Approval::ReviewFirst, KeyEnv::Live);
        j.act(Action::Start, T0).unwrap();
        assert_eq!(quote_all(&mut j, T0, 700), Step::Idle);
        assert_eq!(j.core.state, JobState::AwaitingApproval);
        j.act(Action::Approve, T0).unwrap();
        let step = j.next_step(T0);
        j.apply(&step, Outcome::Wallet(Answer::Ok(wallet(10_000))), T0);
        let step = j.next_step(T0);
        assert_eq!(step, Step::CreateBatch { chunk: 1 });
        j.sending(1, "req_lost");
        // Stored as sent; the Worker restarts before the answer.
        let stored = (j.core.clone(), j.rows.clone());
        let mut j = Job::restore(stored.0, stored.1);
        assert_eq!(j.core.state, JobState::Stopped);
        let Some(JobProblem::OutcomeUnknown {
            request_id,
            total_cents,
            wallet_before_cents,
            ..
        }) = j.core.problem.clone()
        else {
            panic!("no problem: {:?}", j.core.problem)
        };
        assert_eq!((request_id.as_str(), total_cents), ("req_lost", 1400));
        assert_eq!(wallet_before_cents, Some(10_000));
        // The wallet after is read once; then nothing is sent.
        assert_eq!(j.wants_wallet_after(), Some(1));
        j.apply(
            &Step::ReadWallet { chunk: 1 },
            Outcome::Wallet(Answer::Ok(wallet(8_600))),
            T0,
        );
        assert_eq!(j.wants_wallet_after(), None);
        for t in [T0, T0 + 60, T0 + 3600] {
            assert_eq!(j.next_step(t), Step::Idle);
        }
        // Released: its rows fail (retry is the merchant's call), the job ends.
        j.act(Action::Release, T0).unwrap();
        assert_eq!(j.next_step(T0), Step::Idle);
        assert_eq!(j.counts().failed, 2);
        assert_eq!(j.core.state, JobState::Completed);
    }

    #[test]
    fn a_timeout_on_creation_is_an_unknown_outcome_too() {
        let mut j = job(
            1,
            Approval::BuyAsQuoted {
                max_row_cents: 900,
                max_total_cents: 900,
            },
            KeyEnv::Sandbox,
        );
        j.act(Action::Start, T0).unwrap();
        let step = quote_all(&mut j, T0, 100);
        assert_eq!(
            step,
            Step::CreateBatch { chunk: 1 },
            "sandbox: no wallet to read"
        );
        j.sending(1, "req_t");
        let timeout = ApiError::new(ErrorCode::EdgeUpstreamTimeout, "m", "s", "req_t");
        j.apply(&step, Outcome::Created(Answer::Failed(timeout)), T0);
        assert_eq!(j.core.state, JobState::Stopped);
        assert_eq!(j.next_step(T0 + 10), Step::Idle);
    }

    #[test]
    fn stale_quotes_are_quoted_again_before_creation() {
        let mut j = job(
            2,
            Approval::BuyAsQuoted {
                max_row_cents: 900,
                max_total_cents: 9000,
            },
            KeyEnv::Sandbox,
        );
        j.act(Action::Start, T0).unwrap();
        assert_eq!(quote_all(&mut j, T0, 100), Step::CreateBatch { chunk: 1 });
        // The creation waited (a 429) past the quotes' safe age.
        let later = T0 + MAX_QUOTE_AGE_SECONDS;
        j.apply(
            &Step::CreateBatch { chunk: 1 },
            Outcome::Created(Answer::RateLimited { retry_after: 5 }),
            T0,
        );
        assert!(matches!(j.next_step(later), Step::Quote { .. }));
    }

    #[test]
    fn a_rise_above_the_approved_price_waits_for_a_decision() {
        let mut j = job(2, Approval::ReviewFirst, KeyEnv::Sandbox);
        j.act(Action::Start, T0).unwrap();
        quote_all(&mut j, T0, 700);
        j.act(Action::Approve, T0).unwrap();
        // At buy time the quotes aged out: quoted again, dearer.
        let later = T0 + RATE_AGE;
        let step = quote_all(&mut j, later, 800);
        assert_eq!(step, Step::Idle);
        assert_eq!(j.core.state, JobState::Paused);
        assert_eq!(j.core.problem, Some(JobProblem::Decisions { rows: 2 }));
        assert_eq!(j.counts().needs_decision, 2);
        j.act(
            Action::Decide(Decide {
                rows: vec![0, 1],
                accept: true,
            }),
            later,
        )
        .unwrap();
        assert_eq!(j.core.state, JobState::Buying);
        assert_eq!(j.rows[0].approved_cents, Some(800));
        assert_eq!(j.next_step(later), Step::CreateBatch { chunk: 2 });
    }

    const RATE_AGE: u64 = MAX_QUOTE_AGE_SECONDS + 1;

    #[test]
    fn a_short_wallet_pauses_with_what_is_needed() {
        let mut j = job(
            2,
            Approval::BuyAsQuoted {
                max_row_cents: 900,
                max_total_cents: 9000,
            },
            KeyEnv::Live,
        );
        j.act(Action::Start, T0).unwrap();
        let step = quote_all(&mut j, T0, 600);
        j.apply(&step, Outcome::Wallet(Answer::Ok(wallet(1000))), T0);
        assert_eq!(j.core.state, JobState::Paused);
        assert_eq!(
            j.core.problem,
            Some(JobProblem::NeedsFunds {
                needed_cents: 200,
                balance_cents: 1000,
                chunk: 1
            })
        );
        // With auto-reload and a working card, the same balance is enough.
        let mut reloading = wallet(1000);
        reloading.auto_reload = Some(AutoReload {
            threshold_cents: 0,
            amount_cents: 5000,
        });
        j.act(Action::Start, T0).unwrap();
        assert_eq!(j.next_step(T0), Step::ReadWallet { chunk: 1 });
        j.apply(
            &Step::ReadWallet { chunk: 1 },
            Outcome::Wallet(Answer::Ok(reloading)),
            T0,
        );
        assert_eq!(j.next_step(T0), Step::CreateBatch { chunk: 1 });
    }

    #[test]
    fn chunks_are_sized_from_the_limit_the_service_reports() {
        let mut j = job(
            700,
            Approval::BuyAsQuoted {
                max_row_cents: 900,
                max_total_cents: 9_000_000,
            },
            KeyEnv::Sandbox,
        );
        j.act(Action::Start, T0).unwrap();
        // One quote first: its answer says the limit (here far above part 8's).
        let step = j.next_step(T0);
        assert_eq!(step, Step::Quote { row: 0 });
        j.core.rates_window = Some(Window {
            limit: 100_000,
            remaining: 99_999,
            reset_at: T0 + 60,
        });
        j.apply(&step, Outcome::Quoted(Answer::Ok(rates(0, 100))), T0);
        assert!(matches!(j.next_step(T0), Step::Quote { .. }));
        // At 100/min a chunk would hold 660 shipments; at the reported limit, all 700.
        assert_eq!(j.core.chunks[0].rows.len(), 700);
    }

    #[test]
    fn the_pace_keeps_the_reserve() {
        let mut j = job(
            3,
            Approval::BuyAsQuoted {
                max_row_cents: 900,
                max_total_cents: 9000,
            },
            KeyEnv::Sandbox,
        );
        j.act(Action::Start, T0).unwrap();
        j.core.rates_window = Some(Window {
            limit: 100,
            remaining: 41,
            reset_at: T0 + 30,
        });
        assert!(matches!(j.next_step(T0), Step::Quote { .. }));
        j.core.rates_window = Some(Window {
            limit: 100,
            remaining: 40,
            reset_at: T0 + 30,
        });
        assert_eq!(j.next_step(T0), Step::Wait { seconds: 30 });
        assert!(matches!(j.next_step(T0 + 30), Step::Quote { .. }));
        // A 429 all the same: waited out, counted.
        let step = j.next_step(T0 + 30);
        j.apply(
            &step,
            Outcome::Quoted(Answer::RateLimited { retry_after: 7 }),
            T0 + 30,
        );
        assert_eq!(j.core.stats.rate_limited, 1);
        assert_eq!(j.next_step(T0 + 30), Step::Wait { seconds: 7 });
    }

    #[test]
    fn retry_takes_only_the_failed_rows_and_cancel_stops_before_the_next_chunk() {
        let mut j = job(
            3,
            Approval::BuyAsQuoted {
                max_row_cents: 900,
                max_total_cents: 9000,
            },
            KeyEnv::Sandbox,
        );
        j.act(Action::Start, T0).unwrap();
        let step = quote_all(&mut j, T0, 100);
        j.sending(1, "r");
        j.apply(
            &step,
            Outcome::Created(Answer::Ok(batch("b1", 300, vec![], false))),
            T0,
        );
        let step = j.next_step(T0);
        j.apply(
            &step,
            Outcome::Bought(Answer::Ok(batch("b1", 300, vec![], false))),
            T0,
        );
        let step = j.next_step(T0 + 1);
        let results = vec![
            result(0, 100, true),
            result(1, 100, false),
            result(2, 100, true),
        ];
        j.apply(
            &step,
            Outcome::Read(Answer::Ok(batch("b1", 300, results, true))),
            T0 + 1,
        );
        assert_eq!(j.next_step(T0 + 1), Step::Idle);
        let bought: Vec<Option<String>> = j.rows.iter().map(|r| r.label_id.clone()).collect();
        j.act(Action::Retry, T0 + 2).unwrap();
        let step = quote_all(&mut j, T0 + 2, 100);
        assert_eq!(step, Step::CreateBatch { chunk: 2 });
        assert_eq!(j.core.chunks[1].rows, vec![1], "only the failed row");
        // Cancelled now: the next chunk is never created, the bought rows stay.
        j.act(Action::Cancel, T0 + 2).unwrap();
        assert_eq!(j.next_step(T0 + 2), Step::Idle);
        assert_eq!(j.core.state, JobState::Cancelled);
        assert_eq!(j.core.chunks.len(), 1);
        assert_eq!(j.rows[1].state, RowState::Skipped);
        let after: Vec<Option<String>> = j.rows.iter().map(|r| r.label_id.clone()).collect();
        assert_eq!(bought, after);
    }

    #[test]
    fn cancel_still_buys_a_created_chunk() {
        let mut j = job(
            2,
            Approval::BuyAsQuoted {
                max_row_cents: 900,
                max_total_cents: 9000,
            },
            KeyEnv::Sandbox,
        );
        j.act(Action::Start, T0).unwrap();
        let step = quote_all(&mut j, T0, 100);
        j.sending(1, "r");
        j.apply(
            &step,
            Outcome::Created(Answer::Ok(batch("b1", 200, vec![], false))),
            T0,
        );
        j.act(Action::Cancel, T0).unwrap();
        assert_eq!(
            j.next_step(T0),
            Step::BuyBatch { chunk: 1 },
            "it is paid for"
        );
    }

    // ---- defects of issue 19, reproduced on the engine as it was -------------

    fn small(n: usize, approval: Approval, max_chunk: u32) -> Job {
        let mut j = job(n, approval, KeyEnv::Live);
        j.core.pace.max_chunk = max_chunk;
        j
    }

    const ASQ: Approval = Approval::BuyAsQuoted {
        max_row_cents: 900,
        max_total_cents: 100_000,
    };

    /// Quotes, reads the wallet and sends the first chunk's creation.
    fn to_creation(j: &mut Job) -> Step {
        j.act(Action::Start, T0).unwrap();
        let step = quote_all(j, T0, 300);
        j.apply(&step, Outcome::Wallet(Answer::Ok(wallet(100_000))), T0);
        let step = j.next_step(T0);
        assert!(matches!(step, Step::CreateBatch { .. }), "{step:?}");
        step
    }

    fn lost(j: &mut Job) {
        let step = to_creation(j);
        let Step::CreateBatch { chunk } = step else {
            unreachable!()
        };
        j.sending(chunk, "req_lost");
        let timeout = ApiError::new(ErrorCode::EdgeUpstreamTimeout, "m", "s", "req_lost");
        j.apply(&step, Outcome::Created(Answer::Failed(timeout)), T0);
        assert_eq!(j.core.state, JobState::Stopped);
    }

    #[test]
    fn defect_a_release_then_bulk_retry_never_buys_released_rows_again() {
        let mut j = small(2, ASQ, 5000);
        lost(&mut j);
        j.act(Action::Release, T0).unwrap();
        let _ = j.next_step(T0);
        let _ = j.act(Action::Retry, T0);
        assert!(
            j.rows.iter().all(|r| r.state != RowState::Pending),
            "a bulk retry took released rows: {:?}",
            j.rows.iter().map(|r| r.state).collect::<Vec<_>>()
        );
    }

    #[test]
    fn defect_b_a_stopped_job_stays_stopped_whatever_answer_arrives() {
        let mut j = small(2, ASQ, 5000);
        lost(&mut j);
        let revoked = ApiError::new(ErrorCode::AuthKeyRevoked, "m", "s", "r");
        j.apply(
            &Step::ReadWallet { chunk: 1 },
            Outcome::Wallet(Answer::Refused(revoked)),
            T0,
        );
        assert_eq!(j.core.state, JobState::Stopped);
        assert!(j.act(Action::Start, T0).is_err(), "a stopped job restarted");
    }

    #[test]
    fn defect_c_a_paused_job_sends_nothing() {
        let mut j = small(2, ASQ, 5000);
        let step = to_creation(&mut j);
        j.sending(1, "r");
        j.apply(
            &step,
            Outcome::Created(Answer::Ok(batch("b1", 600, vec![], false))),
            T0,
        );
        let step = j.next_step(T0);
        assert_eq!(step, Step::BuyBatch { chunk: 1 });
        let revoked = ApiError::new(ErrorCode::AuthKeyRevoked, "m", "s", "r");
        j.apply(&step, Outcome::Bought(Answer::Refused(revoked)), T0);
        assert_eq!(j.core.state, JobState::Paused);
        for t in [T0, T0 + 60, T0 + 3600] {
            assert_eq!(j.next_step(t), Step::Idle, "a paused job sent at {t}");
        }
    }

    #[test]
    fn defect_d_an_unrecorded_creation_answer_ends_as_an_unknown_outcome() {
        let mut j = small(2, ASQ, 5000);
        let _ = to_creation(&mut j);
        j.sending(1, "r");
        // The request went out; writing its answer failed, so it was never applied.
        let _ = j.next_step(T0 + 1);
        assert_eq!(j.core.state, JobState::Stopped, "{:?}", j.core.problem);
        assert!(matches!(
            j.core.problem,
            Some(JobProblem::OutcomeUnknown { chunk: 1, .. })
        ));
    }

    #[test]
    fn defect_e_retry_keeps_what_the_merchant_chose() {
        // A cancelled job stays cancelled.
        let mut j = small(3, ASQ, 5000);
        let _ = to_creation(&mut j);
        j.act(Action::Cancel, T0).unwrap();
        assert!(
            j.act(Action::Retry, T0).is_err(),
            "retry revived a cancelled job"
        );
        // Review first: retried rows are quoted and approved again.
        let mut j = small(3, Approval::ReviewFirst, 5000);
        j.act(Action::Start, T0).unwrap();
        quote_all(&mut j, T0, 300);
        j.act(Action::Approve, T0).unwrap();
        let step = j.next_step(T0);
        j.apply(&step, Outcome::Wallet(Answer::Ok(wallet(100_000))), T0);
        let step = j.next_step(T0);
        j.sending(1, "r");
        j.apply(
            &step,
            Outcome::Created(Answer::Ok(batch("b1", 900, vec![], false))),
            T0,
        );
        let step = j.next_step(T0);
        j.apply(
            &step,
            Outcome::Bought(Answer::Ok(batch("b1", 900, vec![], false))),
            T0,
        );
        let step = j.next_step(T0 + 1);
        let results = vec![
            result(0, 300, true),
            result(1, 300, false),
            result(2, 300, true),
        ];
        j.apply(
            &step,
            Outcome::Read(Answer::Ok(batch("b1", 900, results, true))),
            T0 + 1,
        );
        assert_eq!(j.next_step(T0 + 1), Step::Idle);
        j.act(Action::Retry, T0 + 2).unwrap();
        let step = quote_all(&mut j, T0 + 2, 5000);
        assert_eq!(
            step,
            Step::Idle,
            "a retried row went to a batch unapproved: {step:?}"
        );
        assert_eq!(j.core.state, JobState::AwaitingApproval);
    }

    #[test]
    fn defect_f_rows_of_a_chunk_formed_before_a_crash_are_not_lost() {
        let mut j = small(4, ASQ, 2);
        j.act(Action::Start, T0).unwrap();
        // The object stores the core with the start, and only rows with a quote.
        let stored_core = j.core.clone();
        let step = j.next_step(T0);
        j.apply(&step, Outcome::Quoted(Answer::Ok(rates(0, 300))), T0);
        // The second quote forms chunk 1; the Worker is killed while it is in flight.
        let step = j.next_step(T0);
        assert!(matches!(step, Step::Quote { .. }) && !j.core.chunks.is_empty());
        let mut j = Job::restore(stored_core, j.rows.clone());
        // Runs to the end with every call answered.
        let mut t = T0;
        for _ in 0..200 {
            let step = j.next_step(t);
            let outcome = match &step {
                Step::Idle => break,
                Step::Wait { seconds } => {
                    t += seconds;
                    continue;
                }
                Step::Quote { row } => Outcome::Quoted(Answer::Ok(rates(*row, 300))),
                Step::ReadWallet { .. } => Outcome::Wallet(Answer::Ok(wallet(100_000))),
                Step::CreateBatch { chunk } => {
                    j.sending(*chunk, "r");
                    Outcome::Created(Answer::Ok(batch("b", 600, vec![], false)))
                }
                Step::BuyBatch { .. } => {
                    Outcome::Bought(Answer::Ok(batch("b", 600, vec![], false)))
                }
                Step::ReadBatch { chunk, .. } => {
                    let n = j
                        .core
                        .chunks
                        .iter()
                        .find(|c| c.number == *chunk)
                        .unwrap()
                        .rows
                        .len();
                    let results = (0..n as u32).map(|i| result(i, 300, true)).collect();
                    Outcome::Read(Answer::Ok(batch("b", 600, results, true)))
                }
            };
            j.apply(&step, outcome, t);
        }
        assert_eq!(j.core.state, JobState::Completed);
        assert_eq!(
            j.counts().bought,
            4,
            "{:?}",
            j.rows
                .iter()
                .map(|r| (r.state, r.chunk))
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn defect_h_a_released_chunk_counts_against_the_total_ceiling() {
        let ceiling = Approval::BuyAsQuoted {
            max_row_cents: 900,
            max_total_cents: 1000,
        };
        let mut j = small(4, ceiling, 2);
        lost(&mut j);
        j.act(Action::Release, T0).unwrap();
        // Chunk 1 (rows 0 to 2, 900) may have been charged: row 3's 300 passes 1000.
        let step = quote_all(&mut j, T0, 300);
        assert_eq!(step, Step::Idle, "{:?}", j.core.chunks);
        assert!(
            matches!(
                j.core.problem,
                Some(JobProblem::CeilingReached {
                    spent_cents: 900,
                    ..
                })
            ),
            "{:?}",
            j.core.problem
        );
    }

    #[test]
    fn defect_h_the_chunk_cap_counts_rows_not_shipments() {
        // Rows 0 and 1 are one shipment: a cap of 1 row still makes 1-row chunks.
        let mut j = small(2, ASQ, 1);
        let _ = to_creation(&mut j);
        assert_eq!(
            j.core.chunks[0].rows.len(),
            1,
            "{:?}",
            j.core.chunks[0].rows
        );
    }

    #[test]
    fn defect_h_batch_items_match_the_chunk_s_rows_one_for_one() {
        let mut j = small(2, ASQ, 5000);
        let _ = to_creation(&mut j);
        j.rows[1].quote = None;
        let items = j.batch_items(1);
        assert_eq!(
            items.len(),
            j.core.chunks[0].rows.len(),
            "a row was dropped from the batch"
        );
    }
}
