//! Serves the storefront widget page (see `widget`).

use crate::config::Config;
use crate::dashboard::glue::asset;
use crate::errors::EdgeError;
use api::widget::PAGE_PATH;
use worker::Env;
use worker::wasm_bindgen::JsValue;
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys::{Headers, Response, ResponseInit};

/// The storefront widget page (`crate::widget`): the built page with the
/// configured ship-from written in, framed only by the shop its link names
/// when that shop is in `WIDGET_ORIGINS`; otherwise a 403 nobody can frame
/// (opened directly, it tells the shop owner what to set).
pub(crate) async fn page(
    env: &Env,
    config: &Config,
    own_origin: &str,
    query: Option<&str>,
) -> Result<Response, EdgeError> {
    let missing = || EdgeError::RouteNotFound {
        path: PAGE_PATH.into(),
    };
    let built = asset(env, &format!("{own_origin}{PAGE_PATH}"))
        .await
        .ok_or_else(missing)?;
    let html = match built.text() {
        Ok(promise) => JsFuture::from(promise)
            .await
            .ok()
            .and_then(|t| t.as_string()),
        Err(_) => None,
    }
    .ok_or_else(missing)?;
    let shop = super::framing_shop(query, &config.widget.origins);
    let html = super::page(
        &html,
        config.widget.ship_from.as_deref().unwrap_or(""),
        shop,
    );
    let rebuilt = || -> Result<Response, JsValue> {
        let headers = Headers::new_with_headers(&built.headers())?;
        let csp = headers.get("Content-Security-Policy")?.unwrap_or_default();
        headers.set(
            "Content-Security-Policy",
            &super::frame_ancestors(&csp, shop),
        )?;
        // frame-ancestors decides who may frame the page; the body changed.
        headers.delete("X-Frame-Options")?;
        headers.delete("ETag")?;
        // The page differs by its link's shop.
        headers.set("Cache-Control", "no-cache")?;
        let init = ResponseInit::new();
        init.set_status(if shop.is_some() { 200 } else { 403 });
        init.set_headers(&headers);
        Response::new_with_opt_str_and_init(Some(&html), &init)
    };
    rebuilt().map_err(|_| missing())
}
