//! Issue 19's defects, each first reproduced against the engine as it was
//! (commit 427a53e: all nine failed), here on the engine as it is. Defect d
//! (an answer that could not be stored) and the crash after every stored
//! step (f) are tested through `runner`, which owns the writes.

use super::*;

#[test]
fn defect_a_release_then_bulk_retry_never_buys_released_rows_again() {
    let mut j = job(2, ASQ, KeyEnv::Live);
    lose_creation(&mut j);
    j.act(Action::Release, T0).unwrap();
    assert_eq!(states(&j), vec![RowState::Released; 2]);
    assert!(j.act(Action::Retry, T0).is_err(), "no failed row to retry");
    assert_eq!(states(&j), vec![RowState::Released; 2]);
    // Named and unacknowledged: refused, saying why.
    let unacknowledged = RetryReleased {
        rows: vec![1],
        acknowledged: false,
    };
    let Err(Refusal(why)) = j.act(Action::RetryReleased(unacknowledged), T0) else {
        panic!("retried without acknowledgment")
    };
    assert!(why.contains("already have been bought"), "{why}");
    // Acknowledged: exactly that row is bought again.
    let acknowledged = RetryReleased {
        rows: vec![1],
        acknowledged: true,
    };
    j.act(Action::RetryReleased(acknowledged), T0).unwrap();
    assert_eq!(states(&j), vec![RowState::Released, RowState::Pending]);
    let next = quote_all(&mut j, T0, 300);
    let Next::Call(Call::ReadWallet { chunk }) = next else {
        panic!("{next:?}")
    };
    j.apply(
        Outcome::Wallet {
            chunk,
            answer: Answer::Ok(wallet(100_000)),
        },
        T0,
    );
    let Call::CreateBatch { items, .. } = call(j.next(T0)) else {
        panic!("no creation")
    };
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].to_address.street1, "1 Elm St");
    assert_eq!(j.rows().get(1).unwrap().chunk, Some(chunk));
}

#[test]
fn defect_b_a_stopped_job_stays_stopped_whatever_answer_arrives() {
    let mut j = job(2, ASQ, KeyEnv::Live);
    let chunk = lose_creation(&mut j);
    fn revoked<T>() -> Answer<T> {
        Answer::Refused(error(ErrorCode::AuthKeyRevoked))
    }
    j.apply(
        Outcome::Wallet {
            chunk,
            answer: revoked(),
        },
        T0,
    );
    j.apply(
        Outcome::Quoted {
            row: 0,
            answer: revoked(),
        },
        T0,
    );
    j.apply(
        Outcome::Bought {
            chunk,
            answer: revoked(),
        },
        T0,
    );
    assert_eq!(j.state(), JobState::Stopped);
    assert!(matches!(
        j.problem(),
        Some(JobProblem::OutcomeUnknown { .. })
    ));
    assert!(j.act(Action::Start, T0).is_err(), "a stopped job restarted");
    // The refused wallet read is not sent again.
    assert_eq!(j.next(T0 + 60), Next::Idle);
}

#[test]
fn defect_c_a_paused_job_sends_nothing() {
    let mut j = job(2, ASQ, KeyEnv::Live);
    let chunk = to_creation(&mut j, 300);
    created(&mut j, chunk, 600, T0);
    let Call::BuyBatch { .. } = call(j.next(T0)) else {
        panic!("no buy")
    };
    j.apply(
        Outcome::Bought {
            chunk,
            answer: Answer::Refused(error(ErrorCode::AuthKeyRevoked)),
        },
        T0,
    );
    assert_eq!(j.state(), JobState::Paused);
    for t in [T0, T0 + 60, T0 + 3600] {
        assert_eq!(j.next(t), Next::Idle, "a paused job sent at {t}");
    }
    assert!(!j.has_work());
    // Resumed by the merchant: the buy goes again.
    j.act(Action::Start, T0 + 3600).unwrap();
    assert!(matches!(call(j.next(T0 + 3600)), Call::BuyBatch { .. }));
}

#[test]
fn defect_e_retry_keeps_what_the_merchant_chose() {
    // A cancelled job stays cancelled.
    let mut j = job(3, ASQ, KeyEnv::Live);
    let _ = to_creation(&mut j, 300);
    j.act(Action::Cancel, T0).unwrap();
    assert!(
        j.act(Action::Retry, T0).is_err(),
        "retry revived a cancelled job"
    );
    assert_eq!(j.state(), JobState::Cancelled);
    // Review first: retried rows are quoted and approved again.
    let mut j = job(3, Approval::ReviewFirst, KeyEnv::Sandbox);
    j.act(Action::Start, T0).unwrap();
    quote_all(&mut j, T0, 300);
    j.act(Action::Approve, T0).unwrap();
    let chunk = send(&mut j, T0);
    created(&mut j, chunk, 900, T0);
    buy_with_row_1_failing(&mut j, chunk, 300);
    assert_eq!(j.state(), JobState::Completed);
    j.act(Action::Retry, T0 + 2).unwrap();
    assert_eq!(j.state(), JobState::Quoting);
    let next = quote_all(&mut j, T0 + 2, 5000);
    assert_eq!(next, Next::Idle, "a retried row went to a batch unapproved");
    assert_eq!(j.state(), JobState::AwaitingApproval);
    assert_eq!(
        j.view(T0 + 2).cost.quoted_cents,
        5000,
        "the new price to approve"
    );
    j.act(Action::Approve, T0 + 2).unwrap();
    let Call::CreateBatch { items, .. } = call(j.next(T0 + 2)) else {
        panic!("no creation after approval")
    };
    assert_eq!(items.len(), 1);
    assert_eq!(items[0].rate_cents, 5000);
}

#[test]
fn defect_e_is_finished_says_what_it_does() {
    // Cancelled and completed jobs have ended: nothing new is bought.
    assert!(JobState::Cancelled.is_finished() && JobState::Completed.is_finished());
    assert!(!JobState::Paused.is_finished() && !JobState::Stopped.is_finished());
}

#[test]
fn defect_f_rows_of_a_chunk_formed_before_a_crash_are_not_lost() {
    let mut j = plan_of(rows(4), ASQ, KeyEnv::Live, 3);
    j.act(Action::Start, T0).unwrap();
    // As an earlier build stored it: the core of the start, rows of later steps.
    let stored_core = j.core.clone();
    let Call::Quote { row, .. } = call(j.next(T0)) else {
        panic!("no quote")
    };
    j.apply(
        Outcome::Quoted {
            row,
            answer: Answer::Ok(rates(row, 300)),
        },
        T0,
    );
    assert!(matches!(call(j.next(T0)), Call::Quote { .. }));
    assert!(!j.core.chunks.is_empty(), "chunk 1 formed");
    let mut j = Job::restore(stored_core, j.rows().as_slice().to_vec());
    assert!(
        j.rows().iter().all(|r| r.chunk.is_none()),
        "rows of a chunk that was not stored go back to be planned"
    );
    let mut t = T0;
    for _ in 0..200 {
        let next = j.next(t);
        let outcome = match next {
            Next::Idle => break,
            Next::Wait { seconds } => {
                t += seconds;
                continue;
            }
            Next::Call(Call::Quote { row, .. }) => Outcome::Quoted {
                row,
                answer: Answer::Ok(rates(row, 300)),
            },
            Next::Call(Call::ReadWallet { chunk }) => Outcome::Wallet {
                chunk,
                answer: Answer::Ok(wallet(100_000)),
            },
            Next::Call(Call::CreateBatch { chunk, items }) => {
                j.sending(chunk, "r");
                Outcome::Created {
                    chunk,
                    answer: Answer::Ok(batch("b", 300 * items.len() as i64, vec![], false)),
                }
            }
            Next::Call(Call::BuyBatch { chunk, .. }) => Outcome::Bought {
                chunk,
                answer: Answer::Ok(()),
            },
            Next::Call(Call::ReadBatch { chunk, .. }) => {
                let n = j.rows().iter().filter(|r| r.chunk == Some(chunk)).count();
                let results = (0..n as u32).map(|i| result(i, 300, true)).collect();
                Outcome::Read {
                    chunk,
                    answer: Answer::Ok(batch("b", 300 * n as i64, results, true)),
                }
            }
        };
        j.apply(outcome, t);
    }
    assert_eq!(j.state(), JobState::Completed);
    assert_eq!(j.counts().bought, 4, "{:?}", states(&j));
}

#[test]
fn defect_f_a_job_never_ends_while_a_row_can_still_move() {
    let mut j = job(2, ASQ, KeyEnv::Sandbox);
    let chunk = to_creation(&mut j, 100);
    created(&mut j, chunk, 200, T0);
    // Its chunk's batch in a state the job cannot follow (no batch id).
    j.core.chunks[0].batch_id = None;
    for t in [T0, T0 + 60] {
        let _ = j.next(t);
    }
    assert_ne!(j.state(), JobState::Completed, "{:?}", states(&j));
}

#[test]
fn defect_h_a_released_chunk_counts_against_the_total_ceiling() {
    let ceiling = Approval::BuyAsQuoted {
        max_row_cents: 900,
        max_total_cents: 1000,
    };
    let mut j = plan_of(rows(4), ceiling, KeyEnv::Live, 3);
    lose_creation(&mut j);
    j.act(Action::Release, T0).unwrap();
    // Chunk 1 (rows 0 to 2, 900) may have been charged: row 3's 300 passes 1000.
    assert_eq!(quote_all(&mut j, T0, 300), Next::Idle);
    assert_eq!(
        j.problem(),
        Some(&JobProblem::CeilingReached {
            max_total_cents: 1000,
            spent_cents: 900
        })
    );
}

#[test]
fn defect_h_the_chunk_cap_counts_rows_not_shipments() {
    // Rows 0 and 1 are one shipment: a cap of 1 row still makes 1-row chunks.
    let mut j = plan_of(rows(2), ASQ, KeyEnv::Sandbox, 1);
    assert_eq!(j.core.estimate.chunks, 2);
    j.act(Action::Start, T0).unwrap();
    let Next::Call(Call::CreateBatch { items, .. }) = quote_all(&mut j, T0, 100) else {
        panic!("no creation")
    };
    assert_eq!(items.len(), 1);
}

#[test]
fn defect_h_a_creation_carries_every_row_of_its_chunk() {
    let mut j = job(2, ASQ, KeyEnv::Sandbox);
    j.act(Action::Start, T0).unwrap();
    let Next::Call(Call::CreateBatch { items, chunk }) = quote_all(&mut j, T0, 100) else {
        panic!("no creation")
    };
    let members = j.rows().iter().filter(|r| r.chunk == Some(chunk)).count();
    assert_eq!(items.len(), members);
    // A row without a quote is quoted first, never left out of the batch.
    let mut j = job(3, ASQ, KeyEnv::Sandbox);
    j.act(Action::Start, T0).unwrap();
    quote_all(&mut j, T0, 100);
    let mut stored = j.rows().as_slice().to_vec();
    stored[2].quote = None;
    let mut j = Job::restore(j.core.clone(), stored);
    assert!(matches!(call(j.next(T0)), Call::Quote { row: 2, .. }));
}
