//! Pacing and limits at the real figures, on the world's virtual clock:
//! 100 quotes a minute per key, rates valid 15 minutes, 10 batch creations
//! a minute, labels made 20 a second. Each call takes `LATENCY_MS`.

use api::EndpointId;
use api::jobs::MAX_ROWS;

use super::world::{Met, Trouble};
use super::*;
use crate::jobs::engine::answers::{MAX_READ_SECONDS, RETRY_AFTER_FAILURE_SECONDS};
use crate::jobs::plan::{MAX_QUOTE_AGE_SECONDS, Pace};

/// How long the service takes to answer a call.
const LATENCY_MS: u64 = 200;
const BALANCE: i64 = 100_000_000;

fn buy_as_quoted() -> Approval {
    Approval::BuyAsQuoted {
        max_row_cents: 10_000,
        max_total_cents: BALANCE,
    }
}

/// A job of `n` different shipments planned in a fresh world, in chunks
/// as large as the service allows (`BATCH_MAX_CHUNK_ROWS`' default).
fn run(n: usize, approval: Approval, world: impl FnOnce(&mut World)) -> Run {
    let mut w = World::new(T0, BALANCE);
    w.latency_ms = LATENCY_MS;
    world(&mut w);
    Run::of(rows(n), approval, MAX_ROWS as u32, w)
}

/// The job's calls to the rates endpoint.
fn quotes(world: &World) -> Vec<&Met> {
    world
        .met
        .iter()
        .filter(|m| m.endpoint == EndpointId::GetRates)
        .collect()
}

fn answered_429(world: &World) -> Vec<&Met> {
    world.met.iter().filter(|m| m.status == 429).collect()
}

/// The job's pace at the limit the service reported.
fn pace(run: &Run) -> Pace {
    let window = run
        .job
        .core
        .rates_window
        .expect("the service reported its window");
    Pace {
        limit: window.limit,
        ..run.job.core.pace
    }
}

/// The run ended whole: every row reached its end exactly once, and the
/// money agrees to the cent between the job, its rows and the service's wallet.
fn ended_whole(run: &Run, what: &str) {
    run.check(what);
    for row in run.job.rows().iter() {
        assert_eq!(
            run.store.ended.get(&row.index),
            Some(&1),
            "{what}: row {} reached an end {:?} times",
            row.index,
            run.store.ended.get(&row.index)
        );
    }
    let cost = run.job.core.cost;
    let rows: i64 = run
        .job
        .rows()
        .iter()
        .filter(|r| r.state == RowState::Bought)
        .filter_map(|r| r.quote.as_ref())
        .map(|q| q.rate_cents)
        .sum();
    assert_eq!(cost.bought_cents, rows, "{what}: the bought rows' prices");
    assert_eq!(
        cost.charged_cents - cost.refunded_cents,
        cost.bought_cents,
        "{what}: charged less refunded"
    );
    assert_eq!(
        BALANCE - run.world.balance,
        cost.bought_cents,
        "{what}: what left the wallet"
    );
    assert_eq!(run.job.core.stats.batches_refused, 0, "{what}");
}

/// No rate a batch carried was older than the engine's margin allows (the
/// service refuses one older than 15 minutes with `RATE.EXPIRED`).
fn no_stale_rate_sent(world: &World, what: &str) {
    assert_eq!(world.expired, 0, "{what}: creations refused RATE.EXPIRED");
    assert!(
        world.oldest_rate_sent_ms <= MAX_QUOTE_AGE_SECONDS * 1000,
        "{what}: a rate {} ms old went to a batch",
        world.oldest_rate_sent_ms
    );
}

#[test]
fn five_thousand_rows_at_100_quotes_a_minute_keep_to_the_share_and_meet_no_429() {
    // The job's share is 60 of the 100 quotes a minute (`BATCH_RATES_SHARE`
    // 0.6); it never takes `X-RateLimit-Remaining` below the other 40.
    let mut run = run(5000, buy_as_quoted(), |_| {});
    run.run_to_end(None);
    ended_whole(&run, "5,000 rows");
    no_stale_rate_sent(&run.world, "5,000 rows");
    let pace = pace(&run);
    let (share, reserve) = (pace.per_minute(), pace.reserve());
    assert_eq!((pace.limit, share, reserve), (100, 60, 40));
    let quotes = quotes(&run.world);
    assert_eq!(
        quotes.len(),
        5001,
        "each shipment once, and the limit probe"
    );
    assert_eq!(
        answered_429(&run.world).len(),
        0,
        "the service answered 429"
    );
    assert_eq!(run.job.core.stats.rate_limited, 0);
    // Every window from the first quote's to the last's counts whole.
    let minutes = quotes[quotes.len() - 1].at_ms / 60_000 - quotes[0].at_ms / 60_000 + 1;
    let per_minute = quotes.len() as f64 / minutes as f64;
    assert!(
        per_minute >= 0.95 * f64::from(share),
        "{per_minute:.2} quotes a minute against a share of {share}"
    );
    // The reserve is left whole in every window, and each wait for the
    // window ends when it turns over: not before (the reserve would be
    // taken), and less than a second (the clock's grain) after.
    for quote in &quotes {
        assert!(
            quote.window.remaining >= reserve,
            "a quote at {} ms left {} of the window",
            quote.at_ms,
            quote.window.remaining
        );
    }
    let mut latest_ms = 0;
    for pair in quotes.windows(2) {
        let (quote, next) = (pair[0], pair[1]);
        if quote.window.remaining == reserve {
            let reset_ms = quote.window.reset_at * 1000;
            assert!(
                next.at_ms >= reset_ms,
                "the wait ended before the window did"
            );
            latest_ms = latest_ms.max(next.at_ms - reset_ms);
        }
    }
    assert!(
        latest_ms < 1000,
        "quoting went on {latest_ms} ms after a window turned over"
    );
    println!(
        "5,000 rows: {} quotes in {minutes} windows = {per_minute:.2}/min against a share of {share}/min ({:.3} of it); {} chunks; oldest rate sent {} s; quoting resumed at most {latest_ms} ms after a window turned over",
        quotes.len(),
        per_minute / f64::from(share),
        run.job.core.chunks.len(),
        run.world.oldest_rate_sent_ms / 1000
    );
}

#[test]
fn rates_past_the_margin_are_quoted_again_and_never_reach_a_batch() {
    // The review quotes 50 rows in a few seconds; the merchant approves 16
    // minutes later (the rates expired at the service) or 13 minutes later
    // (still valid there, but within the engine's 3 minutes of margin).
    // Either way every row is quoted again before its batch is created.
    for minutes in [16, 13] {
        let what = format!("approved {minutes} minutes late");
        let mut run = run(50, Approval::ReviewFirst, |_| {});
        run.merchant_seconds = minutes * 60;
        run.run_to_end(None);
        ended_whole(&run, &what);
        no_stale_rate_sent(&run.world, &what);
        assert_eq!(quotes(&run.world).len(), 1 + 50 + 50, "{what}");
        assert_eq!(answered_429(&run.world).len(), 0, "{what}");
        println!(
            "{what}: {} quotes; oldest rate sent {} s",
            quotes(&run.world).len(),
            run.world.oldest_rate_sent_ms / 1000
        );
    }
}

/// The job's next call after `met`.
fn after<'a>(world: &'a World, met: &Met) -> &'a Met {
    let at = world.met.iter().position(|m| std::ptr::eq(m, met));
    at.and_then(|i| world.met.get(i + 1))
        .expect("a call after it")
}

#[test]
fn alarms_and_retries_come_when_the_service_said() {
    let start = T0 * 1000;
    let mut run = run(300, buy_as_quoted(), |w| {
        // Someone spends the rates window 2 minutes in; a quote 5 minutes
        // in times out; the batch window is spent before the creation;
        // the buy and a read time out.
        w.trouble(EndpointId::GetRates, start + 120_000, Trouble::Crowd);
        w.trouble(EndpointId::GetRates, start + 300_000, Trouble::Timeout);
        w.trouble(EndpointId::CreateBatch, start, Trouble::Crowd);
        w.trouble(EndpointId::BuyBatch, start, Trouble::Timeout);
        w.trouble(EndpointId::GetBatch, start, Trouble::Timeout);
    });
    run.run_to_end(None);
    ended_whole(&run, "with troubles");
    no_stale_rate_sent(&run.world, "with troubles");
    let world = &run.world;
    let limited = answered_429(world);
    assert_eq!(
        limited.iter().map(|m| m.endpoint).collect::<Vec<_>>(),
        [EndpointId::GetRates, EndpointId::CreateBatch],
        "the only 429s are the two windows someone else spent"
    );
    assert_eq!(run.job.core.stats.rate_limited, 2);
    // After a 429 the job sends nothing until `Retry-After` has passed since
    // the answer, then goes on in the new window, at once.
    for met in limited {
        let retry_after = met.retry_after.expect("a 429 says when");
        let next = after(world, met);
        assert_eq!(
            next.at_ms / 1000,
            met.answered_ms / 1000 + retry_after,
            "{:?}: the next call {} ms after a Retry-After of {retry_after} s",
            met.endpoint,
            next.at_ms - met.at_ms
        );
        assert!(next.at_ms >= met.window.reset_at * 1000);
        assert_eq!(next.status, 200, "{:?}", next.endpoint);
        println!(
            "429 on {:?}: Retry-After {retry_after} s; next call {} ms after the answer",
            met.endpoint,
            next.at_ms - met.answered_ms
        );
    }
    // The creation refused with a 429 charged nothing and went again whole.
    assert_eq!(world.batches.len(), 1);
    assert_eq!(world.batches.values().next().unwrap().items.len(), 300);
    // A call that got no answer is tried again after the engine's pause for it.
    let timeouts: Vec<&Met> = world.met.iter().filter(|m| m.status == 504).collect();
    let pauses: Vec<(EndpointId, u64)> = timeouts
        .iter()
        .map(|met| {
            let next = after(world, met);
            assert_eq!(next.endpoint, met.endpoint, "the same call is tried again");
            assert_eq!(next.status, 200);
            (met.endpoint, next.at_ms / 1000 - met.answered_ms / 1000)
        })
        .collect();
    assert_eq!(
        pauses,
        [
            (EndpointId::GetRates, RETRY_AFTER_FAILURE_SECONDS),
            (EndpointId::BuyBatch, RETRY_AFTER_FAILURE_SECONDS),
            (EndpointId::GetBatch, MAX_READ_SECONDS),
        ]
    );
}

#[test]
fn people_quoting_within_the_reserve_all_along_are_never_refused_and_the_job_ends() {
    // People quote 30 times a minute, evenly, all along: within the 40 the
    // job leaves them, so they never meet a 429. Those who quote while the
    // job does take from the job's part of the window: it quotes slower
    // than its share, and still buys every row with each shipment quoted once.
    let mut run = run(1500, buy_as_quoted(), |w| {
        w.others_quote(T0 * 1000, 8 * 60, 30)
    });
    run.run_to_end(None);
    ended_whole(&run, "with people quoting");
    no_stale_rate_sent(&run.world, "with people quoting");
    assert_eq!(run.world.others_refused, 0, "people met a 429");
    assert_eq!(answered_429(&run.world).len(), 0, "the job met a 429");
    let quotes = quotes(&run.world);
    let minutes = quotes[quotes.len() - 1].at_ms / 60_000 - quotes[0].at_ms / 60_000 + 1;
    println!(
        "with people quoting 30/min: {} job quotes in {minutes} windows = {:.2}/min; {} chunks; oldest rate sent {} s",
        quotes.len(),
        quotes.len() as f64 / minutes as f64,
        run.job.core.chunks.len(),
        run.world.oldest_rate_sent_ms / 1000
    );
    assert_eq!(
        quotes.len(),
        1501,
        "each shipment once, and the limit probe"
    );
}
