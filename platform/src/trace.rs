//! What one request did, for its log line.

use domain::access::gate::Principal;

#[derive(Default)]
pub struct Trace {
    pub route: Option<&'static str>,
    pub principal: Option<String>,
    pub role: Option<&'static str>,
    pub upstream_status: Option<u16>,
    pub upstream_request_id: Option<String>,
    pub upstream_ms: Option<u64>,
    /// `replayed` (purchase records) or `cached` (widget quote).
    pub answered_from: Option<&'static str>,
    /// The widget origin, so error answers carry CORS headers too.
    pub cors_origin: Option<String>,
    /// Work that runs after the answer is sent (`waitUntil`): records that
    /// must not delay the caller.
    pub after: Vec<std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>>,
}

impl Trace {
    pub fn caller(&mut self, principal: &Principal) {
        self.principal = Some(principal.label());
        self.role = Some(principal.role());
    }
}
