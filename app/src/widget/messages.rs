//! Messages to the shop's window (`api::widget`).

use api::widget::HEIGHT_MESSAGE;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};

/// Tells the shop's window this page's height whenever it changes (to that
/// origin only), so its embed script can size the iframe to fit.
pub fn report_height(storefront: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let (Ok(Some(parent)), Some(document)) = (window.parent(), window.document()) else {
        return;
    };
    let Some(body) = document.body() else {
        return;
    };
    let observed = body.clone();
    let origin = storefront.to_string();
    let report = Closure::<dyn FnMut()>::new(move || {
        let message = js_sys::Object::new();
        let set = |k: &str, v: JsValue| js_sys::Reflect::set(&message, &k.into(), &v);
        let _ = set("type", HEIGHT_MESSAGE.into());
        let _ = set("height", f64::from(body.scroll_height()).into());
        let _ = parent.post_message(&message, &origin);
    });
    if let Ok(observer) = web_sys::ResizeObserver::new(report.as_ref().unchecked_ref()) {
        observer.observe(&observed);
    }
    // Lives as long as the page.
    report.forget();
}
