//! The upstream's per-key, per-endpoint, per-minute budget as last reported
//! by its `X-RateLimit-*` headers. When it is spent the Worker answers 429
//! itself instead of spending an upstream call to learn the same thing, and
//! the widget may only use a share of the budgets it can reach.
//! [`Budgets`] is what this isolate last saw: a cache, so a new isolate
//! only costs the upstream's own 429s until it has seen the windows again.

use std::collections::HashMap;

use api::{Endpoint, EndpointId, KeyEnv};

use super::error::{Budget, UpstreamError};
use crate::per_org::PerOrg;
use api::orgs::OrgId;

/// What the upstream said in its last answer for one endpoint and key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Window {
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds when the window resets.
    pub reset_at: u64,
}

impl Window {
    /// Reads the three headers; `None` if any is missing or malformed.
    pub fn from_headers(
        limit: Option<&str>,
        remaining: Option<&str>,
        reset: Option<&str>,
    ) -> Option<Window> {
        Some(Window {
            limit: limit?.trim().parse().ok()?,
            remaining: remaining?.trim().parse().ok()?,
            reset_at: reset?.trim().parse().ok()?,
        })
    }

    /// Seconds to wait before `who` may call, or `None` if it may call now.
    /// The widget must leave `1 - widget_share` of the limit to the dashboard.
    pub fn wait_seconds(&self, now: u64, who: Caller, widget_share: f64) -> Option<u64> {
        if now >= self.reset_at {
            return None; // a new window has begun
        }
        let reserved = match who {
            Caller::Dashboard => 0,
            Caller::Widget => {
                (f64::from(self.limit) * (1.0 - widget_share.clamp(0.0, 1.0))).ceil() as u32
            }
        };
        (self.remaining <= reserved).then(|| (self.reset_at - now).max(1))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    Dashboard,
    Widget,
}

/// The windows last reported, per mode's key and endpoint.
#[derive(Default)]
pub struct Budgets {
    windows: HashMap<(KeyEnv, EndpointId), Window>,
}

impl Budgets {
    /// Refuses with a local 429 when the budget `caller` may use is spent.
    pub fn check(
        &self,
        mode: KeyEnv,
        endpoint: &Endpoint,
        caller: Caller,
        widget_share: f64,
        now: u64,
    ) -> Result<(), UpstreamError> {
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
        Err(UpstreamError::RateLimited {
            budget,
            retry_after,
        })
    }

    /// Records the budget the upstream reported with an answer. A window
    /// lasts a minute, so a reset further ahead is clock skew: capped.
    pub fn record(&mut self, mode: KeyEnv, endpoint: EndpointId, window: Window, now: u64) {
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
}

thread_local! {
    static BUDGETS: PerOrg<Budgets> = PerOrg::default();
}

/// Runs `f` on this isolate's budgets of `org`'s keys. Never held across an `.await`.
pub fn with_budgets<T>(org: &OrgId, f: impl FnOnce(&mut Budgets) -> T) -> T {
    BUDGETS.with(|b| b.with(org, f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Failure;
    use api::ENDPOINTS;

    fn rates() -> &'static Endpoint {
        ENDPOINTS
            .iter()
            .find(|e| e.id == EndpointId::GetRates)
            .unwrap()
    }

    #[test]
    fn a_spent_budget_is_answered_locally_until_reset() {
        let mut b = Budgets::default();
        let w = |remaining| Window {
            limit: 100,
            remaining,
            reset_at: 1_030,
        };
        assert!(
            b.check(KeyEnv::Live, rates(), Caller::Dashboard, 0.25, 1_000)
                .is_ok()
        );
        b.record(KeyEnv::Live, EndpointId::GetRates, w(0), 1_000);
        let err = b
            .check(KeyEnv::Live, rates(), Caller::Dashboard, 0.25, 1_000)
            .unwrap_err();
        assert_eq!(err.retry_after(), Some(30));
        assert!(err.to_body("r").contains("POST /v1/rates"));
        // The other mode's key has its own budget; the reset opens a new window.
        assert!(
            b.check(KeyEnv::Sandbox, rates(), Caller::Dashboard, 0.25, 1_000)
                .is_ok()
        );
        assert!(
            b.check(KeyEnv::Live, rates(), Caller::Dashboard, 0.25, 1_030)
                .is_ok()
        );
        // The widget stops at its share; the dashboard goes on.
        b.record(KeyEnv::Live, EndpointId::GetRates, w(75), 1_000);
        let err = b
            .check(KeyEnv::Live, rates(), Caller::Widget, 0.25, 1_000)
            .unwrap_err();
        assert!(err.to_body("r").contains("storefront's share"));
        assert!(
            b.check(KeyEnv::Live, rates(), Caller::Dashboard, 0.25, 1_000)
                .is_ok()
        );
    }

    fn window(remaining: u32) -> Window {
        Window {
            limit: 100,
            remaining,
            reset_at: 1_060,
        }
    }

    #[test]
    fn parses_headers() {
        assert_eq!(
            Window::from_headers(Some("100"), Some("7"), Some("1060")),
            Some(window(7))
        );
        assert_eq!(Window::from_headers(Some("100"), None, Some("1060")), None);
        assert_eq!(
            Window::from_headers(Some("x"), Some("7"), Some("1060")),
            None
        );
    }

    #[test]
    fn spent_budget_waits_until_reset() {
        assert_eq!(
            window(0).wait_seconds(1_000, Caller::Dashboard, 0.2),
            Some(60)
        );
        assert_eq!(window(1).wait_seconds(1_000, Caller::Dashboard, 0.2), None);
        assert_eq!(window(0).wait_seconds(1_060, Caller::Dashboard, 0.2), None);
    }

    #[test]
    fn the_widget_leaves_the_dashboard_its_share() {
        // share 0.2 of 100: the widget stops once 80 are left.
        assert_eq!(window(81).wait_seconds(1_000, Caller::Widget, 0.2), None);
        assert_eq!(
            window(80).wait_seconds(1_000, Caller::Widget, 0.2),
            Some(60)
        );
        assert_eq!(window(80).wait_seconds(1_000, Caller::Dashboard, 0.2), None);
    }
}
