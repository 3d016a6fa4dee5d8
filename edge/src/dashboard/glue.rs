//! Serves the app's wasm from its build-time brotli file, and the batch
//! screens' page for every `/batches/...` path (see `dashboard`).

use super::accepts_brotli;
use crate::errors::EdgeError;
use api::jobs::PAGE_PATH;
use worker::wasm_bindgen::JsValue;
use worker::web_sys::{Request, Response, ResponseInit};
use worker::{Env, js_sys};

/// A built asset, if the platform has it (200).
pub(crate) async fn asset(env: &Env, url: &str) -> Option<Response> {
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
        let headers = crate::runtime::reply::headers([
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
    static_file(req, env).await
}

/// The platform's own answer for a built file.
pub(crate) async fn static_file(req: Request, env: &Env) -> worker::Result<Response> {
    let assets = env.get_binding::<worker::Fetcher>("ASSETS")?;
    let resp = assets.fetch_request(worker::Request::from(req)).await?;
    Ok(resp.into())
}

/// The batch screens' page, with its own CSP (`dist/_headers`), for
/// `/batches`, `/batches/` and `/batches/{id}`: the app's router shows the
/// page the path names.
pub(crate) async fn batches_page(env: &Env, own_origin: &str) -> Result<Response, EdgeError> {
    asset(env, &format!("{own_origin}{PAGE_PATH}"))
        .await
        .ok_or_else(|| EdgeError::RouteNotFound {
            path: PAGE_PATH.into(),
        })
}
