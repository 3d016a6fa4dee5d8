//! The caller's side of the Durable Object protocol (`domain::objects`):
//! one typed call, one typed reply; anything else is the object's
//! "unavailable" error, with the object's own message in the log.

use crate::reply;
use domain::objects::{Ask, CALL_URL, Object};
use worker::{Env, Request, Stub, WebSocket, wasm_bindgen::JsValue, web_sys};

/// A request to a Durable Object or a service binding, built on the raw
/// `web_sys` types: the `worker` crate's `RequestInit` conversion alone
/// weighed 11 KB of the wasm.
pub fn new_request(
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: Option<&str>,
) -> Option<Request> {
    let init = web_sys::RequestInit::new();
    init.set_method(method);
    if !headers.is_empty() {
        init.set_headers(&reply::headers(headers.iter().copied()));
    }
    if let Some(body) = body {
        init.set_body(&JsValue::from_str(body));
    }
    web_sys::Request::new_with_str_and_init(url, &init)
        .ok()
        .map(Request::from)
}

/// The stub of object `O` named `name`.
pub fn stub<O: Object>(env: &Env, name: &str) -> Result<Stub, O::Error> {
    let namespace = env.durable_object(O::BINDING).map_err(|e| {
        worker::console_error!("durable object binding {} missing: {e}", O::BINDING);
        O::unavailable()
    })?;
    namespace
        .id_from_name(name)
        .and_then(|id| id.get_stub())
        .map_err(|_| O::unavailable())
}

/// Sends `call` to object `O` named `name` and decodes its typed reply.
pub async fn ask<O: Object, A: Ask<O>>(
    env: &Env,
    name: &str,
    call: A,
) -> Result<A::Reply, O::Error> {
    let stub = stub::<O>(env, name)?;
    let request: O::Request = call.into();
    let json = serde_json::to_string(&request).map_err(|_| O::unavailable())?;
    // The object learns its own name from the URL (workerd does not tell it).
    let url = format!("{CALL_URL}/{name}");
    let req = new_request(&url, "POST", &[], Some(&json)).ok_or_else(O::unavailable)?;
    let mut resp = stub.fetch_with_request(req).await.map_err(|e| {
        worker::console_error!("durable object {} failed: {e}", O::BINDING);
        O::unavailable()
    })?;
    let text = resp.text().await.unwrap_or_default();
    if resp.status_code() >= 300 {
        // The object's own error (SQL, storage): for the operator's log only.
        worker::console_error!(
            "durable object {}: {} {text}",
            O::BINDING,
            resp.status_code()
        );
        return Err(O::unavailable());
    }
    serde_json::from_str(&text).map_err(|e| {
        worker::console_error!("durable object {}: undecodable reply: {e}", O::BINDING);
        O::unavailable()
    })
}

/// Hands a WebSocket upgrade to object `O` named `name` at `url`; the object
/// keeps the socket (hibernatable), so an idle page costs nothing.
pub async fn upgrade<O: Object>(
    env: &Env,
    name: &str,
    url: &str,
) -> Result<web_sys::Response, O::Error> {
    let stub = stub::<O>(env, name)?;
    let req =
        new_request(url, "GET", &[("Upgrade", "websocket")], None).ok_or_else(O::unavailable)?;
    let resp = stub
        .fetch_with_request(req)
        .await
        .map_err(|_| O::unavailable())?;
    if resp.status_code() != 101 {
        return Err(O::unavailable());
    }
    Ok(resp.into())
}

/// An object's answer to a live feed closing: the peer's code echoed back
/// (1005 and 1006 cannot be sent, so those get a normal close).
pub fn close_back(ws: &WebSocket, code: usize, reason: String) {
    let code = if (1000..=4999).contains(&code) && code != 1005 && code != 1006 {
        code as u16
    } else {
        1000
    };
    // A socket already gone needs no answer.
    let _ = ws.close(Some(code), Some(reason));
}
