//! Forwarding the v1 endpoints: the allow-list and body checks (`proxy`),
//! the per-minute budgets the upstream reports (`budget`), the key's scopes
//! it states (`key_scopes`), the upstream call itself (`send`), the one
//! pipeline every upstream call of the Worker takes (`call`) and a
//! forwarded call from end to end (`forward`).

pub mod budget;
pub mod key_scopes;
pub mod proxy;

use serde::{Deserialize, Serialize};

/// An upstream answer read whole: what the Worker looks into (an error, a
/// job's answer), replays (a purchase's record) or caches (a widget quote).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredResponse {
    pub status: u16,
    /// The passed headers (`proxy::PASSED_RESPONSE_HEADERS`), lowercase.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl StoredResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}
