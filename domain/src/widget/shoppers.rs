//! Widget calls per shopper (client IP) in any 60 seconds
//! (`WIDGET_IP_PER_MINUTE`), counted by this isolate. A sliding minute, not
//! the clock's minutes: a burst astride a minute's end is capped like any
//! other, instead of getting twice the limit. Bounded: past its size it
//! forgets shoppers idle for a minute.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};

use crate::upstream::{Budget, UpstreamError};

const MAX_SHOPPERS: usize = 10_000;
const MINUTE: u64 = 60;

/// The times (unix seconds) of each shopper's calls in the last minute,
/// oldest first; never more than the limit.
#[derive(Default)]
pub struct ShopperCounts {
    shoppers: HashMap<String, VecDeque<u64>>,
}

impl ShopperCounts {
    /// Counts one widget call from `client`; refuses once `per_minute`
    /// calls are younger than a minute, until the oldest of them is not.
    pub fn count(&mut self, client: &str, per_minute: u32, now: u64) -> Result<(), UpstreamError> {
        let recent = |t: &u64| t + MINUTE > now;
        if self.shoppers.len() >= MAX_SHOPPERS {
            self.shoppers
                .retain(|_, calls| calls.back().is_some_and(recent));
            if self.shoppers.len() >= MAX_SHOPPERS {
                self.shoppers.clear();
            }
        }
        let calls = self.shoppers.entry(client.to_string()).or_default();
        while calls.front().is_some_and(|t| !recent(t)) {
            calls.pop_front();
        }
        if calls.len() >= per_minute as usize {
            let oldest = calls.front().copied().unwrap_or(now);
            return Err(UpstreamError::RateLimited {
                budget: Budget::WidgetClient { per_minute },
                retry_after: (oldest + MINUTE).saturating_sub(now).max(1),
            });
        }
        calls.push_back(now);
        Ok(())
    }
}

thread_local! {
    static SHOPPERS: RefCell<ShopperCounts> = RefCell::new(ShopperCounts::default());
}

/// Counts one widget call from `client` in this isolate.
pub fn count(client: &str, per_minute: u32, now: u64) -> Result<(), UpstreamError> {
    SHOPPERS.with(|s| s.borrow_mut().count(client, per_minute, now))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Failure;

    #[test]
    fn each_shopper_gets_a_per_minute_count() {
        let mut s = ShopperCounts::default();
        for _ in 0..3 {
            s.count("1.2.3.4", 3, 1_000).unwrap();
        }
        let err = s.count("1.2.3.4", 3, 1_010).unwrap_err();
        assert_eq!(
            err.retry_after(),
            Some(50),
            "when the first call is a minute old"
        );
        assert!(s.count("5.6.7.8", 3, 1_010).is_ok());
        assert!(
            s.count("1.2.3.4", 3, 1_060).is_ok(),
            "a minute after the first call"
        );
    }

    #[test]
    fn a_burst_across_a_minute_boundary_is_still_capped() {
        let mut s = ShopperCounts::default();
        for now in [1_078, 1_079, 1_079] {
            s.count("1.2.3.4", 3, now).unwrap();
        }
        let err = s.count("1.2.3.4", 3, 1_080).unwrap_err();
        assert_eq!(
            err.retry_after(),
            Some(58),
            "when the first of the three is a minute old"
        );
        assert!(s.count("1.2.3.4", 3, 1_138).is_ok());
        assert!(
            s.count("1.2.3.4", 3, 1_138).is_err(),
            "the other two are younger than a minute"
        );
    }
}
