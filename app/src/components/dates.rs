//! Dates in the user's locale (the browser's `Intl`), never a fixed format.

use wasm_bindgen::{JsCast, JsValue};

fn locale_string(date: &js_sys::Date, method: &str, options: &[(&str, &str)]) -> String {
    let opts = js_sys::Object::new();
    for (k, v) in options {
        let _ = js_sys::Reflect::set(&opts, &JsValue::from_str(k), &JsValue::from_str(v));
    }
    js_sys::Reflect::get(date, &JsValue::from_str(method))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .and_then(|f| f.call2(date, &JsValue::UNDEFINED, &opts).ok())
        .and_then(|s| s.as_string())
        .unwrap_or_default()
}

/// Date and time of a Unix timestamp (seconds), e.g. "Nov 22, 2026, 6:35 PM" in en-US.
pub fn datetime(unix_seconds: u64) -> String {
    let date = js_sys::Date::new(&JsValue::from_f64(unix_seconds as f64 * 1000.0));
    locale_string(
        &date,
        "toLocaleString",
        &[("dateStyle", "medium"), ("timeStyle", "short")],
    )
}

/// A Unix time as `datetime`, inside a `<time>` element machines can read.
#[leptos::component]
pub fn When(unix: u64) -> impl leptos::IntoView {
    use leptos::prelude::*;
    let iso =
        String::from(js_sys::Date::new(&JsValue::from_f64(unix as f64 * 1000.0)).to_iso_string());
    view! { <time datetime=iso>{datetime(unix)}</time> }
}

/// A Unix time short enough for a table's one line ("Nov 22, 6:35 PM", the
/// year too when it is not this one), the whole `datetime` in its title.
#[leptos::component]
pub fn WhenShort(unix: u64) -> impl leptos::IntoView {
    use leptos::prelude::*;
    let date = js_sys::Date::new(&JsValue::from_f64(unix as f64 * 1000.0));
    let mut options = vec![
        ("month", "short"),
        ("day", "numeric"),
        ("hour", "numeric"),
        ("minute", "2-digit"),
    ];
    if date.get_full_year() != js_sys::Date::new_0().get_full_year() {
        options.push(("year", "numeric"));
    }
    let text = locale_string(&date, "toLocaleString", &options);
    let iso = String::from(date.to_iso_string());
    view! { <time datetime=iso title=datetime(unix)>{text}</time> }
}

/// Time only, for "resets at".
pub fn time(unix_seconds: u64) -> String {
    let date = js_sys::Date::new(&JsValue::from_f64(unix_seconds as f64 * 1000.0));
    locale_string(&date, "toLocaleTimeString", &[("timeStyle", "medium")])
}

/// A calendar date `YYYY-MM-DD` (a carrier ETA): formatted as that day
/// wherever the user is, e.g. "Tue, Nov 24".
pub fn calendar_day(ymd: &str) -> String {
    let Some((y, m, d)) = parse_ymd(ymd) else {
        return ymd.to_string();
    };
    let ms = js_sys::Date::utc(y as f64, (m - 1) as f64);
    let date = js_sys::Date::new(&JsValue::from_f64(ms + (d as f64 - 1.0) * 86_400_000.0));
    locale_string(
        &date,
        "toLocaleDateString",
        &[
            ("weekday", "short"),
            ("month", "short"),
            ("day", "numeric"),
            ("timeZone", "UTC"),
        ],
    )
}

/// The calendar day a Unix time falls on in an offset `tz_minutes` east of
/// UTC, as a chart's axis names it: "Nov 24".
pub fn day_in(unix: u64, tz_minutes: i32) -> String {
    let local = unix as i64 + i64::from(tz_minutes) * 60;
    let date = js_sys::Date::new(&JsValue::from_f64(local as f64 * 1000.0));
    locale_string(
        &date,
        "toLocaleDateString",
        &[("month", "short"), ("day", "numeric"), ("timeZone", "UTC")],
    )
}

/// The browser's offset east of UTC now, in minutes (JS gives it west).
pub fn tz_offset_minutes() -> i32 {
    -(js_sys::Date::new_0().get_timezone_offset() as i32)
}

/// `YYYY-MM-DD` → (year, month, day).
pub fn parse_ymd(ymd: &str) -> Option<(i32, u32, u32)> {
    let mut parts = ymd.splitn(3, '-');
    let y = parts.next()?.parse().ok()?;
    let m = parts.next()?.parse().ok()?;
    let d = parts.next()?.parse().ok()?;
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then_some((y, m, d))
}

#[cfg(test)]
mod tests {
    use super::parse_ymd;

    #[test]
    fn reads_carrier_dates() {
        assert_eq!(parse_ymd("2026-11-24"), Some((2026, 11, 24)));
        assert_eq!(parse_ymd("2026-13-01"), None);
        assert_eq!(parse_ymd("soon"), None);
    }
}
