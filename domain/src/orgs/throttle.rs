//! Sign-in throttling, per account (by email, known or not, so the answer
//! does not tell which emails exist) and per client address. Each keeps a
//! count of failures in a window; past the limit, sign-in is refused until
//! the window ends, with `Retry-After`. A success clears the account's count.

/// Failures allowed per email in one window.
pub const EMAIL_FAILURES: u32 = 5;
/// Failures allowed per client address in one window (an office shares one).
pub const ADDRESS_FAILURES: u32 = 30;
pub const WINDOW_SECONDS: u64 = 15 * 60;

/// One counter's state: failures since `window_start`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_holds_for_the_window_then_resets() {
        let mut f = Failures::default();
        for i in 0..EMAIL_FAILURES {
            assert_eq!(f.retry_after(EMAIL_FAILURES, 1_000 + u64::from(i)), None);
            f = f.fail(1_000 + u64::from(i));
        }
        assert_eq!(f.window_start, 1_000);
        assert_eq!(
            f.retry_after(EMAIL_FAILURES, 1_010),
            Some(WINDOW_SECONDS - 10)
        );
        let after = 1_000 + WINDOW_SECONDS;
        assert_eq!(f.retry_after(EMAIL_FAILURES, after), None);
        assert_eq!(
            f.fail(after),
            Failures {
                count: 1,
                window_start: after
            }
        );
    }
}
