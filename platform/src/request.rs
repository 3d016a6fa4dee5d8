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

/// What a body read settles with: its bytes, empty if it could not be
/// read, or `None` if it was refused unread (`null`).
async fn settled(read: worker::js_sys::Promise) -> Option<Vec<u8>> {
    match worker::wasm_bindgen_futures::JsFuture::from(read).await {
        Ok(buffer) if buffer.is_null() => None,
        Ok(buffer) => Some(worker::js_sys::Uint8Array::new(&buffer).to_vec()),
        Err(_) => Some(Vec::new()),
    }
}

/// The whole body (empty if it cannot be read); callers cap its size.
pub async fn body_bytes(req: &Request) -> Vec<u8> {
    match req.array_buffer() {
        Ok(read) => settled(read).await.unwrap_or_default(),
        Err(_) => Vec::new(),
    }
}

/// The body (empty if it cannot be read), refused past `max` bytes: by its
/// declared length before it is read (in the same call), by its size after.
pub async fn capped_body(req: &Request, max: usize) -> Result<Vec<u8>, BadBody> {
    let read = js::capped_body(req, u32::try_from(max).unwrap_or(u32::MAX));
    let body = settled(read).await.ok_or(BadBody::TooLarge)?;
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
