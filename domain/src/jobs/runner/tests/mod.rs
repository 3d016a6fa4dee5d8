//! The runner against a small in-memory v1 service, with a store that can
//! fail or lose the process after any write. Defect f: a job crashed after
//! every stored step, and restored from storage alone, still ends with
//! every row at an end and no row in two batches. Defect d: an answer that
//! cannot be stored leaves the creation's outcome unknown, never sent again.
//! `pacing`: the job against the service's limits at the real figures, on
//! the world's virtual clock.
#![allow(clippy::indexing_slicing)]

mod pacing;
mod world;

use world::{UNDELIVERABLE, World};

use std::collections::BTreeMap;

use api::KeyEnv;
use api::jobs::{Approval, ChunkState, JobProblem, JobRow, JobState, RetryReleased, RowState};

use super::*;
use crate::jobs::engine::tests::{address, planned, rows as engine_rows};
use crate::jobs::engine::{Action, Job, Row};

const T0: u64 = 1_000_000;

/// The stored job: what a restart finds.
#[derive(Default)]
struct Memory {
    core: Option<Core>,
    rows: BTreeMap<u32, Row>,
    writes: usize,
    /// The write that fails (`SQLITE_IOERR`), if any.
    fail_at: Option<usize>,
    logged: Vec<(String, String)>,
    /// row → how often it was stored reaching an end from a state that was not one.
    ended: BTreeMap<u32, u32>,
}

impl Store for Memory {
    type Error = String;
    fn write(&mut self, writes: Writes<'_>) -> Result<(), String> {
        self.writes += 1;
        if self.fail_at == Some(self.writes) {
            return Err("SQLITE_IOERR".into());
        }
        self.core = Some(writes.core.clone());
        for row in writes.rows {
            let was_terminal = self.rows.get(&row.index).is_some_and(Row::terminal);
            if row.terminal() && !was_terminal {
                *self.ended.entry(row.index).or_default() += 1;
            }
            self.rows.insert(row.index, row.clone());
        }
        if let Some(sent) = writes.sent {
            self.logged
                .push((sent.request_id, format!("sent {}", sent.kind)));
        }
        if let Some(answered) = writes.answered {
            self.logged.push((answered.request_id, answered.outcome));
        }
        Ok(())
    }
}

impl Memory {
    fn restore(&self) -> Job {
        let core = self.core.clone().expect("a stored core");
        Job::restore(core, self.rows.values().cloned().collect())
    }
}

/// `n` rows to `n` different people (none share a quote); the name is the reference.
fn rows(n: usize) -> Vec<JobRow> {
    let mut rows = engine_rows(n);
    for (i, row) in rows.iter_mut().enumerate() {
        row.to_address = address(&format!("#{i}"), &format!("{} Elm St", i + 1));
    }
    rows
}

/// Where the process dies: after this write, with the call then in flight
/// lost before or after the service acted on it.
#[derive(Clone, Copy, Debug)]
struct Crash {
    after_write: usize,
    service_acted: bool,
}

/// A run to the end, as the object and a careful merchant make it.
struct Run {
    world: World,
    store: Memory,
    job: Job,
    crashed: bool,
    request: u32,
    /// How long the merchant takes to act once the job waits for them.
    merchant_seconds: u64,
}

impl Run {
    /// Seven rows in chunks of three.
    fn new(approval: Approval) -> Run {
        Run::of(rows(7), approval, 3, World::new(T0, 1_000_000))
    }

    /// A job planned in `world` as the object plans it: stored, then one
    /// row quoted to learn the rates limit, and stored again.
    fn of(rows: Vec<JobRow>, approval: Approval, max_chunk: u32, world: World) -> Run {
        let mut job = planned(rows, approval, KeyEnv::Live, max_chunk);
        let mut store = Memory::default();
        save(&mut job, &mut store).unwrap();
        let mut run = Run {
            world,
            store,
            job,
            crashed: false,
            request: 0,
            merchant_seconds: 0,
        };
        if let Some(probe) = run.job.limit_probe() {
            run.exchange(&probe);
            let now = run.world.now();
            run.job.probed(now);
            save(&mut run.job, &mut run.store).unwrap();
        }
        run
    }

    /// Makes `call` as the object does: the rates window its answer
    /// reports goes to the job before the outcome.
    fn exchange(&mut self, call: &Call) -> Outcome {
        let (outcome, window) = self.world.answer(call);
        if let Some(window) = window {
            self.job.saw_rates_window(window);
        }
        outcome
    }

    /// The process dies: the job is what storage holds.
    fn restart(&mut self) {
        self.job = self.store.restore();
    }

    fn crash_due(&self, crash: Option<Crash>) -> Option<Crash> {
        crash.filter(|c| !self.crashed && self.store.writes >= c.after_write)
    }

    /// What the merchant does when the job waits for them: start, approve,
    /// accept, and for a lost creation release it, then buy again only
    /// the rows the service shows no batch for (acknowledged).
    fn merchant(&mut self) -> bool {
        let action = match (self.job.state(), self.job.problem()) {
            (JobState::Planned, _) | (JobState::Paused, Some(JobProblem::Refused { .. })) => {
                Action::Start
            }
            (JobState::AwaitingApproval, _) => Action::Approve,
            (JobState::Paused, Some(JobProblem::Decisions { .. })) => {
                let rows = self
                    .job
                    .rows()
                    .select(|r| r.state == RowState::NeedsDecision);
                Action::Decide(api::jobs::Decide { rows, accept: true })
            }
            (JobState::Stopped, _) => Action::Release,
            (JobState::Completed, _) => {
                let unbought = self.job.rows().select(|r| {
                    r.state == RowState::Released && self.world.batches_of(&r.row.reference) == 0
                });
                if unbought.is_empty() {
                    return false;
                }
                Action::RetryReleased(RetryReleased {
                    rows: unbought,
                    acknowledged: true,
                })
            }
            (state, problem) => panic!("the job waits in {state:?} {problem:?}"),
        };
        self.world.wait(self.merchant_seconds);
        self.job.act(action, self.world.now()).unwrap();
        // A failed save is a 503 to the merchant, who asks again.
        if save(&mut self.job, &mut self.store).is_err() {
            self.restart();
        }
        true
    }

    /// Runs to the end, crashing once where told.
    fn run_to_end(&mut self, crash: Option<Crash>) {
        for _ in 0..2000 + 10 * self.job.rows().len() {
            if self.crash_due(crash).is_some() {
                self.crashed = true;
                self.restart();
            }
            self.request += 1;
            let request_id = format!("req_{}", self.request);
            let now = self.world.now();
            match begin(&mut self.job, &mut self.store, now, &request_id) {
                Err(_) => {
                    self.restart();
                    continue;
                }
                Ok(Next::Idle) => {
                    if !self.merchant() {
                        return;
                    }
                }
                Ok(Next::Wait { seconds }) => self.world.wait(seconds),
                Ok(Next::Call(call)) => {
                    // The process dies with this call in flight.
                    if let Some(c) = self.crash_due(crash) {
                        self.crashed = true;
                        if c.service_acted {
                            self.world.answer(&call);
                        }
                        self.restart();
                        continue;
                    }
                    let outcome = self.exchange(&call);
                    let now = self.world.now();
                    if finish(
                        &mut self.job,
                        &mut self.store,
                        &call,
                        outcome,
                        now,
                        &request_id,
                    )
                    .is_err()
                    {
                        self.restart();
                    }
                }
            }
        }
        panic!(
            "the job did not end: {:?} after {} quotes",
            self.job.state(),
            self.job.core.stats.quote_calls
        );
    }

    fn check(&self, what: &str) {
        assert_eq!(self.job.state(), JobState::Completed, "{what}");
        let in_batches = self.world.in_batches();
        let batches_of = |reference: &str| in_batches.get(reference).copied().unwrap_or(0);
        for row in self.job.rows().iter() {
            let reference = &row.row.reference;
            assert!(
                row.terminal(),
                "{what}: row {reference} ended {:?}",
                row.state
            );
            let batches = batches_of(reference);
            assert!(
                batches <= 1,
                "{what}: row {reference} is in {batches} batches"
            );
            let labels = self.world.labels.get(reference).copied().unwrap_or(0);
            let expected = u32::from(row.state == RowState::Bought);
            assert_eq!(
                labels, expected,
                "{what}: row {reference} ({:?}) has {labels} labels",
                row.state
            );
            // Every row that can be bought is, once; none is lost to a
            // released chunk the service never created.
            if *reference != UNDELIVERABLE && row.state != RowState::Bought {
                assert_eq!(row.state, RowState::Released, "{what}");
                assert_eq!(
                    batches_of(reference),
                    1,
                    "{what}: released, yet never in a batch"
                );
            }
        }
    }
}

fn approvals() -> [Approval; 2] {
    [
        Approval::ReviewFirst,
        Approval::BuyAsQuoted {
            max_row_cents: 10_000,
            max_total_cents: 1_000_000,
        },
    ]
}

#[test]
fn defect_f_a_crash_after_any_stored_step_loses_no_row_and_buys_none_twice() {
    for approval in approvals() {
        let mut clean = Run::new(approval);
        clean.run_to_end(None);
        clean.check(&format!("{approval:?} without a crash"));
        let writes = clean.store.writes;
        assert!(writes > 30, "a run of {writes} writes");
        let mut tried = 0;
        for after_write in 1..=writes {
            for service_acted in [false, true] {
                let crash = Crash {
                    after_write,
                    service_acted,
                };
                let mut run = Run::new(approval);
                run.run_to_end(Some(crash));
                run.check(&format!("{approval:?}, {crash:?}"));
                tried += 1;
            }
        }
        assert_eq!(tried, writes * 2);
    }
}

#[test]
fn defect_d_an_answer_that_cannot_be_stored_leaves_the_creation_unknown() {
    let approval = approvals()[1];
    // Find the write that stores the first creation's answer.
    let mut clean = Run::new(approval);
    clean.run_to_end(None);
    let sent = clean
        .store
        .logged
        .iter()
        .position(|(_, what)| what == "sent create_batch")
        .unwrap();
    let request = clean.store.logged[sent].0.clone();
    assert!(
        clean
            .store
            .logged
            .iter()
            .any(|(id, what)| *id == request && what.starts_with("batch "))
    );
    // Run again, failing each write in turn until the failed one is that answer's.
    for fail_at in 1..=clean.store.writes {
        let mut run = Run::new(approval);
        run.store.fail_at = Some(fail_at);
        // Stop at the first idle after the failure to look at the job.
        for _ in 0..500 {
            run.request += 1;
            let request_id = format!("req_{}", run.request);
            let now = run.world.now();
            match begin(&mut run.job, &mut run.store, now, &request_id) {
                Err(_) => run.restart(),
                Ok(Next::Idle) => {
                    if run.job.state() == JobState::Stopped || !run.merchant() {
                        break;
                    }
                }
                Ok(Next::Wait { seconds }) => run.world.wait(seconds),
                Ok(Next::Call(call)) => {
                    let outcome = run.exchange(&call);
                    let now = run.world.now();
                    let creation = matches!(call, Call::CreateBatch { .. });
                    if finish(
                        &mut run.job,
                        &mut run.store,
                        &call,
                        outcome,
                        now,
                        &request_id,
                    )
                    .is_err()
                    {
                        run.restart();
                        if creation {
                            // The creation took; its answer was not stored.
                            assert_eq!(run.job.state(), JobState::Stopped, "write {fail_at}");
                            let Some(JobProblem::OutcomeUnknown { chunk, .. }) =
                                run.job.problem().cloned()
                            else {
                                panic!("write {fail_at}: {:?}", run.job.problem())
                            };
                            let c = run
                                .job
                                .core
                                .chunks
                                .iter()
                                .find(|c| c.number == chunk)
                                .unwrap();
                            assert_eq!(c.state, ChunkState::OutcomeUnknown);
                            let batches = run.world.batches.len();
                            // Nothing is sent again: only the wallet is read.
                            for _ in 0..5 {
                                let now = run.world.now();
                                match begin(&mut run.job, &mut run.store, now, "req_after").unwrap()
                                {
                                    Next::Call(Call::ReadWallet { chunk: c }) => {
                                        let outcome = run.exchange(&Call::ReadWallet { chunk: c });
                                        finish(
                                            &mut run.job,
                                            &mut run.store,
                                            &Call::ReadWallet { chunk: c },
                                            outcome,
                                            now,
                                            "req_after",
                                        )
                                        .unwrap();
                                    }
                                    Next::Idle => {}
                                    other => {
                                        panic!("write {fail_at}: a stopped job sent {other:?}")
                                    }
                                }
                            }
                            assert_eq!(run.world.batches.len(), batches);
                            // The merchant sees what it cost: the wallet moved by the chunk's total.
                            let Some(JobProblem::OutcomeUnknown {
                                total_cents,
                                wallet_before_cents: Some(before),
                                wallet_after_cents: Some(after),
                                ..
                            }) = run.job.problem().cloned()
                            else {
                                panic!("no wallet before and after")
                            };
                            assert_eq!(before - after, total_cents);
                            // And the run still ends with nothing bought twice.
                            run.store.fail_at = None;
                            run.run_to_end(None);
                            run.check(&format!("fail at {fail_at}"));
                            return;
                        }
                    }
                }
            }
        }
    }
    panic!("no failed write stored a creation's answer");
}
