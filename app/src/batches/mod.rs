//! The batch screens: from a store's order export to printed labels, a
//! chunk of the dashboard's build fetched when a batch page is first opened
//! (`pages::chunks`). Plain Rust, tested natively: `sheet` (reading CSV/TSV), `units`,
//! `columns` (header recognition, the merchant's mappings), `rows` (the
//! rows' problems with the `api` rules, bulk fixes, export and merge by
//! reference), `progress` (what the job screens show). Pages: `list` (the
//! jobs), `new` (import, fix, plan), `job` (confirm, progress, results).

pub mod client;
pub mod columns;
pub mod job;
pub mod list;
pub mod new;
pub mod progress;
pub mod rows;
pub mod sheet;
mod table;
pub mod units;

use leptos::prelude::*;

/// Saves `text` as a file named `name` (a download from memory).
fn download(name: &str, mime: &str, text: &str) {
    use wasm_bindgen::JsCast;
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Some(a) = document()
        .create_element("a")
        .ok()
        .and_then(|a| a.dyn_into::<web_sys::HtmlAnchorElement>().ok())
    {
        a.set_href(&url);
        a.set_download(name);
        a.click();
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Milliseconds on the page's clock, for the import's timing.
fn now_ms() -> f64 {
    window().performance().map_or(0.0, |p| p.now())
}
