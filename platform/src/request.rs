//! What a request says: its line and the headers every route reads, read
//! across the wasm boundary in one call, and its body.

use crate::js;
use domain::errors::BadBody;
use worker::web_sys::Request;

/// The request line and the headers every route reads.
pub struct Incoming {
    pub method: String,
    pub url: String,
    pub cookie: Option<String>,
    pub origin: Option<String>,
    /// `api::widget::ORIGIN_HEADER`, sent by the widget page.
    pub framed_by: Option<String>,
}

impl Incoming {
    pub fn read(req: &Request) -> Incoming {
        let facts = js::request_facts(req);
        let mut parts = facts.splitn(5, '\n');
        let mut next = || parts.next().unwrap_or_default().to_string();
        let some = |s: String| (!s.is_empty()).then_some(s);
        let method = next();
        let cookie = some(next());
        let origin = some(next());
        let framed_by = some(next());
        Incoming {
            method,
            cookie,
            origin,
            framed_by,
            url: next(),
        }
    }
}

pub fn header(req: &Request, name: &str) -> Option<String> {
    req.headers().get(name).ok().flatten()
}

/// The whole body (empty if it cannot be read); callers cap its size.
pub async fn body_bytes(req: &Request) -> Vec<u8> {
    let Ok(promise) = req.array_buffer() else {
        return Vec::new();
    };
    match worker::wasm_bindgen_futures::JsFuture::from(promise).await {
        Ok(buffer) => worker::js_sys::Uint8Array::new(&buffer).to_vec(),
        Err(_) => Vec::new(),
    }
}

/// The body, refused past `max` bytes: by its declared length before it
/// is read (in the same call), by its size after.
pub async fn capped_body(req: &Request, max: usize) -> Result<Vec<u8>, BadBody> {
    let read = js::capped_body(req, u32::try_from(max).unwrap_or(u32::MAX));
    // An unreadable body is empty (as `body_bytes` has it).
    let Ok(buffer) = worker::wasm_bindgen_futures::JsFuture::from(read).await else {
        return Ok(Vec::new());
    };
    if buffer.is_null() {
        return Err(BadBody::TooLarge);
    }
    let body = worker::js_sys::Uint8Array::new(&buffer).to_vec();
    if body.len() > max {
        return Err(BadBody::TooLarge);
    }
    Ok(body)
}

/// A small JSON body of the Worker's own endpoints, parsed with its `api` type.
pub async fn json_body<T: serde::de::DeserializeOwned>(
    req: &Request,
    max: usize,
) -> Result<T, BadBody> {
    let body = capped_body(req, max).await?;
    api::validation::parse_json(&body).map_err(BadBody::Invalid)
}
