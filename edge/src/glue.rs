//! The thin layer between workerd and the plain modules: read the request,
//! ask `proxy`/`config` what to do, do the fetch, and turn every failure into
//! the v1 envelope (an `Err` out of the fetch handler would be a plain-text 500).

use crate::config::Config;
use crate::errors::EdgeError;
use crate::proxy;
use worker::{
    Context, Env, Fetch, Headers, Request, RequestInit, Response, event, wasm_bindgen::JsValue,
};

#[event(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> worker::Result<Response> {
    let request_id = new_request_id();
    match handle(req, &env).await {
        Ok(resp) => Ok(resp),
        Err(err) => error_response(&err, &request_id),
    }
}

async fn handle(mut req: Request, env: &Env) -> Result<Response, EdgeError> {
    let config = Config::from_lookup(|name| env.var(name).ok().map(|v| v.to_string()))?;
    let url = req
        .url()
        .map_err(|_| EdgeError::RouteNotFound { path: req.path() })?;
    let method = req.method().to_string();
    let forward = proxy::plan(&method, url.path(), url.query(), &config.upstream)?;

    let headers = Headers::new();
    let _ = headers.set(
        "Authorization",
        &format!("Bearer {}", config.active_key().expose()),
    );
    let _ = headers.set("Accept", "application/json");
    let mut init = RequestInit::new();
    init.with_method(req.method()).with_headers(headers);
    let body = if method == "GET" {
        vec![]
    } else {
        req.bytes().await.unwrap_or_default()
    };
    if !body.is_empty() {
        let _ = init.headers.set("Content-Type", "application/json");
        init.with_body(Some(JsValue::from(worker::js_sys::Uint8Array::from(
            body.as_slice(),
        ))));
    }

    let send = || async {
        Fetch::Request(Request::new_with_init(&forward.url, &init)?)
            .send()
            .await
    };
    let mut sent = send().await;
    if sent.is_err() && method == "GET" {
        sent = send().await; // reads may be retried once; writes never are
    }
    // A write that got no answer may still have happened upstream.
    let unreachable = || EdgeError::UpstreamUnreachable {
        outcome_unknown: !forward.endpoint.scope.is_read(),
    };
    let mut upstream = sent.map_err(|_| unreachable())?;

    let out_headers = Headers::new();
    for (name, value) in upstream.headers().entries() {
        if proxy::is_passed_response_header(&name) {
            let _ = out_headers.set(&name, &value);
        }
    }
    let status = upstream.status_code();
    let body = upstream.bytes().await.map_err(|_| unreachable())?;
    Response::from_bytes(body)
        .map(|r| r.with_status(status).with_headers(out_headers))
        .map_err(|_| unreachable())
}

fn error_response(err: &EdgeError, request_id: &str) -> worker::Result<Response> {
    let headers = Headers::new();
    headers.set("Content-Type", "application/json")?;
    headers.set("X-Request-Id", request_id)?;
    Ok(Response::from_bytes(err.to_body(request_id).into_bytes())?
        .with_status(err.status())
        .with_headers(headers))
}

fn new_request_id() -> String {
    let mut bytes = [0u8; 12];
    // getrandom uses crypto.getRandomValues in workerd; it does not fail there.
    let _ = getrandom::getrandom(&mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("req_edge_{hex}")
}
