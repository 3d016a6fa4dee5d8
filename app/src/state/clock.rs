use leptos::prelude::*;
use std::time::Duration;

/// Wall-clock milliseconds, ticking once a second, for every countdown.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub now_ms: RwSignal<f64>,
}

impl Clock {
    pub fn provide() -> Clock {
        let clock = Clock {
            now_ms: RwSignal::new(js_sys::Date::now()),
        };
        set_interval(
            move || clock.now_ms.set(js_sys::Date::now()),
            Duration::from_millis(1000),
        );
        provide_context(clock);
        clock
    }

    pub fn get() -> Clock {
        expect_context::<Clock>()
    }

    /// Now, read without tracking.
    pub fn now_untracked(self) -> f64 {
        js_sys::Date::now()
    }

    /// Whole seconds left until `deadline_ms`, recomputed on every tick.
    /// It reads the time itself, not the last tick's (up to a second old):
    /// a countdown of a 5 s Retry-After starts at 5, not 6.
    pub fn seconds_until(self, deadline_ms: f64) -> Memo<u64> {
        Memo::new(move |_| {
            self.now_ms.track();
            seconds_left(deadline_ms, js_sys::Date::now())
        })
    }
}

/// Whole seconds left until `deadline_ms`, never negative.
fn seconds_left(deadline_ms: f64, now_ms: f64) -> u64 {
    ((deadline_ms - now_ms) / 1000.0).ceil().max(0.0) as u64
}

/// `m:ss` for a countdown.
pub fn mm_ss(seconds: u64) -> String {
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn countdowns() {
        assert_eq!(seconds_left(10_500.0, 0.0), 11);
        assert_eq!(seconds_left(0.0, 10_000.0), 0);
        assert_eq!(mm_ss(900), "15:00");
        assert_eq!(mm_ss(61), "1:01");
        assert_eq!(mm_ss(9), "0:09");
    }
}
