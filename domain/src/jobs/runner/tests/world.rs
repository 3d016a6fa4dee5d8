//! A small in-memory v1 service for the runner's tests: quotes with ids
//! and ages, a wallet, batches created (and charged) from valid rates,
//! bought, and read with every label made at once (one row undeliverable).
#![allow(clippy::indexing_slicing)]

use std::collections::{BTreeMap, HashMap, HashSet};

use api::batches::{Batch, BatchItem, BatchItemResult, BatchItemState, BatchState};
use api::{Address, CardState, ErrorCode, Rate, Wallet};

use crate::jobs::engine::tests::{self as engine, error as err};
use crate::jobs::engine::{Answer, Call, Outcome};

/// The row whose label cannot be made (its price is refunded).
pub const UNDELIVERABLE: &str = "#4";

/// What a v1 service does with the job's calls, in memory.
#[derive(Default)]
pub struct World {
    pub now: u64,
    pub balance: i64,
    next_id: u32,
    /// rate id → (quoted at, cents)
    rates: HashMap<String, (u64, i64)>,
    /// batch id → (items' references, bought)
    pub batches: BTreeMap<String, (Vec<String>, bool)>,
    /// reference → labels made
    pub labels: HashMap<String, u32>,
    /// Batches whose labels are made (the first read finds them all done).
    made: HashSet<String>,
}

fn price(address: &Address) -> i64 {
    300 + address.street1.len() as i64
}

impl World {
    pub fn new(now: u64, balance: i64) -> World {
        World {
            now,
            balance,
            ..World::default()
        }
    }

    fn id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}_{}", self.next_id)
    }

    pub fn answer(&mut self, call: &Call) -> Outcome {
        match call {
            Call::Quote { row, request } => {
                let id = self.id("rate");
                let cents = price(&request.to_address);
                self.rates.insert(id.clone(), (self.now, cents));
                let rate = Rate {
                    id,
                    ..engine::rates(0, cents).remove(0)
                };
                Outcome::Quoted {
                    row: *row,
                    answer: Answer::Ok(vec![rate]),
                }
            }
            Call::ReadWallet { chunk } => Outcome::Wallet {
                chunk: *chunk,
                answer: Answer::Ok(Wallet {
                    balance_cents: self.balance,
                    currency: "USD".into(),
                    sandbox: false,
                    unlimited: false,
                    auto_reload: None,
                    card: CardState::Ok,
                }),
            },
            Call::CreateBatch { chunk, items } => Outcome::Created {
                chunk: *chunk,
                answer: self.create(items),
            },
            Call::BuyBatch { chunk, batch_id } => {
                let answer = match self.batches.get_mut(batch_id) {
                    Some((_, bought @ false)) => {
                        *bought = true;
                        Answer::Ok(())
                    }
                    Some(_) => Answer::Refused(err(ErrorCode::BatchAlreadyProcessing)),
                    None => Answer::Refused(err(ErrorCode::BatchNotFound)),
                };
                Outcome::Bought {
                    chunk: *chunk,
                    answer,
                }
            }
            Call::ReadBatch {
                chunk,
                batch_id,
                offset,
            } => Outcome::Read {
                chunk: *chunk,
                answer: self.read(batch_id, *offset),
            },
        }
    }

    fn create(&mut self, items: &[BatchItem]) -> Answer<Batch> {
        for (i, item) in items.iter().enumerate() {
            let fresh = self
                .rates
                .get(&item.rate_id)
                .is_some_and(|(at, cents)| self.now - at < 900 && *cents == item.rate_cents);
            if !fresh {
                return Answer::Refused(
                    err(ErrorCode::RateExpired).with_field(format!("items[{i}].rate_id")),
                );
            }
        }
        let total: i64 = items.iter().map(|i| i.rate_cents).sum();
        self.balance -= total;
        let id = self.id("batch");
        let refs = items.iter().map(|i| i.to_address.name.clone()).collect();
        self.batches.insert(id.clone(), (refs, false));
        Answer::Ok(batch(&id, total, vec![], BatchState::Created, self.balance))
    }

    fn read(&mut self, id: &str, offset: u32) -> Answer<Batch> {
        let Some((refs, true)) = self.batches.get(id).cloned() else {
            return Answer::Refused(err(ErrorCode::BatchNotFound));
        };
        let results: Vec<BatchItemResult> = refs
            .iter()
            .enumerate()
            .skip(offset as usize)
            .map(|(i, reference)| {
                let ok = reference != UNDELIVERABLE;
                BatchItemResult {
                    index: i as u32,
                    state: if ok {
                        BatchItemState::Created
                    } else {
                        BatchItemState::Failed
                    },
                    rate_cents: 0,
                    label_id: ok.then(|| format!("lbl_{id}_{i}")),
                    tracking_number: ok.then(|| format!("9400{i}")),
                    label_url: ok.then(|| format!("https://svc/{id}/{i}.pdf")),
                    error: (!ok).then(|| err(ErrorCode::LabelAddressUndeliverable)),
                }
            })
            .collect();
        // Each read reports the whole batch made; labels are made once.
        if self.made.insert(id.to_string()) {
            for reference in refs.iter().filter(|r| *r != UNDELIVERABLE) {
                *self.labels.entry(reference.clone()).or_default() += 1;
            }
        }
        Answer::Ok(batch(id, 0, results, BatchState::Completed, self.balance))
    }

    /// In how many created batches each reference is.
    pub fn batches_of(&self, reference: &str) -> usize {
        self.batches
            .values()
            .filter(|(refs, _)| refs.iter().any(|r| r == reference))
            .count()
    }
}

fn batch(
    id: &str,
    total: i64,
    results: Vec<BatchItemResult>,
    state: BatchState,
    balance: i64,
) -> Batch {
    Batch {
        state,
        wallet_balance_after_cents: balance,
        estimated_completion_percentage: 100,
        ..engine::batch(id, total, results, true)
    }
}
