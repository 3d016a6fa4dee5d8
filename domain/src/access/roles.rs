//! Who may call what. A principal's scopes are its role's scopes
//! intersected with the key's own scopes, so the Worker never forwards a call
//! the key cannot make. Role definitions are configuration (`ROLES`); the
//! defaults are below and in docs/configuration.md.

use api::Scope;
use api::session::Role;
use std::collections::HashMap;

/// The anonymous storefront widget may only validate addresses and quote rates.
pub const WIDGET_SCOPES: [Scope; 2] = [Scope::AddressesRead, Scope::RatesRead];

/// The documented defaults: admin and operator every v1 scope, viewer the
/// read scopes. (Admins also switch modes and rotate keys: not a v1 scope.)
pub fn default_scopes(role: Role) -> Vec<Scope> {
    match role {
        Role::Admin | Role::Operator => Scope::ALL.to_vec(),
        Role::Viewer => Scope::ALL.iter().copied().filter(|s| s.is_read()).collect(),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleTable(HashMap<Role, Vec<Scope>>);

impl RoleTable {
    /// `ROLES` is optional JSON overriding some roles' scopes, e.g.
    /// `{"operator": ["rates:read", "labels:write", "labels:read"]}`.
    pub fn parse(json: Option<&str>) -> Result<RoleTable, String> {
        let mut table: HashMap<Role, Vec<Scope>> = Role::ALL
            .into_iter()
            .map(|r| (r, default_scopes(r)))
            .collect();
        if let Some(json) = json {
            let overrides: HashMap<Role, Vec<Scope>> = serde_json::from_str(json).map_err(|e| {
                format!(
                    "it must be JSON like {{\"viewer\": [\"wallet:read\"]}} with roles admin, operator, viewer and v1 scopes ({e})"
                )
            })?;
            table.extend(overrides);
        }
        Ok(RoleTable(table))
    }

    pub fn scopes(&self, role: Role) -> &[Scope] {
        self.0.get(&role).map(Vec::as_slice).unwrap_or_default()
    }
}

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
    fn viewer_reads_only_by_default() {
        let table = RoleTable::parse(None).unwrap();
        let scopes = table.scopes(Role::Viewer);
        assert!(scopes.contains(&Scope::WalletRead));
        assert!(scopes.contains(&Scope::LabelsRead));
        assert!(!scopes.contains(&Scope::LabelsWrite));
        assert!(!scopes.contains(&Scope::BatchesWrite));
        assert_eq!(table.scopes(Role::Operator), Scope::ALL);
    }

    #[test]
    fn configuration_overrides_a_role() {
        let table =
            RoleTable::parse(Some(r#"{"operator": ["rates:read", "labels:write"]}"#)).unwrap();
        assert_eq!(
            table.scopes(Role::Operator),
            [Scope::RatesRead, Scope::LabelsWrite]
        );
        assert_eq!(table.scopes(Role::Admin), Scope::ALL);
        assert!(RoleTable::parse(Some(r#"{"root": []}"#)).is_err());
        assert!(RoleTable::parse(Some(r#"{"viewer": ["wallet:write"]}"#)).is_err());
    }

    #[test]
    fn a_role_never_exceeds_the_key() {
        let key = [Scope::RatesRead, Scope::WalletRead];
        assert_eq!(
            effective_scopes(&default_scopes(Role::Admin), &key),
            vec![Scope::RatesRead, Scope::WalletRead]
        );
        assert_eq!(
            effective_scopes(&WIDGET_SCOPES, &key),
            vec![Scope::RatesRead]
        );
    }
}
