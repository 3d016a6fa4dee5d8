//! The upstream call and every answer the Worker builds, on the raw
//! `web_sys` types: a profile showed the `worker` crate's wrappers (the body
//! read chunk by chunk into Rust, `request.cf` read on every call) costing
//! more than all our own decisions.

use super::{Trace, now_ms};
use crate::errors::EdgeError;
use crate::idempotency::StoredResponse;
use crate::proxy::{self, Forward};
use worker::wasm_bindgen::{self, JsCast, JsValue, prelude::wasm_bindgen};
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys::{Headers, Response, ResponseInit};
use worker::{js_sys, web_sys};

// Headers cross the wasm boundary as one `name\nvalue\n...` string (a
// header value cannot hold a newline): one call instead of one per header,
// which a profile showed among the Worker's largest costs.
#[wasm_bindgen(inline_js = "
export function headers_from(lines) {
  const h = new Headers();
  const p = lines.split('\\n');
  for (let i = 0; i + 1 < p.length; i += 2) h.set(p[i], p[i + 1]);
  return h;
}
export function send_upstream(url, method, lines, body, timeout_ms) {
  // A native timer signal: no JS closure or Rust timer future per call.
  const signal = AbortSignal.timeout(timeout_ms);
  // The body is copied: the caller's bytes are a view into wasm memory.
  return fetch(url, { method, headers: headers_from(lines), body: body && body.slice(), signal })
    .catch(() => Promise.reject(signal.aborted ? 'timeout' : 'unreachable'));
}
export function pass_through(raw, lines) {
  return new Response(raw.body, { status: raw.status, headers: headers_from(lines) });
}
export function pick_headers(headers, names) {
  let out = '';
  for (const n of names.split('\\n')) {
    const v = headers.get(n);
    if (v !== null) out += n + '\\n' + v + '\\n';
  }
  return out;
}")]
extern "C" {
    fn headers_from(lines: &str) -> Headers;
    fn send_upstream(
        url: &str,
        method: &str,
        lines: &str,
        body: Option<&[u8]>,
        timeout_ms: u32,
    ) -> js_sys::Promise;
    fn pass_through(raw: &Response, lines: &str) -> Response;
    fn pick_headers(headers: &Headers, names: &str) -> String;
}

/// Builds a `Headers` from pairs in one boundary crossing.
pub(crate) fn headers<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Headers {
    headers_from(&lines(pairs))
}

/// Header pairs as one `name\nvalue\n...` string.
fn lines<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut lines = String::with_capacity(512);
    for (name, value) in pairs {
        lines.push_str(name);
        lines.push('\n');
        lines.push_str(value);
        lines.push('\n');
    }
    lines
}

/// An upstream answer whose body is still unread.
pub(crate) struct Answer {
    pub status: u16,
    /// The passed headers (`proxy::PASSED_RESPONSE_HEADERS`), lowercase.
    pub headers: Vec<(String, String)>,
    raw: Response,
    outcome_unknown: bool,
}

impl Answer {
    /// Reads the body, for answers the Worker must look into or keep.
    pub async fn store(self) -> Result<StoredResponse, EdgeError> {
        let unreachable = EdgeError::UpstreamUnreachable {
            outcome_unknown: self.outcome_unknown,
        };
        let text = self.raw.text().map_err(|_| unreachable.clone())?;
        let body = JsFuture::from(text)
            .await
            .ok()
            .and_then(|v| v.as_string())
            .ok_or(unreachable)?;
        Ok(StoredResponse {
            status: self.status,
            headers: self.headers,
            body,
        })
    }

    /// The browser's answer with the upstream body streamed through unread.
    pub fn stream(self, extra: &[(&'static str, String)]) -> Response {
        pass_through(
            &self.raw,
            &lines(response_header_pairs(&self.headers, extra)),
        )
    }
}

enum Body<'a> {
    Text(&'a str),
    Empty,
}

/// A response; only fails if the runtime refuses to make one.
fn build(status: u16, headers: &Headers, body: Body) -> Result<Response, EdgeError> {
    let init = ResponseInit::new();
    init.set_status(status);
    init.set_headers(headers);
    match body {
        Body::Text(text) => Response::new_with_opt_str_and_init(Some(text), &init),
        Body::Empty => Response::new_with_opt_str_and_init(None, &init),
    }
    .map_err(|_| EdgeError::ControlUnavailable)
}

/// Forwards to upstream with the key; a read is retried once on a connection failure, a write never.
pub(crate) async fn send(
    forward: &Forward,
    method: &str,
    key: &str,
    body: &[u8],
    timeout_ms: u64,
    trace: &mut Trace,
) -> Result<Answer, EdgeError> {
    let started = now_ms();
    // A write that got no answer may still have happened upstream.
    let outcome_unknown = !forward.endpoint.scope.is_read();
    let unreachable = || EdgeError::UpstreamUnreachable { outcome_unknown };
    let send = || async {
        let bearer = format!("Bearer {key}");
        let mut pairs = vec![
            ("Authorization", bearer.as_str()),
            ("Accept", "application/json"),
        ];
        if !body.is_empty() {
            pairs.push(("Content-Type", "application/json"));
        }
        let body = (!body.is_empty()).then_some(body);
        let call = send_upstream(&forward.url, method, &lines(pairs), body, timeout_ms as u32);
        match JsFuture::from(call).await {
            Ok(response) => response.dyn_into::<Response>().map_err(|_| unreachable()),
            Err(why) if why.as_string().as_deref() == Some("timeout") => {
                Err(EdgeError::UpstreamTimeout {
                    outcome_unknown,
                    seconds: timeout_ms.div_ceil(1000),
                })
            }
            Err(_) => Err(unreachable()),
        }
    };
    let mut sent = send().await;
    // Reads may be retried once after a connection failure (not after a timeout); writes never are.
    if matches!(sent, Err(EdgeError::UpstreamUnreachable { .. })) && method == "GET" {
        sent = send().await;
    }
    trace.upstream_ms = Some(now_ms().saturating_sub(started));
    let raw = sent?;
    let picked = pick_headers(&raw.headers(), &proxy::PASSED_RESPONSE_HEADERS.join("\n"));
    let mut lines = picked.split('\n');
    let mut headers: Vec<(String, String)> = Vec::with_capacity(6);
    while let (Some(name), Some(value)) = (lines.next(), lines.next()) {
        headers.push((name.to_string(), value.to_string()));
    }
    trace.upstream_status = Some(raw.status());
    trace.upstream_request_id = headers
        .iter()
        .find(|(n, _)| n == "x-request-id")
        .map(|(_, v)| v.clone());
    Ok(Answer {
        status: raw.status(),
        headers,
        raw,
        outcome_unknown,
    })
}

/// A file the service names by URL (a label's PDF), fetched with the key
/// only if `key` is given, and streamed to the browser as `content_type`.
pub(crate) async fn file(
    url: &str,
    key: Option<&str>,
    content_type: &str,
    disposition: &str,
    timeout_ms: u64,
) -> Result<Response, EdgeError> {
    let bearer = key.map(|k| format!("Bearer {k}"));
    let mut pairs = vec![("Accept", content_type)];
    if let Some(bearer) = &bearer {
        pairs.push(("Authorization", bearer.as_str()));
    }
    let call = send_upstream(url, "GET", &lines(pairs), None, timeout_ms as u32);
    let raw = JsFuture::from(call)
        .await
        .ok()
        .and_then(|r| r.dyn_into::<Response>().ok())
        .ok_or(EdgeError::LabelPdfUnavailable { status: None })?;
    if raw.status() != 200 {
        return Err(EdgeError::LabelPdfUnavailable {
            status: Some(raw.status()),
        });
    }
    let extra = [
        ("Content-Type", content_type.to_string()),
        ("Content-Disposition", disposition.to_string()),
    ];
    Ok(pass_through(
        &raw,
        &lines(response_header_pairs(&[], &extra)),
    ))
}

/// Security headers on every `/api` answer, then `passed`, then `extra`.
fn response_headers(passed: &[(String, String)], extra: &[(&'static str, String)]) -> Headers {
    headers(response_header_pairs(passed, extra))
}

fn response_header_pairs<'a>(
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
pub(crate) fn respond(
    stored: &StoredResponse,
    answered_from: Option<&'static str>,
    extra: &[(&'static str, String)],
) -> Result<Response, EdgeError> {
    let mut extra = extra.to_vec();
    match answered_from {
        Some("replayed") => extra.push(("Idempotent-Replayed", "true".into())),
        Some("cached") => extra.push(("X-Parcel-Cache", "hit".into())),
        _ => {}
    }
    let headers = response_headers(&stored.headers, &extra);
    build(stored.status, &headers, Body::Text(&stored.body))
}

/// A JSON answer of the Worker's own endpoints.
pub(crate) fn json<T: serde::Serialize>(
    status: u16,
    value: &T,
    extra: &[(&'static str, String)],
) -> Result<Response, EdgeError> {
    let passed = [("content-type".to_string(), "application/json".to_string())];
    let body = serde_json::to_string(value).unwrap_or_default();
    build(status, &response_headers(&passed, extra), Body::Text(&body))
}

/// An answer without a body (204s).
pub(crate) fn empty(status: u16, extra: &[(&'static str, String)]) -> Result<Response, EdgeError> {
    build(status, &response_headers(&[], extra), Body::Empty)
}

pub(crate) fn error_response(
    err: &EdgeError,
    request_id: &str,
    cors_origin: Option<&str>,
) -> Result<Response, JsValue> {
    let mut extra = cors_origin
        .map(crate::cors::response_headers)
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
