//! Session checks this isolate made against the control store: a session
//! found valid is trusted for [`SESSION_CHECK_SECONDS`] before asking
//! again; a signed-out one stays signed out. Sign-out in this isolate is
//! immediate; in others it takes effect within that time. Bounded.

use std::cell::RefCell;
use std::collections::HashMap;

pub const SESSION_CHECK_SECONDS: u64 = 30;
const MAX_SESSIONS: usize = 10_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SessionSeen {
    ValidUntil(u64),
    Revoked,
}

#[derive(Default)]
pub struct SessionChecks {
    sessions: HashMap<String, SessionSeen>,
}

impl SessionChecks {
    /// What this isolate knows of a session: `None` means ask the store.
    pub fn seen(&self, sid: &str, now: u64) -> Option<SessionSeen> {
        match self.sessions.get(sid) {
            Some(SessionSeen::ValidUntil(t)) if now < *t => Some(SessionSeen::ValidUntil(*t)),
            Some(SessionSeen::Revoked) => Some(SessionSeen::Revoked),
            _ => None,
        }
    }

    pub fn remember(&mut self, sid: &str, revoked: bool, now: u64) {
        if self.sessions.len() >= MAX_SESSIONS {
            self.sessions.clear();
        }
        let seen = if revoked {
            SessionSeen::Revoked
        } else {
            SessionSeen::ValidUntil(now + SESSION_CHECK_SECONDS)
        };
        self.sessions.insert(sid.to_string(), seen);
    }
}

thread_local! {
    static CHECKS: RefCell<SessionChecks> = RefCell::new(SessionChecks::default());
}

pub fn seen(sid: &str, now: u64) -> Option<SessionSeen> {
    CHECKS.with(|c| c.borrow().seen(sid, now))
}

pub fn remember(sid: &str, revoked: bool, now: u64) {
    CHECKS.with(|c| c.borrow_mut().remember(sid, revoked, now));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_checks_expire_but_revocations_stick() {
        let mut c = SessionChecks::default();
        assert_eq!(c.seen("s", 1_000), None);
        c.remember("s", false, 1_000);
        assert!(matches!(
            c.seen("s", 1_029),
            Some(SessionSeen::ValidUntil(_))
        ));
        assert_eq!(c.seen("s", 1_030), None);
        c.remember("s", true, 1_030);
        assert_eq!(c.seen("s", 9_999), Some(SessionSeen::Revoked));
    }
}
