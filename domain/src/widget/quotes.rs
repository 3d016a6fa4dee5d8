//! Identical widget quotes answered from this isolate's cache for
//! `WIDGET_QUOTE_CACHE_SECONDS`, never once a rate in them has less than
//! [`QUOTE_MARGIN_SECONDS`] of its validity left. Bounded.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::upstream::StoredResponse;

/// A cached quote is answered only while each rate stays buyable this much longer.
pub const QUOTE_MARGIN_SECONDS: u64 = 300;
const MAX_QUOTES: usize = 512;

struct Quote {
    response: StoredResponse,
    cached_at: u64,
    fresh_until: u64,
}

#[derive(Default)]
pub struct QuoteCache {
    quotes: HashMap<[u8; 32], Quote>,
}

impl QuoteCache {
    /// A cached quote still fresh, with its age in seconds (the `Age` the
    /// widget needs to know how long its rates stay valid).
    pub fn get(&self, key: &[u8; 32], now: u64) -> Option<(&StoredResponse, u64)> {
        self.quotes
            .get(key)
            .filter(|q| now < q.fresh_until)
            .map(|q| (&q.response, now.saturating_sub(q.cached_at)))
    }

    /// Caches a successful quote for at most `seconds`, and never past the
    /// point where a rate in it has less than `QUOTE_MARGIN_SECONDS` left.
    pub fn put(&mut self, key: [u8; 32], response: StoredResponse, seconds: u64, now: u64) {
        if seconds == 0 || response.status != 200 {
            return;
        }
        let Ok(quote) = serde_json::from_str::<api::RatesResponse>(&response.body) else {
            return;
        };
        let earliest_expiry = quote
            .rates
            .iter()
            .map(|r| {
                r.expires_at
                    .unwrap_or(now + api::rates::RATE_VALIDITY_SECONDS)
            })
            .min()
            .unwrap_or(now);
        let fresh_until = (now + seconds).min(earliest_expiry.saturating_sub(QUOTE_MARGIN_SECONDS));
        if fresh_until <= now {
            return;
        }
        if self.quotes.len() >= MAX_QUOTES {
            self.quotes.retain(|_, q| q.fresh_until > now);
            if self.quotes.len() >= MAX_QUOTES {
                self.quotes.clear();
            }
        }
        self.quotes.insert(
            key,
            Quote {
                response,
                cached_at: now,
                fresh_until,
            },
        );
    }
}

thread_local! {
    static QUOTES: RefCell<QuoteCache> = RefCell::new(QuoteCache::default());
}

/// A fresh cached quote and its age, from this isolate's cache.
pub fn cached(key: &[u8; 32], now: u64) -> Option<(StoredResponse, u64)> {
    QUOTES.with(|q| q.borrow().get(key, now).map(|(r, age)| (r.clone(), age)))
}

pub fn cache(key: [u8; 32], response: StoredResponse, seconds: u64, now: u64) {
    QUOTES.with(|q| q.borrow_mut().put(key, response, seconds, now));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quote(expires_at: u64) -> StoredResponse {
        StoredResponse {
            status: 200,
            headers: vec![],
            body: format!(
                r#"{{"rates":[{{"id":"r1","carrier":"USPS","service":"Ground","rate_cents":500,"carrier_eta":"2026-11-25","carbon_grams":10,"account_type":"platform","expires_at":{expires_at}}}]}}"#
            ),
        }
    }

    #[test]
    fn quotes_are_cached_briefly_and_never_near_their_expiry() {
        let mut c = QuoteCache::default();
        c.put([1; 32], quote(1_900), 120, 1_000);
        assert_eq!(c.get(&[1; 32], 1_119).map(|(_, age)| age), Some(119));
        assert!(c.get(&[1; 32], 1_120).is_none());
        // Expiring in 400 s: cached only until 300 s before expiry.
        c.put([2; 32], quote(1_400), 120, 1_000);
        assert!(c.get(&[2; 32], 1_099).is_some());
        assert!(c.get(&[2; 32], 1_100).is_none());
        // Errors and already-short quotes are not cached.
        c.put([3; 32], quote(1_200), 120, 1_000);
        assert!(c.get(&[3; 32], 1_000).is_none());
        let mut failed = quote(1_900);
        failed.status = 503;
        c.put([4; 32], failed, 120, 1_000);
        assert!(c.get(&[4; 32], 1_000).is_none());
    }
}
