//! What the job screens show, decided in plain Rust: filters, the cost
//! per carrier, times in words, what is announced to screen readers (and
//! how often), the tab title, when to notify, the rows in view.

use super::rows::group;
use crate::components::money::format_cents;
use crate::components::service::DASHBOARD;
use api::jobs::{Approval, ChunkView, Job, JobProblem, JobState, RowState, RowView};
use api::{CardState, Wallet};

/// The rows table's filters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filter {
    All,
    Failed,
    Waiting,
    Bought,
    Pending,
    Released,
}

impl Filter {
    pub const ALL: [Filter; 6] = [
        Filter::All,
        Filter::Failed,
        Filter::Waiting,
        Filter::Bought,
        Filter::Pending,
        Filter::Released,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Filter::All => "All",
            Filter::Failed => "Failed",
            Filter::Waiting => "Waiting for a decision",
            Filter::Bought => "Bought",
            Filter::Pending => "Pending",
            Filter::Released => "Released",
        }
    }

    pub fn admits(self, state: RowState) -> bool {
        match self {
            Filter::All => true,
            Filter::Failed => state == RowState::Failed,
            Filter::Waiting => state == RowState::NeedsDecision,
            Filter::Bought => state == RowState::Bought,
            Filter::Pending => matches!(
                state,
                RowState::Pending | RowState::Quoted | RowState::InBatch
            ),
            Filter::Released => state == RowState::Released,
        }
    }

    pub fn count(self, job: &Job) -> u32 {
        let c = &job.counts;
        match self {
            Filter::All => c.total,
            Filter::Failed => c.failed,
            Filter::Waiting => c.needs_decision,
            Filter::Bought => c.bought,
            Filter::Pending => c.pending + c.quoted + c.in_batch,
            Filter::Released => c.released,
        }
    }
}

pub fn row_state(state: RowState) -> &'static str {
    match state {
        RowState::Pending => "Pending",
        RowState::Quoted => "Quoted",
        RowState::NeedsDecision => "Waiting for a decision",
        RowState::InBatch => "Buying",
        RowState::Bought => "Bought",
        RowState::Failed => "Failed",
        RowState::Skipped => "Skipped",
        RowState::Released => "Released: may be bought",
    }
}

pub fn job_state(state: JobState) -> &'static str {
    match state {
        JobState::Planned => "Planned: nothing bought yet",
        JobState::Quoting => "Quoting",
        JobState::AwaitingApproval => "Waiting for your approval",
        JobState::Buying => "Buying",
        JobState::Paused => "Paused",
        JobState::Stopped => "Stopped",
        JobState::Cancelled => "Cancelled",
        JobState::Completed => "Completed",
    }
}

pub fn approval(a: &Approval) -> String {
    match a {
        Approval::ReviewFirst => "Review every price first".into(),
        Approval::BuyAsQuoted {
            max_row_cents,
            max_total_cents,
        } => format!(
            "Buy as quoted, at most {} a label and {} in all",
            format_cents(*max_row_cents),
            format_cents(*max_total_cents)
        ),
    }
}

/// `75` → `1 min 15 s`; rounded to minutes past ten minutes.
pub fn duration(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds} s"),
        60..600 => match seconds % 60 {
            0 => format!("{} min", seconds / 60),
            s => format!("{} min {s} s", seconds / 60),
        },
        600..3600 => format!("{} min", seconds.div_ceil(60)),
        _ => {
            let minutes = seconds.div_ceil(60);
            format!("{} h {} min", minutes / 60, minutes % 60)
        }
    }
}

/// Each carrier's rows and cost among the rows still to buy or bought.
pub fn by_carrier(rows: &[RowView]) -> Vec<(String, u32, i64)> {
    let mut out: Vec<(String, u32, i64)> = Vec::new();
    for row in rows {
        let Some(q) = &row.quote else { continue };
        if matches!(
            row.state,
            RowState::Failed | RowState::Skipped | RowState::Released
        ) {
            continue;
        }
        match out.iter_mut().find(|(c, ..)| *c == q.carrier) {
            Some((_, n, cents)) => {
                *n += 1;
                *cents += q.rate_cents;
            }
            None => out.push((q.carrier.clone(), 1, q.rate_cents)),
        }
    }
    out.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    out
}

/// The most the job can spend before it is quoted: its ceilings.
pub fn ceiling(job: &Job) -> Option<i64> {
    match job.approval {
        Approval::ReviewFirst => None,
        Approval::BuyAsQuoted {
            max_row_cents,
            max_total_cents,
        } => Some(max_total_cents.min(max_row_cents.saturating_mul(job.counts.total as i64))),
    }
}

/// Every row has its price (or ended): the total is exact.
pub fn all_quoted(job: &Job) -> bool {
    job.counts.pending == 0 && job.state != JobState::Planned
}

/// The live wallet against `(cents, what)`: the ceiling before quoting,
/// the exact total after.
pub fn wallet(w: &Wallet, (cents, what): (i64, &str)) -> String {
    if w.sandbox || w.unlimited {
        return "Sandbox wallet: nothing is charged.".into();
    }
    let balance = format_cents(w.balance_cents);
    if w.balance_cents >= cents {
        return format!(
            "Wallet: {balance}, enough for {what} ({}).",
            format_cents(cents)
        );
    }
    let short = format_cents(cents - w.balance_cents);
    match (w.auto_reload, w.card) {
        (Some(_), CardState::Ok) => format!(
            "Wallet: {balance}, {short} short of {what}: auto-reload charges the card on file as chunks need it."
        ),
        _ => format!(
            "Wallet: {balance}, {short} short of {what}: add funds, or the batch pauses when the wallet runs out."
        ),
    }
}

/// What waits for the merchant, in words (said with `service::with_dashboard`).
pub fn problem(p: &JobProblem) -> String {
    match p {
        JobProblem::NeedsFunds {
            needed_cents,
            balance_cents,
            chunk,
        } => format!(
            "The wallet holds {} but chunk {chunk} needs {}. Add funds, then resume.",
            format_cents(*balance_cents),
            format_cents(*needed_cents)
        ),
        JobProblem::Decisions { rows } => format!(
            "{} rows now cost more than approved. Accept their new prices or skip them.",
            group(*rows as usize)
        ),
        JobProblem::CeilingReached {
            max_total_cents,
            spent_cents,
        } => format!(
            "{} of the {} ceiling is spent; the next rows would pass it. Cancel, or start a new batch with a higher ceiling for the rest.",
            format_cents(*spent_cents),
            format_cents(*max_total_cents)
        ),
        JobProblem::OutcomeUnknown {
            chunk,
            request_id,
            total_cents,
            wallet_before_cents,
            wallet_after_cents,
            ..
        } => format!(
            "Chunk {chunk}'s batch got no clear answer (request {request_id}), so nothing more is sent.{} Release the chunk to go on with the other rows: its rows are kept apart as released, and each can be bought again only once you have checked it has no label.",
            wallet_verdict(*total_cents, *wallet_before_cents, *wallet_after_cents)
                .map(|v| format!(" {v}"))
                .unwrap_or_default()
        ),
        JobProblem::Refused { error } => format!("{} {}", error.message, error.suggestion),
    }
}

/// What the wallet says of a chunk whose creation got no clear answer:
/// before and after, and plainly whether it moved by the chunk's total.
/// Said with `service::with_dashboard`.
pub fn wallet_verdict(total: i64, before: Option<i64>, after: Option<i64>) -> Option<String> {
    let (before, after) = (before?, after?);
    let moved = before - after;
    let head = format!(
        "The wallet held {} before and {} after",
        format_cents(before),
        format_cents(after)
    );
    Some(if moved == total {
        format!(
            "{head}: it moved by exactly the chunk's total, {}. The batch was most likely created and paid; buying its rows again would pay twice.",
            format_cents(total)
        )
    } else if moved == 0 {
        format!(
            "{head}: it did not move, so the batch was most likely not created. Check {DASHBOARD} to be sure."
        )
    } else {
        format!(
            "{head}: it moved by {}, not the chunk's {}, so other purchases happened meanwhile. Check {DASHBOARD} for a batch of {}.",
            format_cents(moved),
            format_cents(total),
            format_cents(total)
        )
    })
}

/// The chunk a released row was in, for its retry's acknowledgment.
pub fn chunk_of<'a>(job: &'a Job, row: &RowView) -> Option<&'a ChunkView> {
    let number = row.chunk?;
    job.chunks.iter().find(|c| c.number == number)
}

/// The polite progress sentence for screen readers.
pub fn announcement(job: &Job) -> String {
    let c = &job.counts;
    let mut text = format!(
        "{} {}%: {} of {} bought, {} failed",
        job_state(job.state),
        job.progress_percentage,
        group(c.bought as usize),
        group(c.total as usize),
        group(c.failed as usize)
    );
    if c.needs_decision > 0 {
        text.push_str(&format!(
            ", {} waiting for a decision",
            group(c.needs_decision as usize)
        ));
    }
    text.push('.');
    text
}

/// Progress is announced at most this often; a new state at once.
pub const ANNOUNCE_EVERY_MS: f64 = 15_000.0;

pub fn announce_now(last_ms: Option<f64>, now_ms: f64, state_changed: bool) -> bool {
    state_changed || last_ms.is_none_or(|last| now_ms - last >= ANNOUNCE_EVERY_MS)
}

/// The tab's title while the job page is open.
pub fn title(job: &Job) -> String {
    let lead = match job.state {
        JobState::Completed => "Done".to_string(),
        JobState::AwaitingApproval | JobState::Paused | JobState::Stopped => {
            "Needs you".to_string()
        }
        JobState::Cancelled => "Cancelled".to_string(),
        JobState::Planned => "Planned".to_string(),
        _ => format!("{}%", job.progress_percentage),
    };
    format!("{lead} · {} · Parcel batches", job.name)
}

/// Whether a change of state deserves a browser notification, and its text.
pub fn notification(before: JobState, job: &Job) -> Option<String> {
    if before == job.state {
        return None;
    }
    let c = &job.counts;
    Some(match job.state {
        JobState::Completed => format!(
            "{}: {} bought, {} failed.",
            job.name,
            group(c.bought as usize),
            group(c.failed as usize)
        ),
        JobState::Cancelled => format!("{} was cancelled.", job.name),
        JobState::AwaitingApproval => format!(
            "{}: every row is quoted; approve the total to buy.",
            job.name
        ),
        JobState::Paused | JobState::Stopped => format!(
            "{} needs you: {}",
            job.name,
            job.problem.as_ref().map(problem).unwrap_or_default()
        ),
        _ => return None,
    })
}

/// How many merged label PDFs the bought rows make.
pub fn label_parts(bought: u32) -> u32 {
    bought.div_ceil(api::jobs::LABELS_PER_PDF as u32)
}

/// The table's rows in view: from the scroll offset, the viewport's
/// height and the row height (px), with `overscan` more each side.
pub fn window(
    scroll_top: f64,
    height: f64,
    row_px: f64,
    total: usize,
    overscan: usize,
) -> (usize, usize) {
    let first = (scroll_top.max(0.0) / row_px).floor() as usize;
    let shown = (height / row_px).ceil() as usize + 1;
    let start = first.saturating_sub(overscan).min(total);
    let end = (first + shown + overscan).min(total);
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wallet_says_plainly_whether_a_lost_chunk_was_charged() {
        let charged = wallet_verdict(2_500, Some(10_000), Some(7_500)).unwrap();
        assert!(
            charged.contains("$100.00 before and $75.00 after"),
            "{charged}"
        );
        assert!(
            charged.contains("moved by exactly the chunk's total, $25.00"),
            "{charged}"
        );
        assert!(charged.contains("would pay twice"), "{charged}");
        let untouched = wallet_verdict(2_500, Some(10_000), Some(10_000)).unwrap();
        assert!(untouched.contains("did not move"), "{untouched}");
        assert!(
            untouched.ends_with("Check {dashboard} to be sure."),
            "{untouched}"
        );
        let other = wallet_verdict(2_500, Some(10_000), Some(9_000)).unwrap();
        assert!(
            other.contains("moved by $10.00, not the chunk's $25.00"),
            "{other}"
        );
        assert_eq!(
            wallet_verdict(2_500, Some(10_000), None),
            None,
            "sandbox or unread"
        );
    }
    use api::jobs::RowQuote;

    #[test]
    fn the_wallet_against_the_ceiling_or_the_total() {
        let mut w = Wallet {
            balance_cents: 10_000,
            currency: "USD".into(),
            sandbox: false,
            unlimited: false,
            auto_reload: None,
            card: CardState::Missing,
        };
        assert_eq!(
            wallet(&w, (5_000, "the total")),
            "Wallet: $100.00, enough for the total ($50.00)."
        );
        assert_eq!(
            wallet(&w, (25_000, "the ceiling")),
            "Wallet: $100.00, $150.00 short of the ceiling: add funds, or the batch pauses when the wallet runs out."
        );
        w.auto_reload = Some(api::AutoReload {
            threshold_cents: 0,
            amount_cents: 5_000,
        });
        w.card = CardState::Ok;
        assert!(
            wallet(&w, (25_000, "the total"))
                .ends_with("auto-reload charges the card on file as chunks need it.")
        );
        w.sandbox = true;
        assert_eq!(
            wallet(&w, (25_000, "the total")),
            "Sandbox wallet: nothing is charged."
        );
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(duration(45), "45 s");
        assert_eq!(duration(75), "1 min 15 s");
        assert_eq!(duration(120), "2 min");
        assert_eq!(duration(1501), "26 min");
        assert_eq!(duration(3600 * 2 + 61), "2 h 2 min");
    }

    #[test]
    fn filters_split_the_states() {
        for state in RowState::ALL {
            let matching: Vec<Filter> = Filter::ALL[1..]
                .iter()
                .copied()
                .filter(|f| f.admits(state))
                .collect();
            assert!(matching.len() <= 1, "{state:?}");
            assert!(Filter::All.admits(state));
        }
        assert!(Filter::Pending.admits(RowState::InBatch));
        assert!(!Filter::Pending.admits(RowState::Skipped));
    }

    #[test]
    fn the_window_covers_the_viewport_and_stops_at_the_ends() {
        assert_eq!(window(0.0, 400.0, 40.0, 5000, 5), (0, 16));
        assert_eq!(window(4000.0, 400.0, 40.0, 5000, 5), (95, 116));
        assert_eq!(window(200_000.0, 400.0, 40.0, 5000, 5), (4995, 5000));
        assert_eq!(window(0.0, 400.0, 40.0, 3, 5), (0, 3));
    }

    #[test]
    fn announcements_are_throttled_but_a_new_state_is_said_at_once() {
        assert!(announce_now(None, 0.0, false));
        assert!(!announce_now(Some(1000.0), 5000.0, false));
        assert!(announce_now(Some(1000.0), 16_000.0, false));
        assert!(announce_now(Some(1000.0), 1001.0, true));
    }

    fn row(index: u32, state: RowState, carrier: &str, cents: i64) -> RowView {
        RowView {
            index,
            reference: format!("#{index}"),
            state,
            to_address: api::Address {
                name: "A".into(),
                street1: "1".into(),
                street2: None,
                city: "C".into(),
                state: "NY".into(),
                zip: "1".into(),
                country: "US".into(),
                phone: None,
                email: None,
            },
            parcel: api::Parcel {
                weight_oz: 1.0,
                length: 1.0,
                width: 1.0,
                height: 1.0,
            },
            quote: Some(RowQuote {
                rate_id: "r".into(),
                carrier: carrier.into(),
                service: "Ground".into(),
                rate_cents: cents,
                carbon_grams: 1,
                carrier_eta: "2026-01-01".into(),
                quoted_at: 0,
                offered: None,
            }),
            approved_cents: None,
            chunk: None,
            batch_id: None,
            label_id: None,
            tracking_number: None,
            error: None,
        }
    }

    #[test]
    fn the_cost_per_carrier_leaves_out_failed_and_skipped_rows() {
        let rows = [
            row(0, RowState::Quoted, "Atlas", 500),
            row(1, RowState::Bought, "Comet", 900),
            row(2, RowState::Quoted, "Atlas", 700),
            row(3, RowState::Failed, "Comet", 10_000),
            row(4, RowState::Skipped, "Comet", 10_000),
        ];
        assert_eq!(
            by_carrier(&rows),
            [
                ("Atlas".to_string(), 2, 1200),
                ("Comet".to_string(), 1, 900)
            ]
        );
        assert_eq!(label_parts(0), 0);
        assert_eq!(label_parts(100), 1);
        assert_eq!(label_parts(4980), 50);
    }
}
