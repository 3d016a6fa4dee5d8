//! The merchant's actions. Each is first a lifecycle event (refused where
//! it does not apply); only then does it change rows.

use std::collections::BTreeSet;

use api::jobs::{ChunkState, JobState, RowState};

use super::{Action, Event, Job, Refusal};

impl Job {
    pub fn act(&mut self, action: Action, now: u64) -> Result<(), Refusal> {
        let review = self.review();
        match action {
            Action::Start => {
                let resumed = self.state() == JobState::Paused;
                self.enter(Event::Start { review })?;
                if resumed {
                    // The wallet may have changed while paused: read it again.
                    for chunk in &mut self.core.chunks {
                        chunk.wallet_checked = false;
                    }
                }
            }
            Action::Approve => {
                self.enter(Event::Approve)?;
                let quoted = self.rows.select(|r| {
                    r.state == RowState::Quoted && r.approved_cents.is_none() && r.chunk.is_none()
                });
                for index in quoted {
                    if let Some(row) = self.rows.get_mut(index) {
                        row.approved_cents = row.quote.as_ref().map(|q| q.rate_cents);
                    }
                }
            }
            Action::Decide(decide) => {
                let chosen: BTreeSet<u32> = decide
                    .rows
                    .into_iter()
                    .filter(|&i| {
                        self.rows
                            .get(i)
                            .is_some_and(|r| r.state == RowState::NeedsDecision)
                    })
                    .collect();
                if chosen.is_empty() {
                    return Err(Refusal("None of these rows waits for a decision.".into()));
                }
                let waiting = self
                    .rows
                    .iter()
                    .filter(|r| r.state == RowState::NeedsDecision)
                    .count()
                    - chosen.len();
                self.enter(Event::Decided {
                    waiting: waiting as u32,
                })?;
                for index in chosen {
                    let Some(row) = self.rows.get_mut(index) else {
                        continue;
                    };
                    row.error = None;
                    if decide.accept {
                        row.approved_cents = row.quote.as_ref().map(|q| q.rate_cents);
                        row.state = RowState::Quoted;
                    } else {
                        row.state = RowState::Skipped;
                    }
                }
            }
            Action::Retry => {
                // Failed rows only: a released row may have been bought (rule 7).
                let failed = self.rows.select(|r| r.state == RowState::Failed);
                if failed.is_empty() {
                    return Err(Refusal("No row failed: nothing to retry.".into()));
                }
                self.enter(Event::Retry { review })?;
                self.reset(&failed);
            }
            Action::Release => {
                self.enter(Event::Release)?;
                self.release_unknown();
            }
            Action::RetryReleased(retry) => {
                if !retry.acknowledged {
                    return Err(Refusal(
                        "A released row may already have been bought: its chunk's batch may have been created. Check the service's dashboard and the wallet before and after that chunk, then acknowledge to buy it again."
                            .into(),
                    ));
                }
                let rows: BTreeSet<u32> = retry.rows.into_iter().collect();
                if rows.is_empty() {
                    return Err(Refusal("Name the released rows to retry.".into()));
                }
                if let Some(index) = rows
                    .iter()
                    .find(|&&i| self.rows.get(i).map(|r| r.state) != Some(RowState::Released))
                {
                    return Err(Refusal(format!("Row {index} is not a released row.")));
                }
                self.enter(Event::RetryReleased { review })?;
                self.reset(&rows.into_iter().collect::<Vec<_>>());
            }
            Action::Cancel => {
                self.enter(Event::Cancel)?;
                // A chunk being quoted is dropped; one being created or created
                // is paid (or may be): it is followed to its end.
                let forming: Vec<u32> = self
                    .core
                    .chunks
                    .iter()
                    .filter(|c| c.state == ChunkState::Quoting)
                    .map(|c| c.number)
                    .collect();
                self.core.chunks.retain(|c| c.state != ChunkState::Quoting);
                let unsent = self.rows.select(|r| {
                    r.item.is_none()
                        && (r.chunk.is_none_or(|c| forming.contains(&c)))
                        && matches!(
                            r.state,
                            RowState::Pending | RowState::Quoted | RowState::NeedsDecision
                        )
                });
                for index in unsent {
                    if let Some(row) = self.rows.get_mut(index) {
                        row.chunk = None;
                        row.state = RowState::Skipped;
                    }
                }
                self.release_unknown();
            }
        }
        self.core.updated_at = now;
        Ok(())
    }

    /// Rows the merchant retries: quoted and priced again from the start.
    fn reset(&mut self, rows: &[u32]) {
        for &index in rows {
            if let Some(row) = self.rows.get_mut(index) {
                row.reset();
            }
        }
    }
}
