//! Serves the app's wasm from its build-time brotli file (see `dashboard`).

use domain::dashboard::accepts_brotli;
use worker::wasm_bindgen::JsValue;
use worker::web_sys::{Request, Response, ResponseInit};
use worker::{Env, js_sys};

/// A built asset, if the platform has it (200). The request is built on
/// the raw `web_sys` types: `Fetcher::fetch(url, init)` links the `worker`
/// crate's `RequestInit` conversion, about 6 KiB gzip of the wasm.
pub(crate) async fn asset(env: &Env, url: &str) -> Option<Response> {
    let assets = env.get_binding::<worker::Fetcher>("ASSETS").ok()?;
    let req = platform::objects::new_request(url, "GET", &[], None)?;
    let resp = assets.fetch_request(req).await.ok()?;
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
        let headers = platform::reply::headers([
            ("Content-Type", "application/wasm"),
            ("Content-Encoding", "br"),
            ("Vary", "Accept-Encoding"),
            // Every module's name carries its content's hash: it never changes.
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
async fn static_file(req: Request, env: &Env) -> worker::Result<Response> {
    let assets = env.get_binding::<worker::Fetcher>("ASSETS")?;
    let resp = assets.fetch_request(worker::Request::from(req)).await?;
    Ok(resp.into())
}
