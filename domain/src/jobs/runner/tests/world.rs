//! A small in-memory v1 service for the runner's tests, on a virtual clock
//! in milliseconds. Quotes have ids and ages; part 8's limits are counted
//! as the simulator counts them (per key and endpoint, in fixed windows of
//! one minute; a refused call is not counted), reported with every answer
//! (`X-RateLimit-*`) and refused with 429 and `Retry-After`; batches are
//! created (and charged) only from rates under 15 minutes old, bought, and
//! made at the simulator's 20 labels a second (one row undeliverable, its
//! price refunded). Other people call with the same key when a test says
//! (or spend a window just before one of the job's calls), and a test can
//! make one of the job's calls time out.
#![allow(clippy::indexing_slicing)]

use std::collections::{BTreeMap, HashMap, VecDeque};

use api::batches::{Batch, BatchItem, BatchItemResult, BatchItemState, BatchState};
use api::rates::RATE_VALIDITY_SECONDS;
use api::{Address, CardState, ENDPOINTS, EndpointId, ErrorCode, Rate, Wallet};

use crate::jobs::engine::tests::{self as engine, error as err};
use crate::jobs::engine::{Answer, Call, Outcome};
use crate::jobs::plan::ASSUMED_LABELS_PER_SECOND;
use crate::upstream::budget::Window;

/// The row whose label cannot be made (its price is refunded).
pub const UNDELIVERABLE: &str = "#4";

/// One of the job's calls, as the service met it.
#[derive(Debug, Clone, Copy)]
pub struct Met {
    pub at_ms: u64,
    /// When the answer reached the job.
    pub answered_ms: u64,
    pub endpoint: EndpointId,
    /// 200, 422 (refused), 429, or 504 (no answer).
    pub status: u16,
    /// The endpoint's window after the call, as its headers report it.
    pub window: Window,
    pub retry_after: Option<u64>,
}

/// What a test makes happen to the job's next call to an endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trouble {
    /// Other people spend the rest of its window just before it.
    Crowd,
    /// It gets no answer.
    Timeout,
}

/// A created batch.
pub struct Created {
    /// Each item's reference and price, in batch order.
    pub items: Vec<(String, i64)>,
    bought_ms: Option<u64>,
    /// Items processed so far, in order.
    made: usize,
}

/// What a v1 service does with the job's calls, in memory.
#[derive(Default)]
pub struct World {
    now_ms: u64,
    /// How long each answer takes.
    pub latency_ms: u64,
    pub balance: i64,
    next_id: u32,
    /// rate id → (quoted at, ms; cents)
    rates: HashMap<String, (u64, i64)>,
    /// endpoint → (its window's start, calls counted in it)
    windows: HashMap<EndpointId, (u64, u32)>,
    /// Other people's calls with the key: (at, ms; endpoint), in time order.
    others: VecDeque<(u64, EndpointId)>,
    /// Their calls refused for the limit.
    pub others_refused: u32,
    /// Trouble for the job's first call to an endpoint from a time on (ms).
    troubles: Vec<(u64, EndpointId, Trouble)>,
    /// Every call of the job, in order.
    pub met: Vec<Met>,
    /// Creations refused for an expired rate.
    pub expired: u32,
    /// The age of the oldest rate a batch creation carried (ms).
    pub oldest_rate_sent_ms: u64,
    pub batches: BTreeMap<String, Created>,
    /// reference → labels made
    pub labels: HashMap<String, u32>,
}

fn price(address: &Address) -> i64 {
    300 + address.street1.len() as i64
}

/// The v1 endpoint a call goes to.
fn endpoint(call: &Call) -> EndpointId {
    match call {
        Call::Quote { .. } => EndpointId::GetRates,
        Call::ReadWallet { .. } => EndpointId::GetWallet,
        Call::CreateBatch { .. } => EndpointId::CreateBatch,
        Call::BuyBatch { .. } => EndpointId::BuyBatch,
        Call::ReadBatch { .. } => EndpointId::GetBatch,
    }
}

fn limit(endpoint: EndpointId) -> u32 {
    ENDPOINTS
        .iter()
        .find(|e| e.id == endpoint)
        .map_or(0, |e| e.limit_per_minute)
}

/// A call not served: refused for the limit (`Some(retry_after)`) or unanswered.
fn unserved(call: &Call, retry_after: Option<u64>) -> Outcome {
    fn answer<T>(retry_after: Option<u64>) -> Answer<T> {
        match retry_after {
            Some(retry_after) => Answer::RateLimited { retry_after },
            None => Answer::Failed(err(ErrorCode::EdgeUpstreamTimeout)),
        }
    }
    match call {
        Call::Quote { row, .. } => Outcome::Quoted {
            row: *row,
            answer: answer(retry_after),
        },
        Call::ReadWallet { chunk } => Outcome::Wallet {
            chunk: *chunk,
            answer: answer(retry_after),
        },
        Call::CreateBatch { chunk, .. } => Outcome::Created {
            chunk: *chunk,
            answer: answer(retry_after),
        },
        Call::BuyBatch { chunk, .. } => Outcome::Bought {
            chunk: *chunk,
            answer: answer(retry_after),
        },
        Call::ReadBatch { chunk, .. } => Outcome::Read {
            chunk: *chunk,
            answer: answer(retry_after),
        },
    }
}

fn status(outcome: &Outcome) -> u16 {
    fn of<T>(answer: &Answer<T>) -> u16 {
        match answer {
            Answer::Ok(_) => 200,
            Answer::Refused(_) => 422,
            Answer::RateLimited { .. } => 429,
            Answer::Failed(_) => 504,
        }
    }
    match outcome {
        Outcome::Quoted { answer, .. } => of(answer),
        Outcome::Wallet { answer, .. } => of(answer),
        Outcome::Created { answer, .. } => of(answer),
        Outcome::Bought { answer, .. } => of(answer),
        Outcome::Read { answer, .. } => of(answer),
    }
}

impl World {
    pub fn new(now: u64, balance: i64) -> World {
        World {
            now_ms: now * 1000,
            balance,
            ..World::default()
        }
    }

    /// The time in whole seconds, as the job reads its clock.
    pub fn now(&self) -> u64 {
        self.now_ms / 1000
    }

    /// Time passes (an alarm set `seconds` ahead fires).
    pub fn wait(&mut self, seconds: u64) {
        self.now_ms += seconds * 1000;
    }

    /// Other people quote `per_minute` times a minute, evenly, from `from_ms` for `minutes`.
    pub fn others_quote(&mut self, from_ms: u64, minutes: u64, per_minute: u64) {
        let every = 60_000 / per_minute;
        self.others
            .extend((0..minutes * per_minute).map(|k| (from_ms + k * every, EndpointId::GetRates)));
        self.others.make_contiguous().sort_by_key(|(at, _)| *at);
    }

    /// `trouble` for the job's first call to `endpoint` at or after `from_ms`.
    pub fn trouble(&mut self, endpoint: EndpointId, from_ms: u64, trouble: Trouble) {
        self.troubles.push((from_ms, endpoint, trouble));
    }

    /// The window of `endpoint` holding `at_ms`: its start and the calls counted in it.
    fn window(&mut self, endpoint: EndpointId, at_ms: u64) -> &mut (u64, u32) {
        let now = at_ms / 1000;
        let start = now - now % 60;
        let slot = self.windows.entry(endpoint).or_insert((start, 0));
        if slot.0 != start {
            *slot = (start, 0);
        }
        slot
    }

    /// Counts a call to `endpoint` at `at_ms` in its window: the window
    /// after it, and whether it was refused for the limit.
    fn count(&mut self, endpoint: EndpointId, at_ms: u64) -> (Window, bool) {
        let limit = limit(endpoint);
        let slot = self.window(endpoint, at_ms);
        let start = slot.0;
        let refused = slot.1 >= limit;
        if !refused {
            slot.1 += 1;
        }
        let window = Window {
            limit,
            remaining: limit.saturating_sub(slot.1),
            reset_at: start + 60,
        };
        (window, refused)
    }

    /// Other people's calls made by `at_ms`, counted in their windows.
    fn others_until(&mut self, at_ms: u64) {
        let due = self.others.partition_point(|(at, _)| *at <= at_ms);
        let calls: Vec<_> = self.others.drain(..due).collect();
        for (at, endpoint) in calls {
            if self.count(endpoint, at).1 {
                self.others_refused += 1;
            }
        }
    }

    fn take_trouble(&mut self, endpoint: EndpointId) -> Option<Trouble> {
        let now = self.now_ms;
        let i = self
            .troubles
            .iter()
            .position(|(from, e, _)| *e == endpoint && *from <= now)?;
        Some(self.troubles.remove(i).2)
    }

    /// Answers the job's call: its outcome, and the window a quote's
    /// answer reports (the one the Worker hands the job).
    pub fn answer(&mut self, call: &Call) -> (Outcome, Option<Window>) {
        let at_ms = self.now_ms;
        let endpoint = endpoint(call);
        let trouble = self.take_trouble(endpoint);
        self.others_until(at_ms);
        if trouble == Some(Trouble::Crowd) {
            let used = self.window(endpoint, at_ms).1;
            for _ in used..limit(endpoint) {
                self.count(endpoint, at_ms);
            }
        }
        let (window, refused) = self.count(endpoint, at_ms);
        let retry_after = refused.then(|| window.reset_at - at_ms / 1000);
        let outcome = if refused {
            unserved(call, retry_after)
        } else if trouble == Some(Trouble::Timeout) {
            unserved(call, None)
        } else {
            self.serve(call)
        };
        self.now_ms += self.latency_ms;
        self.met.push(Met {
            at_ms,
            answered_ms: self.now_ms,
            endpoint,
            status: status(&outcome),
            window,
            retry_after,
        });
        let reported = matches!(call, Call::Quote { .. }).then_some(window);
        (outcome, reported)
    }

    fn serve(&mut self, call: &Call) -> Outcome {
        match call {
            Call::Quote { row, request } => {
                let id = self.id("rate");
                let cents = price(&request.to_address);
                self.rates.insert(id.clone(), (self.now_ms, cents));
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
                let now = self.now_ms;
                let answer = match self.batches.get_mut(batch_id) {
                    Some(b) if b.bought_ms.is_none() => {
                        b.bought_ms = Some(now);
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

    fn id(&mut self, prefix: &str) -> String {
        self.next_id += 1;
        format!("{prefix}_{}", self.next_id)
    }

    fn create(&mut self, items: &[BatchItem]) -> Answer<Batch> {
        let mut oldest = 0;
        for (i, item) in items.iter().enumerate() {
            let age = self
                .rates
                .get(&item.rate_id)
                .filter(|(_, cents)| *cents == item.rate_cents)
                .map(|(at, _)| self.now_ms - at)
                .filter(|age| *age < RATE_VALIDITY_SECONDS * 1000);
            let Some(age) = age else {
                self.expired += 1;
                return Answer::Refused(
                    err(ErrorCode::RateExpired).with_field(format!("items[{i}].rate_id")),
                );
            };
            oldest = oldest.max(age);
        }
        self.oldest_rate_sent_ms = self.oldest_rate_sent_ms.max(oldest);
        let total: i64 = items.iter().map(|i| i.rate_cents).sum();
        self.balance -= total;
        let id = self.id("batch");
        let items = items
            .iter()
            .map(|i| (i.to_address.name.clone(), i.rate_cents))
            .collect();
        self.batches.insert(
            id.clone(),
            Created {
                items,
                bought_ms: None,
                made: 0,
            },
        );
        Answer::Ok(batch(&id, total, vec![], BatchState::Created, self.balance))
    }

    /// Makes the labels due since the buy (20 a second, counted in whole
    /// seconds as the simulator does) and reports the batch from `offset`.
    fn read(&mut self, id: &str, offset: u32) -> Answer<Batch> {
        let now = self.now_ms;
        let Some(b) = self.batches.get_mut(id) else {
            return Answer::Refused(err(ErrorCode::BatchNotFound));
        };
        let Some(bought) = b.bought_ms else {
            return Answer::Refused(err(ErrorCode::BatchNotFound));
        };
        let n = b.items.len();
        let due = (((now / 1000).saturating_sub(bought / 1000) * ASSUMED_LABELS_PER_SECOND)
            as usize)
            .min(n);
        let mut refunded = 0;
        for (reference, cents) in &b.items[b.made.min(due)..due] {
            if reference == UNDELIVERABLE {
                refunded += cents;
            } else {
                *self.labels.entry(reference.clone()).or_default() += 1;
            }
        }
        b.made = b.made.max(due);
        self.balance += refunded;
        let results: Vec<BatchItemResult> = b
            .items
            .iter()
            .enumerate()
            .skip(offset as usize)
            .map(|(i, (reference, cents))| {
                let made = i < b.made;
                let ok = reference != UNDELIVERABLE;
                BatchItemResult {
                    index: i as u32,
                    state: match (made, ok) {
                        (false, _) => BatchItemState::Pending,
                        (true, true) => BatchItemState::Created,
                        (true, false) => BatchItemState::Failed,
                    },
                    rate_cents: *cents,
                    label_id: (made && ok).then(|| format!("lbl_{id}_{i}")),
                    tracking_number: (made && ok).then(|| format!("9400{i}")),
                    label_url: (made && ok).then(|| format!("https://svc/{id}/{i}.pdf")),
                    error: (made && !ok).then(|| err(ErrorCode::LabelAddressUndeliverable)),
                }
            })
            .collect();
        let state = if b.made == n {
            BatchState::Completed
        } else {
            BatchState::Processing
        };
        let mut batch = batch(id, 0, results, state, self.balance);
        batch.estimated_completion_percentage = (b.made * 100 / n.max(1)) as u32;
        batch.estimated_time_remaining_seconds =
            ((n - b.made) as u64).div_ceil(ASSUMED_LABELS_PER_SECOND);
        Answer::Ok(batch)
    }

    /// In how many created batches a reference is.
    pub fn batches_of(&self, reference: &str) -> usize {
        self.batches
            .values()
            .filter(|b| b.items.iter().any(|(r, _)| r == reference))
            .count()
    }

    /// In how many created batches each reference is.
    pub fn in_batches(&self) -> HashMap<&str, usize> {
        let mut counts = HashMap::new();
        for b in self.batches.values() {
            for (reference, _) in &b.items {
                *counts.entry(reference.as_str()).or_default() += 1;
            }
        }
        counts
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
