//! The few JavaScript functions that make each crossing of the wasm
//! boundary one call: a profile showed per-header and per-field crossings
//! among the Worker's largest costs. Headers cross as one `name\nvalue\n...`
//! string (a header value cannot hold a newline).

use worker::js_sys;
use worker::wasm_bindgen::{self, JsValue, prelude::wasm_bindgen};
use worker::web_sys::{Headers, Request, Response};

#[wasm_bindgen(inline_js = "
export function request_facts(req) {
  const h = req.headers;
  return req.method + '\\n' + (h.get('cookie') ?? '') + '\\n' + (h.get('origin') ?? '') + '\\n' +
    (h.get('parcel-widget-origin') ?? '') + '\\n' + req.url;
}
export function capped_body(req, max) {
  // Refused unread (null) when its declared length is over the cap.
  if (Number(req.headers.get('content-length')) > max) return Promise.resolve(null);
  return req.arrayBuffer();
}
export function headers_from(lines) {
  const h = new Headers();
  const p = lines.split('\\n');
  for (let i = 0; i + 1 < p.length; i += 2) h.set(p[i], p[i + 1]);
  return h;
}
export function send_upstream(url, method, lines, body, timeout_ms, whole) {
  // A native timer signal: no JS closure or Rust timer future per call.
  const signal = AbortSignal.timeout(timeout_ms);
  // fetch() copies the body before it returns (the Fetch standard's
  // 'extract a body'), so a view into wasm memory is safe to pass.
  const sent = fetch(url, { method, headers: headers_from(lines), body, signal });
  // An answer the Worker reads is read here, in the same chain and under
  // the same timeout: [response, bytes].
  return (whole ? sent.then((r) => r.arrayBuffer().then((b) => [r, new Uint8Array(b)])) : sent)
    .catch(() => Promise.reject(signal.aborted ? 'timeout' : 'unreachable'));
}
export function pass_through(raw, lines) {
  return new Response(raw.body, { status: raw.status, headers: headers_from(lines) });
}
export function answer_bytes(bytes, status, lines) {
  return new Response(bytes, { status, headers: headers_from(lines) });
}
export function name_request(res, id) {
  // A fetched answer's headers are immutable: it goes as it came.
  try { if (!res.headers.has('x-request-id')) res.headers.set('x-request-id', id); } catch {}
}
export function with_headers(req, lines) {
  // A copy of the request (method, URL, headers, body) with headers added.
  const copy = new Request(req);
  const p = lines.split('\\n');
  for (let i = 0; i + 1 < p.length; i += 2) copy.headers.set(p[i], p[i + 1]);
  return copy;
}
export function pick_headers(headers, names) {
  let out = '';
  for (const n of names) {
    const v = headers.get(n);
    if (v !== null) out += n + '\\n' + v + '\\n';
  }
  return out;
}")]
extern "C" {
    /// Method, cookie, origin, widget origin and URL, newline-separated
    /// (the URL last: it is the only one that may be long).
    pub fn request_facts(req: &Request) -> String;
    /// A promise of the body's `ArrayBuffer` (rejected if it cannot be
    /// read), or of `null` if its declared length is over `max`.
    pub fn capped_body(req: &Request, max: u32) -> js_sys::Promise;
    pub fn headers_from(lines: &str) -> Headers;
    pub fn send_upstream(
        url: &str,
        method: &str,
        lines: &str,
        body: Option<&[u8]>,
        timeout_ms: u32,
        whole: bool,
    ) -> js_sys::Promise;
    pub fn pass_through(raw: &Response, lines: &str) -> Response;
    /// An answer of `bytes` (already in JS) with `status` and the header lines.
    pub fn answer_bytes(bytes: &js_sys::Uint8Array, status: u16, lines: &str) -> Response;
    pub fn with_headers(req: &Request, lines: &str) -> Request;
    /// The `names` present in `headers`, as lines.
    pub fn pick_headers(headers: &Headers, names: &js_sys::Array) -> String;
    /// Sets `X-Request-Id` on an answer that has none and can take one.
    pub fn name_request(res: &Response, id: &str);
}

/// Names as a JS array of strings (for `pick_headers`; make it once).
pub fn names(list: &[&str]) -> js_sys::Array {
    list.iter().map(|name| JsValue::from_str(name)).collect()
}

/// Header pairs as one `name\nvalue\n...` string.
pub fn lines<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut lines = String::with_capacity(512);
    for (name, value) in pairs {
        lines.push_str(name);
        lines.push('\n');
        lines.push_str(value);
        lines.push('\n');
    }
    lines
}
