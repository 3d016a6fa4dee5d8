//! The runs a merchant makes, with canned answers.

use super::*;
use api::AutoReload;

#[test]
fn buy_as_quoted_runs_quote_wallet_create_buy_read_to_the_end() {
    let ceilings = Approval::BuyAsQuoted {
        max_row_cents: 1000,
        max_total_cents: 100_000,
    };
    let mut j = job(3, ceilings, KeyEnv::Live);
    assert_eq!(j.next(T0), Next::Idle, "nothing before start");
    j.act(Action::Start, T0).unwrap();
    // Rows 0 and 1 share a shipment: two quotes for three rows.
    let next = quote_all(&mut j, T0, 500);
    assert_eq!(j.core.stats.quote_calls, 2);
    assert_eq!(next, Next::Call(Call::ReadWallet { chunk: 1 }));
    j.apply(
        Outcome::Wallet {
            chunk: 1,
            answer: Answer::Ok(wallet(10_000)),
        },
        T0,
    );
    let Call::CreateBatch { chunk, items } = call(j.next(T0)) else {
        panic!("no creation")
    };
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].rate_id, items[1].rate_id, "twins share the rate");
    j.sending(chunk, "req_1");
    created(&mut j, chunk, 1500, T0);
    assert_eq!(j.core.cost.charged_cents, 1500);
    let Call::BuyBatch { batch_id, .. } = call(j.next(T0)) else {
        panic!("no buy")
    };
    assert_eq!(batch_id, "b1");
    // A repeated buy that finds the batch processing took.
    j.apply(
        Outcome::Bought {
            chunk,
            answer: Answer::Refused(error(ErrorCode::BatchAlreadyProcessing)),
        },
        T0,
    );
    assert_eq!(j.next(T0), Next::Wait { seconds: 1 });
    let Call::ReadBatch { offset: 0, .. } = call(j.next(T0 + 1)) else {
        panic!("no read")
    };
    let results = vec![
        result(0, 500, true),
        result(1, 500, true),
        result(2, 500, false),
    ];
    j.apply(
        Outcome::Read {
            chunk,
            answer: Answer::Ok(batch("b1", 1500, results, true)),
        },
        T0 + 1,
    );
    assert_eq!(j.next(T0 + 1), Next::Idle);
    let view = j.view(T0 + 1);
    assert_eq!(view.state, JobState::Completed);
    assert_eq!((view.counts.bought, view.counts.failed), (2, 1));
    assert_eq!(
        (view.cost.bought_cents, view.cost.refunded_cents),
        (1000, 500)
    );
    assert_eq!(view.progress_percentage, 100);
    assert_eq!(view.chunks[0].rows, 3);
    assert_eq!(j.labels(None, 1, 100).len(), 2);
}

#[test]
fn a_lost_creation_stops_the_job_and_is_never_sent_again() {
    let mut j = job(2, Approval::ReviewFirst, KeyEnv::Live);
    j.act(Action::Start, T0).unwrap();
    assert_eq!(quote_all(&mut j, T0, 700), Next::Idle);
    assert_eq!(j.state(), JobState::AwaitingApproval);
    j.act(Action::Approve, T0).unwrap();
    let Call::ReadWallet { chunk } = call(j.next(T0)) else {
        panic!("no wallet read")
    };
    j.apply(
        Outcome::Wallet {
            chunk,
            answer: Answer::Ok(wallet(10_000)),
        },
        T0,
    );
    send(&mut j, T0);
    // Stored as sent; the Worker restarts before the answer.
    let (core, rows) = (j.core.clone(), j.rows().as_slice().to_vec());
    let mut j = Job::restore(core, rows);
    assert_eq!(j.state(), JobState::Stopped);
    let Some(JobProblem::OutcomeUnknown {
        request_id,
        total_cents,
        wallet_before_cents,
        ..
    }) = j.problem().cloned()
    else {
        panic!("no problem: {:?}", j.problem())
    };
    assert_eq!((request_id.as_str(), total_cents), ("req_create", 1400));
    assert_eq!(wallet_before_cents, Some(10_000));
    // The wallet after is read once; then nothing is sent.
    assert_eq!(j.next(T0), Next::Call(Call::ReadWallet { chunk: 1 }));
    j.apply(
        Outcome::Wallet {
            chunk: 1,
            answer: Answer::Ok(wallet(8_600)),
        },
        T0,
    );
    assert!(matches!(
        j.problem(),
        Some(JobProblem::OutcomeUnknown {
            wallet_after_cents: Some(8_600),
            ..
        })
    ));
    for t in [T0, T0 + 60, T0 + 3600] {
        assert_eq!(j.next(t), Next::Idle);
    }
    // Released: its rows are released (never bulk-retried); the job ends.
    j.act(Action::Release, T0).unwrap();
    assert_eq!(j.next(T0), Next::Idle);
    assert_eq!(j.counts().released, 2);
    assert_eq!(j.state(), JobState::Completed);
}

#[test]
fn a_timeout_on_creation_is_an_unknown_outcome_too() {
    let ceilings = Approval::BuyAsQuoted {
        max_row_cents: 900,
        max_total_cents: 900,
    };
    let mut j = job(1, ceilings, KeyEnv::Sandbox);
    j.act(Action::Start, T0).unwrap();
    let Next::Call(Call::CreateBatch { chunk, .. }) = quote_all(&mut j, T0, 100) else {
        panic!("sandbox: no wallet to read, straight to the creation")
    };
    j.sending(chunk, "req_t");
    j.apply(
        Outcome::Created {
            chunk,
            answer: Answer::Failed(error(ErrorCode::EdgeUpstreamTimeout)),
        },
        T0,
    );
    assert_eq!(j.state(), JobState::Stopped);
    assert_eq!(
        j.next(T0 + 10),
        Next::Idle,
        "sandbox: no wallet after either"
    );
}

#[test]
fn stale_quotes_are_quoted_again_before_creation() {
    let mut j = job(2, ASQ, KeyEnv::Sandbox);
    j.act(Action::Start, T0).unwrap();
    let Next::Call(Call::CreateBatch { chunk, .. }) = quote_all(&mut j, T0, 100) else {
        panic!("no creation")
    };
    j.sending(chunk, "r");
    // The creation waited (a 429) past the quotes' safe age.
    j.apply(
        Outcome::Created {
            chunk,
            answer: Answer::RateLimited { retry_after: 5 },
        },
        T0,
    );
    assert!(matches!(
        j.next(T0 + RATE_AGE),
        Next::Call(Call::Quote { .. })
    ));
}

#[test]
fn a_rise_above_the_approved_price_waits_for_a_decision() {
    let mut j = job(2, Approval::ReviewFirst, KeyEnv::Sandbox);
    j.act(Action::Start, T0).unwrap();
    quote_all(&mut j, T0, 700);
    j.act(Action::Approve, T0).unwrap();
    // At buy time the quotes aged out: quoted again, dearer.
    let later = T0 + RATE_AGE;
    assert_eq!(quote_all(&mut j, later, 800), Next::Idle);
    assert_eq!(j.state(), JobState::Paused);
    assert_eq!(j.problem(), Some(&JobProblem::Decisions { rows: 2 }));
    assert_eq!(j.counts().needs_decision, 2);
    let accept = Decide {
        rows: vec![0, 1],
        accept: true,
    };
    j.act(Action::Decide(accept), later).unwrap();
    assert_eq!(j.state(), JobState::Buying);
    assert_eq!(j.rows().get(0).unwrap().approved_cents, Some(800));
    let Call::CreateBatch { chunk: 2, .. } = call(j.next(later)) else {
        panic!("no creation at the accepted price")
    };
}

#[test]
fn a_short_wallet_pauses_with_what_is_needed() {
    let mut j = job(2, ASQ, KeyEnv::Live);
    j.act(Action::Start, T0).unwrap();
    let Next::Call(Call::ReadWallet { chunk }) = quote_all(&mut j, T0, 600) else {
        panic!("no wallet read")
    };
    j.apply(
        Outcome::Wallet {
            chunk,
            answer: Answer::Ok(wallet(1000)),
        },
        T0,
    );
    assert_eq!(j.state(), JobState::Paused);
    assert_eq!(
        j.problem(),
        Some(&JobProblem::NeedsFunds {
            needed_cents: 200,
            balance_cents: 1000,
            chunk: 1
        })
    );
    // With auto-reload and a working card, the same balance is enough.
    let mut reloading = wallet(1000);
    reloading.auto_reload = Some(AutoReload {
        threshold_cents: 0,
        amount_cents: 5000,
    });
    j.act(Action::Start, T0).unwrap();
    assert_eq!(j.next(T0), Next::Call(Call::ReadWallet { chunk: 1 }));
    j.apply(
        Outcome::Wallet {
            chunk: 1,
            answer: Answer::Ok(reloading),
        },
        T0,
    );
    let Call::CreateBatch { chunk: 1, .. } = call(j.next(T0)) else {
        panic!("no creation after the reload")
    };
}

#[test]
fn chunks_are_sized_from_the_limit_the_service_reports() {
    let ceilings = Approval::BuyAsQuoted {
        max_row_cents: 900,
        max_total_cents: 9_000_000,
    };
    let mut j = job(700, ceilings, KeyEnv::Sandbox);
    j.act(Action::Start, T0).unwrap();
    // One quote first: its answer says the limit (here far above part 8's).
    let Call::Quote { row: 0, .. } = call(j.next(T0)) else {
        panic!("no first quote")
    };
    j.saw_rates_window(Window {
        limit: 100_000,
        remaining: 99_999,
        reset_at: T0 + 60,
    });
    j.apply(
        Outcome::Quoted {
            row: 0,
            answer: Answer::Ok(rates(0, 100)),
        },
        T0,
    );
    assert!(matches!(j.next(T0), Next::Call(Call::Quote { .. })));
    // At 100/min a chunk would hold 660 shipments; at the reported limit, all 700.
    assert_eq!(j.view(T0).chunks[0].rows, 700);
}

#[test]
fn the_pace_keeps_the_reserve() {
    let mut j = job(3, ASQ, KeyEnv::Sandbox);
    j.act(Action::Start, T0).unwrap();
    let window = |remaining| Window {
        limit: 100,
        remaining,
        reset_at: T0 + 30,
    };
    j.saw_rates_window(window(41));
    assert!(matches!(j.next(T0), Next::Call(Call::Quote { .. })));
    j.saw_rates_window(window(40));
    assert_eq!(j.next(T0), Next::Wait { seconds: 30 });
    // A 429 all the same: waited out, counted.
    let Call::Quote { row, .. } = call(j.next(T0 + 30)) else {
        panic!("no quote after the window")
    };
    j.apply(
        Outcome::Quoted {
            row,
            answer: Answer::RateLimited { retry_after: 7 },
        },
        T0 + 30,
    );
    assert_eq!(j.core.stats.rate_limited, 1);
    assert_eq!(j.next(T0 + 30), Next::Wait { seconds: 7 });
    // The time left says so: the wait, then the quotes.
    let quotes = j.pace().quote_seconds(3);
    let (_, eta) = j.progress(T0 + 30);
    assert!(eta.unwrap() >= 7 + quotes, "{eta:?}");
    j.saw_rates_window(window(40));
    let (_, eta) = j.progress(T0);
    assert!(
        eta.unwrap() >= 30 + quotes,
        "a window to wait out counts: {eta:?}"
    );
}

/// Runs chunk 1 of a 3-row sandbox job to its end: row 1 fails.
fn bought_but_row_1(j: &mut Job) {
    let chunk = to_creation(j, 100);
    created(j, chunk, 300, T0);
    let Call::BuyBatch { .. } = call(j.next(T0)) else {
        panic!("no buy")
    };
    buy_with_row_1_failing(j, chunk, 100);
}

#[test]
fn retry_takes_only_the_failed_rows_and_cancel_stops_before_the_next_chunk() {
    let mut j = job(3, ASQ, KeyEnv::Sandbox);
    bought_but_row_1(&mut j);
    let bought: Vec<Option<String>> = j.rows().iter().map(|r| r.label_id.clone()).collect();
    j.act(Action::Retry, T0 + 2).unwrap();
    let Next::Call(Call::CreateBatch { chunk: 2, items }) = quote_all(&mut j, T0 + 2, 100) else {
        panic!("no second chunk")
    };
    assert_eq!(items.len(), 1, "only the failed row");
    assert_eq!(j.rows().get(1).unwrap().chunk, Some(2));
    // Cancelled now: the next chunk is never created, the bought rows stay.
    j.act(Action::Cancel, T0 + 2).unwrap();
    assert_eq!(j.next(T0 + 2), Next::Idle);
    assert_eq!(j.state(), JobState::Cancelled);
    assert_eq!(j.core.chunks.len(), 1);
    assert_eq!(j.rows().get(1).unwrap().state, RowState::Skipped);
    let after: Vec<Option<String>> = j.rows().iter().map(|r| r.label_id.clone()).collect();
    assert_eq!(bought, after);
}

#[test]
fn cancel_still_buys_a_created_chunk() {
    let mut j = job(2, ASQ, KeyEnv::Sandbox);
    let chunk = to_creation(&mut j, 100);
    created(&mut j, chunk, 200, T0);
    j.act(Action::Cancel, T0).unwrap();
    let Call::BuyBatch { .. } = call(j.next(T0)) else {
        panic!("a paid chunk is bought")
    };
    assert!(j.has_work());
}

#[test]
fn a_creation_answered_after_a_cancel_is_still_followed() {
    let mut j = job(2, ASQ, KeyEnv::Sandbox);
    let chunk = to_creation(&mut j, 100);
    // The merchant cancels while the creation is in flight.
    j.act(Action::Cancel, T0).unwrap();
    assert_eq!(
        states(&j),
        vec![RowState::Quoted; 2],
        "rows being sent stay"
    );
    created(&mut j, chunk, 200, T0);
    assert!(matches!(call(j.next(T0)), Call::BuyBatch { .. }));
    // A lost one instead: its rows are released at once, nobody is asked.
    let mut j = job(2, ASQ, KeyEnv::Sandbox);
    let chunk = to_creation(&mut j, 100);
    j.act(Action::Cancel, T0).unwrap();
    j.apply(
        Outcome::Created {
            chunk,
            answer: Answer::Failed(error(ErrorCode::EdgeUpstreamTimeout)),
        },
        T0,
    );
    assert_eq!(j.state(), JobState::Cancelled);
    assert_eq!(states(&j), vec![RowState::Released; 2]);
}
