//! What a job does next. The money rules, all enforced here and in
//! `answers` (which takes each call's outcome):
//!
//! 1. Nothing is sent that the lifecycle's state does not allow
//!    (`machine::sends`): a paused job sends nothing; a stopped one only
//!    the wallet read after its lost creation; a cancelled one only what
//!    finishes the batches it already paid for.
//! 2. A batch creation is stored as sent before it goes out (`runner`). If
//!    its answer is lost (a restart, a timeout, a 5xx, an answer that could
//!    not be stored) its chunk's outcome is unknown and the job stops: it is
//!    never sent again, and only the merchant moves the job on.
//! 3. No rate older than `plan::MAX_QUOTE_AGE_SECONDS` is sent: it is quoted again.
//!    A chunk whose oldest fresh rate comes within a window of that age goes
//!    with its fresh rows, the others in the next chunk: a chunk quoted
//!    slower than it was sized for (others took part of each window) would
//!    otherwise quote its stale rows again forever.
//! 4. Review first: a row goes into a batch only at a price the merchant
//!    approved, retried rows included; a dearer quote waits for a decision.
//!    Buy as quoted: a row goes in only within the per-row ceiling (or a
//!    price the merchant accepted), and a chunk only within the total
//!    ceiling, counting what chunks with an unknown outcome may have cost.
//! 5. The live wallet is read before each chunk is created; a short one
//!    pauses the job.
//! 6. A chunk holds at most `BATCH_MAX_CHUNK_ROWS` rows, and no more
//!    distinct shipments than can be quoted while its first rate is valid.
//! 7. A bought row is never quoted, sent or retried again. A released row
//!    (its chunk's outcome unknown) is retried only by name, acknowledged.
//! 8. The job ends only when every row has reached an end.

use api::batches::BatchItem;
use api::jobs::{Approval, ChunkState, JobState, RowState};
use api::{KeyEnv, RatesRequest};

use super::machine::{self, Sends};
use super::{Call, Chunk, Event, Job, Next, Row};
use crate::jobs::plan::{self, Pace};

impl Job {
    /// The next call, or how long to wait, or nothing until the merchant
    /// acts. Forms the next chunk when one is due, and records what it
    /// finds (the review pass done, the ceiling, the end) in the lifecycle.
    pub fn next(&mut self, now: u64) -> Next {
        let sends = machine::sends(&self.core.lifecycle);
        if sends == Sends::default() {
            return Next::Idle;
        }
        if now < self.core.hold_until {
            return Next::Wait {
                seconds: self.core.hold_until - now,
            };
        }
        if sends.wallet_after
            && let Some(chunk) = self.wallet_after_wanted()
        {
            return Next::Call(Call::ReadWallet { chunk });
        }
        let follow_up = sends.follow_ups.then(|| self.follow_up(now)).flatten();
        if let Some(next @ Next::Call(_)) = follow_up {
            return next;
        }
        let own = match self.state() {
            JobState::Quoting => self.next_review_quote(now),
            JobState::Buying => self.next_buying(now, follow_up.is_some()),
            _ => Next::Idle,
        };
        match (own, follow_up) {
            (Next::Wait { seconds }, Some(Next::Wait { seconds: other })) => Next::Wait {
                seconds: seconds.min(other),
            },
            (Next::Idle, Some(follow_up)) => follow_up,
            (own, _) => own,
        }
    }

    /// Whether the job has work of its own to do now or later (its alarm must be set).
    pub fn has_work(&self) -> bool {
        let sends = machine::sends(&self.core.lifecycle);
        sends.quotes
            || sends.new_batches
            || (sends.follow_ups && self.core.chunks.iter().any(open))
            || (sends.wallet_after && self.wallet_after_wanted().is_some())
    }

    /// The quote a new job makes before its start to learn the rates limit
    /// its plan is paced by (nothing is bought; see `probed`).
    pub fn limit_probe(&self) -> Option<Call> {
        if self.core.rates_window.is_some() {
            return None;
        }
        let row = self.rows.get(0)?;
        Some(Call::Quote {
            row: 0,
            request: rates_request(row),
        })
    }

    /// Marks a chunk's creation as sent, fixing each row's item in the
    /// batch: stored before the call goes out.
    pub fn sending(&mut self, chunk: u32, request_id: &str) {
        for (item, index) in self.members(chunk).into_iter().enumerate() {
            if let Some(row) = self.rows.get_mut(index) {
                row.item = Some(item as u32);
            }
        }
        if let Some(c) = self.chunk_mut(chunk) {
            c.state = ChunkState::Creating;
            c.request_id = Some(request_id.to_string());
        }
    }

    /// A chunk with an unknown outcome whose wallet-after is not read yet (live only).
    fn wallet_after_wanted(&self) -> Option<u32> {
        if self.core.mode != KeyEnv::Live {
            return None;
        }
        self.core
            .chunks
            .iter()
            .find(|c| {
                c.state == ChunkState::OutcomeUnknown
                    && c.wallet_after_cents.is_none()
                    && !c.wallet_after_refused
            })
            .map(|c| c.number)
    }

    /// Buying or reading a batch already created, if one is due (or how long until one is).
    fn follow_up(&self, now: u64) -> Option<Next> {
        let mut wait: Option<u64> = None;
        for chunk in self.core.chunks.iter().filter(|c| open(c)) {
            let (Some(batch_id), true) = (&chunk.batch_id, chunk.next_call_at <= now) else {
                let w = chunk.next_call_at.saturating_sub(now).max(1);
                wait = Some(wait.map_or(w, |x| x.min(w)));
                continue;
            };
            let batch_id = batch_id.clone();
            return Some(Next::Call(match chunk.state {
                ChunkState::Created => Call::BuyBatch {
                    chunk: chunk.number,
                    batch_id,
                },
                _ => Call::ReadBatch {
                    chunk: chunk.number,
                    batch_id,
                    offset: chunk.settled_prefix,
                },
            }));
        }
        wait.map(|seconds| Next::Wait { seconds })
    }

    /// The pace at the limit the service last reported (the configured
    /// guess until it has reported one).
    pub(super) fn pace(&self) -> Pace {
        Pace {
            limit: self
                .core
                .rates_window
                .map_or(self.core.pace.limit, |w| w.limit),
            ..self.core.pace
        }
    }

    /// How long until the next quote may go: the rates window, when
    /// quoting would take `Remaining` into the reserve left for others.
    pub(super) fn window_wait(&self, now: u64) -> Option<u64> {
        let window = self.core.rates_window?;
        (now < window.reset_at && window.remaining <= self.pace().reserve())
            .then(|| (window.reset_at - now).max(1))
    }

    /// Whether the oldest of these fresh quotes comes within a window (the
    /// longest the next quote may have to wait: limits are per minute) of
    /// `MAX_QUOTE_AGE_SECONDS` (rule 3).
    fn about_to_expire(&self, fresh: &[u32], now: u64) -> bool {
        fresh
            .iter()
            .filter_map(|&i| self.rows.get(i)?.quote.as_ref())
            .map(|q| q.quoted_at)
            .min()
            .is_some_and(|oldest| now + 60 >= oldest + plan::MAX_QUOTE_AGE_SECONDS)
    }

    /// Quotes this row now, or waits for the rates window.
    fn quote_step(&self, index: u32, now: u64) -> Next {
        if let Some(seconds) = self.window_wait(now) {
            return Next::Wait { seconds };
        }
        match self.rows.get(index) {
            Some(row) => Next::Call(Call::Quote {
                row: index,
                request: rates_request(row),
            }),
            None => Next::Idle,
        }
    }

    /// A row whose price the merchant has not approved yet (review first).
    fn unapproved(row: &Row) -> bool {
        matches!(row.state, RowState::Pending | RowState::Quoted)
            && row.approved_cents.is_none()
            && row.chunk.is_none()
    }

    /// The review pass: every unapproved row gets a quote; then the
    /// merchant approves the total.
    fn next_review_quote(&mut self, now: u64) -> Next {
        let next = self
            .rows
            .iter()
            .find(|r| Self::unapproved(r) && r.state == RowState::Pending)
            .map(|r| r.index);
        match next {
            Some(index) => self.quote_step(index, now),
            None => {
                self.found(Event::Quoted);
                Next::Idle
            }
        }
    }

    /// Whether a row may go into a new chunk now (rule 4 for review first).
    fn eligible(&self, row: &Row) -> bool {
        matches!(row.state, RowState::Pending | RowState::Quoted)
            && (!self.review() || row.approved_cents.is_some())
    }

    fn forming(&self) -> Option<u32> {
        self.core
            .chunks
            .iter()
            .find(|c| c.state == ChunkState::Quoting)
            .map(|c| c.number)
    }

    fn next_buying(&mut self, now: u64, open: bool) -> Next {
        if self.review() && self.rows.iter().any(Self::unapproved) {
            self.found(Event::NeedsQuotes);
            return self.next_review_quote(now);
        }
        // Unless the service has reported its rates limit, the first quote
        // comes before the first chunk, to size it from the limit.
        if self.core.rates_window.is_none()
            && self.core.stats.quote_calls == 0
            && self.forming().is_none()
            && let Some(row) = self
                .rows
                .iter()
                .find(|r| r.chunk.is_none() && r.state == RowState::Pending && self.eligible(r))
        {
            return self.quote_step(row.index, now);
        }
        // A chunk whose rows all dropped out is removed and the next is formed.
        for _ in 0..3 {
            let chunk = match self.forming() {
                Some(chunk) => chunk,
                None => match self.form_chunk() {
                    Some(chunk) => chunk,
                    None if open => return Next::Idle,
                    None => return self.end(),
                },
            };
            if let Some(next) = self.chunk_step(chunk, now) {
                return next;
            }
        }
        Next::Idle
    }

    /// Nothing is left to send and no batch is open: the job ends, or waits
    /// for decisions. A row that could still move keeps it from ending (rule 8).
    fn end(&mut self) -> Next {
        let decisions = self
            .rows
            .iter()
            .filter(|r| r.state == RowState::NeedsDecision)
            .count() as u32;
        let moving = self
            .rows
            .iter()
            .any(|r| !r.terminal() && r.state != RowState::NeedsDecision);
        if !moving {
            self.found(Event::Ended { decisions });
        }
        Next::Idle
    }

    /// Puts the next eligible rows into a new chunk (rule 6); `None` when none is left.
    fn form_chunk(&mut self) -> Option<u32> {
        let pace = self.pace();
        let (max_rows, max_shipments) = (
            pace.max_chunk.max(1) as usize,
            pace.chunk_shipments() as usize,
        );
        let mut keys: Vec<&str> = Vec::new();
        let mut members = Vec::new();
        for row in self.rows.iter() {
            if members.len() >= max_rows {
                break;
            }
            if row.chunk.is_some() || !self.eligible(row) {
                continue;
            }
            if !keys.contains(&row.key.as_str()) {
                if keys.len() >= max_shipments {
                    continue;
                }
                keys.push(&row.key);
            }
            members.push(row.index);
        }
        if members.is_empty() {
            return None;
        }
        let number = self.core.next_chunk.max(1);
        self.core.next_chunk = number + 1;
        for index in members {
            if let Some(row) = self.rows.get_mut(index) {
                row.chunk = Some(number);
            }
        }
        self.core.chunks.push(Chunk::new(number));
        Some(number)
    }

    /// The forming chunk's next step: quote what is not fresh, then keep
    /// to the total ceiling, read the wallet, and create its batch. `None`:
    /// the chunk emptied and is gone.
    fn chunk_step(&mut self, chunk: u32, now: u64) -> Option<Next> {
        // Rows that can no longer go (failed, skipped, waiting) leave the chunk.
        let gone = self
            .rows
            .select(|r| r.chunk == Some(chunk) && !self.eligible(r));
        for index in gone {
            if let Some(row) = self.rows.get_mut(index) {
                row.chunk = None;
            }
        }
        let mut members = self.members(chunk);
        if members.is_empty() {
            self.core.chunks.retain(|c| c.number != chunk);
            return None;
        }
        let (fresh, unfresh): (Vec<u32>, Vec<u32>) = members
            .iter()
            .partition(|&&i| self.rows.get(i).is_some_and(|r| r.fresh(now)));
        if let Some(&first) = unfresh.first() {
            if !self.about_to_expire(&fresh, now) {
                return Some(self.quote_step(first, now));
            }
            // Quoting on could let its oldest rate expire: the chunk goes
            // with its fresh rows, the others in the next chunk (rule 3).
            for index in unfresh {
                if let Some(row) = self.rows.get_mut(index) {
                    row.chunk = None;
                }
            }
            members = fresh;
        }
        let price = |job: &Job, i: u32| {
            job.rows
                .get(i)
                .and_then(|r| r.quote.as_ref())
                .map_or(0, |q| q.rate_cents)
        };
        if let Approval::BuyAsQuoted {
            max_total_cents, ..
        } = self.core.approval
        {
            let spent = self.core.cost.charged_cents - self.core.cost.refunded_cents
                + self.at_stake_cents();
            let mut total = spent;
            let (fit, rest): (Vec<u32>, Vec<u32>) = members.iter().partition(|&&i| {
                let fits = total + price(self, i) <= max_total_cents;
                if fits {
                    total += price(self, i);
                }
                fits
            });
            for index in rest {
                if let Some(row) = self.rows.get_mut(index) {
                    row.chunk = None;
                }
            }
            if fit.is_empty() {
                self.core.chunks.retain(|c| c.number != chunk);
                self.found(Event::CeilingReached {
                    max_total_cents,
                    spent_cents: spent,
                });
                return Some(Next::Idle);
            }
            members = fit;
        }
        let total: i64 = members.iter().map(|&i| price(self, i)).sum();
        let live = self.core.mode == KeyEnv::Live;
        let c = self.chunk_mut(chunk)?;
        c.total_cents = total;
        if live && !c.wallet_checked {
            return Some(Next::Call(Call::ReadWallet { chunk }));
        }
        let mut items = Vec::with_capacity(members.len());
        for &index in &members {
            let Some((row, quote)) = self
                .rows
                .get(index)
                .and_then(|r| Some((r, r.quote.as_ref()?)))
            else {
                return Some(self.quote_step(index, now));
            };
            items.push(BatchItem {
                from_address: row.row.from_address.clone(),
                to_address: row.row.to_address.clone(),
                parcel: row.row.parcel,
                rate_id: quote.rate_id.clone(),
                carrier: quote.carrier.clone(),
                service: quote.service.clone(),
                rate_cents: quote.rate_cents,
            });
        }
        Some(Next::Call(Call::CreateBatch { chunk, items }))
    }
}

/// A chunk whose batch is created and not yet finished.
fn open(chunk: &Chunk) -> bool {
    matches!(chunk.state, ChunkState::Created | ChunkState::Processing)
}

fn rates_request(row: &Row) -> Box<RatesRequest> {
    Box::new(RatesRequest {
        from_address: row.row.from_address.clone(),
        to_address: row.row.to_address.clone(),
        parcel: row.row.parcel,
    })
}
