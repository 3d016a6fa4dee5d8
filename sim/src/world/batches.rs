//! Batches: paid in full at creation, processed at a fixed pace after `buy`.

use api::{Batch, BatchItem, BatchState, ErrorCode, KeyEnv};

use super::{World, check_mode};
use crate::errors::SimError;

/// Batch labels are made at this pace once `buy` is called.
pub const BATCH_LABELS_PER_SECOND: u64 = 20;
/// Largest `rate_cents` a batch item may carry ($100,000).
pub const MAX_ITEM_CENTS: i64 = 10_000_000;

#[derive(Debug, Clone)]
pub struct BatchRecord {
    pub id: String,
    pub account: String,
    pub env: KeyEnv,
    pub items: Vec<BatchItem>,
    pub total_cost_cents: i64,
    pub balance_after_cents: i64,
    pub started_at: Option<u64>,
    pub label_ids: Vec<String>,
}

impl World {
    pub fn create_batch(
        &mut self,
        account: &str,
        env: KeyEnv,
        items: Vec<BatchItem>,
    ) -> Result<Batch, SimError> {
        // Each item is at most MAX_ITEM_CENTS (checked by the handler), so no overflow.
        let total: i64 = items.iter().map(|i| i.rate_cents).sum();
        let balance_after = self.charge(account, env, total)?;
        let id = self.next_id("batch");
        let record = BatchRecord {
            id: id.clone(),
            account: account.into(),
            env,
            items,
            total_cost_cents: total,
            balance_after_cents: balance_after,
            started_at: None,
            label_ids: vec![],
        };
        self.batches.insert(id.clone(), record);
        Ok(self.batch_view(&id))
    }

    fn batch_mut(
        &mut self,
        account: &str,
        env: KeyEnv,
        id: &str,
    ) -> Result<&mut BatchRecord, SimError> {
        let not_found = || {
            SimError::new(
                ErrorCode::BatchNotFound,
                format!("No batch {id} exists for this account."),
                "Check the batch id returned by POST /v1/batches.",
            )
        };
        let b = self
            .batches
            .get_mut(id)
            .filter(|b| b.account == account)
            .ok_or_else(not_found)?;
        check_mode(b.env, env, "batch", id, not_found)?;
        Ok(b)
    }

    pub fn buy_batch(
        &mut self,
        account: &str,
        env: KeyEnv,
        id: &str,
        now: u64,
    ) -> Result<Batch, SimError> {
        let b = self.batch_mut(account, env, id)?;
        if b.started_at.is_some() {
            return Err(SimError::new(
                ErrorCode::BatchAlreadyProcessing,
                format!("Batch {id} is already processing; it was bought once."),
                "Follow its progress with GET /v1/batches/{id}; do not buy it again.",
            ));
        }
        b.started_at = Some(now);
        Ok(self.batch_view(id))
    }

    pub fn batch(
        &mut self,
        account: &str,
        env: KeyEnv,
        id: &str,
        now: u64,
    ) -> Result<Batch, SimError> {
        self.batch_mut(account, env, id)?;
        self.advance_batch(id, now);
        Ok(self.batch_view(id))
    }

    /// Makes the labels that are due by `now` (and emits their events).
    pub fn advance_batch(&mut self, id: &str, now: u64) {
        let Some(b) = self.batches.get(id) else {
            return;
        };
        let Some(started) = b.started_at else { return };
        let due = ((now.saturating_sub(started)) * BATCH_LABELS_PER_SECOND)
            .min(b.items.len() as u64) as usize;
        let (account, env, done, balance_after) = (
            b.account.clone(),
            b.env,
            b.label_ids.len(),
            b.balance_after_cents,
        );
        for index in done..due {
            let item = self.batches[id].items[index].clone();
            let label = self.create_label(
                &account,
                env,
                &item.carrier,
                &item.service,
                item.rate_cents,
                balance_after,
                now,
            );
            self.batches
                .get_mut(id)
                .expect("exists")
                .label_ids
                .push(label.id);
        }
    }

    pub fn advance_all_batches(&mut self, now: u64) {
        let ids: Vec<String> = self
            .batches
            .iter()
            .filter(|(_, b)| b.started_at.is_some() && b.label_ids.len() < b.items.len())
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            self.advance_batch(&id, now);
        }
    }

    fn batch_view(&self, id: &str) -> Batch {
        let b = &self.batches[id];
        let n = b.items.len() as u64;
        let made = b.label_ids.len() as u64;
        let state = match b.started_at {
            None => BatchState::Created,
            Some(_) if made >= n => BatchState::Completed,
            Some(_) => BatchState::Processing,
        };
        let remaining_seconds = match b.started_at {
            None => n.div_ceil(BATCH_LABELS_PER_SECOND),
            Some(_) => (n - made).div_ceil(BATCH_LABELS_PER_SECOND),
        };
        Batch {
            id: b.id.clone(),
            state,
            item_count: n as u32,
            total_cost_cents: b.total_cost_cents,
            wallet_balance_after_cents: b.balance_after_cents,
            estimated_completion_percentage: (made * 100 / n.max(1)) as u32,
            estimated_time_remaining_seconds: remaining_seconds,
            labels_created: made as u32,
            label_ids: b.label_ids.clone(),
            sandbox: b.env == KeyEnv::Sandbox,
        }
    }
}
