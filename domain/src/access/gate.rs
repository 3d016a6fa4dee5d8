//! Who is calling, and may they make this call. Runs before anything is
//! forwarded: a refused call costs no upstream budget and reaches no key.

use super::settings::Settings;
use super::{AccessError, SignInReason};
use crate::access::roles::{WIDGET_SCOPES, effective_scopes};
use crate::access::session::{self, Session};
use crate::errors::{Managed, ModeUnavailable};
use crate::upstream::keys::{Keys, ModeKeys};
use api::orgs::OrgId;
use api::session::Role;
use api::{Endpoint, KeyEnv, Scope};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// A signed-in dashboard user (their role is the configured one).
    User { session: Session, role: Role },
    /// The anonymous storefront widget on a configured origin.
    Widget { origin: String },
}

impl Principal {
    /// For the log line: `user:ada` / `widget:https://shop.example`.
    pub fn label(&self) -> String {
        match self {
            Principal::User { session, .. } => format!("user:{}", session.user),
            Principal::Widget { origin } => format!("widget:{origin}"),
        }
    }

    pub fn role(&self) -> &'static str {
        match self {
            Principal::User { role, .. } => role.as_str(),
            Principal::Widget { .. } => "widget",
        }
    }

    /// Which key the principal's calls use.
    pub fn mode(&self, config: &impl Tenant) -> KeyEnv {
        match self {
            Principal::User { session, .. } => config.keys().session_mode(session.mode),
            Principal::Widget { .. } => config.keys().default_mode(),
        }
    }

    /// What the role (or the widget) would allow, before the key is considered.
    pub fn wanted_scopes<'a>(&self, config: &'a impl Tenant) -> &'a [Scope] {
        match self {
            Principal::User { role, .. } => config.access().roles.scopes(*role),
            Principal::Widget { .. } => &WIDGET_SCOPES,
        }
    }
}

/// What the gate reads of the settings a request works with (its
/// organization's or the deployment's: `config::Config`).
pub trait Tenant {
    fn org(&self) -> &OrgId;
    fn keys(&self) -> &Keys;
    fn access(&self) -> &Settings;
    fn widget_origins(&self) -> &[String];
    /// Whether operators may switch between live and sandbox (`may_switch_mode`).
    fn operators_switch_mode(&self) -> bool;

    /// The keys of `mode`; never the other mode's, which would spend real
    /// money for a sandbox job or buy unmailable labels for a live one.
    fn keys_for(&self, mode: KeyEnv) -> Result<&ModeKeys, ModeUnavailable> {
        self.keys().mode(mode).ok_or(ModeUnavailable {
            mode: mode.as_str(),
            managed: Managed::of(self.org()),
        })
    }
}

/// The parts of a request the gate looks at.
pub struct Facts<'a> {
    pub method: &'a str,
    pub cookie_header: Option<&'a str>,
    pub origin: Option<&'a str>,
    /// This Worker's own origin (`https://ship.example`), from the request URL.
    pub own_origin: &'a str,
    /// `Parcel-Widget-Origin`: the storefront framing our widget page.
    pub framed_by: Option<&'a str>,
    pub now: u64,
}

fn changes_state(method: &str) -> bool {
    !matches!(method, "GET" | "HEAD" | "OPTIONS")
}

/// A same-site write must carry our own Origin; browsers always send one
/// on non-GET requests, so a missing or foreign one is a forged request.
pub fn check_same_origin(facts: &Facts) -> Result<(), AccessError> {
    if !changes_state(facts.method) {
        return Ok(());
    }
    require_own_origin(facts)
}

/// The request must carry our own `Origin`, whatever its method (a
/// WebSocket upgrade is a GET that opens a channel).
pub fn require_own_origin(facts: &Facts) -> Result<(), AccessError> {
    match facts.origin {
        Some(origin) if origin.eq_ignore_ascii_case(facts.own_origin) => Ok(()),
        other => Err(AccessError::OriginRefused {
            origin: other.unwrap_or("a page that sent no Origin").to_string(),
        }),
    }
}

/// Reads the session cookie. Whether its session was signed out is asked of
/// the control store afterwards (`access::glue`): it needs a call.
pub fn signed_in_user(
    config: &impl Tenant,
    facts: &Facts,
) -> Result<Option<Principal>, AccessError> {
    let Some(value) = facts.cookie_header.and_then(session::cookie_value) else {
        return Ok(None);
    };
    let ended = AccessError::SignInRequired(SignInReason::SessionEnded);
    let session = Session::decode_cached(value, &config.access().session_secret, facts.now)
        .map_err(|_| ended.clone())?;
    // These settings must be the session's organization's (`runtime` picks them).
    if session.org != *config.org() {
        return Err(ended);
    }
    if !config.org().is_deployment() {
        // The organization's object is the authority on the role; the
        // access glue asks it before anything is done with this principal.
        let role = session.role;
        return Ok(Some(Principal::User { session, role }));
    }
    // The configuration is the authority: a removed user or a changed role ends the session.
    let role = config
        .access()
        .users
        .find(&session.user)
        .map(|u| u.role)
        .filter(|role| *role == session.role)
        .ok_or(ended)?;
    Ok(Some(Principal::User { session, role }))
}

/// The principal of a call to a v1 endpoint: the widget page framed by a
/// configured storefront; a signed-in user (same-origin writes only); or,
/// without a session, the widget from a configured origin.
pub fn identify(config: &impl Tenant, facts: &Facts) -> Result<Principal, AccessError> {
    if let Some(storefront) = facts.framed_by {
        return framed_widget(config, facts, storefront);
    }
    if let Some(user) = signed_in_user(config, facts)? {
        check_same_origin(facts)?;
        return Ok(user);
    }
    match facts.origin {
        Some(origin) if widget_origin(config, origin).is_some() => Ok(Principal::Widget {
            origin: origin.to_ascii_lowercase(),
        }),
        Some(origin) if !origin.eq_ignore_ascii_case(facts.own_origin) => {
            Err(AccessError::OriginRefused {
                origin: origin.to_string(),
            })
        }
        _ => Err(AccessError::SignInRequired(SignInReason::NoSession)),
    }
}

/// A call from our widget page: same-origin, tagged with the storefront
/// that frames it. Always the widget principal, even with a dashboard
/// session, so the widget's caps and cache apply. The tag can be forged
/// like any Origin; what stops other sites framing the page is its CSP.
fn framed_widget(
    config: &impl Tenant,
    facts: &Facts,
    storefront: &str,
) -> Result<Principal, AccessError> {
    if let Some(origin) = facts.origin
        && !origin.eq_ignore_ascii_case(facts.own_origin)
    {
        return Err(AccessError::OriginRefused {
            origin: origin.to_string(),
        });
    }
    widget_origin(config, storefront)
        .map(|origin| Principal::Widget {
            origin: origin.to_ascii_lowercase(),
        })
        .ok_or_else(|| AccessError::OriginRefused {
            origin: storefront.to_string(),
        })
}

/// The configured widget origin equal to `origin`, if any.
pub fn widget_origin<'a>(config: &'a impl Tenant, origin: &str) -> Option<&'a str> {
    config
        .widget_origins()
        .iter()
        .find(|o| o.eq_ignore_ascii_case(origin))
        .map(String::as_str)
}

/// The principal's scopes now: what it may do that the key can also do.
pub fn scopes(principal: &Principal, config: &impl Tenant, key_scopes: &[Scope]) -> Vec<Scope> {
    effective_scopes(principal.wanted_scopes(config), key_scopes)
}

/// Refuses, with the v1 403, a call outside the principal's scopes.
pub fn authorize(
    principal: &Principal,
    endpoint: &Endpoint,
    config: &impl Tenant,
    key_scopes: &[Scope],
) -> Result<(), AccessError> {
    require_scope(principal, endpoint.scope, config, key_scopes)
}

/// The principal's mode, once it holds every scope in `required`: its
/// role's, bounded by its key's as this isolate knows them.
pub fn require(
    principal: &Principal,
    config: &impl Tenant,
    required: &[Scope],
) -> Result<KeyEnv, AccessError> {
    require_in(principal, config, principal.mode(config), required)
}

/// The same check against the keys of `mode`, which may not be the
/// session's: reading the other mode's label history. A mode without keys
/// is refused as such.
pub fn require_in(
    principal: &Principal,
    config: &impl Tenant,
    mode: KeyEnv,
    required: &[Scope],
) -> Result<KeyEnv, AccessError> {
    let configured = &config.keys_for(mode)?.scopes;
    let key_scopes = crate::upstream::key_scopes::current(config.org(), mode, configured);
    for scope in required {
        require_scope(principal, *scope, config, &key_scopes)?;
    }
    Ok(mode)
}

/// The same check for the Worker's own read endpoints (inbox, ledger).
pub fn require_scope(
    principal: &Principal,
    required: Scope,
    config: &impl Tenant,
    key_scopes: &[Scope],
) -> Result<(), AccessError> {
    let allowed = scopes(principal, config, key_scopes);
    if allowed.contains(&required) {
        return Ok(());
    }
    let role = match principal {
        Principal::User { role, .. } => Some(*role),
        Principal::Widget { .. } => None,
    };
    let key_lacks = principal.wanted_scopes(config).contains(&required);
    Err(AccessError::InsufficientScope {
        required,
        // The key's scopes when the key is what lacks it, else the principal's.
        scopes: if key_lacks {
            key_scopes.to_vec()
        } else {
            allowed
        },
        role,
        key_lacks,
    })
}

/// Admin-only actions (mode switch, rotation): the admin's session, or the refusal.
pub fn require_admin<'a>(
    principal: &'a Principal,
    action: &'static str,
) -> Result<&'a Session, AccessError> {
    match principal {
        Principal::User {
            session,
            role: Role::Admin,
        } => Ok(session),
        _ => Err(AccessError::AdminOnly { action }),
    }
}

const SWITCH_MODE: &str = "switch between live and sandbox";

/// Who may switch a session between live and sandbox: an admin always, an
/// operator when the organization allows it, a viewer never.
pub fn may_switch_mode(role: Role, operators_allowed: bool) -> Result<(), AccessError> {
    match role {
        Role::Admin => Ok(()),
        Role::Operator if operators_allowed => Ok(()),
        Role::Operator => Err(AccessError::ModeSwitchAdminsOnly),
        Role::Viewer => Err(AccessError::AdminOnly {
            action: SWITCH_MODE,
        }),
    }
}

/// The session of a user who may switch modes (`may_switch_mode`), or the refusal.
pub fn require_mode_switch(
    principal: &Principal,
    operators_allowed: bool,
) -> Result<(&Session, Role), AccessError> {
    match principal {
        Principal::User { session, role } => {
            may_switch_mode(*role, operators_allowed).map(|()| (session, *role))
        }
        Principal::Widget { .. } => Err(AccessError::AdminOnly {
            action: SWITCH_MODE,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admins_always_switch_modes_operators_when_allowed_viewers_never() {
        for allowed in [false, true] {
            assert_eq!(may_switch_mode(Role::Admin, allowed), Ok(()));
            assert!(may_switch_mode(Role::Viewer, allowed).is_err_and(|e| e
                == AccessError::AdminOnly {
                    action: "switch between live and sandbox"
                }));
        }
        assert_eq!(may_switch_mode(Role::Operator, true), Ok(()));
        let refused = may_switch_mode(Role::Operator, false).unwrap_err();
        assert_eq!(refused, AccessError::ModeSwitchAdminsOnly);
        assert_eq!(refused.code(), api::ErrorCode::EdgeRoleForbidden);
        assert!(refused.suggestion().contains("Team page (/team)"));
    }
    use crate::config::Config;
    use crate::errors::Failure;
    use api::endpoints::{ENDPOINTS, EndpointId};
    use sha2::{Digest, Sha256};
    use std::collections::HashMap;

    const OWN: &str = "https://ship.example";
    const SHOP: &str = "https://shop.example";
    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    fn config(extra: &[(&'static str, &str)]) -> Config {
        let hash = |t: &str| hex::encode(Sha256::digest(t));
        let users = format!(
            "ada:admin:{},olga:operator:{},vic:viewer:{}",
            hash("a"),
            hash("o"),
            hash("v")
        );
        let mut map: HashMap<&str, String> = HashMap::from([
            ("UPSTREAM_URL", "https://api.example.com".to_string()),
            ("SVC_LIVE_KEY", format!("svc_live_{SECRET}")),
            ("USERS", users),
            ("SESSION_SECRET", SECRET.to_string()),
            ("WIDGET_ORIGINS", SHOP.to_string()),
        ]);
        map.extend(extra.iter().map(|(k, v)| (*k, v.to_string())));
        Config::from_lookup(|k| map.get(k).cloned()).unwrap()
    }

    fn cookie(user: &str, role: Role, expires_at: u64) -> String {
        let s = Session {
            org: api::orgs::OrgId::deployment(),
            sid: "sid1".into(),
            user: user.into(),
            role,
            mode: KeyEnv::Live,
            via: crate::orgs::via::Via::Token,
            expires_at,
        };
        format!("{}={}", session::COOKIE_NAME, s.encode(SECRET.as_bytes()))
    }

    fn facts<'a>(method: &'a str, cookie: Option<&'a str>, origin: Option<&'a str>) -> Facts<'a> {
        Facts {
            method,
            cookie_header: cookie,
            origin,
            own_origin: OWN,
            framed_by: None,
            now: 1_000,
        }
    }

    fn endpoint(id: EndpointId) -> &'static Endpoint {
        ENDPOINTS.iter().find(|e| e.id == id).unwrap()
    }

    #[test]
    fn every_role_against_every_endpoint() {
        let c = config(&[]);
        for (user, role) in [
            ("ada", Role::Admin),
            ("olga", Role::Operator),
            ("vic", Role::Viewer),
        ] {
            let cookie = cookie(user, role, 2_000);
            let p = identify(&c, &facts("GET", Some(&cookie), None)).unwrap();
            for e in ENDPOINTS.iter() {
                let result = authorize(&p, e, &c, &Scope::ALL);
                let expected = role != Role::Viewer || e.scope.is_read();
                assert_eq!(
                    result.is_ok(),
                    expected,
                    "{role} {} {}",
                    e.method.as_str(),
                    e.pattern
                );
                if let Err(err) = result {
                    let body = err.to_body("r");
                    assert!(
                        body.contains(&format!(r#""required_scope":"{}""#, e.scope)),
                        "{body}"
                    );
                    assert!(body.contains("Your role (viewer)"), "{body}");
                    assert_eq!(err.status(), 403);
                }
            }
        }
    }

    #[test]
    fn the_key_s_own_scopes_bound_every_role() {
        let c = config(&[("SVC_LIVE_KEY_SCOPES", "rates:read,wallet:read")]);
        let cookie = cookie("ada", Role::Admin, 2_000);
        let p = identify(&c, &facts("GET", Some(&cookie), None)).unwrap();
        let key = &c.keys_for(KeyEnv::Live).unwrap().scopes;
        assert!(authorize(&p, endpoint(EndpointId::GetWallet), &c, key).is_ok());
        let err = authorize(&p, endpoint(EndpointId::BuyLabel), &c, key).unwrap_err();
        let body = err.to_body("r");
        assert!(
            body.contains("API key does not have the labels:write scope"),
            "{body}"
        );
        assert!(
            body.contains(r#""key_scopes":["rates:read","wallet:read"]"#),
            "{body}"
        );
    }

    #[test]
    fn the_other_mode_is_read_with_that_mode_s_key_or_refused() {
        let sandbox = format!("svc_test_{SECRET}");
        let c = config(&[
            ("SVC_SANDBOX_KEY", &sandbox),
            ("SVC_SANDBOX_KEY_SCOPES", "rates:read"),
        ]);
        let cookie = cookie("vic", Role::Viewer, 2_000);
        let p = identify(&c, &facts("GET", Some(&cookie), None)).unwrap();
        let read = [Scope::LabelsRead];
        assert_eq!(
            require_in(&p, &c, KeyEnv::Live, &read).unwrap(),
            KeyEnv::Live
        );
        // The sandbox key lacks labels:read: its labels are not the viewer's to read.
        let body = require_in(&p, &c, KeyEnv::Sandbox, &read)
            .unwrap_err()
            .to_body("r");
        assert!(body.contains("labels:read"), "{body}");
        // A mode without a key is refused as such.
        let live_only = config(&[]);
        let err = require_in(&p, &live_only, KeyEnv::Sandbox, &read).unwrap_err();
        assert!(err.to_body("r").contains("sandbox"), "{}", err.to_body("r"));
    }

    #[test]
    fn widget_only_from_configured_origins_and_only_rates_and_addresses() {
        let c = config(&[]);
        let p = identify(&c, &facts("POST", None, Some("https://SHOP.example"))).unwrap();
        assert_eq!(p.label(), "widget:https://shop.example");
        for e in ENDPOINTS.iter() {
            let ok = authorize(&p, e, &c, &Scope::ALL).is_ok();
            assert_eq!(
                ok,
                matches!(e.id, EndpointId::GetRates | EndpointId::ValidateAddress),
                "{}",
                e.pattern
            );
        }
        let refused = identify(&c, &facts("POST", None, Some("https://evil.example")));
        assert!(matches!(refused, Err(AccessError::OriginRefused { .. })));
        // No session, no origin (curl) or our own origin: sign in.
        for origin in [None, Some(OWN)] {
            let e = identify(&c, &facts("GET", None, origin)).unwrap_err();
            assert_eq!(e.code(), api::ErrorCode::EdgeSessionRequired);
        }
    }

    #[test]
    fn the_framed_widget_page_is_the_widget_of_its_storefront() {
        let c = config(&[]);
        let framed = |origin, storefront, cookie| Facts {
            framed_by: Some(storefront),
            ..facts("POST", cookie, origin)
        };
        let p = identify(&c, &framed(Some(OWN), "https://Shop.example", None));
        assert_eq!(p.unwrap().label(), "widget:https://shop.example");
        // A dashboard session does not turn the widget page into the user.
        let cookie = cookie("ada", Role::Admin, 2_000);
        let p = identify(&c, &framed(Some(OWN), SHOP, Some(&cookie))).unwrap();
        assert_eq!(p.role(), "widget");
        // Another storefront, or a call from another site carrying the tag.
        for (origin, storefront) in [(Some(OWN), "https://evil.example"), (Some(SHOP), SHOP)] {
            let e = identify(&c, &framed(origin, storefront, None)).unwrap_err();
            assert_eq!(e.code(), api::ErrorCode::EdgeOriginRefused);
        }
    }

    #[test]
    fn sessions_end_on_expiry_removal_role_change_or_forgery() {
        let c = config(&[]);
        let ended = |cookie: &str| {
            identify(&c, &facts("GET", Some(cookie), None))
                .unwrap_err()
                .code()
        };
        assert_eq!(
            ended(&cookie("ada", Role::Admin, 1_000)),
            api::ErrorCode::EdgeSessionRequired
        );
        assert_eq!(
            ended(&cookie("zed", Role::Admin, 2_000)),
            api::ErrorCode::EdgeSessionRequired
        );
        // Olga's cookie saying admin: her configured role is operator.
        assert_eq!(
            ended(&cookie("olga", Role::Admin, 2_000)),
            api::ErrorCode::EdgeSessionRequired
        );
        assert_eq!(
            ended("__Host-parcel_session=v1.x.y"),
            api::ErrorCode::EdgeSessionRequired
        );
    }

    #[test]
    fn writes_need_our_own_origin() {
        let c = config(&[]);
        let cookie = cookie("olga", Role::Operator, 2_000);
        assert!(identify(&c, &facts("POST", Some(&cookie), Some(OWN))).is_ok());
        assert!(identify(&c, &facts("GET", Some(&cookie), None)).is_ok());
        for origin in [None, Some(SHOP), Some("null")] {
            let err = identify(&c, &facts("DELETE", Some(&cookie), origin)).unwrap_err();
            assert_eq!(err.code(), api::ErrorCode::EdgeOriginRefused, "{origin:?}");
        }
    }

    #[test]
    fn only_admins_switch_modes_and_rotate() {
        let c = config(&[]);
        let admin = identify(
            &c,
            &facts("GET", Some(&cookie("ada", Role::Admin, 2_000)), None),
        )
        .unwrap();
        let op = identify(
            &c,
            &facts("GET", Some(&cookie("olga", Role::Operator, 2_000)), None),
        )
        .unwrap();
        assert!(require_admin(&admin, "rotate keys").is_ok());
        assert_eq!(require_admin(&op, "rotate keys").unwrap_err().status(), 403);
    }
}
