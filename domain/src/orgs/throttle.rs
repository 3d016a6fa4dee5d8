//! Sign-in throttling, by source first (docs/organizations.md, "Sign-in
//! throttling"): guessing is stopped where it comes from, and nobody's
//! failures can keep a person out.
//!
//! - **One client address and one account** ([`Pair`]): the first
//!   [`FREE_TRIES`] wrong passwords are answered at once; then the address
//!   waits [`FIRST_WAIT`] seconds, twice as long after each further
//!   failure; the [`LOCK_AFTER`]th refuses that address for that account
//!   for [`LOCK_SECONDS`]. A try during a wait is answered with what is
//!   left of it; once told, another try before it ends counts as a failure
//!   (a script that does not wait locks itself out; a person who waits
//!   loses nothing).
//! - **One client address** ([`Failures`]), every account and token:
//!   [`ADDRESS_FAILURES`] in [`WINDOW_SECONDS`], then refused there until
//!   the window ends.
//! - **One account** ([`AccountCount`]), from every address: from
//!   [`ACCOUNT_SLOW_AFTER`] failed checks on, a password from an address
//!   that has never signed this person in waits [`ACCOUNT_FIRST_WAIT`]
//!   seconds after the last failure, twice as long every
//!   [`ACCOUNT_SLOW_AFTER`] failures more, at most [`ACCOUNT_MAX_WAIT`]. It
//!   slows a guesser with many addresses and blocks nobody: an address that
//!   signed the person in before is never slowed by it, nor is a passkey.
//!
//! Accounts are counted by email, known or not, so the answers do not tell
//! which emails exist. Only passwords actually checked count against the
//! account and the address.

use serde::{Deserialize, Serialize};

/// Wrong passwords from one address for one account answered at once.
pub const FREE_TRIES: u32 = 3;
/// The wait after the last free try, doubling with each failure after it.
pub const FIRST_WAIT: u64 = 5;
/// The failure that refuses the address for the account.
pub const LOCK_AFTER: u32 = 10;
pub const LOCK_SECONDS: u64 = 15 * 60;
/// One address's count for one account is forgotten this long after its
/// last failure (so a lock ends with it).
pub const PAIR_MEMORY: u64 = LOCK_SECONDS;

/// Failures allowed per client address in one window (an office shares one).
pub const ADDRESS_FAILURES: u32 = 30;
pub const WINDOW_SECONDS: u64 = 15 * 60;

/// Failed checks of an account, from anywhere, before new addresses wait.
pub const ACCOUNT_SLOW_AFTER: u32 = 10;
pub const ACCOUNT_FIRST_WAIT: u64 = 5;
/// The longest a new address waits for the account: what the person
/// waits at a new address while their account is under attack.
pub const ACCOUNT_MAX_WAIT: u64 = 5 * 60;
/// An account's count is forgotten a day after its last failure.
pub const ACCOUNT_MEMORY: u64 = 24 * 60 * 60;
/// Addresses that signed a person in are kept this long after their last
/// sign-in, the newest [`KNOWN_MAX`].
pub const KNOWN_MEMORY: u64 = 90 * 24 * 60 * 60;
pub const KNOWN_MAX: usize = 20;
/// Addresses named when an account starts to be slowed.
const NAMED_ADDRESSES: usize = 10;

/// A count of failures in a fixed window (one client address's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Failures {
    pub count: u32,
    pub window_start: u64,
}

impl Failures {
    /// Seconds until another attempt is allowed, if the limit is reached.
    pub fn retry_after(&self, limit: u32, now: u64) -> Option<u64> {
        let ends = self.window_start + WINDOW_SECONDS;
        (self.count >= limit && now < ends).then(|| ends - now)
    }

    /// The state after one more failure at `now`.
    pub fn fail(self, now: u64) -> Failures {
        if now >= self.window_start + WINDOW_SECONDS {
            Failures {
                count: 1,
                window_start: now,
            }
        } else {
            Failures {
                count: self.count.saturating_add(1),
                ..self
            }
        }
    }
}

/// One client address's failures for one account.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Pair {
    pub failures: u32,
    /// When the last one was.
    pub last: u64,
    /// Whether an answer said to wait since then.
    pub told: bool,
}

impl Pair {
    /// The wait after `failures`, if any.
    pub fn wait_after(failures: u32) -> Option<u64> {
        match failures {
            f if f < FREE_TRIES => None,
            f if f >= LOCK_AFTER => Some(LOCK_SECONDS),
            f => Some(FIRST_WAIT << (f - FREE_TRIES)),
        }
    }

    fn current(self, now: u64) -> Pair {
        if now >= self.last.saturating_add(PAIR_MEMORY) {
            Pair::default()
        } else {
            self
        }
    }

    /// Seconds left of its wait at `now`.
    fn waiting(&self, now: u64) -> Option<u64> {
        let ends = self.last + Pair::wait_after(self.failures)?;
        (now < ends).then(|| ends - now)
    }

    pub fn locked(&self, now: u64) -> bool {
        self.failures >= LOCK_AFTER && now < self.last + LOCK_SECONDS
    }

    fn fail(&mut self, now: u64) -> Option<Event> {
        self.failures = self.failures.saturating_add(1);
        self.last = now;
        self.told = false;
        (self.failures == LOCK_AFTER).then_some(Event::Locked)
    }
}

/// One account's failed checks, from every address.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct AccountCount {
    pub failures: u32,
    pub last: u64,
    /// The addresses of its latest failures, newest last, each once.
    pub addresses: Vec<String>,
}

impl AccountCount {
    /// How long an address new to the account waits after its last failure.
    pub fn wait_after(failures: u32) -> Option<u64> {
        let over = failures.checked_sub(ACCOUNT_SLOW_AFTER)?;
        let doublings = (over / ACCOUNT_SLOW_AFTER).min(16);
        Some((ACCOUNT_FIRST_WAIT << doublings).min(ACCOUNT_MAX_WAIT))
    }

    fn current(self, now: u64) -> AccountCount {
        if now >= self.last.saturating_add(ACCOUNT_MEMORY) {
            AccountCount::default()
        } else {
            self
        }
    }

    fn waiting(&self, now: u64) -> Option<u64> {
        let ends = self.last + AccountCount::wait_after(self.failures)?;
        (now < ends).then(|| ends - now)
    }

    fn fail(&mut self, address: &str, now: u64) -> Option<Event> {
        self.failures = self.failures.saturating_add(1);
        self.last = now;
        self.addresses.retain(|a| a != address);
        self.addresses.push(address.to_string());
        if self.addresses.len() > NAMED_ADDRESSES {
            self.addresses.remove(0);
        }
        (self.failures == ACCOUNT_SLOW_AFTER).then(|| Event::Slowed {
            addresses: self.addresses.clone(),
        })
    }
}

/// What the audit log is told, with the account's email and the address.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Event {
    /// The address is refused for the account.
    Locked,
    /// New addresses wait for the account; these failed last.
    Slowed { addresses: Vec<String> },
    /// A passkey signed the person in at the locked address.
    Unlocked,
}

impl Event {
    /// The entry's action and its words.
    pub fn audit(&self, email: &str, address: &str) -> (api::orgs::AuditAction, String) {
        use api::orgs::AuditAction;
        match self {
            Event::Locked => (
                AuditAction::SignInLocked,
                format!(
                    "{email}: {LOCK_AFTER} failed sign-ins from {address}; passwords from there are refused for {} minutes (a passkey still signs in)",
                    LOCK_SECONDS / 60
                ),
            ),
            Event::Slowed { addresses } => (
                AuditAction::SignInSlowed,
                format!(
                    "{email}: {ACCOUNT_SLOW_AFTER} failed sign-ins, latest from {}; passwords from addresses that never signed them in now wait up to {} minutes",
                    addresses.join(", "),
                    ACCOUNT_MAX_WAIT / 60
                ),
            ),
            Event::Unlocked => (
                AuditAction::SignInUnlocked,
                format!("{email}: signed in with a passkey from {address}, which lifted its lock"),
            ),
        }
    }
}

/// What the directory holds about one account and one client address.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Held {
    pub pair: Pair,
    pub account: AccountCount,
    /// Whether the address signed the person in before.
    pub known: bool,
}

/// Before a password is checked: wait this long, or check it now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gated {
    pub wait: Option<u64>,
    /// A try told to wait that waited not, and so locked the address.
    pub event: Option<Event>,
}

impl Held {
    /// Whether a password from the address may be checked now. A try
    /// during the address's wait is answered with what is left of it,
    /// and counts as a failure once it was told; the account's wait holds
    /// for addresses new to it and counts nothing.
    pub fn gate(&mut self, now: u64) -> Gated {
        self.pair = self.pair.current(now);
        self.account = std::mem::take(&mut self.account).current(now);
        if let Some(left) = self.pair.waiting(now) {
            if !self.pair.told || self.pair.locked(now) {
                self.pair.told = true;
                return Gated {
                    wait: Some(left),
                    event: None,
                };
            }
            let event = self.pair.fail(now);
            self.pair.told = true;
            return Gated {
                wait: self.pair.waiting(now),
                event,
            };
        }
        let wait = (!self.known).then(|| self.account.waiting(now)).flatten();
        Gated { wait, event: None }
    }

    /// A wrong password (or no such account) from `address`.
    pub fn failed(&mut self, address: &str, now: u64) -> Vec<Event> {
        self.pair = self.pair.current(now);
        self.account = std::mem::take(&mut self.account).current(now);
        let locked = self.pair.fail(now);
        let slowed = self.account.fail(address, now);
        locked.into_iter().chain(slowed).collect()
    }

    /// The person signed in from the address (a passkey, or a password,
    /// which the gate let through): its count is cleared and it is theirs
    /// from now on. A passkey lifts a lock.
    pub fn signed_in(&mut self, now: u64) -> Option<Event> {
        let lifted = self.pair.current(now).locked(now);
        self.pair = Pair::default();
        self.known = true;
        lifted.then_some(Event::Unlocked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_limit_holds_for_the_window_then_resets() {
        let mut f = Failures::default();
        for i in 0..ADDRESS_FAILURES {
            assert_eq!(f.retry_after(ADDRESS_FAILURES, 1_000 + u64::from(i)), None);
            f = f.fail(1_000 + u64::from(i));
        }
        assert_eq!(f.window_start, 1_000);
        assert_eq!(
            f.retry_after(ADDRESS_FAILURES, 1_040),
            Some(WINDOW_SECONDS - 40)
        );
        let after = 1_000 + WINDOW_SECONDS;
        assert_eq!(f.retry_after(ADDRESS_FAILURES, after), None);
        assert_eq!(
            f.fail(after),
            Failures {
                count: 1,
                window_start: after
            }
        );
    }

    const T: u64 = 1_000_000;

    /// Tries `n` wrong passwords as fast as answered; returns each answer
    /// (`None`: checked and wrong; `Some(wait)`: told to wait) and the events.
    fn hammer(held: &mut Held, n: usize, now: u64) -> (Vec<Option<u64>>, Vec<Event>) {
        let (mut answers, mut events) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let gated = held.gate(now);
            events.extend(gated.event);
            match gated.wait {
                Some(wait) => answers.push(Some(wait)),
                None => {
                    events.extend(held.failed("203.0.113.9", now));
                    answers.push(None);
                }
            }
        }
        (answers, events)
    }

    #[test]
    fn a_script_that_does_not_wait_gets_three_checks_then_growing_waits_then_a_lock() {
        let mut held = Held::default();
        let (answers, events) = hammer(&mut held, 50, T);
        assert_eq!(&answers[..3], &[None, None, None]);
        // Told of the 5 s wait, then each try that does not wait doubles it.
        let waits: Vec<u64> = answers[3..11].iter().map(|a| a.unwrap()).collect();
        assert_eq!(waits, [5, 10, 20, 40, 80, 160, 320, LOCK_SECONDS]);
        assert!(
            answers[11..].iter().all(|a| *a == Some(LOCK_SECONDS)),
            "the lock is not lengthened"
        );
        assert_eq!(events, [Event::Locked], "one lock, reported once");
        // The account saw three checks: nobody else waits for it.
        assert_eq!(held.account.failures, 3);
        assert!(held.pair.locked(T + LOCK_SECONDS - 1));
        // The lock ends with its fifteen minutes: three tries again.
        let mut later = held.clone();
        assert_eq!(later.gate(T + LOCK_SECONDS).wait, None);
        assert_eq!(later.pair, Pair::default());
    }

    #[test]
    fn a_person_who_waits_is_checked_each_time_until_the_tenth_failure() {
        let mut held = Held::default();
        let mut now = T;
        let mut checks = 0;
        let mut events = Vec::new();
        for _ in 0..200 {
            let gated = held.gate(now);
            events.extend(gated.event);
            match gated.wait {
                Some(wait) if wait > 320 => break,
                // Waiting out what they were told: no more is counted.
                Some(wait) => now += wait,
                None => {
                    checks += 1;
                    events.extend(held.failed("198.51.100.7", now));
                }
            }
        }
        assert_eq!(checks, LOCK_AFTER);
        // Ten checks of the account too: new addresses now wait for it.
        let slowed = Event::Slowed {
            addresses: vec!["198.51.100.7".into()],
        };
        assert_eq!(events, [Event::Locked, slowed]);
        // 5 + 10 + ... + 320 seconds of waits between them.
        assert_eq!(now - T, 635);
    }

    #[test]
    fn the_account_slows_new_addresses_only_and_never_for_long() {
        let mut account = AccountCount::default();
        let mut slowed = Vec::new();
        for i in 0..ACCOUNT_SLOW_AFTER {
            slowed.extend(account.fail(&format!("203.0.113.{i}"), T));
        }
        let Some(Event::Slowed { addresses }) = slowed.pop() else {
            panic!("the tenth failure slows the account")
        };
        assert_eq!(addresses.len(), 10);
        assert_eq!(addresses[0], "203.0.113.0");
        let mut stranger = Held {
            account: account.clone(),
            ..Held::default()
        };
        assert_eq!(stranger.gate(T + 1).wait, Some(4));
        // Trying again neither restarts nor lengthens the wait, nor counts.
        assert_eq!(stranger.gate(T + 2).wait, Some(3));
        assert_eq!(stranger.account.failures, ACCOUNT_SLOW_AFTER);
        assert_eq!(stranger.gate(T + 5).wait, None);
        // An address that signed the person in before is not slowed.
        let mut home = Held {
            account,
            known: true,
            ..Held::default()
        };
        assert_eq!(home.gate(T + 1).wait, None);
        // However many failures: doubling every ten, never more than five minutes.
        assert_eq!(AccountCount::wait_after(19), Some(5));
        assert_eq!(AccountCount::wait_after(20), Some(10));
        assert_eq!(AccountCount::wait_after(60), Some(160));
        assert_eq!(AccountCount::wait_after(u32::MAX), Some(ACCOUNT_MAX_WAIT));
        assert_eq!(AccountCount::wait_after(9), None);
    }

    #[test]
    fn counts_are_forgotten_and_a_sign_in_clears_the_address_and_makes_it_known() {
        let mut held = Held::default();
        hammer(&mut held, 2, T);
        let mut next_day = held.clone();
        next_day.gate(T + ACCOUNT_MEMORY);
        assert_eq!(
            (next_day.pair, next_day.account.failures),
            (Pair::default(), 0)
        );
        assert_eq!(held.signed_in(T + 1), None, "nothing was locked");
        assert!(held.known);
        assert_eq!(held.pair, Pair::default());
        assert_eq!(held.account.failures, 2, "the account's count stays");
        // A passkey at a locked address lifts the lock, and says so.
        let mut locked = Held::default();
        hammer(&mut locked, 20, T);
        assert_eq!(locked.signed_in(T + 10), Some(Event::Unlocked));
        assert_eq!(locked.gate(T + 11).wait, None);
    }

    #[test]
    fn the_audit_says_whose_account_and_which_addresses() {
        let (action, detail) = Event::Locked.audit("ada@example.com", "203.0.113.9");
        assert_eq!(action, api::orgs::AuditAction::SignInLocked);
        assert!(
            detail.contains("ada@example.com") && detail.contains("203.0.113.9"),
            "{detail}"
        );
        let slowed = Event::Slowed {
            addresses: vec!["203.0.113.9".into(), "198.51.100.2".into()],
        };
        let (_, detail) = slowed.audit("ada@example.com", "198.51.100.2");
        assert!(detail.contains("203.0.113.9, 198.51.100.2"), "{detail}");
        let (_, detail) = Event::Unlocked.audit("ada@example.com", "203.0.113.9");
        assert!(
            detail.contains("passkey") && detail.contains("203.0.113.9"),
            "{detail}"
        );
    }
}
