//! One structured JSON line per request: enough to follow a request from
//! the browser to upstream (the request ids), never a secret (no headers, no
//! bodies, no key: there is no field that could hold one).

use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct RequestLog<'a> {
    pub request_id: &'a str,
    pub method: &'a str,
    /// The endpoint pattern (`/v1/labels/{id}`), not the raw path, so ids stay out of the aggregate.
    pub route: &'a str,
    /// Who called: `user:NAME`, `widget:ORIGIN` or `anonymous`.
    pub principal: &'a str,
    /// `admin`, `operator`, `viewer` or `widget`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'a str>,
    pub status: u16,
    /// Upstream's status, when upstream was called.
    pub upstream_status: Option<u16>,
    /// Upstream's own `X-Request-Id`, to find the call in its logs.
    pub upstream_request_id: Option<&'a str>,
    pub upstream_ms: Option<u64>,
    pub total_ms: u64,
    /// `replayed` (purchase records) or `cached` (widget quote) when upstream was not asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answered_from: Option<&'static str>,
    /// The error code, when the answer is an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<&'a str>,
}

impl RequestLog<'_> {
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_json_line_with_the_ids() {
        let line = RequestLog {
            request_id: "req_edge_1",
            method: "POST",
            route: "/v1/labels",
            principal: "user:ada",
            role: Some("operator"),
            status: 201,
            upstream_status: Some(201),
            upstream_request_id: Some("req_up_1"),
            upstream_ms: Some(12),
            total_ms: 15,
            answered_from: None,
            error: None,
        }
        .to_line();
        assert!(!line.contains('\n'));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["route"], "/v1/labels");
        assert_eq!(v["upstream_request_id"], "req_up_1");
        assert_eq!(v["principal"], "user:ada");
        assert!(v.get("answered_from").is_none());
    }
}
