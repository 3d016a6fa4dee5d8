//! Batches: every item's rate checked and the total paid at creation,
//! items processed at a fixed pace after `buy`, each becoming a label or
//! failing as that label purchase would (and then refunded).

use api::{
    ApiError, Batch, BatchItem, BatchItemResult, BatchItemState, BatchState, ErrorCode, KeyEnv,
    ResultsPage,
};

use super::rates::RateRecord;
use super::{World, check_mode};
use crate::errors::SimError;

/// Batch items are processed at this pace once `buy` is called.
pub const BATCH_LABELS_PER_SECOND: u64 = 20;
/// Largest `rate_cents` a batch item may carry ($100,000).
pub const MAX_ITEM_CENTS: i64 = 10_000_000;

#[derive(Debug, Clone)]
pub struct BatchRecord {
    id: String,
    account: String,
    env: KeyEnv,
    /// Each item's rate, resolved at creation: processing needs no quote,
    /// which may be forgotten by then.
    rates: Vec<RateRecord>,
    total_cost_cents: i64,
    balance_after_cents: i64,
    started_at: Option<u64>,
    /// The `buy` request's id, carried by the errors of failed items.
    buy_request_id: String,
    /// The processed items' outcomes, in item order.
    outcomes: Vec<Outcome>,
    labels_created: u32,
    labels_failed: u32,
    refunded_cents: i64,
}

#[derive(Debug, Clone)]
enum Outcome {
    Created {
        label_id: String,
        tracking_number: String,
        label_url: String,
    },
    Failed(Box<ApiError>),
}

/// Refuses an item whose fields are not those of the rate it names: a
/// client could otherwise pay less than the rate, or ship what was not priced.
fn check_item_matches_rate(prefix: &str, item: &BatchItem, r: &RateRecord) -> Result<(), SimError> {
    let rate_id = &item.rate_id;
    let mismatch = |name: &str, expected: String| {
        SimError::invalid(
            &format!("{prefix}.{name}"),
            &format!("must be {expected}, as rate {rate_id} was quoted"),
        )
    };
    if item.carrier != r.service.carrier {
        return Err(mismatch("carrier", format!("\"{}\"", r.service.carrier)));
    }
    if item.service != r.service.service {
        return Err(mismatch("service", format!("\"{}\"", r.service.service)));
    }
    if item.rate_cents != r.rate_cents {
        return Err(mismatch("rate_cents", r.rate_cents.to_string()));
    }
    let same_shipment = [
        ("from_address", item.from_address == r.from),
        ("to_address", item.to_address == r.to),
        ("parcel", item.parcel == r.parcel),
    ];
    if let Some((name, _)) = same_shipment.iter().find(|(_, same)| !same) {
        return Err(mismatch(name, format!("the {name} sent to POST /v1/rates")));
    }
    Ok(())
}

impl World {
    /// Checks every item's rate as a label purchase would (unknown, another
    /// account's, the other mode's, expired) and that the item matches it,
    /// then charges the total. The first bad item refuses the whole batch,
    /// naming it (`items[17].rate_id`); nothing is charged then.
    pub fn create_batch(
        &mut self,
        account: &str,
        env: KeyEnv,
        items: &[BatchItem],
        now: u64,
    ) -> Result<Batch, SimError> {
        let mut rates = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let prefix = format!("items[{i}]");
            let field = format!("{prefix}.rate_id");
            let r = self
                .usable_rate(account, env, &item.rate_id, &field, now)
                .map_err(|mut e| {
                    e.error.message = format!("{prefix}: {}", e.error.message);
                    e
                })?;
            check_item_matches_rate(&prefix, item, &r)?;
            rates.push(r);
        }
        // Each rate is at most MAX_ITEM_CENTS and there are at most 5,000: no overflow.
        let total: i64 = rates.iter().map(|r| r.rate_cents).sum();
        let balance_after = self.charge(account, env, total)?;
        let id = self.next_id("batch");
        let record = BatchRecord {
            id: id.clone(),
            account: account.into(),
            env,
            rates,
            total_cost_cents: total,
            balance_after_cents: balance_after,
            started_at: None,
            buy_request_id: String::new(),
            outcomes: Vec::new(),
            labels_created: 0,
            labels_failed: 0,
            refunded_cents: 0,
        };
        self.batches.insert(id.clone(), record);
        Ok(self.batch_view(&id, ResultsPage::default()))
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
        request_id: &str,
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
        b.buy_request_id = request_id.to_string();
        Ok(self.batch_view(id, ResultsPage::default()))
    }

    pub fn batch(
        &mut self,
        account: &str,
        env: KeyEnv,
        id: &str,
        now: u64,
        page: ResultsPage,
    ) -> Result<Batch, SimError> {
        self.batch_mut(account, env, id)?;
        self.advance_batch(id, now);
        Ok(self.batch_view(id, page))
    }

    /// Processes the items due by `now`: each becomes a label (and emits its
    /// event) or fails as its label purchase would, and is then refunded.
    fn advance_batch(&mut self, id: &str, now: u64) {
        let Some(b) = self.batches.get(id) else {
            return;
        };
        let Some(started) = b.started_at else { return };
        let due = (now.saturating_sub(started) * BATCH_LABELS_PER_SECOND).min(b.rates.len() as u64)
            as usize;
        let done = b.outcomes.len();
        if due <= done {
            return;
        }
        let (account, env, balance_after, request_id) = (
            b.account.clone(),
            b.env,
            b.balance_after_cents,
            b.buy_request_id.clone(),
        );
        for index in done..due {
            let rate = self.batches[id].rates[index].clone();
            let outcome = match self.label_problem(&account, &rate, &format!("items[{index}]")) {
                Some(e) => {
                    self.refund(&account, env, rate.rate_cents);
                    let mut error = e.error;
                    error.request_id = request_id.clone();
                    Outcome::Failed(error)
                }
                None => {
                    let label = self.create_label(
                        &account,
                        env,
                        rate.service.carrier,
                        rate.service.service,
                        rate.rate_cents,
                        balance_after,
                        now,
                    );
                    Outcome::Created {
                        label_id: label.id,
                        tracking_number: label.tracking_number,
                        label_url: label.label_url,
                    }
                }
            };
            let b = self.batches.get_mut(id).expect("exists");
            match outcome {
                Outcome::Created { .. } => b.labels_created += 1,
                Outcome::Failed(_) => {
                    b.labels_failed += 1;
                    if env == KeyEnv::Live {
                        b.refunded_cents += rate.rate_cents;
                    }
                }
            }
            b.outcomes.push(outcome);
        }
    }

    pub(super) fn advance_all_batches(&mut self, now: u64) {
        let ids: Vec<String> = self
            .batches
            .iter()
            .filter(|(_, b)| b.started_at.is_some() && b.outcomes.len() < b.rates.len())
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            self.advance_batch(&id, now);
        }
    }

    fn batch_view(&self, id: &str, page: ResultsPage) -> Batch {
        let b = &self.batches[id];
        let n = b.rates.len() as u64;
        let processed = b.outcomes.len() as u64;
        let state = match b.started_at {
            None => BatchState::Created,
            Some(_) if processed >= n => BatchState::Completed,
            Some(_) => BatchState::Processing,
        };
        let start = (page.offset as usize).min(b.rates.len());
        let end = start.saturating_add(page.limit as usize).min(b.rates.len());
        let results = (start..end)
            .map(|index| {
                let mut result = BatchItemResult {
                    index: index as u32,
                    state: BatchItemState::Pending,
                    rate_cents: b.rates[index].rate_cents,
                    label_id: None,
                    tracking_number: None,
                    label_url: None,
                    error: None,
                };
                match b.outcomes.get(index) {
                    Some(Outcome::Created {
                        label_id,
                        tracking_number,
                        label_url,
                    }) => {
                        result.state = BatchItemState::Created;
                        result.label_id = Some(label_id.clone());
                        result.tracking_number = Some(tracking_number.clone());
                        result.label_url = Some(label_url.clone());
                    }
                    Some(Outcome::Failed(error)) => {
                        result.state = BatchItemState::Failed;
                        result.error = Some((**error).clone());
                    }
                    None => {}
                }
                result
            })
            .collect();
        Batch {
            id: b.id.clone(),
            state,
            item_count: n as u32,
            total_cost_cents: b.total_cost_cents,
            wallet_balance_after_cents: b.balance_after_cents,
            estimated_completion_percentage: (processed * 100 / n.max(1)) as u32,
            // Failed items take their turn like the others.
            estimated_time_remaining_seconds: (n - processed).div_ceil(BATCH_LABELS_PER_SECOND),
            labels_created: b.labels_created,
            labels_failed: b.labels_failed,
            refunded_cents: b.refunded_cents,
            sandbox: b.env == KeyEnv::Sandbox,
            results_offset: page.offset,
            results_total: n as u32,
            results,
        }
    }
}
