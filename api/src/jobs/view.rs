//! A job as the dashboard sees it: its state and counts, each row, the
//! plan's estimate, chunks, problems, costs and the live feed's updates;
//! and the merchant's decisions on rows.

use serde::{Deserialize, Serialize};

use super::{Approval, Rule};
use crate::address::Address;
use crate::error::ApiError;
use crate::keys::KeyEnv;
use crate::parcel::Parcel;

crate::names! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum JobState {
        /// Checked and estimated; nothing spent. Waits for `start`.
        Planned = "planned",
        /// Quoting rows (review mode: the one pass; otherwise the next chunk).
        Quoting = "quoting",
        /// Review mode: every row quoted; waits for `approve`.
        AwaitingApproval = "awaiting_approval",
        /// Creating, buying and following v1 batches, chunk by chunk.
        Buying = "buying",
        /// Waiting for the merchant: funds, decisions, the total ceiling, or a
        /// refusal of its calls (`problem`). Nothing is sent while paused.
        Paused = "paused",
        /// A batch creation's outcome is unknown; nothing more is sent (but the
        /// one wallet read that shows whether it was charged) until the merchant
        /// releases or cancels (`problem`).
        Stopped = "stopped",
        /// Nothing new is quoted or bought; batches already created (and paid)
        /// are still bought and followed to the end.
        Cancelled = "cancelled",
        /// Every row is bought, failed with its reason, skipped or released.
        Completed = "completed",
    }
}

impl JobState {
    /// Whether the job has ended: nothing new is ever quoted or bought for
    /// it (a cancelled job still finishes the batches it already paid for).
    pub fn is_finished(self) -> bool {
        matches!(self, JobState::Cancelled | JobState::Completed)
    }
}

crate::names! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum RowState {
        Pending = "pending",
        Quoted = "quoted",
        /// The price rose above what was approved, or above the per-row ceiling.
        NeedsDecision = "needs_decision",
        /// In a v1 batch (created, bought or processing).
        InBatch = "in_batch",
        Bought = "bought",
        Failed = "failed",
        /// Not bought: the job was cancelled, or the merchant declined its price.
        Skipped = "skipped",
        /// Its chunk's batch creation got no clear answer and the merchant
        /// released it: it may or may not have been bought. A bulk retry never
        /// takes it; [`RetryReleased`] does, once the merchant acknowledges it.
        Released = "released",
    }
}

/// The rate a row would buy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowQuote {
    pub rate_id: String,
    pub carrier: String,
    pub service: String,
    pub rate_cents: i64,
    pub carbon_grams: i64,
    pub carrier_eta: String,
    /// Unix seconds (the Worker's clock) when it was quoted.
    pub quoted_at: u64,
    /// The quote's cheapest and lowest-carbon rates, for the ledger's
    /// "what the choices cost" (absent in jobs quoted before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered: Option<crate::insights::Offered>,
}

/// One row as the job sees it now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowView {
    pub index: u32,
    pub reference: String,
    pub state: RowState,
    pub to_address: Address,
    pub parcel: Parcel,
    #[serde(default)]
    pub quote: Option<RowQuote>,
    /// Review mode: the price the merchant approved.
    #[serde(default)]
    pub approved_cents: Option<i64>,
    /// The chunk (1-based) whose batch holds it.
    #[serde(default)]
    pub chunk: Option<u32>,
    #[serde(default)]
    pub batch_id: Option<String>,
    #[serde(default)]
    pub label_id: Option<String>,
    #[serde(default)]
    pub tracking_number: Option<String>,
    /// Why it failed or waits: the v1 error, with its suggestion.
    #[serde(default)]
    pub error: Option<ApiError>,
}

/// How many rows are in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    pub total: u32,
    pub pending: u32,
    pub quoted: u32,
    pub needs_decision: u32,
    pub in_batch: u32,
    pub bought: u32,
    pub failed: u32,
    pub skipped: u32,
    #[serde(default)]
    pub released: u32,
}

impl Counts {
    pub fn add(&mut self, state: RowState, n: u32) {
        *match state {
            RowState::Pending => &mut self.pending,
            RowState::Quoted => &mut self.quoted,
            RowState::NeedsDecision => &mut self.needs_decision,
            RowState::InBatch => &mut self.in_batch,
            RowState::Bought => &mut self.bought,
            RowState::Failed => &mut self.failed,
            RowState::Skipped => &mut self.skipped,
            RowState::Released => &mut self.released,
        } += n;
        self.total += n;
    }

    /// Rows that reached an end: bought, failed, skipped or released.
    pub fn settled(&self) -> u32 {
        self.bought + self.failed + self.skipped + self.released
    }
}

/// The plan's timing, before the start and as it runs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Distinct shipments to quote (identical rows share one quote).
    pub distinct_shipments: u32,
    /// The rates limit the job paces itself by (as last observed) and its share of it.
    pub rates_per_minute: u32,
    pub share: f64,
    /// Rows per chunk: as many as can be quoted while the first rate is still valid.
    pub chunk_rows: u32,
    pub chunks: u32,
    pub quote_seconds: u64,
    pub process_seconds: u64,
}

crate::names! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum ChunkState {
        /// Its rows are being quoted.
        Quoting = "quoting",
        /// Its batch creation was sent; no answer yet.
        Creating = "creating",
        /// Created (and paid); `buy` not yet confirmed.
        Created = "created",
        /// Bought; labels are being made.
        Processing = "processing",
        Done = "done",
        /// The creation's outcome is unknown: never sent again.
        OutcomeUnknown = "outcome_unknown",
        /// Refused by the service (nothing was charged); its rows went back or failed.
        Refused = "refused",
    }
}

/// One chunk: the rows of one v1 batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkView {
    /// 1-based.
    pub number: u32,
    pub rows: u32,
    pub state: ChunkState,
    pub total_cents: i64,
    #[serde(default)]
    pub batch_id: Option<String>,
    /// Our request id of the creation call, to find it in the logs.
    #[serde(default)]
    pub request_id: Option<String>,
    /// The live wallet before the creation and after it (as read), in cents.
    #[serde(default)]
    pub wallet_before_cents: Option<i64>,
    #[serde(default)]
    pub wallet_after_cents: Option<i64>,
    /// The service's progress once bought.
    #[serde(default)]
    pub completion_percentage: Option<u32>,
}

/// Why a job waits for the merchant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
pub enum JobProblem {
    /// The live wallet cannot pay the next chunk, auto-reload included.
    NeedsFunds {
        needed_cents: i64,
        balance_cents: i64,
        chunk: u32,
    },
    /// Rows wait for a decision (`decide`).
    Decisions { rows: u32 },
    /// The total ceiling would be passed by the next rows.
    CeilingReached {
        max_total_cents: i64,
        spent_cents: i64,
    },
    /// A batch creation got no clear answer. It is never sent again: check
    /// the service's dashboard, then `release` (its rows become
    /// [`RowState::Released`]; each may be retried with [`RetryReleased`]) or
    /// `cancel`. The wallet before and after tell whether it was charged.
    OutcomeUnknown {
        chunk: u32,
        request_id: String,
        total_cents: i64,
        wallet_before_cents: Option<i64>,
        wallet_after_cents: Option<i64>,
        error: ApiError,
    },
    /// The key or the service refused the job's calls (a revoked key, a
    /// missing scope): the error, with what to do.
    Refused { error: ApiError },
}

/// What a job has cost and may cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cost {
    /// The sum of the current quotes of rows not yet bought.
    pub quoted_cents: i64,
    /// Charged by created batches.
    pub charged_cents: i64,
    /// Refunded for rows that failed in processing.
    pub refunded_cents: i64,
    /// Bought labels' prices (charged minus refunded, once processed).
    pub bought_cents: i64,
}

/// What the job's calls met, for the merchant and for the benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct JobStats {
    /// Quote calls made (identical shipments share one).
    pub quote_calls: u32,
    /// Answers of 429 the job received (it paces itself to get none).
    pub rate_limited: u32,
    /// Batch creations the service refused (nothing charged).
    pub batches_refused: u32,
    /// Unix seconds of the first and the latest quote call.
    pub first_quote_at: Option<u64>,
    pub last_quote_at: Option<u64>,
}

/// A job, as the dashboard shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub id: String,
    pub name: String,
    pub mode: KeyEnv,
    pub created_by: String,
    pub created_at: u64,
    pub updated_at: u64,
    /// Grows with every change the job stores: of two copies (an action's
    /// answer, a live-feed message) the higher is the newer.
    #[serde(default)]
    pub revision: u64,
    pub state: JobState,
    pub rule: Rule,
    pub approval: Approval,
    pub counts: Counts,
    pub cost: Cost,
    pub estimate: Estimate,
    /// Quoting plus processing, 0 to 100.
    pub progress_percentage: u32,
    /// Seconds to the end, quoting plus processing, while it runs.
    #[serde(default)]
    pub eta_seconds: Option<u64>,
    pub chunks: Vec<ChunkView>,
    #[serde(default)]
    pub problem: Option<JobProblem>,
    /// Sandbox jobs are free: nothing is charged.
    pub free: bool,
    #[serde(default)]
    pub stats: JobStats,
}

/// A job in the jobs list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSummary {
    pub id: String,
    pub name: String,
    pub mode: KeyEnv,
    pub created_by: String,
    pub created_at: u64,
    pub updated_at: u64,
    pub state: JobState,
    pub approval: Approval,
    pub counts: Counts,
    pub cost: Cost,
}

impl From<&Job> for JobSummary {
    fn from(job: &Job) -> Self {
        JobSummary {
            id: job.id.clone(),
            name: job.name.clone(),
            mode: job.mode,
            created_by: job.created_by.clone(),
            created_at: job.created_at,
            updated_at: job.updated_at,
            state: job.state,
            approval: job.approval,
            counts: job.counts,
            cost: job.cost,
        }
    }
}

/// `GET /api/jobs`: the session's mode, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobList {
    pub jobs: Vec<JobSummary>,
}

/// `GET /api/jobs/{id}/rows`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RowsPage {
    pub rows: Vec<RowView>,
    pub offset: u32,
    /// Rows matching the filter.
    pub total: u32,
}

/// `POST /api/jobs/{id}/decide`: accept the new prices of these rows, or skip them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decide {
    pub rows: Vec<u32>,
    pub accept: bool,
}

/// `POST /api/jobs/{id}/retry-released`: buy these released rows again. A
/// released row's first batch may have been created and paid, so this can
/// buy its label twice: `acknowledged` says the merchant checked the
/// service's dashboard (and the wallet before and after) and found none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RetryReleased {
    pub rows: Vec<u32>,
    pub acknowledged: bool,
}

/// One live-feed message: the job, and the rows that changed since the last one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobUpdate {
    pub job: Job,
    pub rows: Vec<RowView>,
}
