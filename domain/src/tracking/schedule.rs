//! When a label's tracker is registered and read next. A label is followed
//! from its purchase until it is delivered or `FOLLOW_FOR` has passed: read
//! hourly before and in transit, every 15 minutes out for delivery, every
//! 6 hours while the carrier does not know the number, never after
//! delivery. A registration that fails is tried again after 1, 5 and 30
//! minutes, then every 2 hours; the purchase never waits for it.

use api::TrackerStatus;
use serde::{Deserialize, Serialize};

const MINUTE: u64 = 60;
const HOUR: u64 = 3600;

/// How long after its purchase a label is followed at most.
pub const FOLLOW_FOR: u64 = 30 * 24 * HOUR;

/// Delays before the registration's next attempt, by failures so far; the
/// last repeats.
const REGISTER_RETRY: [u64; 4] = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR];

/// How often a tracker of `status` is read; `None`: never again.
pub fn read_every(status: TrackerStatus) -> Option<u64> {
    match status {
        TrackerStatus::PreTransit | TrackerStatus::InTransit => Some(HOUR),
        TrackerStatus::OutForDelivery => Some(15 * MINUTE),
        TrackerStatus::Unknown => Some(6 * HOUR),
        TrackerStatus::Delivered => None,
    }
}

/// Where following one label stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Follow {
    /// No tracker yet: register at `due` (after `failures` failed attempts).
    Registering { failures: u32, due: u64 },
    /// Tracker `id` read last with `status`; read again at `due`, or never.
    Following {
        id: String,
        status: TrackerStatus,
        due: Option<u64>,
    },
    /// The service refused to track the number (not retried), or the
    /// label is past `FOLLOW_FOR` without a tracker.
    Abandoned,
}

/// What one call to the service came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// 2xx: the tracker as the service has it.
    Tracked(TrackerStatus),
    /// No answer, a 5xx, a 429 or a refused key: try again later.
    Retry,
    /// Another 4xx (the number or tracker is unknown to the service).
    Refused,
}

impl Follow {
    /// A label bought at `bought_at`: registered at once.
    pub fn new(bought_at: u64) -> Follow {
        Follow::Registering {
            failures: 0,
            due: bought_at,
        }
    }

    /// When a call is next due, if ever.
    pub fn due(&self) -> Option<u64> {
        match self {
            Follow::Registering { due, .. } => Some(*due),
            Follow::Following { due, .. } => *due,
            Follow::Abandoned => None,
        }
    }

    /// After `POST /v1/trackers` at `now`: `tracker` is the new id when it
    /// was made.
    pub fn registered(
        self,
        outcome: Outcome,
        tracker: Option<String>,
        now: u64,
        bought_at: u64,
    ) -> Follow {
        let Follow::Registering { failures, .. } = self else {
            return self;
        };
        match (outcome, tracker) {
            (Outcome::Tracked(status), Some(id)) => Follow::Following {
                id,
                status,
                due: next_read(status, now, bought_at),
            },
            (Outcome::Refused, _) => Follow::Abandoned,
            _ => {
                let wait = REGISTER_RETRY[(failures as usize).min(REGISTER_RETRY.len() - 1)];
                let due = now + wait;
                if due >= bought_at + FOLLOW_FOR {
                    Follow::Abandoned
                } else {
                    Follow::Registering {
                        failures: failures + 1,
                        due,
                    }
                }
            }
        }
    }

    /// After `GET /v1/trackers/{id}` at `now`.
    pub fn read(self, outcome: Outcome, now: u64, bought_at: u64) -> Follow {
        let Follow::Following { id, status, .. } = self else {
            return self;
        };
        let status = match outcome {
            Outcome::Tracked(status) => status,
            Outcome::Retry => status,
            Outcome::Refused => return Follow::Abandoned,
        };
        let due = next_read(status, now, bought_at);
        Follow::Following { id, status, due }
    }
}

/// The next read of a tracker read at `now` with `status`, within the time
/// a label is followed.
fn next_read(status: TrackerStatus, now: u64, bought_at: u64) -> Option<u64> {
    let next = now + read_every(status)?;
    (next < bought_at + FOLLOW_FOR).then_some(next)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_sets_the_pace_and_delivery_ends_it() {
        let f = Follow::new(1_000).registered(
            Outcome::Tracked(TrackerStatus::PreTransit),
            Some("trk_1".into()),
            1_000,
            1_000,
        );
        assert_eq!(f.due(), Some(1_000 + HOUR));
        let f = f.read(
            Outcome::Tracked(TrackerStatus::OutForDelivery),
            5_000,
            1_000,
        );
        assert_eq!(f.due(), Some(5_000 + 15 * MINUTE));
        let f = f.read(Outcome::Tracked(TrackerStatus::Delivered), 6_000, 1_000);
        assert_eq!(f.due(), None);
    }

    #[test]
    fn failed_registrations_back_off_and_end() {
        let mut f = Follow::new(0);
        let mut waits = Vec::new();
        let mut now = 0;
        for _ in 0..5 {
            f = f.registered(Outcome::Retry, None, now, 0);
            let due = f.due().unwrap();
            waits.push(due - now);
            now = due;
        }
        assert_eq!(waits, [60, 300, 1_800, 7_200, 7_200]);
        assert_eq!(
            Follow::new(0).registered(Outcome::Refused, None, 0, 0),
            Follow::Abandoned
        );
        let late = Follow::Registering {
            failures: 9,
            due: FOLLOW_FOR - 10,
        };
        assert_eq!(
            late.registered(Outcome::Retry, None, FOLLOW_FOR - 10, 0),
            Follow::Abandoned
        );
    }

    #[test]
    fn a_failed_read_keeps_the_status_and_the_pace() {
        let f = Follow::Following {
            id: "trk_1".into(),
            status: TrackerStatus::InTransit,
            due: Some(100),
        };
        let f = f.read(Outcome::Retry, 100, 0);
        assert_eq!(f.due(), Some(100 + HOUR));
        assert_eq!(f.read(Outcome::Refused, 200, 0), Follow::Abandoned);
        let old = Follow::Following {
            id: "trk_1".into(),
            status: TrackerStatus::InTransit,
            due: Some(FOLLOW_FOR),
        };
        assert_eq!(old.read(Outcome::Retry, FOLLOW_FOR - 60, 0).due(), None);
    }
}
