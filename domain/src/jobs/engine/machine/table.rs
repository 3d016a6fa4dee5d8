//! The transition table, rendered from [`transition`] and [`sends`] for
//! every state (a paused one with each kind of problem) and every event,
//! and checked against `domain/README.md`. `UPDATE_TRANSITIONS=1 cargo test
//! -p domain transition_table` rewrites the README's copy.

use super::*;
use api::ErrorCode;

fn problem_unknown() -> JobProblem {
    JobProblem::OutcomeUnknown {
        chunk: 1,
        request_id: "req".into(),
        total_cents: 100,
        wallet_before_cents: None,
        wallet_after_cents: None,
        error: ApiError::new(ErrorCode::EdgeUpstreamTimeout, "m", "s", "r"),
    }
}

/// Every state a job can be in, by name.
fn states() -> Vec<(&'static str, Lifecycle)> {
    use JobState::*;
    let refused = JobProblem::Refused {
        error: ApiError::new(ErrorCode::AuthKeyRevoked, "m", "s", "r"),
    };
    vec![
        ("planned", Lifecycle::to(Planned)),
        ("quoting", Lifecycle::to(Quoting)),
        ("awaiting approval", Lifecycle::to(AwaitingApproval)),
        ("buying", Lifecycle::to(Buying)),
        (
            "paused: funds",
            Lifecycle::waiting(
                Paused,
                JobProblem::NeedsFunds {
                    needed_cents: 1,
                    balance_cents: 0,
                    chunk: 1,
                },
            ),
        ),
        (
            "paused: ceiling",
            Lifecycle::waiting(
                Paused,
                JobProblem::CeilingReached {
                    max_total_cents: 1,
                    spent_cents: 1,
                },
            ),
        ),
        (
            "paused: decisions",
            Lifecycle::waiting(Paused, JobProblem::Decisions { rows: 2 }),
        ),
        ("paused: refused", Lifecycle::waiting(Paused, refused)),
        ("stopped", Lifecycle::waiting(Stopped, problem_unknown())),
        ("cancelled", Lifecycle::to(Cancelled)),
        ("completed", Lifecycle::to(Completed)),
    ]
}

/// Every event, by name (with the variants that lead elsewhere).
fn events() -> Vec<(&'static str, Event)> {
    let refused = ApiError::new(ErrorCode::AuthKeyRevoked, "m", "s", "r");
    vec![
        ("start (review first)", Event::Start { review: true }),
        ("start (buy as quoted)", Event::Start { review: false }),
        ("approve", Event::Approve),
        ("decided, none left", Event::Decided { waiting: 0 }),
        ("decided, some left", Event::Decided { waiting: 1 }),
        ("retry (review first)", Event::Retry { review: true }),
        ("retry (buy as quoted)", Event::Retry { review: false }),
        ("release", Event::Release),
        (
            "retry released (review first)",
            Event::RetryReleased { review: true },
        ),
        (
            "retry released (buy as quoted)",
            Event::RetryReleased { review: false },
        ),
        ("cancel", Event::Cancel),
        ("*quoted*", Event::Quoted),
        ("*needs quotes*", Event::NeedsQuotes),
        ("*ended*", Event::Ended { decisions: 0 }),
        ("*ended, decisions wait*", Event::Ended { decisions: 1 }),
        (
            "*ceiling reached*",
            Event::CeilingReached {
                max_total_cents: 1,
                spent_cents: 1,
            },
        ),
        (
            "*wallet short*",
            Event::WalletShort {
                chunk: 1,
                needed_cents: 1,
                balance_cents: 0,
            },
        ),
        ("*refused*", Event::Refused { error: refused }),
        (
            "*creation lost*",
            Event::CreationLost {
                problem: problem_unknown(),
            },
        ),
        (
            "*wallet after*",
            Event::WalletAfter {
                chunk: 1,
                balance_cents: 0,
            },
        ),
    ]
}

fn cell(from: &Lifecycle, event: &Event) -> String {
    match transition(from, event) {
        Err(_) => "✗".into(),
        Ok(to)
            if to.state == from.state
                && to.problem.as_ref().map(std::mem::discriminant)
                    == from.problem.as_ref().map(std::mem::discriminant) =>
        {
            "·".into()
        }
        Ok(to) => {
            let problem = match to.problem {
                Some(JobProblem::NeedsFunds { .. }) => ": funds",
                Some(JobProblem::CeilingReached { .. }) => ": ceiling",
                Some(JobProblem::Decisions { .. }) => ": decisions",
                Some(JobProblem::Refused { .. }) => ": refused",
                Some(JobProblem::OutcomeUnknown { .. }) | None => "",
            };
            format!("{}{problem}", name(to.state))
        }
    }
}

fn sends_cell(lifecycle: &Lifecycle) -> String {
    let s = sends(lifecycle);
    let parts: Vec<&str> = [
        (s.quotes, "quotes"),
        (s.new_batches, "new batches"),
        (s.follow_ups, "paid batches"),
        (s.wallet_after, "wallet after"),
    ]
    .into_iter()
    .filter_map(|(on, what)| on.then_some(what))
    .collect();
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(", ")
    }
}

pub(crate) fn render() -> String {
    let states = states();
    let mut out = String::from("| event \\ state |");
    for (name, _) in &states {
        out.push_str(&format!(" {name} |"));
    }
    out.push_str("\n|---|");
    out.push_str(&"---|".repeat(states.len()));
    out.push_str("\n| **sends** |");
    for (_, lifecycle) in &states {
        out.push_str(&format!(" {} |", sends_cell(lifecycle)));
    }
    for (event_name, event) in events() {
        out.push_str(&format!("\n| {event_name} |"));
        for (_, lifecycle) in &states {
            out.push_str(&format!(" {} |", cell(lifecycle, &event)));
        }
    }
    out.push('\n');
    out
}

const BEGIN: &str = "<!-- transitions: generated by domain/src/jobs/engine/machine/table.rs -->\n";
const END: &str = "<!-- transitions: end -->";

#[test]
fn transition_table_in_the_readme_is_the_code_s() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let (Some(start), Some(end)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("domain/README.md has no transition table between its markers")
    };
    let table = render();
    let written = &readme[start + BEGIN.len()..end];
    if written != table {
        if std::env::var_os("UPDATE_TRANSITIONS").is_some() {
            let updated = format!("{}{BEGIN}{table}{}", &readme[..start], &readme[end..]);
            std::fs::write(path, updated).unwrap();
        } else {
            panic!(
                "domain/README.md's transition table differs from the code's (UPDATE_TRANSITIONS=1 rewrites it):\n{table}"
            );
        }
    }
}

#[test]
fn only_the_merchant_takes_a_job_out_of_stopped() {
    let (_, stopped) = states().into_iter().find(|(n, _)| *n == "stopped").unwrap();
    for (name, event) in events() {
        let merchant = !name.starts_with('*');
        if let Ok(to) = transition(&stopped, &event)
            && to.state != JobState::Stopped
        {
            assert!(merchant, "{name} took the job out of stopped");
        }
    }
}

#[test]
fn a_paused_job_sends_nothing() {
    for (name, lifecycle) in states() {
        if lifecycle.state == JobState::Paused {
            assert_eq!(sends(&lifecycle), Sends::default(), "{name}");
        }
    }
}
