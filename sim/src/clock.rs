//! The simulated clock: real time plus an offset that `/__sim/clock/advance`
//! moves forward, so tests reach "15 minutes later" without sleeping. It can
//! be frozen, so that only `advance` moves it and a test that counts what
//! happens per simulated second is not disturbed by the real one ticking.

use std::sync::{Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

#[derive(Debug, Default)]
pub struct Clock {
    state: Mutex<ClockState>,
}

#[derive(Debug, Default, Clone, Copy)]
struct ClockState {
    /// Simulated minus real seconds (negative after a thaw).
    offset: i64,
    /// The simulated time while frozen.
    frozen: Option<u64>,
}

fn real_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl ClockState {
    fn now(&self) -> u64 {
        self.frozen
            .unwrap_or_else(|| real_now().saturating_add_signed(self.offset))
    }
}

impl Clock {
    fn state(&self) -> std::sync::MutexGuard<'_, ClockState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub fn now(&self) -> u64 {
        self.state().now()
    }

    /// Largest single advance: ten years, so `now` can never overflow.
    pub const MAX_ADVANCE_SECONDS: u64 = 10 * 365 * 86_400;

    pub fn advance(&self, seconds: u64) -> u64 {
        let seconds = seconds.min(Self::MAX_ADVANCE_SECONDS);
        let mut s = self.state();
        match &mut s.frozen {
            Some(at) => *at += seconds,
            None => s.offset += seconds as i64,
        }
        s.now()
    }

    /// Stops (or restarts) the simulated clock where it stands; while
    /// frozen only `advance` moves it. Returns the simulated now.
    pub fn freeze(&self, frozen: bool) -> u64 {
        let mut s = self.state();
        let now = s.now();
        if frozen {
            s.frozen = Some(now);
        } else if s.frozen.take().is_some() {
            s.offset = now as i64 - real_now() as i64;
        }
        now
    }

    /// Moves the simulated clock to `now`, earlier included (a history of
    /// labels made on past days); frozen stays frozen there.
    pub fn set(&self, now: u64) -> u64 {
        let mut s = self.state();
        match &mut s.frozen {
            Some(at) => *at = now,
            None => s.offset = now as i64 - real_now() as i64,
        }
        s.now()
    }

    pub fn is_frozen(&self) -> bool {
        self.state().frozen.is_some()
    }

    pub fn reset(&self) {
        *self.state() = ClockState::default();
    }
}

/// `YYYY-MM-DD` of a unix time (UTC): the date part of the contract's
/// ISO time (`api::insights::iso_utc`, days-from-civil).
pub fn date(unix: u64) -> String {
    let mut iso = api::insights::iso_utc(unix);
    iso.truncate("YYYY-MM-DD".len());
    iso
}

/// Non-secret hex for ids and request ids: a per-thread xorshift generator
/// seeded once from the OS, so hot paths do not open /dev/urandom.
pub fn id_hex(bytes: usize) -> String {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u64> = Cell::new({
            let seed = u64::from_str_radix(&random_hex(8), 16).unwrap_or(0x9e37_79b9_7f4a_7c15);
            seed | 1
        });
    }
    STATE.with(|state| {
        let mut out = String::with_capacity(bytes * 2);
        let mut x = state.get();
        for _ in 0..bytes {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            out.push_str(&format!("{:02x}", (x >> 24) as u8));
        }
        state.set(x);
        out
    })
}

/// Random bytes from the OS, for secrets (API keys).
pub fn random_hex(bytes: usize) -> String {
    use std::io::Read;
    let mut buf = vec![0u8; bytes];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .is_err()
    {
        // Fallback: std's randomly keyed hasher.
        use std::hash::{BuildHasher, Hasher};
        for (i, b) in buf.iter_mut().enumerate() {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_usize(i);
            *b = h.finish() as u8;
        }
    }
    buf.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(1_778_889_600), "2026-05-16");
        assert_eq!(date(951_782_400), "2000-02-29");
    }

    #[test]
    fn ids_are_hex_and_differ() {
        let (a, b) = (id_hex(6), id_hex(6));
        assert_eq!(a.len(), 12);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }

    #[test]
    fn advance_moves_now() {
        let c = Clock::default();
        let before = c.now();
        assert!(c.advance(900) >= before + 900);
    }

    #[test]
    fn a_frozen_clock_moves_only_when_advanced_and_resumes_where_it_stands() {
        let c = Clock::default();
        let at = c.freeze(true);
        assert_eq!(c.advance(61), at + 61);
        assert_eq!(c.now(), at + 61);
        let thawed = c.freeze(false);
        assert_eq!(thawed, at + 61);
        assert!((at + 61..=at + 62).contains(&c.now()));
        c.reset();
        assert!(!c.is_frozen() && c.now() <= at + 1);
    }
}
