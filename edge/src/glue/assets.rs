//! Serves the app's wasm from its build-time brotli file (see `assets`),
//! and the storefront widget page.

use crate::assets::accepts_brotli;
use crate::config::Config;
use crate::errors::EdgeError;
use crate::widget;
use api::widget::PAGE_PATH;
use worker::wasm_bindgen::JsValue;
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys::{Headers, Request, Response, ResponseInit};
use worker::{Env, js_sys};

async fn asset(env: &Env, url: &str) -> Option<Response> {
    let assets = env.get_binding::<worker::Fetcher>("ASSETS").ok()?;
    let resp = assets.fetch(url, None).await.ok()?;
    let raw: Response = resp.into();
    (raw.status() == 200).then_some(raw)
}

/// The `.br` file with `Content-Encoding: br` for browsers that take it;
/// otherwise (or if it is missing) the platform's own answer.
pub(crate) async fn wasm(req: Request, env: &Env) -> worker::Result<Response> {
    let accept = req.headers().get("Accept-Encoding").ok().flatten();
    if accepts_brotli(accept.as_deref())
        && let Some(br) = asset(env, &format!("{}.br", req.url())).await
    {
        let headers = super::upstream::headers([
            ("Content-Type", "application/wasm"),
            ("Content-Encoding", "br"),
            ("Vary", "Accept-Encoding"),
            // Trunk names the file by its hash: it never changes.
            ("Cache-Control", "public, max-age=31536000, immutable"),
            ("X-Content-Type-Options", "nosniff"),
        ]);
        let init = ResponseInit::new();
        init.set_status(200);
        init.set_headers(&headers);
        // Already compressed: the runtime must send the bytes as they are.
        js_sys::Reflect::set(
            &init,
            &JsValue::from_str("encodeBody"),
            &JsValue::from_str("manual"),
        )?;
        return Ok(Response::new_with_opt_readable_stream_and_init(
            br.body().as_ref(),
            &init,
        )?);
    }
    let assets = env.get_binding::<worker::Fetcher>("ASSETS")?;
    let resp = assets.fetch_request(worker::Request::from(req)).await?;
    Ok(resp.into())
}

/// The storefront widget page (`crate::widget`): the built page with the
/// configured ship-from written in, framed only by the shop its link names
/// when that shop is in `WIDGET_ORIGINS`; otherwise a 403 nobody can frame
/// (opened directly, it tells the shop owner what to set).
pub(crate) async fn widget_page(
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
    let shop = widget::framing_shop(query, &config.widget.origins);
    let html = widget::page(
        &html,
        config.widget.ship_from.as_deref().unwrap_or(""),
        shop,
    );
    let rebuilt = || -> Result<Response, JsValue> {
        let headers = Headers::new_with_headers(&built.headers())?;
        let csp = headers.get("Content-Security-Policy")?.unwrap_or_default();
        headers.set(
            "Content-Security-Policy",
            &widget::frame_ancestors(&csp, shop),
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
