use leptos::prelude::*;

/// A Unix time in the user's locale and time zone, machine-readable in `datetime`.
#[component]
pub fn When(unix: u64) -> impl IntoView {
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(unix as f64 * 1000.0));
    let iso = String::from(date.to_iso_string());
    let local = String::from(date.to_locale_string("default", &wasm_bindgen::JsValue::UNDEFINED));
    view! { <time datetime=iso>{local}</time> }
}
