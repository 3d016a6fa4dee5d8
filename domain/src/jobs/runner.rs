//! How a job's steps are stored: one atomic write per step, the same for
//! the Durable Object and the native tests (which crash the job after every
//! write and restore it from what was written).
//!
//! A step is [`begin`] (what comes next; a creation is marked as sent),
//! written *before* its call goes out, then [`finish`] (the call's outcome),
//! written after. Each write holds the whole core (small: chunks do not list
//! their rows) and every row the step changed, so storage never holds a
//! core from one step with rows from another. Calls that write upstream
//! (creations, buys) are also logged: sent, then answered.
//!
//! After a write fails, the job in memory is ahead of storage: the caller
//! drops it and restores it from storage ([`Job::restore`]), where a
//! creation stored as sent and never answered has an unknown outcome.

use super::engine::{Answer, Call, Core, Job, Next, Outcome, Row};

/// A write call logged before it goes out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub kind: &'static str,
    pub chunk: u32,
    pub request_id: String,
    pub at: u64,
}

/// Its answer, logged after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    pub request_id: String,
    /// The HTTP status class met: 200, 422 (refused), 429, or 0 (no answer).
    pub status: u16,
    pub outcome: String,
}

/// One step's writes, stored atomically.
pub struct Writes<'a> {
    pub core: &'a Core,
    pub rows: Vec<&'a Row>,
    pub sent: Option<Sent>,
    pub answered: Option<Answered>,
}

/// Where a job is stored.
pub trait Store {
    type Error;
    /// Stores all of `writes` or nothing.
    fn write(&mut self, writes: Writes<'_>) -> Result<(), Self::Error>;
}

/// Stores what the job changed (an action, a creation).
pub fn save<S: Store>(job: &mut Job, store: &mut S) -> Result<(), S::Error> {
    write(job, store, None, None)
}

fn write<S: Store>(
    job: &mut Job,
    store: &mut S,
    sent: Option<Sent>,
    answered: Option<Answered>,
) -> Result<(), S::Error> {
    let (core, rows) = job.changes();
    store.write(Writes {
        core,
        rows,
        sent,
        answered,
    })
}

/// What comes next, stored before its call (if any) goes out.
pub fn begin<S: Store>(
    job: &mut Job,
    store: &mut S,
    now: u64,
    request_id: &str,
) -> Result<Next, S::Error> {
    let next = job.next(now);
    let mut sent = None;
    if let Next::Call(call) = &next {
        if let Call::CreateBatch { chunk, .. } = call {
            job.sending(*chunk, request_id);
        }
        sent = call.logged().map(|(kind, chunk)| Sent {
            kind,
            chunk,
            request_id: request_id.to_string(),
            at: now,
        });
    }
    write(job, store, sent, None)?;
    Ok(next)
}

/// The call's outcome, applied and stored.
pub fn finish<S: Store>(
    job: &mut Job,
    store: &mut S,
    call: &Call,
    outcome: Outcome,
    now: u64,
    request_id: &str,
) -> Result<(), S::Error> {
    let answered = call.logged().map(|_| {
        let (status, outcome) = describe(&outcome);
        Answered {
            request_id: request_id.to_string(),
            status,
            outcome,
        }
    });
    job.apply(outcome, now);
    write(job, store, None, answered)
}

/// A logged call's answer, briefly.
fn describe(outcome: &Outcome) -> (u16, String) {
    fn of<T>(answer: &Answer<T>, ok: impl Fn(&T) -> String) -> (u16, String) {
        match answer {
            Answer::Ok(value) => (200, ok(value)),
            Answer::Refused(e) => (422, e.code.to_string()),
            Answer::RateLimited { retry_after } => (429, format!("retry after {retry_after} s")),
            Answer::Failed(e) => (0, e.code.to_string()),
        }
    }
    match outcome {
        Outcome::Created { answer, .. } => of(answer, |b| format!("batch {}", b.id)),
        Outcome::Bought { answer, .. } => of(answer, |()| "bought".into()),
        Outcome::Read { answer, .. } => of(answer, |b| format!("batch {}", b.id)),
        Outcome::Wallet { answer, .. } => of(answer, |w| format!("{} cents", w.balance_cents)),
        Outcome::Quoted { answer, .. } => of(answer, |r| format!("{} rates", r.len())),
    }
}

#[cfg(test)]
mod tests;
