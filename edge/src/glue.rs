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
    let response = match handle(req, &env).await {
        Ok(resp) => resp,
        Err(err) => error_response(&err, &request_id),
    };
    Ok(response)
}

async fn handle(mut req: Request, env: &Env) -> Result<Response, EdgeError> {
    let config = Config::from_lookup(|name| env.var(name).ok().map(|v| v.to_string()))?;
    let url = req.url().map_err(|_| EdgeError::RouteNotFound {
        path: String::new(),
    })?;
    let method = req.method().to_string();
    let forward = proxy::plan(&method, url.path(), url.query(), &config.upstream)?;

    let headers = Headers::new();
    let key = config.active_key();
    let _ = headers.set("Authorization", &format!("Bearer {}", key.expose()));
    let _ = headers.set("Accept", "application/json");
    let mut init = RequestInit::new();
    init.with_method(req.method()).with_headers(headers);
    if method != "GET" {
        let body = req.bytes().await.unwrap_or_default();
        if !body.is_empty() {
            let _ = init.headers.set("Content-Type", "application/json");
            init.with_body(Some(JsValue::from(worker::js_sys::Uint8Array::from(
                body.as_slice(),
            ))));
        }
    }
    // Only idempotent reads may be retried; a purchase is never sent twice.
    let may_retry = method == "GET";
    let upstream_request = |init: &RequestInit| Request::new_with_init(&forward.url, init);
    let mut attempt = 0;
    let mut upstream = loop {
        attempt += 1;
        let sent = match upstream_request(&init) {
            Ok(r) => Fetch::Request(r).send().await,
            Err(e) => Err(e),
        };
        match sent {
            Ok(resp) => break resp,
            Err(_) if may_retry && attempt < 2 => continue,
            Err(_) => {
                return Err(EdgeError::UpstreamUnreachable {
                    outcome_unknown: method != "GET",
                });
            }
        }
    };

    let out_headers = Headers::new();
    for (name, value) in upstream.headers().entries() {
        if proxy::is_passed_response_header(&name) {
            let _ = out_headers.set(&name, &value);
        }
    }
    let status = upstream.status_code();
    let body = upstream
        .bytes()
        .await
        .map_err(|_| EdgeError::UpstreamUnreachable {
            outcome_unknown: method != "GET",
        })?;
    Ok(bytes_response(body, status, out_headers))
}

fn bytes_response(body: Vec<u8>, status: u16, headers: Headers) -> Response {
    match Response::from_bytes(body) {
        Ok(resp) => resp.with_status(status).with_headers(headers),
        Err(_) => Response::empty()
            .map(|r| r.with_status(500))
            .unwrap_or_else(|_| unreachable_response()),
    }
}

fn error_response(err: &EdgeError, request_id: &str) -> Response {
    let headers = Headers::new();
    let _ = headers.set("Content-Type", "application/json");
    let _ = headers.set("X-Request-Id", request_id);
    bytes_response(err.to_body(request_id).into_bytes(), err.status(), headers)
}

#[allow(clippy::panic)]
fn unreachable_response() -> Response {
    panic!("workerd could not build an empty response")
}

fn new_request_id() -> String {
    let mut bytes = [0u8; 12];
    // getrandom uses crypto.getRandomValues in workerd; it does not fail there.
    let _ = getrandom::getrandom(&mut bytes);
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("req_edge_{hex}")
}
