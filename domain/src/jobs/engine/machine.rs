//! The job's lifecycle: its [`JobState`] and, while it waits for the
//! merchant, its [`JobProblem`]. Both are private to this module and change
//! only through [`transition`]: (lifecycle, event) → lifecycle, where the
//! events are the merchant's actions and what the job's own calls found.
//! [`TABLE`] lists every pair; a test renders it from [`transition`] and
//! checks it against the table in `domain/README.md`.
//!
//! What each state may send is [`sends`]: a paused job sends nothing, a
//! stopped one only the wallet read that tells whether its lost creation
//! was charged, and only an explicit action of the merchant takes a job out
//! of `Stopped` (`Release` or `Cancel`), whatever answer arrives later.

use api::ApiError;
use api::jobs::{JobProblem, JobState};
use serde::{Deserialize, Serialize};

use super::Refusal;

/// A job's state and problem, as stored and shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lifecycle {
    state: JobState,
    #[serde(default)]
    problem: Option<JobProblem>,
}

impl Default for Lifecycle {
    fn default() -> Self {
        Lifecycle {
            state: JobState::Planned,
            problem: None,
        }
    }
}

impl Lifecycle {
    pub fn state(&self) -> JobState {
        self.state
    }

    pub fn problem(&self) -> Option<&JobProblem> {
        self.problem.as_ref()
    }

    fn to(state: JobState) -> Lifecycle {
        Lifecycle {
            state,
            problem: None,
        }
    }

    fn waiting(state: JobState, problem: JobProblem) -> Lifecycle {
        Lifecycle {
            state,
            problem: Some(problem),
        }
    }

    fn paused_by_refusal(&self) -> bool {
        matches!(self.problem, Some(JobProblem::Refused { .. }))
    }
}

/// What happens to a job.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    // ---- the merchant's actions (refused where they do not apply)
    /// `review`: the job's approval mode is review-first.
    Start {
        review: bool,
    },
    Approve,
    /// Rows were accepted or skipped; `waiting` rows still need a decision.
    Decided {
        waiting: u32,
    },
    Retry {
        review: bool,
    },
    Release,
    /// Released rows, acknowledged by the merchant, are bought again.
    RetryReleased {
        review: bool,
    },
    Cancel,
    // ---- what the job's own work found
    /// Review first: every row has a quote for the merchant to approve.
    Quoted,
    /// Review first: rows without an approved price go through the quoting pass.
    NeedsQuotes,
    /// Nothing is left to send and no batch is open; `decisions` rows wait.
    Ended {
        decisions: u32,
    },
    CeilingReached {
        max_total_cents: i64,
        spent_cents: i64,
    },
    WalletShort {
        chunk: u32,
        needed_cents: i64,
        balance_cents: i64,
    },
    /// The key or the service refused one of the job's calls.
    Refused {
        error: ApiError,
    },
    /// A batch creation got no clear answer: `problem` is what is known.
    CreationLost {
        problem: JobProblem,
    },
    /// The wallet after a lost creation of `chunk`.
    WalletAfter {
        chunk: u32,
        balance_cents: i64,
    },
}

/// What a state lets the job send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sends {
    /// Quotes of rows (the review pass, or the next chunk's).
    pub quotes: bool,
    /// Wallet checks and batch creations: new spending.
    pub new_batches: bool,
    /// Buying and reading batches already created (and paid for).
    pub follow_ups: bool,
    /// The wallet read after a lost creation, once.
    pub wallet_after: bool,
}

pub fn sends(lifecycle: &Lifecycle) -> Sends {
    use JobState::*;
    let all = Sends {
        quotes: true,
        new_batches: true,
        follow_ups: true,
        wallet_after: true,
    };
    match lifecycle.state {
        Quoting => Sends {
            new_batches: false,
            ..all
        },
        Buying => all,
        Stopped => Sends {
            wallet_after: true,
            ..Sends::default()
        },
        Cancelled => Sends {
            follow_ups: true,
            wallet_after: true,
            ..Sends::default()
        },
        Planned | AwaitingApproval | Paused | Completed => Sends::default(),
    }
}

/// The one way a lifecycle changes. An action that does not apply is a
/// [`Refusal`] saying why; a finding that does not apply changes nothing.
pub fn transition(from: &Lifecycle, event: &Event) -> Result<Lifecycle, Refusal> {
    use Event as E;
    use JobState::*;
    let state = from.state;
    let same = || Ok(from.clone());
    let refuse = |what: &str| {
        Err(Refusal(format!(
            "The job is {}: it cannot {what} now.",
            name(state)
        )))
    };
    let running_or_resting = |review: bool| match state {
        Completed | Paused => Ok(Lifecycle::to(if review { Quoting } else { Buying })),
        // Review first asks for approval again, so it waits until buying ends.
        Buying if !review => Ok(Lifecycle::to(Buying)),
        _ => refuse("retry rows"),
    };
    match event {
        E::Start { review } => match state {
            Planned => Ok(Lifecycle::to(if *review { Quoting } else { Buying })),
            // Funds added, decisions taken, the key fixed: on again.
            Paused => Ok(Lifecycle::to(Buying)),
            _ => refuse("start"),
        },
        E::Approve => match state {
            AwaitingApproval => Ok(Lifecycle::to(Buying)),
            _ => refuse("be approved"),
        },
        E::Decided { waiting } => match (state, &from.problem) {
            (Planned | Cancelled | Completed, _) => refuse("take decisions"),
            (Paused, Some(JobProblem::Decisions { .. })) if *waiting == 0 => {
                Ok(Lifecycle::to(Buying))
            }
            (Paused, Some(JobProblem::Decisions { .. })) => Ok(Lifecycle::waiting(
                Paused,
                JobProblem::Decisions { rows: *waiting },
            )),
            _ => same(),
        },
        E::Retry { review } | E::RetryReleased { review } => running_or_resting(*review),
        E::Release => match state {
            Stopped => Ok(Lifecycle::to(Buying)),
            _ => Err(Refusal("No chunk has an unknown outcome.".into())),
        },
        E::Cancel => match state {
            Completed | Cancelled => refuse("be cancelled"),
            _ => Ok(Lifecycle::to(Cancelled)),
        },
        E::Quoted => match state {
            Quoting => Ok(Lifecycle::to(AwaitingApproval)),
            _ => same(),
        },
        E::NeedsQuotes => match state {
            Buying => Ok(Lifecycle::to(Quoting)),
            _ => same(),
        },
        E::Ended { decisions } => match state {
            Buying if *decisions > 0 => Ok(Lifecycle::waiting(
                Paused,
                JobProblem::Decisions { rows: *decisions },
            )),
            Buying => Ok(Lifecycle::to(Completed)),
            _ => same(),
        },
        E::CeilingReached {
            max_total_cents,
            spent_cents,
        } => match state {
            Buying => Ok(Lifecycle::waiting(
                Paused,
                JobProblem::CeilingReached {
                    max_total_cents: *max_total_cents,
                    spent_cents: *spent_cents,
                },
            )),
            _ => same(),
        },
        E::WalletShort {
            chunk,
            needed_cents,
            balance_cents,
        } => match state {
            Buying => Ok(Lifecycle::waiting(
                Paused,
                JobProblem::NeedsFunds {
                    needed_cents: *needed_cents,
                    balance_cents: *balance_cents,
                    chunk: *chunk,
                },
            )),
            _ => same(),
        },
        E::Refused { error } => match state {
            // The first refusal is the one to fix.
            Paused if from.paused_by_refusal() => same(),
            Quoting | AwaitingApproval | Buying | Paused => Ok(Lifecycle::waiting(
                Paused,
                JobProblem::Refused {
                    error: error.clone(),
                },
            )),
            // A stopped job waits for the merchant whatever is refused; a
            // cancelled one keeps finishing what it paid for, more slowly.
            Planned | Stopped | Cancelled | Completed => same(),
        },
        E::CreationLost { problem } => match state {
            Stopped | Cancelled | Completed | Planned => same(),
            Quoting | AwaitingApproval | Buying | Paused => {
                Ok(Lifecycle::waiting(Stopped, problem.clone()))
            }
        },
        E::WalletAfter {
            chunk,
            balance_cents,
        } => match (&from.problem, state) {
            (Some(JobProblem::OutcomeUnknown { chunk: lost, .. }), Stopped) if lost == chunk => {
                let mut problem = from.problem.clone();
                if let Some(JobProblem::OutcomeUnknown {
                    wallet_after_cents, ..
                }) = &mut problem
                {
                    *wallet_after_cents = Some(*balance_cents);
                }
                Ok(Lifecycle { state, problem })
            }
            _ => same(),
        },
    }
}

/// A state in the merchant's words.
pub fn name(state: JobState) -> &'static str {
    match state {
        JobState::Planned => "planned",
        JobState::Quoting => "quoting",
        JobState::AwaitingApproval => "awaiting approval",
        JobState::Buying => "buying",
        JobState::Paused => "paused",
        JobState::Stopped => "stopped",
        JobState::Cancelled => "cancelled",
        JobState::Completed => "completed",
    }
}

#[cfg(test)]
pub(crate) mod table;
