//! The share of a key's per-minute limits that following labels may take.
//! The service counts each endpoint's calls per key in fixed minutes whose
//! edges we may not know (its clock is its own), so the trackers count
//! their calls over any 60 seconds (`cap` in every sliding minute is at
//! most `cap` in every fixed one), which leaves the others (people, the
//! widget, batch jobs) their reserve in every minute, and never send more
//! than the service's last answer said remains.

use api::{ENDPOINTS, EndpointId};
use serde::{Deserialize, Serialize};

/// The fraction of each limit the trackers may use.
pub const SHARE: f64 = 0.25;

/// At most this many calls per alarm (a Worker invocation's subrequests
/// are limited, and a short alarm keeps the object free for the pages).
pub const PER_ALARM: usize = 40;

/// The service's windows are minutes.
const WINDOW: u64 = 60;

/// What an answer said of the limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// `X-RateLimit-Limit`, `-Remaining` and `-Reset` (the service's clock).
    Limits {
        limit: u32,
        remaining: u32,
        reset_at: u64,
    },
    /// 429 with `Retry-After` seconds.
    TooMany { retry_after: u64 },
    /// No answer, or one without the headers.
    Silent,
}

/// What the service last said remained, and until when that holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Seen {
    remaining: u32,
    until: u64,
}

/// One endpoint's budget for the trackers of one key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    limit: u32,
    /// When each of the trackers' calls of the last minute was sent.
    sent: Vec<u64>,
    seen: Option<Seen>,
    blocked_until: u64,
}

impl Budget {
    /// At `endpoint`'s limit in the v1 table until an answer says otherwise.
    pub fn new(endpoint: EndpointId) -> Budget {
        let limit = ENDPOINTS
            .iter()
            .find(|e| e.id == endpoint)
            .map_or(1, |e| e.limit_per_minute);
        Budget {
            limit,
            sent: Vec::new(),
            seen: None,
            blocked_until: 0,
        }
    }

    /// The trackers' calls per minute.
    pub fn cap(&self) -> u32 {
        (f64::from(self.limit) * SHARE).floor() as u32
    }

    /// What is kept for everyone else each minute.
    pub fn reserve(&self) -> u32 {
        self.limit - self.cap()
    }

    /// How many calls may be sent now.
    pub fn allowance(&self, now: u64) -> u32 {
        if now < self.blocked_until {
            return 0;
        }
        let recent = self.sent.iter().filter(|t| **t + WINDOW > now).count() as u32;
        let own = self.cap().saturating_sub(recent);
        match self.seen {
            Some(s) if now < s.until => own.min(s.remaining),
            _ => own,
        }
    }

    /// One call is sent at `now` (before its answer).
    pub fn spend(&mut self, now: u64) {
        self.sent.retain(|t| *t + WINDOW > now);
        self.sent.push(now);
        if let Some(s) = &mut self.seen {
            s.remaining = s.remaining.saturating_sub(1);
        }
    }

    /// The answer to the call last sent, at `now`.
    pub fn observe(&mut self, now: u64, answer: Answer) {
        match answer {
            Answer::Limits {
                limit,
                remaining,
                reset_at,
            } => {
                self.limit = limit.max(1);
                // A reset this minute is believed; one further off is the
                // service's own clock, so what it said holds a whole minute.
                let until = if reset_at > now && reset_at <= now + WINDOW {
                    reset_at
                } else {
                    now + WINDOW
                };
                self.seen = Some(Seen { remaining, until });
            }
            Answer::TooMany { retry_after } => {
                self.blocked_until = now + retry_after.clamp(1, WINDOW);
            }
            Answer::Silent => {}
        }
    }

    /// The earliest time from `now` at which a call may be sent.
    pub fn available_at(&self, now: u64) -> u64 {
        let mut at = now.max(self.blocked_until);
        // Each candidate is when one of the bounds lifts: a call of the
        // last minute ages out, or the service's word expires.
        loop {
            if self.allowance(at) > 0 {
                return at;
            }
            let next = self
                .sent
                .iter()
                .map(|t| t + WINDOW)
                .chain(self.seen.map(|s| s.until))
                .filter(|t| *t > at)
                .min();
            match next {
                Some(next) => at = next,
                // Nothing recorded bounds it: the cap itself is 0.
                None => return at + WINDOW,
            }
        }
    }
}

/// When the object should wake for calls first due at `due`, given the budget.
pub fn wake_at(now: u64, due: Option<u64>, budget: &Budget) -> Option<u64> {
    due.map(|d| budget.available_at(d.max(now)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trackers_take_their_share_and_no_more() {
        let mut b = Budget::new(EndpointId::GetTracker);
        assert_eq!((b.cap(), b.reserve()), (75, 225));
        for _ in 0..75 {
            assert!(b.allowance(10) > 0);
            b.spend(10);
        }
        assert_eq!(b.allowance(10), 0);
        assert_eq!(b.available_at(10), 70);
    }

    #[test]
    fn others_busy_leave_the_trackers_waiting() {
        let mut b = Budget::new(EndpointId::CreateTracker);
        b.spend(0);
        // Others went past their reserve: never more than what remains.
        b.observe(
            0,
            Answer::Limits {
                limit: 200,
                remaining: 10,
                reset_at: 30,
            },
        );
        assert_eq!(b.allowance(0), 10);
        assert_eq!(b.available_at(0), 0);
        b.observe(
            1,
            Answer::Limits {
                limit: 200,
                remaining: 0,
                reset_at: 30,
            },
        );
        assert_eq!(b.allowance(1), 0);
        assert_eq!(b.available_at(1), 30);
        // A reset on another clock holds the word for a minute.
        b.observe(
            2,
            Answer::Limits {
                limit: 200,
                remaining: 0,
                reset_at: 9_000_000,
            },
        );
        assert_eq!(b.available_at(2), 62);
    }

    #[test]
    fn a_429_waits_out_its_retry_after_and_raised_limits_count() {
        let mut b = Budget::new(EndpointId::GetTracker);
        b.observe(5, Answer::TooMany { retry_after: 20 });
        assert_eq!(b.allowance(24), 0);
        assert_eq!(b.available_at(5), 25);
        b.observe(
            30,
            Answer::Limits {
                limit: 3_000,
                remaining: 2_999,
                reset_at: 60,
            },
        );
        assert_eq!(b.cap(), 750);
        assert_eq!(wake_at(30, Some(10), &b), Some(30));
        assert_eq!(wake_at(30, None, &b), None);
    }
}
