//! The answers of the Worker's own dashboard endpoints (`api::session`),
//! built from configuration and what the isolate last saw upstream (the
//! key's scopes, the budgets). No key value
//! ever enters these types: only `redacted()` forms.

use crate::access::gate::{self, Principal, Tenant};
use crate::orgs::wire::Me;
use crate::upstream::budget::Budgets;
use crate::upstream::keys::ModeKeys;
use api::orgs::OrgSummary;
use api::session::{
    KeyInfo, KeySlot, KeysStatus, LimitSeen, LimitsSnapshot, ModeKeys as ModeKeysInfo, Role,
    Service, SessionInfo,
};
use api::{KeyEnv, Scope};

/// Everything about one mode's keys; `activated` is the stored active
/// fingerprint, `problem` the upstream alert on the active key.
pub fn mode_keys(
    keys: &ModeKeys,
    activated: Option<&str>,
    problem: Option<api::ErrorCode>,
    key_scopes: &[Scope],
) -> ModeKeysInfo {
    let (_, active_slot) = keys.active(activated);
    let info = |slot: KeySlot| {
        keys.slot(slot).map(|key| KeyInfo {
            slot,
            redacted: key.redacted(),
            active: slot == active_slot,
        })
    };
    ModeKeysInfo {
        mode: keys.mode,
        keys: [KeySlot::Current, KeySlot::Next]
            .into_iter()
            .filter_map(info)
            .collect(),
        scopes: key_scopes.to_vec(),
        problem,
    }
}

/// The name the deployment's own organization (configured by secrets) shows.
pub const DEPLOYMENT_ORG_NAME: &str = "This deployment";

pub fn session_info(
    principal: &Principal,
    config: &impl Tenant,
    key_scopes: &[Scope],
    key_problem: Option<api::ErrorCode>,
    me: Option<Me>,
    service: &Service,
) -> Option<SessionInfo> {
    let Principal::User { session, role } = principal else {
        return None;
    };
    let mode = principal.mode(config);
    let admin = *role == Role::Admin;
    // The deployment's own organization: its people are `USERS` names.
    let Me { user, org, orgs } = me.unwrap_or_else(|| {
        let org = OrgSummary {
            id: api::orgs::OrgId::deployment(),
            name: DEPLOYMENT_ORG_NAME.to_string(),
            role: *role,
        };
        Me {
            user: session.user.clone(),
            orgs: vec![org.clone()],
            org,
        }
    });
    Some(SessionInfo {
        user,
        orgs,
        org,
        role: *role,
        scopes: gate::scopes(principal, config, key_scopes),
        mode,
        modes: config.keys().modes(),
        can_switch_mode: gate::may_switch_mode(*role, config.operators_switch_mode()).is_ok()
            && config.keys().modes().len() > 1,
        can_rotate_keys: admin,
        key_problem,
        expires_at: session.expires_at,
        service: service.clone(),
    })
}

pub fn keys_status(modes: Vec<ModeKeysInfo>) -> KeysStatus {
    KeysStatus { modes }
}

pub fn limits(mode: KeyEnv, budgets: &Budgets) -> LimitsSnapshot {
    LimitsSnapshot {
        mode,
        limits: budgets
            .windows(mode)
            .into_iter()
            .map(|(e, w)| LimitSeen {
                endpoint: format!("{} {}", e.method.as_str(), e.pattern),
                limit: w.limit,
                remaining: w.remaining,
                reset_at: w.reset_at,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::access::session::Session;
    use crate::config::Config;
    use crate::upstream::budget::Window;
    use crate::upstream::keys::fingerprint;
    use api::EndpointId;
    use std::collections::HashMap;

    const LIVE: &str = "svc_live_0123456789abcdef0123456789abcdef";
    const NEXT: &str = "svc_live_fedcba9876543210fedcba9876543210";
    const TEST: &str = "svc_test_0123456789abcdef0123456789abcdef";

    fn config() -> Config {
        let map: HashMap<&str, &str> = HashMap::from([
            ("UPSTREAM_URL", "https://api.example.com"),
            ("SVC_LIVE_KEY", LIVE),
            ("SVC_LIVE_KEY_NEXT", NEXT),
            ("SVC_SANDBOX_KEY", TEST),
            ("SESSION_SECRET", "0123456789abcdef0123456789abcdef"),
        ]);
        Config::from_lookup(|k| map.get(k).map(|v| v.to_string())).unwrap()
    }

    fn user(role: Role) -> Principal {
        Principal::User {
            session: Session {
                org: api::orgs::OrgId::deployment(),
                sid: "s".into(),
                user: "u".into(),
                role,
                mode: KeyEnv::Sandbox,
                via: crate::orgs::via::Via::Token,
                expires_at: 9,
            },
            role,
        }
    }

    #[test]
    fn session_info_tells_the_app_what_to_show() {
        let c = config();
        let m = [Scope::WalletRead, Scope::LabelsWrite];
        let admin =
            session_info(&user(Role::Admin), &c, &m, None, None, &c.upstream.service).unwrap();
        assert_eq!(admin.mode, KeyEnv::Sandbox);
        assert_eq!(admin.scopes, vec![Scope::LabelsWrite, Scope::WalletRead]);
        assert!(admin.can_switch_mode && admin.can_rotate_keys);
        assert_eq!(admin.service.name, api::session::Service::DEFAULT_NAME);
        let viewer = session_info(
            &user(Role::Viewer),
            &c,
            &m,
            Some(api::ErrorCode::AuthKeyRevoked),
            None,
            &c.upstream.service,
        )
        .unwrap();
        assert_eq!(viewer.scopes, vec![Scope::WalletRead]);
        assert!(!viewer.can_switch_mode && !viewer.can_rotate_keys);
        assert_eq!(viewer.key_problem, Some(api::ErrorCode::AuthKeyRevoked));
        let widget = Principal::Widget {
            origin: "https://shop.example".into(),
        };
        assert_eq!(
            session_info(&widget, &c, &m, None, None, &c.upstream.service),
            None
        );
        // Operators get the switch only where the organization allows it.
        let operator = |c: &Config| {
            session_info(
                &user(Role::Operator),
                c,
                &m,
                None,
                None,
                &c.upstream.service,
            )
            .unwrap()
        };
        assert!(!operator(&c).can_switch_mode);
        let allowing = Config {
            operators_switch_mode: true,
            ..config()
        };
        assert!(operator(&allowing).can_switch_mode && !operator(&allowing).can_rotate_keys);
        let viewer = session_info(
            &user(Role::Viewer),
            &allowing,
            &m,
            None,
            None,
            &c.upstream.service,
        )
        .unwrap();
        assert!(!viewer.can_switch_mode);
    }

    #[test]
    fn key_status_is_redacted_and_follows_activation() {
        let c = config();
        let keys = c.keys.mode(KeyEnv::Live).unwrap();
        let before = mode_keys(keys, None, None, &keys.scopes);
        assert_eq!(before.keys.len(), 2);
        assert!(before.keys[0].active && !before.keys[1].active);
        let after = mode_keys(
            keys,
            Some(&fingerprint(keys.next.as_ref().unwrap())),
            None,
            &keys.scopes,
        );
        assert!(!after.keys[0].active && after.keys[1].active);
        let json = serde_json::to_string(&keys_status(vec![before, after])).unwrap();
        assert!(
            !json.contains(&LIVE[9..]) && !json.contains(&NEXT[9..]),
            "{json}"
        );
        assert!(json.contains("svc_live_…cdef"));
    }

    #[test]
    fn limits_as_last_seen() {
        let mut m = Budgets::default();
        m.record(
            KeyEnv::Live,
            EndpointId::GetWallet,
            Window {
                limit: 300,
                remaining: 299,
                reset_at: 60,
            },
            0,
        );
        let l = limits(KeyEnv::Live, &m);
        assert_eq!(l.limits.len(), 1);
        assert_eq!(l.limits[0].endpoint, "GET /v1/wallet");
        assert!(limits(KeyEnv::Sandbox, &m).limits.is_empty());
    }
}
