//! The upstream call, on the raw `web_sys` types: a profile showed the
//! `worker` crate's wrappers (the body read chunk by chunk into Rust,
//! `request.cf` read on every call) costing more than all our own decisions.

use crate::js::{answer_bytes, lines, names, pass_through, pick_headers, send_upstream};
use crate::reply::response_header_pairs;
use crate::{Trace, now_ms};
use domain::label_pdf::LabelPdfUnavailable;
use domain::upstream::StoredResponse;
use domain::upstream::UpstreamError;
use domain::upstream::proxy::{self, Forward};
use worker::js_sys::{Array, Uint8Array};
use worker::wasm_bindgen::JsCast;
use worker::wasm_bindgen_futures::JsFuture;
use worker::web_sys::Response;

/// An upstream answer: its body still unread, or read whole when the
/// caller asked for it (`Reading::Whole`).
pub struct Answer {
    pub status: u16,
    /// The passed headers (`proxy::PASSED_RESPONSE_HEADERS`), lowercase.
    pub headers: Vec<(String, String)>,
    raw: Response,
    whole: Option<Uint8Array>,
    outcome_unknown: bool,
}

/// Whether the caller streams the answer through or reads it: a read
/// answer is read in the call's own chain (one wait fewer for the Worker).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    Stream,
    Whole,
}

impl Answer {
    /// The body's bytes, for answers the Worker must look into or keep.
    async fn bytes(&self) -> Result<Uint8Array, UpstreamError> {
        if let Some(bytes) = &self.whole {
            return Ok(bytes.clone());
        }
        let unreachable = UpstreamError::Unreachable {
            outcome_unknown: self.outcome_unknown,
        };
        let read = self.raw.array_buffer().map_err(|_| unreachable.clone())?;
        let buffer = JsFuture::from(read).await.map_err(|_| unreachable)?;
        Ok(Uint8Array::new(&buffer))
    }

    /// Reads the body, for answers the Worker must look into or keep.
    pub async fn store(self) -> Result<StoredResponse, UpstreamError> {
        let bytes = self.bytes().await?.to_vec();
        Ok(StoredResponse {
            status: self.status,
            headers: self.headers,
            body: String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        })
    }

    /// The browser's answer with the upstream body streamed through unread.
    pub fn stream(self, extra: &[(&'static str, String)]) -> Response {
        pass_through(
            &self.raw,
            &lines(response_header_pairs(&self.headers, extra)),
        )
    }

    /// The body read whole (a small answer the Worker keeps a copy of) and
    /// answered from the same bytes.
    pub async fn answer_keeping(
        self,
        extra: &[(&'static str, String)],
    ) -> Result<(Response, Vec<u8>), UpstreamError> {
        let bytes = self.bytes().await?;
        let lines = lines(response_header_pairs(&self.headers, extra));
        Ok((answer_bytes(&bytes, self.status, &lines), bytes.to_vec()))
    }
}

thread_local! {
    /// The passed headers' names, made into JS strings once per isolate.
    static PASSED: Array = names(proxy::PASSED_RESPONSE_HEADERS);
}

/// Forwards to upstream with the key; a read is retried once on a connection failure, a write never.
pub async fn send(
    forward: &Forward,
    method: &str,
    key: &str,
    body: &[u8],
    reading: Reading,
    timeout_ms: u64,
    trace: &mut Trace,
) -> Result<Answer, UpstreamError> {
    let started = now_ms();
    // A write that got no answer may still have happened upstream.
    let outcome_unknown = !forward.endpoint.scope.is_read();
    let unreachable = || UpstreamError::Unreachable { outcome_unknown };
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
        let whole = reading == Reading::Whole;
        let call = send_upstream(
            &forward.url,
            method,
            &lines(pairs),
            body,
            timeout_ms as u32,
            whole,
        );
        match JsFuture::from(call).await {
            Ok(answer) if whole => {
                let answer: Array = answer.unchecked_into();
                match (answer.get(0).dyn_into(), answer.get(1).dyn_into()) {
                    (Ok(raw), Ok(bytes)) => Ok((raw, Some(bytes))),
                    _ => Err(unreachable()),
                }
            }
            Ok(answer) => answer
                .dyn_into::<Response>()
                .map(|raw| (raw, None))
                .map_err(|_| unreachable()),
            Err(why) if why.as_string().as_deref() == Some("timeout") => {
                Err(UpstreamError::Timeout {
                    outcome_unknown,
                    seconds: timeout_ms.div_ceil(1000),
                })
            }
            Err(_) => Err(unreachable()),
        }
    };
    let mut sent = send().await;
    // Reads may be retried once after a connection failure (not after a timeout); writes never are.
    if matches!(sent, Err(UpstreamError::Unreachable { .. })) && method == "GET" {
        sent = send().await;
    }
    trace.upstream_ms = Some(now_ms().saturating_sub(started));
    let (raw, whole) = sent?;
    let picked = PASSED.with(|names| pick_headers(&raw.headers(), names));
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
        whole,
        outcome_unknown,
    })
}

/// A file the service names by URL (a label's PDF), fetched with the key
/// only if `key` is given, and streamed to the browser as `content_type`.
pub async fn file(
    url: &str,
    key: Option<&str>,
    content_type: &str,
    disposition: &str,
    timeout_ms: u64,
) -> Result<Response, LabelPdfUnavailable> {
    let bearer = key.map(|k| format!("Bearer {k}"));
    let mut pairs = vec![("Accept", content_type)];
    if let Some(bearer) = &bearer {
        pairs.push(("Authorization", bearer.as_str()));
    }
    let call = send_upstream(url, "GET", &lines(pairs), None, timeout_ms as u32, false);
    let raw = JsFuture::from(call)
        .await
        .ok()
        .and_then(|r| r.dyn_into::<Response>().ok())
        .ok_or(LabelPdfUnavailable { status: None })?;
    if raw.status() != 200 {
        return Err(LabelPdfUnavailable {
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
