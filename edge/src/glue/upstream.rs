//! The upstream call and the answers built from it.

use super::{Trace, now_ms};
use crate::errors::EdgeError;
use crate::idempotency::StoredResponse;
use crate::proxy::{self, Forward};
use futures_util::future::Either;
use std::time::Duration;
use worker::{
    AbortController, Delay, Fetch, Headers, Method, Request, RequestInit, Response,
    wasm_bindgen::JsValue,
};

/// Forwards to upstream with the key; a read is retried once on a connection failure, a write never.
pub(crate) async fn send(
    forward: &Forward,
    method: &str,
    key: &str,
    body: &[u8],
    timeout_ms: u64,
    trace: &mut Trace,
) -> Result<StoredResponse, EdgeError> {
    let started = now_ms();
    let headers = Headers::new();
    let _ = headers.set("Authorization", &format!("Bearer {key}"));
    let _ = headers.set("Accept", "application/json");
    let mut init = RequestInit::new();
    init.with_method(Method::from(method.to_string()))
        .with_headers(headers);
    if !body.is_empty() {
        let _ = init.headers.set("Content-Type", "application/json");
        init.with_body(Some(JsValue::from(worker::js_sys::Uint8Array::from(body))));
    }
    // A write that got no answer may still have happened upstream.
    let outcome_unknown = !forward.endpoint.scope.is_read();
    let unreachable = || EdgeError::UpstreamUnreachable { outcome_unknown };
    let send = || async {
        let request = Request::new_with_init(&forward.url, &init).map_err(|_| unreachable())?;
        let controller = AbortController::default();
        let (fetcher, signal) = (Fetch::Request(request), controller.signal());
        let fetch = fetcher.send_with_signal(&signal);
        let delay = Delay::from(Duration::from_millis(timeout_ms));
        futures_util::pin_mut!(fetch, delay);
        match futures_util::future::select(fetch, delay).await {
            Either::Left((response, _)) => response.map_err(|_| unreachable()),
            Either::Right(_) => {
                controller.abort();
                Err(EdgeError::UpstreamTimeout {
                    outcome_unknown,
                    seconds: timeout_ms.div_ceil(1000),
                })
            }
        }
    };
    let mut sent = send().await;
    // Reads may be retried once after a connection failure (not after a timeout); writes never are.
    if matches!(sent, Err(EdgeError::UpstreamUnreachable { .. })) && method == "GET" {
        sent = send().await;
    }
    trace.upstream_ms = Some(now_ms().saturating_sub(started));
    let mut upstream = sent?;
    let headers: Vec<(String, String)> = upstream
        .headers()
        .entries()
        .filter(|(name, _)| proxy::is_passed_response_header(name))
        .collect();
    let status = upstream.status_code();
    trace.upstream_status = Some(status);
    trace.upstream_request_id = headers
        .iter()
        .find(|(n, _)| n == "x-request-id")
        .map(|(_, v)| v.clone());
    let body = upstream.text().await.map_err(|_| unreachable())?;
    Ok(StoredResponse {
        status,
        headers,
        body,
    })
}

pub(crate) fn api_headers() -> Headers {
    let headers = Headers::new();
    for (name, value) in proxy::API_SECURITY_HEADERS {
        let _ = headers.set(name, value);
    }
    headers
}

/// An upstream answer (fresh, replayed or cached) as the browser gets it.
pub(crate) fn respond(
    stored: StoredResponse,
    answered_from: Option<&'static str>,
    extra: &[(&'static str, String)],
) -> Result<Response, EdgeError> {
    let headers = api_headers();
    for (name, value) in &stored.headers {
        let _ = headers.set(name, value);
    }
    match answered_from {
        Some("replayed") => {
            let _ = headers.set("Idempotent-Replayed", "true");
        }
        Some("cached") => {
            let _ = headers.set("X-Parcel-Cache", "hit");
        }
        _ => {}
    }
    for (name, value) in extra {
        let _ = headers.set(name, value);
    }
    let response = Response::from_bytes(stored.body.into_bytes()).map_err(|_| {
        EdgeError::UpstreamUnreachable {
            outcome_unknown: false,
        }
    })?;
    Ok(response.with_status(stored.status).with_headers(headers))
}

/// A JSON answer of the Worker's own endpoints.
pub(crate) fn json<T: serde::Serialize>(
    status: u16,
    value: &T,
    extra: &[(&'static str, String)],
) -> Result<Response, EdgeError> {
    let body = serde_json::to_string(value).unwrap_or_default();
    respond(
        StoredResponse {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body,
        },
        None,
        extra,
    )
}

pub(crate) fn error_response(
    err: &EdgeError,
    request_id: &str,
    cors_origin: Option<&str>,
) -> worker::Result<Response> {
    let headers = api_headers();
    for (name, value) in cors_origin
        .map(crate::cors::response_headers)
        .unwrap_or_default()
    {
        headers.set(name, &value)?;
    }
    headers.set("Content-Type", "application/json")?;
    headers.set("X-Request-Id", request_id)?;
    if let Some(seconds) = err.retry_after() {
        headers.set("Retry-After", &seconds.to_string())?;
    }
    Ok(Response::from_bytes(err.to_body(request_id).into_bytes())?
        .with_status(err.status())
        .with_headers(headers))
}
