//! What each call's answer changes. An answer that arrives after the job
//! moved on (the merchant paused, cancelled or released meanwhile) changes
//! only what is still true: a late quote is not used, a creation's answer
//! still settles its chunk (a created batch is paid, so it is bought).

use api::batches::{Batch, BatchItemState, BatchState};
use api::insights::Offered;
use api::jobs::{ChunkState, JobState, RowQuote, RowState};
use api::{ApiError, ErrorCode, Rate, Wallet};

use super::machine;
use super::{Answer, Event, Job, Outcome};
use crate::jobs::plan::{self, NoRate};
use crate::upstream::budget::Window;

/// How often a quote of a row is tried before the row fails (a carrier
/// outage, a 5xx): the row's error then says what happened.
pub const MAX_QUOTE_ATTEMPTS: u8 = 3;
/// How long to wait after an upstream failure that may pass (5xx, unreachable).
pub const RETRY_AFTER_FAILURE_SECONDS: u64 = 5;
/// A processing batch is read at most this often, and at least this rarely.
pub const MIN_READ_SECONDS: u64 = 1;
pub const MAX_READ_SECONDS: u64 = 10;
/// A cancelled job whose batch calls are refused tries them again this
/// rarely: a paid batch is not abandoned, and a revoked key may be replaced.
pub const REFUSED_RETRY_SECONDS: u64 = 300;

/// The batch item a refusal names (`items[17].rate_id`).
fn item_named(error: &ApiError) -> Option<u32> {
    error
        .field
        .as_deref()
        .and_then(|f| f.strip_prefix("items["))
        .and_then(|f| f.split(']').next())
        .and_then(|n| n.parse::<u32>().ok())
}

/// A refusal of the key itself (revoked, expired, a scope missing).
fn by_key(error: &ApiError) -> bool {
    error.code.resource() == "AUTH"
}

impl Job {
    /// Takes a call's outcome.
    pub fn apply(&mut self, outcome: Outcome, now: u64) {
        self.core.updated_at = now;
        match outcome {
            Outcome::Quoted { row, answer } => self.quoted(row, answer, now),
            Outcome::Wallet { chunk, answer } => self.wallet_read(chunk, answer, now),
            Outcome::Created { chunk, answer } => self.created(chunk, answer, now),
            Outcome::Bought { chunk, answer } => self.bought(chunk, answer, now),
            Outcome::Read { chunk, answer } => self.read(chunk, answer, now),
        }
    }

    /// The rates window a quote's answer reported.
    pub fn saw_rates_window(&mut self, window: Window) {
        self.core.rates_window = Some(window);
    }

    /// The limit probe was answered (`limit_probe`; its window is in
    /// `saw_rates_window`): the plan is paced again.
    pub fn probed(&mut self, now: u64) {
        self.count_quote(now);
        let rows: Vec<_> = self.rows.iter().map(|r| r.row.clone()).collect();
        self.core.estimate = plan::estimate(&rows, self.pace());
    }

    fn hold(&mut self, seconds: u64, now: u64) {
        self.core.hold_until = self.core.hold_until.max(now + seconds.max(1));
    }

    fn count_quote(&mut self, now: u64) {
        let stats = &mut self.core.stats;
        stats.quote_calls += 1;
        stats.first_quote_at.get_or_insert(now);
        stats.last_quote_at = Some(now);
    }

    fn quoted(&mut self, index: u32, answer: Answer<Vec<Rate>>, now: u64) {
        self.count_quote(now);
        let Some(row) = self.rows.get(index) else {
            return;
        };
        if !matches!(row.state, RowState::Pending | RowState::Quoted)
            || !machine::sends(&self.core.lifecycle).quotes
        {
            return;
        }
        let (key, chunk) = (row.key.clone(), row.chunk);
        let twins = self.rows.select(|r| {
            r.key == key
                && matches!(r.state, RowState::Pending | RowState::Quoted)
                && (r.index == index || r.chunk == chunk)
        });
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
                        offered: Offered::of(&rates),
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
            Answer::Refused(error) if by_key(&error) => self.found(Event::Refused { error }),
            Answer::Refused(error) => {
                for i in twins {
                    self.fail(i, error.clone());
                }
            }
            Answer::RateLimited { retry_after } => {
                // Not the row's fault: it is quoted again after the wait.
                self.core.stats.rate_limited += 1;
                self.hold(retry_after, now);
            }
            Answer::Failed(error) => {
                let attempts = match self.rows.get_mut(index) {
                    Some(row) => {
                        row.attempts = row.attempts.saturating_add(1);
                        row.attempts
                    }
                    None => return,
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

    /// A row's new quote; above what may be paid for it, it waits for a decision.
    fn take_quote(&mut self, index: u32, quote: RowQuote) {
        let limit = match self.core.approval {
            api::jobs::Approval::ReviewFirst => self.rows.get(index).and_then(|r| r.approved_cents),
            api::jobs::Approval::BuyAsQuoted { max_row_cents, .. } => Some(
                self.rows
                    .get(index)
                    .and_then(|r| r.approved_cents)
                    .map_or(max_row_cents, |accepted| accepted.max(max_row_cents)),
            ),
        };
        let review = self.review();
        let Some(row) = self.rows.get_mut(index) else {
            return;
        };
        let price = quote.rate_cents;
        row.quote = Some(quote);
        row.error = None;
        row.state = RowState::Quoted;
        if let Some(limit) = limit.filter(|limit| price > *limit) {
            row.state = RowState::NeedsDecision;
            row.chunk = None;
            row.error = Some(ApiError::new(
                ErrorCode::ValidationFieldInvalid,
                format!(
                    "The price is now {price} cents, above the {limit} cents {}.",
                    if review {
                        "you approved"
                    } else {
                        "allowed per row"
                    }
                ),
                "Accept the new price or skip the row.",
                "",
            ));
        }
    }

    /// A row fails; one not yet sent in a batch leaves its chunk.
    fn fail(&mut self, index: u32, error: ApiError) {
        if let Some(row) = self.rows.get_mut(index) {
            row.state = RowState::Failed;
            row.error = Some(error);
            if row.item.is_none() {
                row.chunk = None;
            }
        }
    }

    fn wallet_read(&mut self, chunk: u32, answer: Answer<Wallet>, now: u64) {
        let Some(state) = self.chunk(chunk).map(|c| c.state) else {
            return;
        };
        if state == ChunkState::OutcomeUnknown {
            // After a lost creation: the balance the merchant compares with before.
            match answer {
                Answer::Ok(wallet) => {
                    if let Some(c) = self.chunk_mut(chunk) {
                        c.wallet_after_cents = Some(wallet.balance_cents);
                    }
                    self.found(Event::WalletAfter {
                        chunk,
                        balance_cents: wallet.balance_cents,
                    });
                }
                Answer::Refused(_) => {
                    if let Some(c) = self.chunk_mut(chunk) {
                        c.wallet_after_refused = true;
                    }
                }
                Answer::RateLimited { retry_after } => self.hold(retry_after, now),
                Answer::Failed(_) => self.hold(RETRY_AFTER_FAILURE_SECONDS, now),
            }
            return;
        }
        if state != ChunkState::Quoting || !machine::sends(&self.core.lifecycle).new_batches {
            return;
        }
        let wallet = match answer {
            Answer::Ok(wallet) => wallet,
            Answer::RateLimited { retry_after } => return self.hold(retry_after, now),
            Answer::Failed(_) => return self.hold(RETRY_AFTER_FAILURE_SECONDS, now),
            Answer::Refused(error) => return self.found(Event::Refused { error }),
        };
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
        } else {
            self.found(Event::WalletShort {
                chunk,
                needed_cents: needed - wallet.balance_cents,
                balance_cents: wallet.balance_cents,
            });
        }
    }

    /// The row holding item `item` of a chunk's batch.
    fn at_item(&self, chunk: u32, item: u32) -> Option<u32> {
        self.rows
            .iter()
            .find(|r| r.chunk == Some(chunk) && r.item == Some(item))
            .map(|r| r.index)
    }

    /// The chunk goes back to quoting: nothing was created.
    fn not_created(&mut self, chunk: u32) {
        for index in self.members(chunk) {
            if let Some(row) = self.rows.get_mut(index) {
                row.item = None;
            }
        }
        if let Some(c) = self.chunk_mut(chunk) {
            c.state = ChunkState::Quoting;
            c.wallet_checked = false;
        }
    }

    fn created(&mut self, chunk: u32, answer: Answer<Batch>, now: u64) {
        if self.chunk(chunk).map(|c| c.state) != Some(ChunkState::Creating) {
            return;
        }
        match answer {
            Answer::Ok(batch) => {
                for index in self.members(chunk) {
                    if let Some(row) = self.rows.get_mut(index) {
                        row.state = RowState::InBatch;
                        row.batch_id = Some(batch.id.clone());
                    }
                }
                self.core.cost.charged_cents += batch.total_cost_cents;
                if let Some(c) = self.chunk_mut(chunk) {
                    c.state = ChunkState::Created;
                    c.batch_id = Some(batch.id.clone());
                    c.total_cents = batch.total_cost_cents;
                    c.next_call_at = now;
                    if !batch.sandbox {
                        c.wallet_after_cents = Some(batch.wallet_balance_after_cents);
                    }
                }
            }
            Answer::Refused(error) => {
                self.core.stats.batches_refused += 1;
                let named = item_named(&error).and_then(|i| self.at_item(chunk, i));
                self.not_created(chunk);
                self.creation_refused(chunk, named, error);
                if self.state() == JobState::Cancelled {
                    // Nothing more is bought for a cancelled job.
                    for index in self.members(chunk) {
                        if let Some(row) = self.rows.get_mut(index) {
                            row.chunk = None;
                            if !row.terminal() {
                                row.state = RowState::Skipped;
                            }
                        }
                    }
                    self.core.chunks.retain(|c| c.number != chunk);
                }
            }
            Answer::RateLimited { retry_after } => {
                // A 429 is a refusal: nothing was created; the same items go after the wait.
                self.not_created(chunk);
                self.core.stats.rate_limited += 1;
                self.hold(retry_after, now);
            }
            Answer::Failed(error) => self.creation_lost(chunk, error),
        }
    }

    /// A refused creation (nothing charged): a stale or unknown rate is
    /// quoted again, another bad item fails, a short wallet pauses the job,
    /// a refusal of the whole batch fails its rows.
    fn creation_refused(&mut self, chunk: u32, row: Option<u32>, error: ApiError) {
        if by_key(&error) {
            return self.found(Event::Refused { error });
        }
        if error.code.resource() == "WALLET" {
            let (total, before) = self.chunk(chunk).map_or((0, 0), |c| {
                (c.total_cents, c.wallet_before_cents.unwrap_or(0))
            });
            return self.found(Event::WalletShort {
                chunk,
                needed_cents: (total - before).max(0),
                balance_cents: before,
            });
        }
        match (row, &error.code) {
            (Some(row), ErrorCode::RateExpired | ErrorCode::RateNotFound) => {
                if let Some(r) = self.rows.get_mut(row) {
                    r.quote = None;
                    r.state = RowState::Pending;
                }
            }
            (Some(row), _) => self.fail(row, error),
            (None, _) => {
                for row in self.members(chunk) {
                    self.fail(row, error.clone());
                }
                if let Some(c) = self.chunk_mut(chunk) {
                    c.state = ChunkState::Refused;
                }
            }
        }
    }

    /// A buy or read of a created batch was refused: a running job pauses;
    /// one that stays (cancelled) tries again much later.
    fn follow_up_refused(&mut self, chunk: u32, error: ApiError, now: u64) {
        self.found(Event::Refused { error });
        if self.state() != JobState::Paused
            && let Some(c) = self.chunk_mut(chunk)
        {
            c.next_call_at = now + REFUSED_RETRY_SECONDS;
        }
    }

    fn bought(&mut self, chunk: u32, answer: Answer<()>, now: u64) {
        if self.chunk(chunk).map(|c| c.state) != Some(ChunkState::Created) {
            return;
        }
        match answer {
            Answer::Ok(()) => self.processing(chunk, now),
            Answer::Refused(e) if e.code == ErrorCode::BatchAlreadyProcessing => {
                self.processing(chunk, now)
            }
            Answer::Refused(error) => self.follow_up_refused(chunk, error, now),
            Answer::RateLimited { retry_after } => self.hold(retry_after, now),
            // Buying again is safe: it is tried again after a pause.
            Answer::Failed(_) => {
                if let Some(c) = self.chunk_mut(chunk) {
                    c.next_call_at = now + RETRY_AFTER_FAILURE_SECONDS;
                }
            }
        }
    }

    fn processing(&mut self, chunk: u32, now: u64) {
        if let Some(c) = self.chunk_mut(chunk) {
            c.state = ChunkState::Processing;
            c.bought_at = Some(now);
            c.next_call_at = now + MIN_READ_SECONDS;
        }
    }

    fn read(&mut self, chunk: u32, answer: Answer<Batch>, now: u64) {
        if self.chunk(chunk).map(|c| c.state) != Some(ChunkState::Processing) {
            return;
        }
        let batch = match answer {
            Answer::Ok(batch) => batch,
            Answer::RateLimited { retry_after } => return self.hold(retry_after, now),
            Answer::Refused(error) => return self.follow_up_refused(chunk, error, now),
            Answer::Failed(_) => {
                if let Some(c) = self.chunk_mut(chunk) {
                    c.next_call_at = now + MAX_READ_SECONDS;
                }
                return;
            }
        };
        for result in &batch.results {
            let Some(index) = self.at_item(chunk, result.index) else {
                continue;
            };
            if self.rows.get(index).map(|r| r.state) != Some(RowState::InBatch) {
                continue; // already settled
            }
            match result.state {
                BatchItemState::Created => {
                    if let Some(row) = self.rows.get_mut(index) {
                        row.state = RowState::Bought;
                        row.label_id = result.label_id.clone();
                        row.tracking_number = result.tracking_number.clone();
                        row.label_url = result.label_url.clone();
                        row.error = None;
                    }
                    self.core.cost.bought_cents += result.rate_cents;
                }
                BatchItemState::Failed => {
                    // Sandbox labels are free: nothing to refund.
                    if !batch.sandbox {
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
        // The settled prefix moves past every settled item in batch order.
        let mut items: Vec<(u32, RowState)> = self
            .rows
            .iter()
            .filter(|r| r.chunk == Some(chunk))
            .filter_map(|r| Some((r.item?, r.state)))
            .collect();
        items.sort_unstable_by_key(|(item, _)| *item);
        let settled = items
            .iter()
            .take_while(|(_, state)| *state != RowState::InBatch)
            .count() as u32;
        let size = items.len() as u32;
        let done = batch.state == BatchState::Completed && settled >= size;
        let remaining = batch.estimated_time_remaining_seconds;
        if let Some(c) = self.chunk_mut(chunk) {
            c.settled_prefix = settled;
            c.completion_percentage = Some(batch.estimated_completion_percentage);
            c.next_call_at = now + (remaining / 4).clamp(MIN_READ_SECONDS, MAX_READ_SECONDS);
            if done {
                c.state = ChunkState::Done;
                if let Some(bought_at) = c.bought_at {
                    let seconds = now.saturating_sub(bought_at).max(1) as f64;
                    self.core.labels_per_second = Some(f64::from(size) / seconds);
                }
            }
        }
    }
}
