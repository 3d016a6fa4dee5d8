//! The key's scopes as the upstream last stated them: an
//! `AUTH.KEY.INSUFFICIENT_SCOPE` answer lists them (`key_scopes`), and they
//! replace the configured ones, so the gate refuses locally what the key
//! cannot do. A cache per isolate and organization: a new isolate learns them again.

use std::collections::HashMap;

use crate::per_org::PerOrg;
use api::orgs::OrgId;
use api::{KeyEnv, Scope};

#[derive(Default)]
pub struct KeyScopes {
    learned: HashMap<KeyEnv, Vec<Scope>>,
}

impl KeyScopes {
    /// The key's scopes: what the upstream last said, else the configuration.
    pub fn of<'a>(&'a self, mode: KeyEnv, configured: &'a [Scope]) -> &'a [Scope] {
        self.learned
            .get(&mode)
            .map(Vec::as_slice)
            .unwrap_or(configured)
    }

    pub fn learn(&mut self, mode: KeyEnv, scopes: Vec<Scope>) {
        self.learned.insert(mode, scopes);
    }
}

thread_local! {
    static KEY_SCOPES: PerOrg<KeyScopes> = PerOrg::default();
}

/// The scopes of `org`'s `mode` key as this isolate knows them.
pub fn current(org: &OrgId, mode: KeyEnv, configured: &[Scope]) -> Vec<Scope> {
    KEY_SCOPES.with(|k| k.with(org, |k| k.of(mode, configured).to_vec()))
}

/// What the upstream just said the key's scopes are.
pub fn learn(org: &OrgId, mode: KeyEnv, scopes: Vec<Scope>) {
    KEY_SCOPES.with(|k| k.with(org, |k| k.learn(mode, scopes)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn learned_scopes_replace_configured_ones() {
        let mut k = KeyScopes::default();
        assert_eq!(k.of(KeyEnv::Live, &Scope::ALL), Scope::ALL);
        k.learn(KeyEnv::Live, vec![Scope::WalletRead]);
        assert_eq!(k.of(KeyEnv::Live, &Scope::ALL), [Scope::WalletRead]);
        assert_eq!(k.of(KeyEnv::Sandbox, &Scope::ALL), Scope::ALL);
    }
}
