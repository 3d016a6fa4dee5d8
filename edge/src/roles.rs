//! Who may call what. A principal's scopes are its role's scopes
//! intersected with the key's own scopes, so the Worker never forwards a call
//! the key cannot make.

use api::Scope;
use std::str::FromStr;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Every scope the key has, plus the mode switch and key rotation.
    Admin,
    /// Every v1 scope the key has: ship, void, batch, track.
    Operator,
    /// Read scopes only: no purchase, void or batch.
    Viewer,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Operator => "operator",
            Role::Viewer => "viewer",
        }
    }

    /// The documented defaults (README, "Roles").
    pub fn default_scopes(self) -> Vec<Scope> {
        match self {
            Role::Admin | Role::Operator => Scope::ALL.to_vec(),
            Role::Viewer => Scope::ALL.iter().copied().filter(|s| s.is_read()).collect(),
        }
    }
}

impl FromStr for Role {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "admin" => Ok(Role::Admin),
            "operator" => Ok(Role::Operator),
            "viewer" => Ok(Role::Viewer),
            _ => Err(()),
        }
    }
}

/// The anonymous storefront widget may only validate addresses and quote rates.
pub const WIDGET_SCOPES: [Scope; 2] = [Scope::AddressesRead, Scope::RatesRead];

/// `wanted` ∩ `key_scopes`, in the order of `wanted`.
pub fn effective_scopes(wanted: &[Scope], key_scopes: &[Scope]) -> Vec<Scope> {
    wanted
        .iter()
        .copied()
        .filter(|s| key_scopes.contains(s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn viewer_reads_only() {
        let scopes = Role::Viewer.default_scopes();
        assert!(scopes.contains(&Scope::WalletRead));
        assert!(scopes.contains(&Scope::LabelsRead));
        assert!(!scopes.contains(&Scope::LabelsWrite));
        assert!(!scopes.contains(&Scope::BatchesWrite));
    }

    #[test]
    fn a_role_never_exceeds_the_key() {
        let key = [Scope::RatesRead, Scope::WalletRead];
        assert_eq!(
            effective_scopes(&Role::Admin.default_scopes(), &key),
            vec![Scope::RatesRead, Scope::WalletRead]
        );
        assert_eq!(
            effective_scopes(&WIDGET_SCOPES, &key),
            vec![Scope::RatesRead]
        );
    }

    #[test]
    fn parses_role_names() {
        for role in [Role::Admin, Role::Operator, Role::Viewer] {
            assert_eq!(role.as_str().parse::<Role>(), Ok(role));
        }
        assert!("root".parse::<Role>().is_err());
    }
}
