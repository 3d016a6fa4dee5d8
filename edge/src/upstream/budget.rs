//! The upstream's per-key, per-endpoint, per-minute budget as last reported
//! by its `X-RateLimit-*` headers. When it is spent the Worker answers 429
//! itself instead of spending an upstream call to learn the same thing, and
//! the widget may only use a share of the budgets it can reach.

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

#[cfg(test)]
mod tests {
    use super::*;

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
