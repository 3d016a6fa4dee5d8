//! Widget calls per shopper (client IP) per minute (`WIDGET_IP_PER_MINUTE`),
//! counted by this isolate. Bounded: past its size it forgets old minutes.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::errors::{Budget, EdgeError};

const MAX_SHOPPERS: usize = 10_000;

/// (minute, calls) per shopper.
#[derive(Default)]
pub struct ShopperCounts {
    shoppers: HashMap<String, (u64, u32)>,
}

impl ShopperCounts {
    /// Counts one widget call from `client`; refuses past `per_minute`.
    pub fn count(&mut self, client: &str, per_minute: u32, now: u64) -> Result<(), EdgeError> {
        let minute = now / 60;
        if self.shoppers.len() >= MAX_SHOPPERS {
            self.shoppers.retain(|_, (m, _)| *m == minute);
            if self.shoppers.len() >= MAX_SHOPPERS {
                self.shoppers.clear();
            }
        }
        let entry = self
            .shoppers
            .entry(client.to_string())
            .or_insert((minute, 0));
        if entry.0 != minute {
            *entry = (minute, 0);
        }
        if entry.1 >= per_minute {
            return Err(EdgeError::RateLimited {
                budget: Budget::WidgetClient { per_minute },
                retry_after: (minute + 1) * 60 - now,
            });
        }
        entry.1 += 1;
        Ok(())
    }
}

thread_local! {
    static SHOPPERS: RefCell<ShopperCounts> = RefCell::new(ShopperCounts::default());
}

/// Counts one widget call from `client` in this isolate.
pub fn count(client: &str, per_minute: u32, now: u64) -> Result<(), EdgeError> {
    SHOPPERS.with(|s| s.borrow_mut().count(client, per_minute, now))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_shopper_gets_a_per_minute_count() {
        let mut s = ShopperCounts::default();
        for _ in 0..3 {
            s.count("1.2.3.4", 3, 1_000).unwrap();
        }
        let err = s.count("1.2.3.4", 3, 1_010).unwrap_err();
        assert_eq!(err.retry_after(), Some(10));
        assert!(s.count("5.6.7.8", 3, 1_010).is_ok());
        assert!(s.count("1.2.3.4", 3, 1_020).is_ok(), "a new minute");
    }
}
