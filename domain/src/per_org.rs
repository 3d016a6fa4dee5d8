//! Per-isolate caches keyed by organization.

use api::orgs::OrgId;

/// A per-isolate cache with one value per organization (learned limits,
/// key scopes, the active key): what one organization's calls taught the
/// isolate never steers another's.
pub struct PerOrg<T>(std::cell::RefCell<std::collections::HashMap<OrgId, T>>);

impl<T> Default for PerOrg<T> {
    fn default() -> Self {
        PerOrg(Default::default())
    }
}

impl<T: Default> PerOrg<T> {
    /// Runs `f` on `org`'s value. Never held across an `.await`.
    pub fn with<R>(&self, org: &OrgId, f: impl FnOnce(&mut T) -> R) -> R {
        f(self.0.borrow_mut().entry(org.clone()).or_default())
    }
}
