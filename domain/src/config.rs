//! The settings a request works with: each feature's own (it parses and
//! names them), put together for the deployment, or (`for_org`) for one
//! organization, which never holds the deployment's keys, people, widget
//! origins or webhook secrets. Validated on the first request so a bad
//! deployment fails with an error naming the setting instead of a
//! confusing upstream call. Every setting is documented in
//! docs/configuration.md.

use crate::access::gate::Tenant;
use crate::errors::SettingError;
use crate::upstream::keys::{self, Keys};
use crate::webhooks::Secrets;
use crate::{access, jobs, orgs, upstream, widget};
use api::orgs::OrgId;
use api::session::Role;

pub struct Config {
    /// Whose settings these are.
    pub org: OrgId,
    /// In an organization's settings made for a request of its session:
    /// the role its object gives the session's person now (`None`: no
    /// longer a member). Never set in the deployment's.
    pub member: Option<Role>,
    /// With `member`: the person's name, what their purchases and jobs are
    /// recorded under (the deployment's people are their `USERS` names).
    pub member_name: Option<String>,
    /// Whether the organization lets operators switch between live and
    /// sandbox (`access::gate::may_switch_mode`); never in the deployment's.
    pub operators_switch_mode: bool,
    pub upstream: upstream::settings::Settings,
    pub keys: Keys,
    pub access: access::settings::Settings,
    pub widget: widget::settings::Settings,
    /// Unset: every webhook delivery is refused with 503 until it is set.
    pub webhook: Secrets,
    pub jobs: jobs::settings::Settings,
    pub audit: orgs::settings::Settings,
}

impl Config {
    /// Who a session's purchases and jobs are recorded under: the member's
    /// name, else the session's user (the deployment's `USERS` name).
    pub fn actor<'a>(&'a self, session_user: &'a str) -> &'a str {
        self.member_name.as_deref().unwrap_or(session_user)
    }

    /// Reads settings through `get`, so tests need no Worker environment.
    pub fn from_lookup(
        get: impl Fn(&'static str) -> Option<String>,
    ) -> Result<Config, SettingError> {
        let get = |name| get(name).filter(|v: &String| !v.trim().is_empty());
        let upstream = upstream::settings::Settings::from_lookup(&get)?;
        let keys = Keys::from_lookup(&get)?;
        if matches!(keys, Keys::None) {
            return Err(SettingError::new(
                keys::LIVE_KEY,
                format!(
                    "neither {} nor {} is set",
                    keys::LIVE_KEY,
                    keys::SANDBOX_KEY
                ),
            ));
        }
        Ok(Config {
            org: OrgId::deployment(),
            member: None,
            member_name: None,
            operators_switch_mode: false,
            upstream,
            keys,
            access: access::settings::Settings::from_lookup(&get)?,
            widget: widget::settings::Settings::from_lookup(&get)?,
            webhook: Secrets::from_lookup(&get)?,
            jobs: jobs::settings::Settings::from_lookup(&get)?,
            audit: orgs::settings::Settings::from_lookup(&get)?,
        })
    }

    /// `org`'s settings: the deployment-wide ones (service, timeouts,
    /// session secret, roles, shares) and nothing of the deployment's own
    /// organization; its keys and widget are its own, added by the caller.
    pub fn for_org(&self, org: OrgId) -> Config {
        Config {
            org,
            member: None,
            member_name: None,
            operators_switch_mode: false,
            upstream: self.upstream.clone(),
            keys: Keys::None,
            access: self.access.for_org(),
            widget: self.widget.for_org(),
            webhook: Secrets::default(),
            jobs: self.jobs,
            audit: self.audit,
        }
    }
}

impl Tenant for Config {
    fn org(&self) -> &OrgId {
        &self.org
    }
    fn keys(&self) -> &Keys {
        &self.keys
    }
    fn operators_switch_mode(&self) -> bool {
        self.operators_switch_mode
    }
    fn access(&self) -> &access::settings::Settings {
        &self.access
    }
    fn widget_origins(&self) -> &[String] {
        &self.widget.origins
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::Failure;
    use crate::upstream::keys::fingerprint;
    use crate::upstream::settings::DEFAULT_UPSTREAM_TIMEOUT_MS;
    use crate::widget::settings::DEFAULT_WIDGET_SHARE;
    use api::session::KeySlot;
    use api::{KeyEnv, Scope};
    use std::collections::HashMap;

    const LIVE: &str = "svc_live_0123456789abcdef0123456789abcdef";
    const LIVE2: &str = "svc_live_fedcba9876543210fedcba9876543210";
    const TEST: &str = "svc_test_0123456789abcdef0123456789abcdef";
    const USERS: &str =
        "ada:admin:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";

    /// `pairs` over a valid base (upstream, users, session secret).
    fn config(pairs: &[(&'static str, &str)]) -> Result<Config, SettingError> {
        let mut map: HashMap<&str, String> = HashMap::from([
            ("USERS", USERS.to_string()),
            ("SESSION_SECRET", "s".repeat(32)),
        ]);
        map.extend(pairs.iter().map(|(k, v)| (*k, v.to_string())));
        Config::from_lookup(|k| map.get(k).cloned())
    }

    fn setting_of(result: Result<Config, SettingError>) -> &'static str {
        match result.err() {
            Some(SettingError { setting, .. }) => setting,
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    const UP: (&str, &str) = ("UPSTREAM_URL", "https://api.example.com");

    #[test]
    fn both_modes_default_to_live_and_trailing_slash_is_dropped() {
        let c = config(&[
            ("UPSTREAM_URL", "http://127.0.0.1:8788/"),
            ("SVC_LIVE_KEY", LIVE),
            ("SVC_SANDBOX_KEY", TEST),
        ])
        .unwrap();
        assert_eq!(c.upstream.url, "http://127.0.0.1:8788");
        assert_eq!(c.keys.default_mode(), KeyEnv::Live);
        assert_eq!(c.keys.modes(), vec![KeyEnv::Live, KeyEnv::Sandbox]);
        assert_eq!(
            c.keys_for(KeyEnv::Sandbox).unwrap().current.env(),
            KeyEnv::Sandbox
        );
        assert_eq!(
            c.keys_for(KeyEnv::Live).unwrap().scopes,
            Scope::ALL.to_vec()
        );
    }

    #[test]
    fn the_widget_ship_from_is_a_whole_address() {
        let key = ("SVC_LIVE_KEY", LIVE);
        let json = r#"{"name":"Ada Shop","street1":"500 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"}"#;
        let c = config(&[UP, key, ("WIDGET_SHIP_FROM", json)]).unwrap();
        assert_eq!(c.widget.ship_from.as_deref(), Some(json));
        assert_eq!(config(&[UP, key]).unwrap().widget.ship_from, None);
        for bad in [
            r#"{"name":"Ada"}"#,
            "94105",
            &json.replace("94105", " "),
            // The service wants two-letter codes: "USA" would fail every quote.
            &json.replace(r#""US""#, r#""USA""#),
            &json.replace(r#""CA""#, r#""Calif""#),
            &format!("{json}garbage"),
        ] {
            assert_eq!(
                setting_of(config(&[UP, key, ("WIDGET_SHIP_FROM", bad)])),
                "WIDGET_SHIP_FROM",
                "{bad}"
            );
        }
        let Err(SettingError { problem, .. }) = config(&[
            UP,
            key,
            ("WIDGET_SHIP_FROM", &json.replace(r#""US""#, r#""USA""#)),
        ]) else {
            panic!("USA accepted")
        };
        assert!(problem.contains("country"), "{problem}");
    }

    #[test]
    fn sandbox_only_deployment_uses_sandbox_even_for_a_live_session() {
        let c = config(&[UP, ("SVC_SANDBOX_KEY", TEST)]).unwrap();
        assert_eq!(c.keys.default_mode(), KeyEnv::Sandbox);
        assert_eq!(c.keys.modes(), vec![KeyEnv::Sandbox]);
        assert_eq!(c.keys.session_mode(KeyEnv::Live), KeyEnv::Sandbox);
    }

    #[test]
    fn defect_h_a_mode_without_a_key_never_borrows_the_other_mode_s() {
        let c = config(&[UP, ("SVC_SANDBOX_KEY", TEST)]).unwrap();
        let Err(missing) = c.keys_for(KeyEnv::Live) else {
            panic!("a live job would run on the sandbox key")
        };
        assert_eq!(missing.mode, "live");
        // Each organization is told where its keys are entered.
        assert!(missing.suggestion().contains("Worker secret"));
        let org = c.for_org(OrgId::parse("org_a").unwrap());
        let Err(missing) = org.keys_for(KeyEnv::Sandbox) else {
            panic!("an organization holds none of the deployment's keys")
        };
        assert_eq!(missing.message(), "This organization has no sandbox key.");
        assert!(missing.suggestion().contains("API keys page (/keys)"));
        let c = config(&[UP, ("SVC_LIVE_KEY", LIVE)]).unwrap();
        assert!(
            c.keys_for(KeyEnv::Sandbox).is_err(),
            "a sandbox job would spend live money"
        );
    }

    #[test]
    fn the_next_key_is_active_only_once_its_fingerprint_is_activated() {
        let c = config(&[UP, ("SVC_LIVE_KEY", LIVE), ("SVC_LIVE_KEY_NEXT", LIVE2)]).unwrap();
        let keys = c.keys_for(KeyEnv::Live).unwrap();
        assert_eq!(keys.active(None).1, KeySlot::Current);
        let next_fp = fingerprint(keys.next.as_ref().unwrap());
        assert_eq!(keys.active(Some(&next_fp)).0.expose(), LIVE2);
        // After the operator moves the new key into SVC_LIVE_KEY and drops NEXT.
        let moved = config(&[UP, ("SVC_LIVE_KEY", LIVE2)]).unwrap();
        let (key, slot) = moved.keys_for(KeyEnv::Live).unwrap().active(Some(&next_fp));
        assert_eq!((key.expose(), slot), (LIVE2, KeySlot::Current));
        assert!(!next_fp.contains(&LIVE2[9..]));
    }

    #[test]
    fn each_bad_setting_is_named() {
        let cases: &[(&[(&'static str, &str)], &str)] = &[
            (&[("SVC_LIVE_KEY", LIVE)], "UPSTREAM_URL"),
            (
                &[("UPSTREAM_URL", "ftp://x"), ("SVC_LIVE_KEY", LIVE)],
                "UPSTREAM_URL",
            ),
            (
                &[("UPSTREAM_URL", "https://u:p@x"), ("SVC_LIVE_KEY", LIVE)],
                "UPSTREAM_URL",
            ),
            (&[UP], "SVC_LIVE_KEY"),
            (&[UP, ("SVC_LIVE_KEY", "svc_live_nothex")], "SVC_LIVE_KEY"),
            // A sandbox key in the live slot is a mistake worth naming.
            (&[UP, ("SVC_LIVE_KEY", TEST)], "SVC_LIVE_KEY"),
            (
                &[UP, ("SVC_SANDBOX_KEY", TEST), ("SVC_LIVE_KEY_NEXT", LIVE)],
                "SVC_LIVE_KEY_NEXT",
            ),
            (
                &[
                    UP,
                    ("SVC_LIVE_KEY", LIVE),
                    ("SVC_LIVE_KEY_SCOPES", "rates:read,root"),
                ],
                "SVC_LIVE_KEY_SCOPES",
            ),
            (
                &[UP, ("SVC_LIVE_KEY", LIVE), ("USERS", "ada:king:00")],
                "USERS",
            ),
            (
                &[UP, ("SVC_LIVE_KEY", LIVE), ("SESSION_SECRET", "short")],
                "SESSION_SECRET",
            ),
            (
                &[UP, ("SVC_LIVE_KEY", LIVE), ("ROLES", "{not json")],
                "ROLES",
            ),
            (
                &[
                    UP,
                    ("SVC_LIVE_KEY", LIVE),
                    ("WIDGET_ORIGINS", "http://shop.example"),
                ],
                "WIDGET_ORIGINS",
            ),
            (
                &[
                    UP,
                    ("SVC_LIVE_KEY", LIVE),
                    ("WIDGET_ORIGINS", "https://shop.example/cart"),
                ],
                "WIDGET_ORIGINS",
            ),
            (
                &[UP, ("SVC_LIVE_KEY", LIVE), ("WIDGET_SHARE", "1.5")],
                "WIDGET_SHARE",
            ),
            (
                &[
                    UP,
                    ("SVC_LIVE_KEY", LIVE),
                    ("WIDGET_QUOTE_CACHE_SECONDS", "900"),
                ],
                "WIDGET_QUOTE_CACHE_SECONDS",
            ),
            (
                &[UP, ("SVC_LIVE_KEY", LIVE), ("UPSTREAM_TIMEOUT_MS", "5")],
                "UPSTREAM_TIMEOUT_MS",
            ),
            (
                &[UP, ("SVC_LIVE_KEY", LIVE), ("UPSTREAM_TIMEOUT_MS", "soon")],
                "UPSTREAM_TIMEOUT_MS",
            ),
        ];
        for (pairs, setting) in cases {
            assert_eq!(setting_of(config(pairs)), *setting, "{pairs:?}");
        }
    }

    #[test]
    fn defaults_and_overrides() {
        let c = config(&[UP, ("SVC_LIVE_KEY", LIVE)]).unwrap();
        assert_eq!(c.upstream.timeout_ms, DEFAULT_UPSTREAM_TIMEOUT_MS);
        assert!(c.widget.origins.is_empty());
        assert_eq!(c.widget.share, DEFAULT_WIDGET_SHARE);
        let c = config(&[
            UP,
            ("SVC_LIVE_KEY", LIVE),
            ("UPSTREAM_TIMEOUT_MS", "2500"),
            ("SVC_LIVE_KEY_SCOPES", "rates:read, wallet:read"),
            (
                "WIDGET_ORIGINS",
                "https://Shop.example, http://127.0.0.1:9000",
            ),
            ("WIDGET_SHARE", "0.1"),
        ])
        .unwrap();
        assert_eq!(c.upstream.timeout_ms, 2500);
        assert_eq!(
            c.keys_for(KeyEnv::Live).unwrap().scopes,
            vec![Scope::RatesRead, Scope::WalletRead]
        );
        assert_eq!(
            c.widget.origins,
            vec!["https://shop.example", "http://127.0.0.1:9000"]
        );
        assert_eq!(c.widget.share, 0.1);
    }

    #[test]
    fn the_service_is_named_and_its_dashboard_linked_only_over_https() {
        let key = ("SVC_LIVE_KEY", LIVE);
        let unset = config(&[UP, key]).unwrap().upstream.service;
        assert_eq!(unset.name, "the shipping service");
        assert_eq!(unset.dashboard_url, None);
        assert_eq!(unset.dashboard(), "the shipping service's dashboard");
        let blank = config(&[
            UP,
            key,
            ("SERVICE_NAME", " "),
            ("SERVICE_DASHBOARD_URL", ""),
        ]);
        assert_eq!(blank.unwrap().upstream.service, unset);
        let set = config(&[
            UP,
            key,
            ("SERVICE_NAME", " Shipwell "),
            (
                "SERVICE_DASHBOARD_URL",
                "https://app.shipwell.example/settings?tab=carriers",
            ),
        ])
        .unwrap();
        assert_eq!(set.upstream.service.name, "Shipwell");
        assert_eq!(
            set.upstream.service.dashboard_url.as_deref(),
            Some("https://app.shipwell.example/settings?tab=carriers")
        );
        // Every organization's sessions name the deployment's service.
        let org = set.for_org(OrgId::parse("org_a").unwrap());
        assert_eq!(org.upstream.service, set.upstream.service);
        for bad in [
            "http://app.shipwell.example",
            "app.shipwell.example",
            "https://",
            "https:///path",
            "https://user:pw@app.shipwell.example",
            "https://app.shipwell.example/a b",
            "javascript:alert(1)",
        ] {
            assert_eq!(
                setting_of(config(&[UP, key, ("SERVICE_DASHBOARD_URL", bad)])),
                "SERVICE_DASHBOARD_URL",
                "{bad}"
            );
        }
        assert_eq!(
            setting_of(config(&[UP, key, ("SERVICE_NAME", &"x".repeat(61))])),
            "SERVICE_NAME"
        );
        assert_eq!(
            setting_of(config(&[UP, key, ("SERVICE_NAME", "Ship\nwell")])),
            "SERVICE_NAME"
        );
    }

    #[test]
    fn errors_never_carry_secret_values() {
        let bad = "svc_live_0123456789abcdef0123456789abcdeZ";
        let err = config(&[UP, ("SVC_LIVE_KEY", bad)]).err().unwrap();
        assert!(!err.to_body("r").contains(bad));
        let err = config(&[UP, ("SVC_LIVE_KEY", LIVE), ("SESSION_SECRET", "hunter2")])
            .err()
            .unwrap();
        assert!(!err.to_body("r").contains("hunter2"));
    }
}
