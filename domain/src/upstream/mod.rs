//! Forwarding the v1 endpoints: the allow-list and body checks (`proxy`),
//! the per-minute budgets the upstream reports (`budget`), the key's scopes
//! it states (`key_scopes`), the keys (`keys`), where the service is
//! (`settings`), and how an upstream call fails (`error`).

pub mod budget;
mod error;
pub mod key_scopes;
pub mod keys;
pub mod proxy;
pub mod settings;

pub use error::{Budget, UpstreamError};

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
