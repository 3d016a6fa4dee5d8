//! What the dashboard sees of a job: its view, its progress, its rows by
//! page, and its labels for the merged PDFs.

use std::collections::{BTreeMap, HashSet};

use api::KeyEnv;
use api::jobs::{ChunkView, Counts, Job as JobView, JobState, RowState, RowView};

use super::{Job, Row, Rows};
use crate::jobs::plan::ASSUMED_LABELS_PER_SECOND;

impl Job {
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for row in self.rows.iter() {
            counts.add(row.state, 1);
        }
        counts
    }

    /// Quoting plus processing: done so far, 0 to 100, and the seconds left.
    pub fn progress(&self, now: u64) -> (u32, Option<u64>) {
        let counts = self.counts();
        let total = counts.total.max(1);
        let keys_left: HashSet<&str> = self
            .rows
            .iter()
            .filter(|r| {
                r.state == RowState::Pending || (r.state == RowState::Quoted && !r.fresh(now))
            })
            .map(|r| r.key.as_str())
            .collect();
        // A wait under way (a `Retry-After`, the rates window) comes first.
        let waiting = if keys_left.is_empty() {
            0
        } else {
            self.core
                .hold_until
                .saturating_sub(now)
                .max(self.window_wait(now).unwrap_or(0))
        };
        let quote_left = waiting + self.pace().quote_seconds(keys_left.len() as u32);
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
        if self.state() == JobState::Completed {
            percent = 100;
        }
        let running = matches!(self.state(), JobState::Quoting | JobState::Buying);
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
        let mut sizes: BTreeMap<u32, u32> = BTreeMap::new();
        for chunk in self.rows.iter().filter_map(|r| r.chunk) {
            *sizes.entry(chunk).or_default() += 1;
        }
        let chunks = self
            .core
            .chunks
            .iter()
            .map(|c| ChunkView {
                number: c.number,
                rows: sizes.get(&c.number).copied().unwrap_or(0),
                state: c.state,
                total_cents: c.total_cents,
                batch_id: c.batch_id.clone(),
                request_id: c.request_id.clone(),
                wallet_before_cents: c.wallet_before_cents,
                wallet_after_cents: c.wallet_after_cents,
                completion_percentage: c.completion_percentage,
            })
            .collect();
        JobView {
            id: self.core.id.clone(),
            name: self.core.name.clone(),
            mode: self.core.mode,
            created_by: self.core.created_by.clone(),
            created_at: self.core.created_at,
            updated_at: self.core.updated_at,
            revision: self.core.revision,
            state: self.state(),
            rule: self.core.rule.clone(),
            approval: self.core.approval,
            counts: self.counts(),
            cost,
            estimate: self.core.estimate,
            progress_percentage,
            eta_seconds,
            chunks,
            problem: self.problem().cloned(),
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
pub fn page(rows: &Rows, state: Option<RowState>, offset: u32, limit: u32) -> (Vec<RowView>, u32) {
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
