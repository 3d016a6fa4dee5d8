//! API keys and part 8's limits: per key, per endpoint, in fixed windows of
//! one simulated minute.

use std::collections::HashMap;

use api::endpoints::{Endpoint, EndpointId};
use api::{KeyEnv, Scope};

use super::World;

#[derive(Debug, Clone)]
pub struct KeyRecord {
    pub env: KeyEnv,
    pub account: String,
    pub scopes: Vec<Scope>,
    pub expires_at: Option<u64>,
    pub revoked: bool,
    /// Benchmark keys: counted and reported, never refused for the limit.
    pub unlimited: bool,
    /// Per-endpoint limits that replace the table's for this key (set by
    /// `/__sim/keys` for tests, e.g. a 5,000-row job in CI).
    pub limits: HashMap<EndpointId, u32>,
    /// Requests that presented this key (valid or refused after
    /// authentication), so a test can show a key was never used.
    pub calls: u64,
}

impl KeyRecord {
    /// This key's limit per minute on `endpoint`.
    pub fn limit(&self, endpoint: &Endpoint) -> u32 {
        self.limits
            .get(&endpoint.id)
            .copied()
            .unwrap_or(endpoint.limit_per_minute)
    }
}

/// Where one call leaves its key's window, for the `X-RateLimit-*` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub limit: u32,
    pub remaining: u32,
    /// Unix time the window ends.
    pub reset: u64,
    /// Over the limit: the call is refused (and not counted).
    pub refused: bool,
}

/// Start and end of the window holding `now`.
pub fn window(now: u64) -> (u64, u64) {
    let start = now - now % 60;
    (start, start + 60)
}

impl World {
    pub fn key(&self, token: &str) -> Option<&KeyRecord> {
        self.keys.get(token)
    }

    /// Adds a key (creating its account if new).
    pub fn add_key(&mut self, token: String, record: KeyRecord) {
        self.account_mut(&record.account);
        self.keys.insert(token, record);
    }

    /// One more request presented `token`.
    pub fn presented(&mut self, token: &str) {
        if let Some(k) = self.keys.get_mut(token) {
            k.calls += 1;
        }
    }

    /// Revokes a key; false if there is no such key.
    pub fn revoke_key(&mut self, token: &str) -> bool {
        match self.keys.get_mut(token) {
            Some(k) => {
                k.revoked = true;
                true
            }
            None => false,
        }
    }

    /// Counts an authenticated call of `token` to `endpoint` at `now`,
    /// accepted or not (a refused call is not counted).
    pub fn count_call(&mut self, token: &str, endpoint: &Endpoint, now: u64) -> Budget {
        let (limit, unlimited) = self
            .keys
            .get(token)
            .map(|k| (k.limit(endpoint), k.unlimited))
            .unwrap_or((endpoint.limit_per_minute, false));
        let (start, reset) = window(now);
        let slot = self
            .windows
            .entry((token.to_string(), endpoint.id))
            .or_insert((start, 0));
        if slot.0 != start {
            *slot = (start, 0);
        }
        if slot.1 >= limit && !unlimited {
            return Budget {
                limit,
                remaining: 0,
                reset,
                refused: true,
            };
        }
        slot.1 += 1;
        // A benchmark key reports its budget as untouched, so a client that backs
        // off on `X-RateLimit-Remaining: 0` (our Worker does) keeps calling.
        let remaining = if unlimited {
            limit
        } else {
            limit.saturating_sub(slot.1)
        };
        Budget {
            limit,
            remaining,
            reset,
            refused: false,
        }
    }
}
