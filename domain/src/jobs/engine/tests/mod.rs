//! The engine's tests with canned answers: `flows` (the runs a merchant
//! makes), `defects` (issue 19's defects, each reproduced first).
#![allow(clippy::indexing_slicing)]

mod defects;
mod flows;

use super::*;
use api::batches::{BatchItemResult, BatchItemState, BatchState};
use api::{AccountType, Address, CardState, ErrorCode, Parcel};

pub(crate) const T0: u64 = 1_000_000;
pub(crate) const RATE_AGE: u64 = plan::MAX_QUOTE_AGE_SECONDS + 1;
pub(crate) const ASQ: Approval = Approval::BuyAsQuoted {
    max_row_cents: 900,
    max_total_cents: 100_000,
};

pub(crate) fn address(name: &str, street: &str) -> Address {
    Address {
        name: name.into(),
        street1: street.into(),
        street2: None,
        city: "Springfield".into(),
        state: "IL".into(),
        zip: "62701".into(),
        country: "US".into(),
        phone: None,
        email: None,
    }
}

/// `n` rows; rows 0 and 1 are the same shipment.
pub(crate) fn rows(n: usize) -> Vec<JobRow> {
    (0..n)
        .map(|i| JobRow {
            reference: format!("#{i}"),
            from_address: address("Shop", "1 Main St"),
            to_address: address("Ada", &format!("{} Elm St", i.max(1))),
            parcel: Parcel {
                weight_oz: 10.0,
                length: 6.0,
                width: 4.0,
                height: 2.0,
            },
        })
        .collect()
}

/// A job as planning makes it, before anything is stored (every row changed).
pub(crate) fn planned(rows: Vec<JobRow>, approval: Approval, mode: KeyEnv, max_chunk: u32) -> Job {
    Job::plan(
        Plan {
            org: api::orgs::OrgId::deployment(),
            id: "job_1".into(),
            name: "test".into(),
            mode,
            created_by: "olga".into(),
            rule: Rule::Cheapest,
            approval,
            pace: Pace {
                limit: 100,
                share: 0.6,
                max_chunk,
            },
            rows,
        },
        T0,
    )
}

/// A planned job as stored: nothing left to write.
pub(crate) fn plan_of(rows: Vec<JobRow>, approval: Approval, mode: KeyEnv, max_chunk: u32) -> Job {
    let mut job = planned(rows, approval, mode, max_chunk);
    job.changes();
    job
}

pub(crate) fn job(n: usize, approval: Approval, mode: KeyEnv) -> Job {
    plan_of(rows(n), approval, mode, 5000)
}

pub(crate) fn rates(row: u32, cents: i64) -> Vec<Rate> {
    vec![Rate {
        id: format!("rate_{row}"),
        carrier: "Pacific Post".into(),
        service: "Ground".into(),
        rate_cents: cents,
        carrier_eta: "2026-11-30".into(),
        carbon_grams: 100,
        account_type: AccountType::Platform,
        expires_at: None,
    }]
}

pub(crate) fn wallet(balance: i64) -> Wallet {
    Wallet {
        balance_cents: balance,
        currency: "USD".into(),
        sandbox: false,
        unlimited: false,
        auto_reload: None,
        card: CardState::Ok,
    }
}

pub(crate) fn batch(id: &str, total: i64, results: Vec<BatchItemResult>, done: bool) -> Batch {
    Batch {
        id: id.into(),
        state: if done {
            BatchState::Completed
        } else {
            BatchState::Processing
        },
        item_count: results.len() as u32,
        total_cost_cents: total,
        wallet_balance_after_cents: 0,
        estimated_completion_percentage: if done { 100 } else { 0 },
        estimated_time_remaining_seconds: 0,
        labels_created: 0,
        labels_failed: 0,
        refunded_cents: 0,
        sandbox: false,
        results_offset: 0,
        results_total: results.len() as u32,
        results,
    }
}

pub(crate) fn result(index: u32, cents: i64, ok: bool) -> BatchItemResult {
    BatchItemResult {
        index,
        state: if ok {
            BatchItemState::Created
        } else {
            BatchItemState::Failed
        },
        rate_cents: cents,
        label_id: ok.then(|| format!("lbl_{index}")),
        tracking_number: ok.then(|| format!("94{index}")),
        label_url: ok.then(|| format!("https://svc/l/{index}.pdf")),
        error: (!ok).then(|| ApiError::new(ErrorCode::LabelAddressUndeliverable, "m", "s", "r")),
    }
}

pub(crate) fn error(code: ErrorCode) -> ApiError {
    ApiError::new(code, "m", "s", "r")
}

/// Answers every quote at `cents`, until the job needs something else.
pub(crate) fn quote_all(job: &mut Job, now: u64, cents: i64) -> Next {
    loop {
        match job.next(now) {
            Next::Call(Call::Quote { row, .. }) => job.apply(
                Outcome::Quoted {
                    row,
                    answer: Answer::Ok(rates(row, cents)),
                },
                now,
            ),
            other => return other,
        }
    }
}

/// The call `next` makes, or a panic naming what came instead.
pub(crate) fn call(next: Next) -> Call {
    match next {
        Next::Call(call) => call,
        other => panic!("expected a call, got {other:?}"),
    }
}

/// Sends the creation the job asks for (as the runner does).
pub(crate) fn send(job: &mut Job, now: u64) -> u32 {
    let Call::CreateBatch { chunk, .. } = call(job.next(now)) else {
        panic!("not a creation")
    };
    job.sending(chunk, "req_create");
    chunk
}

pub(crate) fn created(job: &mut Job, chunk: u32, total: i64, now: u64) {
    job.apply(
        Outcome::Created {
            chunk,
            answer: Answer::Ok(batch("b1", total, vec![], false)),
        },
        now,
    );
}

/// Quotes, reads the wallet (live) and sends the first creation.
pub(crate) fn to_creation(job: &mut Job, cents: i64) -> u32 {
    job.act(Action::Start, T0).unwrap();
    if let Next::Call(Call::ReadWallet { chunk }) = quote_all(job, T0, cents) {
        job.apply(
            Outcome::Wallet {
                chunk,
                answer: Answer::Ok(wallet(1_000_000)),
            },
            T0,
        );
    }
    send(job, T0)
}

/// A creation whose answer is lost: the job stops.
pub(crate) fn lose_creation(job: &mut Job) -> u32 {
    let chunk = to_creation(job, 300);
    job.apply(
        Outcome::Created {
            chunk,
            answer: Answer::Failed(error(ErrorCode::EdgeUpstreamTimeout)),
        },
        T0,
    );
    assert_eq!(job.state(), JobState::Stopped);
    // Live: the wallet after is read; it moved by the chunk's total.
    if let Next::Call(Call::ReadWallet { chunk }) = job.next(T0) {
        let total = job.chunk(chunk).map_or(0, |c| c.total_cents);
        job.apply(
            Outcome::Wallet {
                chunk,
                answer: Answer::Ok(wallet(1_000_000 - total)),
            },
            T0,
        );
    }
    chunk
}

/// Buys the created `chunk` of three rows at `cents` each and reads its
/// results: row 1 failed, the others bought; the job then has nothing to send.
pub(crate) fn buy_with_row_1_failing(j: &mut Job, chunk: u32, cents: i64) {
    j.apply(
        Outcome::Bought {
            chunk,
            answer: Answer::Ok(()),
        },
        T0,
    );
    let results = vec![
        result(0, cents, true),
        result(1, cents, false),
        result(2, cents, true),
    ];
    let Call::ReadBatch { .. } = call(j.next(T0 + 1)) else {
        panic!("no read")
    };
    j.apply(
        Outcome::Read {
            chunk,
            answer: Answer::Ok(batch("b1", 3 * cents, results, true)),
        },
        T0 + 1,
    );
    assert_eq!(j.next(T0 + 1), Next::Idle);
}

pub(crate) fn states(job: &Job) -> Vec<RowState> {
    job.rows().iter().map(|r| r.state).collect()
}
