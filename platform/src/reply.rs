//! Every answer the Worker builds itself (its own endpoints, errors,
//! stored and replayed answers), with the security headers every `/api`
//! answer carries, on the raw `web_sys` types.

use super::js::{headers_from, lines};
use domain::errors::{Failure, Internal};
use domain::upstream::StoredResponse;
use domain::upstream::proxy;
use worker::wasm_bindgen::JsValue;
use worker::web_sys::{self, Headers, Response, ResponseInit};

/// Builds a `Headers` from pairs in one boundary crossing.
pub fn headers<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Headers {
    headers_from(&lines(pairs))
}

enum Body<'a> {
    Text(&'a str),
    Empty,
}

/// A response; only fails if the runtime refuses to make one.
fn build(status: u16, headers: &Headers, body: Body) -> Result<Response, Internal> {
    let init = ResponseInit::new();
    init.set_status(status);
    init.set_headers(headers);
    match body {
        Body::Text(text) => Response::new_with_opt_str_and_init(Some(text), &init),
        Body::Empty => Response::new_with_opt_str_and_init(None, &init),
    }
    .map_err(|_| Internal {
        what: "build its answer",
    })
}

/// Security headers on every `/api` answer, then `passed`, then `extra`.
fn response_headers(passed: &[(String, String)], extra: &[(&'static str, String)]) -> Headers {
    headers(response_header_pairs(passed, extra))
}

pub fn response_header_pairs<'a>(
    passed: &'a [(String, String)],
    extra: &'a [(&'static str, String)],
) -> impl Iterator<Item = (&'a str, &'a str)> {
    proxy::API_SECURITY_HEADERS
        .iter()
        .copied()
        .chain(passed.iter().map(|(n, v)| (n.as_str(), v.as_str())))
        .chain(extra.iter().map(|(n, v)| (*n, v.as_str())))
}

/// A stored answer (fresh, replayed or cached) as the browser gets it.
pub fn respond<E: From<Internal>>(
    stored: &StoredResponse,
    answered_from: Option<&'static str>,
    extra: &[(&'static str, String)],
) -> Result<Response, E> {
    let mut extra = extra.to_vec();
    match answered_from {
        Some("replayed") => extra.push(("Idempotent-Replayed", "true".into())),
        Some("cached") => extra.push(("X-Parcel-Cache", "hit".into())),
        _ => {}
    }
    let headers = response_headers(&stored.headers, &extra);
    build(stored.status, &headers, Body::Text(&stored.body)).map_err(E::from)
}

/// A JSON answer of the Worker's own endpoints.
pub fn json<T: serde::Serialize, E: From<Internal>>(
    status: u16,
    value: &T,
    extra: &[(&'static str, String)],
) -> Result<Response, E> {
    let passed = [("content-type".to_string(), "application/json".to_string())];
    let body = serde_json::to_string(value).map_err(|_| {
        E::from(Internal {
            what: "write its answer",
        })
    })?;
    build(status, &response_headers(&passed, extra), Body::Text(&body)).map_err(E::from)
}

/// A plain-text answer (the accounts Worker's membership check).
pub fn text<E: From<Internal>>(status: u16, body: &str) -> Result<Response, E> {
    let passed = [("content-type".to_string(), "text/plain".to_string())];
    build(status, &response_headers(&passed, &[]), Body::Text(body)).map_err(E::from)
}

/// A download of the Worker's own making (a CSV, a merged PDF).
pub fn file<E: From<Internal>>(
    status: u16,
    bytes: &[u8],
    content_type: &str,
    disposition: &str,
) -> Result<Response, E> {
    let extra = [
        ("Content-Type", content_type.to_string()),
        ("Content-Disposition", disposition.to_string()),
    ];
    let headers = response_headers(&[], &extra);
    let init = ResponseInit::new();
    init.set_status(status);
    init.set_headers(&headers);
    let mut body = bytes.to_vec();
    Response::new_with_opt_u8_array_and_init(Some(&mut body), &init).map_err(|_| {
        E::from(Internal {
            what: "build its answer",
        })
    })
}

/// An answer without a body (204s).
pub fn empty<E: From<Internal>>(
    status: u16,
    extra: &[(&'static str, String)],
) -> Result<Response, E> {
    build(status, &response_headers(&[], extra), Body::Empty).map_err(E::from)
}

pub fn error_response(
    err: &impl Failure,
    request_id: &str,
    cors_origin: Option<&str>,
) -> Result<Response, JsValue> {
    let mut extra = cors_origin
        .map(domain::widget::cors::response_headers)
        .unwrap_or_default();
    extra.push(("Content-Type", "application/json".into()));
    extra.push(("X-Request-Id", request_id.into()));
    if let Some(seconds) = err.retry_after() {
        extra.push(("Retry-After", seconds.to_string()));
    }
    let headers = response_headers(&[], &extra);
    let init = web_sys::ResponseInit::new();
    init.set_status(err.status());
    init.set_headers(&headers);
    Response::new_with_opt_str_and_init(Some(&err.to_body(request_id)), &init)
}
