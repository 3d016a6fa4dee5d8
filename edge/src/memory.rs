//! What one Worker isolate remembers between requests: the upstream budgets
//! last reported, the key's scopes learned from upstream 403s, widget
//! counters per shopper, cached widget quotes, and session checks. All of it
//! is a cache: losing it (a new isolate) is safe, it only costs upstream calls
//! or a Durable Object lookup. Bounded, so no traffic pattern can grow it.

use crate::errors::{Budget, EdgeError};
use crate::purchases::StoredResponse;
use crate::upstream::budget::{Caller, Window};
use api::{Endpoint, EndpointId, KeyEnv, Scope};
use std::collections::HashMap;

/// How long a session found valid in the Durable Object is trusted here
/// before asking again. Sign-out in this isolate is immediate; in other
/// isolates it takes effect within this time.
pub const SESSION_CHECK_SECONDS: u64 = 30;
/// How long the active-key choice is trusted before asking again.
pub const ACTIVE_KEY_SECONDS: u64 = 10;
/// A cached quote is answered only while each rate stays buyable this much longer.
pub const QUOTE_MARGIN_SECONDS: u64 = 300;
const MAX_QUOTES: usize = 512;
const MAX_CLIENTS: usize = 10_000;
const MAX_SESSIONS: usize = 10_000;

struct Quote {
    response: StoredResponse,
    cached_at: u64,
    fresh_until: u64,
}

#[derive(Default)]
pub struct Memory {
    windows: HashMap<(KeyEnv, EndpointId), Window>,
    learned_scopes: HashMap<KeyEnv, Vec<Scope>>,
    /// (minute, calls) per widget client.
    clients: HashMap<String, (u64, u32)>,
    quotes: HashMap<[u8; 32], Quote>,
    /// Session id → valid-until-rechecked time, or revoked (`u64::MAX` never used).
    sessions: HashMap<String, SessionSeen>,
    /// Active key fingerprint per mode, with when it was read.
    active_keys: HashMap<KeyEnv, (Option<String>, u64)>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SessionSeen {
    ValidUntil(u64),
    Revoked,
}

impl Memory {
    /// Refuses with a local 429 when the budget `caller` may use is spent.
    pub fn check_budget(
        &self,
        mode: KeyEnv,
        endpoint: &Endpoint,
        caller: Caller,
        widget_share: f64,
        now: u64,
    ) -> Result<(), EdgeError> {
        let Some(window) = self.windows.get(&(mode, endpoint.id)) else {
            return Ok(());
        };
        let Some(retry_after) = window.wait_seconds(now, caller, widget_share) else {
            return Ok(());
        };
        let endpoint = format!("{} {}", endpoint.method.as_str(), endpoint.pattern);
        let budget = match caller {
            Caller::Dashboard => Budget::Upstream { endpoint },
            Caller::Widget if window.remaining == 0 => Budget::Upstream { endpoint },
            Caller::Widget => Budget::WidgetShare { endpoint },
        };
        Err(EdgeError::RateLimited {
            budget,
            retry_after,
        })
    }

    /// Records the budget the upstream reported with an answer. A window
    /// lasts a minute, so a reset further ahead is clock skew: capped.
    pub fn record_window(&mut self, mode: KeyEnv, endpoint: EndpointId, window: Window, now: u64) {
        let window = Window {
            reset_at: window.reset_at.min(now + 60),
            ..window
        };
        self.windows.insert((mode, endpoint), window);
    }

    /// The per-minute limit the upstream last reported for an endpoint.
    pub fn limit_seen(&self, mode: KeyEnv, endpoint: EndpointId) -> Option<u32> {
        self.windows.get(&(mode, endpoint)).map(|w| w.limit)
    }

    /// Every endpoint's last reported budget for `mode`, in table order.
    pub fn windows(&self, mode: KeyEnv) -> Vec<(&'static Endpoint, Window)> {
        api::ENDPOINTS
            .iter()
            .filter_map(|e| self.windows.get(&(mode, e.id)).map(|w| (e, *w)))
            .collect()
    }

    /// The key's scopes: what an upstream 403 last said, else the configuration.
    pub fn key_scopes<'a>(&'a self, mode: KeyEnv, configured: &'a [Scope]) -> &'a [Scope] {
        self.learned_scopes
            .get(&mode)
            .map(Vec::as_slice)
            .unwrap_or(configured)
    }

    pub fn learn_key_scopes(&mut self, mode: KeyEnv, scopes: Vec<Scope>) {
        self.learned_scopes.insert(mode, scopes);
    }

    /// Counts one widget call from `client`; refuses past `per_minute`.
    pub fn count_widget_call(
        &mut self,
        client: &str,
        per_minute: u32,
        now: u64,
    ) -> Result<(), EdgeError> {
        let minute = now / 60;
        if self.clients.len() >= MAX_CLIENTS {
            self.clients.retain(|_, (m, _)| *m == minute);
            if self.clients.len() >= MAX_CLIENTS {
                self.clients.clear();
            }
        }
        let entry = self
            .clients
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

    /// A cached quote still fresh, with its age in seconds (the `Age` the
    /// widget needs to know how long its rates stay valid).
    pub fn cached_quote(&self, key: &[u8; 32], now: u64) -> Option<(&StoredResponse, u64)> {
        self.quotes
            .get(key)
            .filter(|q| now < q.fresh_until)
            .map(|q| (&q.response, now.saturating_sub(q.cached_at)))
    }

    /// Caches a successful quote for at most `seconds`, and never past the
    /// point where a rate in it has less than `QUOTE_MARGIN_SECONDS` left.
    pub fn cache_quote(&mut self, key: [u8; 32], response: StoredResponse, seconds: u64, now: u64) {
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

    /// What this isolate knows of a session: `None` means ask the Durable Object.
    pub fn session_seen(&self, sid: &str, now: u64) -> Option<SessionSeen> {
        match self.sessions.get(sid) {
            Some(SessionSeen::ValidUntil(t)) if now < *t => Some(SessionSeen::ValidUntil(*t)),
            Some(SessionSeen::Revoked) => Some(SessionSeen::Revoked),
            _ => None,
        }
    }

    pub fn remember_session(&mut self, sid: &str, revoked: bool, now: u64) {
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

    /// The active key fingerprint for `mode` if read recently.
    pub fn active_key(&self, mode: KeyEnv, now: u64) -> Option<Option<&str>> {
        self.active_keys
            .get(&mode)
            .filter(|(_, at)| now < at + ACTIVE_KEY_SECONDS)
            .map(|(fp, _)| fp.as_deref())
    }

    pub fn remember_active_key(&mut self, mode: KeyEnv, fingerprint: Option<String>, now: u64) {
        self.active_keys.insert(mode, (fingerprint, now));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::ENDPOINTS;

    fn rates() -> &'static Endpoint {
        ENDPOINTS
            .iter()
            .find(|e| e.id == EndpointId::GetRates)
            .unwrap()
    }

    fn window(remaining: u32) -> Window {
        Window {
            limit: 100,
            remaining,
            reset_at: 1_030,
        }
    }

    #[test]
    fn a_spent_budget_is_answered_locally_until_reset() {
        let mut m = Memory::default();
        assert!(
            m.check_budget(KeyEnv::Live, rates(), Caller::Dashboard, 0.25, 1_000)
                .is_ok()
        );
        m.record_window(KeyEnv::Live, EndpointId::GetRates, window(0), 1_000);
        let err = m
            .check_budget(KeyEnv::Live, rates(), Caller::Dashboard, 0.25, 1_000)
            .unwrap_err();
        assert_eq!(err.retry_after(), Some(30));
        assert!(err.to_body("r").contains("POST /v1/rates"));
        // The other mode's key has its own budget; the reset opens a new window.
        assert!(
            m.check_budget(KeyEnv::Sandbox, rates(), Caller::Dashboard, 0.25, 1_000)
                .is_ok()
        );
        assert!(
            m.check_budget(KeyEnv::Live, rates(), Caller::Dashboard, 0.25, 1_030)
                .is_ok()
        );
    }

    #[test]
    fn the_widget_stops_at_its_share_and_the_dashboard_goes_on() {
        let mut m = Memory::default();
        m.record_window(KeyEnv::Live, EndpointId::GetRates, window(75), 1_000);
        let err = m
            .check_budget(KeyEnv::Live, rates(), Caller::Widget, 0.25, 1_000)
            .unwrap_err();
        assert!(err.to_body("r").contains("storefront's share"));
        assert!(
            m.check_budget(KeyEnv::Live, rates(), Caller::Dashboard, 0.25, 1_000)
                .is_ok()
        );
    }

    #[test]
    fn each_shopper_gets_a_per_minute_count() {
        let mut m = Memory::default();
        for _ in 0..3 {
            m.count_widget_call("1.2.3.4", 3, 1_000).unwrap();
        }
        let err = m.count_widget_call("1.2.3.4", 3, 1_010).unwrap_err();
        assert_eq!(err.retry_after(), Some(10));
        assert!(m.count_widget_call("5.6.7.8", 3, 1_010).is_ok());
        assert!(
            m.count_widget_call("1.2.3.4", 3, 1_020).is_ok(),
            "a new minute"
        );
    }

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
        let mut m = Memory::default();
        m.cache_quote([1; 32], quote(1_900), 120, 1_000);
        assert_eq!(
            m.cached_quote(&[1; 32], 1_119).map(|(_, age)| age),
            Some(119)
        );
        assert!(m.cached_quote(&[1; 32], 1_120).is_none());
        // Expiring in 400 s: cached only until 300 s before expiry.
        m.cache_quote([2; 32], quote(1_400), 120, 1_000);
        assert!(m.cached_quote(&[2; 32], 1_099).is_some());
        assert!(m.cached_quote(&[2; 32], 1_100).is_none());
        // Errors and already-short quotes are not cached.
        m.cache_quote([3; 32], quote(1_200), 120, 1_000);
        assert!(m.cached_quote(&[3; 32], 1_000).is_none());
        let mut failed = quote(1_900);
        failed.status = 503;
        m.cache_quote([4; 32], failed, 120, 1_000);
        assert!(m.cached_quote(&[4; 32], 1_000).is_none());
    }

    #[test]
    fn session_checks_expire_but_revocations_stick() {
        let mut m = Memory::default();
        assert_eq!(m.session_seen("s", 1_000), None);
        m.remember_session("s", false, 1_000);
        assert!(matches!(
            m.session_seen("s", 1_029),
            Some(SessionSeen::ValidUntil(_))
        ));
        assert_eq!(m.session_seen("s", 1_030), None);
        m.remember_session("s", true, 1_030);
        assert_eq!(m.session_seen("s", 9_999), Some(SessionSeen::Revoked));
    }

    #[test]
    fn learned_scopes_replace_configured_ones() {
        let mut m = Memory::default();
        assert_eq!(m.key_scopes(KeyEnv::Live, &Scope::ALL), Scope::ALL);
        m.learn_key_scopes(KeyEnv::Live, vec![Scope::WalletRead]);
        assert_eq!(m.key_scopes(KeyEnv::Live, &Scope::ALL), [Scope::WalletRead]);
    }
}
