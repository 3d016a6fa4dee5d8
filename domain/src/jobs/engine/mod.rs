//! A job's engine, without I/O. [`Job::next`] says which upstream call comes
//! next (or how long to wait); [`Job::apply`] takes that call's typed
//! [`Outcome`]; [`Job::act`] takes the merchant's [`Action`]s. The Durable
//! Object (`object`) stores the job through `runner`, makes the calls and
//! sets alarms, so every decision here is tested natively.
//!
//! - `machine`: the lifecycle (state and problem) and its one transition
//!   function; what each state may send. The table is in `domain/README.md`.
//! - `schedule`: what comes next. **The money rules are at its top.**
//! - `answers`: what each call's answer changes.
//! - `actions`: the merchant's actions.
//! - `view`: what the dashboard sees.
//!
//! A row's chunk and its place in that chunk's batch (`Row::chunk`,
//! `Row::item`) are kept on the row only, so a job's storage is its small
//! core plus its rows, and both are written together at every step.

#![deny(clippy::indexing_slicing)]

mod actions;
pub(crate) mod answers;
pub mod machine;
mod rows;
mod schedule;
mod view;

#[cfg(test)]
pub(crate) mod tests;

use api::batches::{Batch, BatchItem};
use api::jobs::{
    Approval, ChunkState, Cost, Decide, Estimate, JobProblem, JobRow, JobState, JobStats,
    RetryReleased, RowQuote, RowState, RowView, Rule,
};
use api::orgs::OrgId;
use api::{ApiError, KeyEnv, Rate, RatesRequest, Wallet};
use serde::{Deserialize, Serialize};

pub use machine::{Event, Lifecycle};
pub use rows::Rows;
pub use view::page;

use super::plan::{self, Pace};
use crate::upstream::budget::Window;

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
    /// The chunk the row is in now (a chunk being quoted, or the batch that holds it).
    pub chunk: Option<u32>,
    /// Its item index in that chunk's batch, fixed when the creation is sent.
    #[serde(default)]
    pub item: Option<u32>,
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
            item: None,
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
            .is_some_and(|q| now.saturating_sub(q.quoted_at) < plan::MAX_QUOTE_AGE_SECONDS)
    }

    /// Whether the row has reached an end (nothing more is done for it
    /// unless the merchant retries it).
    pub fn terminal(&self) -> bool {
        matches!(
            self.state,
            RowState::Bought | RowState::Failed | RowState::Skipped | RowState::Released
        )
    }

    /// Back to the start: quoted and priced again, in no chunk.
    fn reset(&mut self) {
        self.state = RowState::Pending;
        self.error = None;
        self.chunk = None;
        self.item = None;
        self.batch_id = None;
        self.attempts = 0;
        self.approved_cents = None;
        self.quote = None;
    }
}

/// One chunk: the rows of one v1 batch. Its rows are those whose
/// `Row::chunk` names it; `Row::item` is their order in the batch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub number: u32,
    pub state: ChunkState,
    pub total_cents: i64,
    pub batch_id: Option<String>,
    pub request_id: Option<String>,
    pub wallet_before_cents: Option<i64>,
    pub wallet_after_cents: Option<i64>,
    /// The live wallet read and found sufficient for this chunk.
    pub wallet_checked: bool,
    /// The wallet read after a lost creation was refused: not tried again.
    #[serde(default)]
    pub wallet_after_refused: bool,
    pub completion_percentage: Option<u32>,
    /// Items before this index are all settled (bought or failed).
    pub settled_prefix: u32,
    /// When the next buy or read of this chunk's batch is due.
    #[serde(alias = "next_read_at")]
    pub next_call_at: u64,
    pub bought_at: Option<u64>,
    /// A chunk stored by an earlier build: its rows in batch order.
    #[serde(default, rename = "rows", skip_serializing)]
    legacy_rows: Vec<u32>,
}

impl Chunk {
    fn new(number: u32) -> Chunk {
        Chunk {
            number,
            state: ChunkState::Quoting,
            total_cents: 0,
            batch_id: None,
            request_id: None,
            wallet_before_cents: None,
            wallet_after_cents: None,
            wallet_checked: false,
            wallet_after_refused: false,
            completion_percentage: None,
            settled_prefix: 0,
            next_call_at: 0,
            bought_at: None,
            legacy_rows: vec![],
        }
    }
}

/// A call the job makes upstream, with everything it sends.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// `POST /v1/rates` for this row's shipment (its twins get the same rate).
    Quote {
        row: u32,
        request: Box<RatesRequest>,
    },
    /// `GET /v1/wallet` before creating this chunk, or after its creation was lost.
    ReadWallet { chunk: u32 },
    /// `POST /v1/batches`: a write, recorded as sent before it goes out.
    CreateBatch { chunk: u32, items: Vec<BatchItem> },
    /// `POST /v1/batches/{id}/buy` (safe to repeat).
    BuyBatch { chunk: u32, batch_id: String },
    /// `GET /v1/batches/{id}`: progress, and results from `offset`.
    ReadBatch {
        chunk: u32,
        batch_id: String,
        offset: u32,
    },
}

impl Call {
    /// The calls the job logs (sent before the call, answered after): the writes.
    pub fn logged(&self) -> Option<(&'static str, u32)> {
        match self {
            Call::CreateBatch { chunk, .. } => Some(("create_batch", *chunk)),
            Call::BuyBatch { chunk, .. } => Some(("buy_batch", *chunk)),
            Call::Quote { .. } | Call::ReadWallet { .. } | Call::ReadBatch { .. } => None,
        }
    }
}

/// The next thing the job does.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// Nothing until the merchant acts, or ever (ended).
    Idle,
    /// Nothing for this long (the pace, a `Retry-After`, a batch processing).
    Wait {
        seconds: u64,
    },
    Call(Call),
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

/// A [`Call`]'s answer, in the type of that call.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Rates (also those of a 503 with some carriers down).
    Quoted {
        row: u32,
        answer: Answer<Vec<Rate>>,
    },
    Wallet {
        chunk: u32,
        answer: Answer<Wallet>,
    },
    Created {
        chunk: u32,
        answer: Answer<Batch>,
    },
    /// The buy was accepted (its body is not needed).
    Bought {
        chunk: u32,
        answer: Answer<()>,
    },
    Read {
        chunk: u32,
        answer: Answer<Batch>,
    },
}

/// What the Worker knows of the job besides its rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Core {
    pub id: String,
    /// Whose job it is: it runs with that organization's keys. Jobs stored
    /// before organizations existed are the deployment's.
    #[serde(default = "OrgId::deployment")]
    pub org: OrgId,
    pub name: String,
    pub mode: KeyEnv,
    pub created_by: String,
    pub created_at: u64,
    pub updated_at: u64,
    /// One more at every stored step (`changes`): the dashboard keeps the newest copy.
    #[serde(default)]
    pub revision: u64,
    /// State and problem: changed only by `machine::transition`.
    #[serde(flatten)]
    lifecycle: Lifecycle,
    pub rule: Rule,
    pub approval: Approval,
    pub estimate: Estimate,
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

/// A job: its core and its rows.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    pub core: Core,
    rows: Rows,
}

/// A merchant's action on a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Start,
    Approve,
    Decide(Decide),
    Retry,
    Release,
    RetryReleased(RetryReleased),
    Cancel,
}

/// Why an action does not apply now, in the merchant's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

/// What a new job is made of (`POST /api/jobs`, checked).
pub struct Plan {
    pub id: String,
    pub org: OrgId,
    pub name: String,
    pub mode: KeyEnv,
    pub created_by: String,
    pub rule: Rule,
    pub approval: Approval,
    pub pace: Pace,
    pub rows: Vec<JobRow>,
}

impl Job {
    /// A planned job: nothing is sent until `Start`.
    pub fn plan(plan: Plan, now: u64) -> Job {
        let core = Core {
            id: plan.id,
            org: plan.org,
            name: plan.name,
            mode: plan.mode,
            created_by: plan.created_by,
            created_at: now,
            updated_at: now,
            revision: 0,
            lifecycle: Lifecycle::default(),
            rule: plan.rule,
            approval: plan.approval,
            estimate: plan::estimate(&plan.rows, plan.pace),
            pace: plan.pace,
            rates_window: None,
            hold_until: 0,
            cost: Cost::default(),
            chunks: vec![],
            next_chunk: 1,
            stats: JobStats::default(),
            labels_per_second: None,
        };
        let rows = plan
            .rows
            .into_iter()
            .enumerate()
            .map(|(i, r)| Row::new(i as u32, r))
            .collect();
        Job {
            core,
            rows: Rows::unsaved(rows),
        }
    }

    /// A job read back from storage, made whole whatever step it stopped
    /// at: a creation sent and never answered has an unknown outcome; a
    /// row whose chunk was not stored goes back to be planned again.
    pub fn restore(core: Core, rows: Vec<Row>) -> Job {
        let mut job = Job {
            core,
            rows: Rows::new(rows),
        };
        // Chunks of an earlier build listed their rows: their order is the batch's.
        for chunk in &mut job.core.chunks {
            for (item, index) in std::mem::take(&mut chunk.legacy_rows)
                .into_iter()
                .enumerate()
            {
                if let Some(row) = job.rows.get_mut(index)
                    && row.chunk == Some(chunk.number)
                {
                    row.item = Some(item as u32);
                }
            }
        }
        let orphans = job.rows.select(|r| {
            r.chunk
                .is_some_and(|n| !job.core.chunks.iter().any(|c| c.number == n))
        });
        for index in orphans {
            if let Some(row) = job.rows.get_mut(index) {
                row.chunk = None;
                row.item = None;
            }
        }
        let highest = job.core.chunks.iter().map(|c| c.number).max().unwrap_or(0);
        job.core.next_chunk = job.core.next_chunk.max(highest + 1);
        let lost: Vec<u32> = job
            .core
            .chunks
            .iter()
            .filter(|c| c.state == ChunkState::Creating)
            .map(|c| c.number)
            .collect();
        for chunk in lost {
            let error = ApiError::new(
                api::ErrorCode::EdgeUpstreamUnreachable,
                "Parcel restarted while this chunk's batch was being created; its outcome is unknown.",
                "Compare the wallet before and after, and check the shipping service's dashboard for a batch of this total; then release the chunk or cancel the job.",
                "",
            );
            job.creation_lost(chunk, error);
        }
        job
    }

    pub fn state(&self) -> JobState {
        self.core.lifecycle.state()
    }

    pub fn problem(&self) -> Option<&JobProblem> {
        self.core.lifecycle.problem()
    }

    pub fn rows(&self) -> &Rows {
        &self.rows
    }

    /// The core and the rows changed since the last call: what a step
    /// stores, as a new revision.
    pub fn changes(&mut self) -> (&Core, Vec<&Row>) {
        self.core.revision += 1;
        (&self.core, self.rows.take_changed())
    }

    /// The one place the lifecycle changes: an action's refusal comes back.
    fn enter(&mut self, event: Event) -> Result<(), Refusal> {
        self.core.lifecycle = machine::transition(&self.core.lifecycle, &event)?;
        Ok(())
    }

    /// A finding of the job's own: it changes the lifecycle where it applies.
    fn found(&mut self, event: Event) {
        if let Ok(next) = machine::transition(&self.core.lifecycle, &event) {
            self.core.lifecycle = next;
        }
    }

    fn review(&self) -> bool {
        self.core.approval == Approval::ReviewFirst
    }

    fn chunk(&self, number: u32) -> Option<&Chunk> {
        self.core.chunks.iter().find(|c| c.number == number)
    }

    fn chunk_mut(&mut self, number: u32) -> Option<&mut Chunk> {
        self.core.chunks.iter_mut().find(|c| c.number == number)
    }

    /// The rows of a chunk, in row order.
    fn members(&self, chunk: u32) -> Vec<u32> {
        self.rows.select(|r| r.chunk == Some(chunk))
    }

    /// A batch creation whose answer is lost: the chunk's outcome is
    /// unknown and it is never sent again. A cancelled job releases its
    /// rows at once (nobody will decide for them); otherwise the job stops.
    fn creation_lost(&mut self, number: u32, error: ApiError) {
        let Some(c) = self.chunk_mut(number) else {
            return;
        };
        c.state = ChunkState::OutcomeUnknown;
        let problem = JobProblem::OutcomeUnknown {
            chunk: number,
            request_id: c.request_id.clone().unwrap_or_default(),
            total_cents: c.total_cents,
            wallet_before_cents: c.wallet_before_cents,
            wallet_after_cents: c.wallet_after_cents,
            error,
        };
        self.found(Event::CreationLost { problem });
        if self.state() == JobState::Cancelled {
            self.release_unknown();
        }
    }

    /// Every row of a chunk with an unknown outcome becomes released.
    fn release_unknown(&mut self) {
        let unknown: Vec<u32> = self
            .core
            .chunks
            .iter()
            .filter(|c| c.state == ChunkState::OutcomeUnknown)
            .map(|c| c.number)
            .collect();
        for number in unknown {
            for index in self.members(number) {
                let Some(row) = self.rows.get_mut(index) else {
                    continue;
                };
                if row.terminal() {
                    continue;
                }
                row.state = RowState::Released;
                row.error = Some(ApiError::new(
                    api::ErrorCode::EdgeUpstreamUnreachable,
                    format!(
                        "Chunk {number}'s batch may or may not have been created (and paid); the merchant released it."
                    ),
                    "Compare the wallet before and after the chunk and check the service's dashboard; retry this row only if it has no label there.",
                    "",
                ));
            }
        }
    }

    /// What chunks with an unknown outcome may have been charged: the total
    /// ceiling counts it as spent.
    fn at_stake_cents(&self) -> i64 {
        self.core
            .chunks
            .iter()
            .filter(|c| c.state == ChunkState::OutcomeUnknown)
            .map(|c| c.total_cents)
            .sum()
    }
}
