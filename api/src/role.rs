//! A person's role in an organization (or in a deployment configured by
//! its settings).

use std::fmt;
use std::str::FromStr;

crate::names! {
    /// A dashboard user's role. What each may do is the Worker's configuration
    /// (defaults in docs/configuration.md); the app only hides what `scopes` excludes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Role {
        /// Every scope the key has, plus the live/sandbox switch and key rotation.
        Admin = "admin",
        /// Every v1 scope the key has: ship, void, batch, track; the live/sandbox
        /// switch when the organization allows it.
        Operator = "operator",
        /// Read scopes only: no purchase, void or batch.
        Viewer = "viewer",
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Role::from_name(s).ok_or_else(|| format!("unknown role {s:?} (admin, operator or viewer)"))
    }
}
