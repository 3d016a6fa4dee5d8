//! Worker configuration, validated on the first request so a bad deployment
//! fails with an error naming the setting instead of a confusing upstream call.
//! Every setting is documented in edge/README.md, Configuration.

use crate::access::roles::RoleTable;
use crate::access::users::Users;
use crate::errors::EdgeError;
use crate::webhooks::Secrets;
use api::orgs::OrgId;
use api::session::{KeySlot, Role};
use api::{Address, ApiKey, KeyEnv, Scope};
use sha2::{Digest, Sha256};

/// The names of the settings, as set in wrangler.toml (`[vars]`) and as
/// secrets (`wrangler secret put`).
pub mod names {
    pub const UPSTREAM_URL: &str = "UPSTREAM_URL";
    pub const LIVE_KEY: &str = "SVC_LIVE_KEY";
    pub const SANDBOX_KEY: &str = "SVC_SANDBOX_KEY";
    pub const LIVE_KEY_NEXT: &str = "SVC_LIVE_KEY_NEXT";
    pub const SANDBOX_KEY_NEXT: &str = "SVC_SANDBOX_KEY_NEXT";
    pub const LIVE_KEY_SCOPES: &str = "SVC_LIVE_KEY_SCOPES";
    pub const SANDBOX_KEY_SCOPES: &str = "SVC_SANDBOX_KEY_SCOPES";
    pub const UPSTREAM_TIMEOUT_MS: &str = "UPSTREAM_TIMEOUT_MS";
    pub const USERS: &str = "USERS";
    pub const SESSION_SECRET: &str = "SESSION_SECRET";
    pub const ROLES: &str = "ROLES";
    pub const WIDGET_ORIGINS: &str = "WIDGET_ORIGINS";
    pub const WIDGET_SHARE: &str = "WIDGET_SHARE";
    pub const WIDGET_IP_PER_MINUTE: &str = "WIDGET_IP_PER_MINUTE";
    pub const WIDGET_QUOTE_CACHE_SECONDS: &str = "WIDGET_QUOTE_CACHE_SECONDS";
    pub const WIDGET_SHIP_FROM: &str = "WIDGET_SHIP_FROM";
    pub const WEBHOOK_SECRET: &str = "WEBHOOK_SECRET";
    pub const WEBHOOK_SECRET_NEXT: &str = "WEBHOOK_SECRET_NEXT";
    pub const BATCH_RATES_SHARE: &str = "BATCH_RATES_SHARE";
    pub const BATCH_MAX_CHUNK_ROWS: &str = "BATCH_MAX_CHUNK_ROWS";
    pub const AUDIT_PURCHASE_CENTS: &str = "AUDIT_PURCHASE_CENTS";
}

/// Carriers can take seconds to make a label; past this the Worker answers
/// 504 and, for a purchase, says the outcome is unknown.
pub const DEFAULT_UPSTREAM_TIMEOUT_MS: u64 = 15_000;
/// The widget may use a quarter of the rates and address budgets by default
/// (an organization's widget too).
pub const DEFAULT_WIDGET_SHARE: f64 = api::orgs::WIDGET_DEFAULT_SHARE;
pub const DEFAULT_WIDGET_IP_PER_MINUTE: u32 = 30;
pub const DEFAULT_WIDGET_QUOTE_CACHE_SECONDS: u64 = 120;
/// A cached quote must stay well inside the 15-minute rate validity.
pub const MAX_WIDGET_QUOTE_CACHE_SECONDS: u64 = 600;

/// A live label of $100 or more is written to its organization's audit log.
pub const DEFAULT_AUDIT_PURCHASE_CENTS: u64 = 10_000;

/// One mode's keys: the current one and, during a rotation, the next one.
pub struct ModeKeys {
    pub mode: KeyEnv,
    pub current: ApiKey,
    pub next: Option<ApiKey>,
    /// The scopes the key was created with, as configured (all by default).
    pub scopes: Vec<Scope>,
}

impl ModeKeys {
    /// The key forwarded calls use: `next` once an admin activated it
    /// (the activation stores the key's fingerprint), else `current`.
    /// Matching by fingerprint keeps working after the operator moves the
    /// new key into the `current` secret and deletes `next`.
    pub fn active(&self, activated: Option<&str>) -> (&ApiKey, KeySlot) {
        match &self.next {
            Some(next) if activated == Some(fingerprint(next).as_str()) => (next, KeySlot::Next),
            _ => (&self.current, KeySlot::Current),
        }
    }

    pub fn slot(&self, slot: KeySlot) -> Option<&ApiKey> {
        match slot {
            KeySlot::Current => Some(&self.current),
            KeySlot::Next => self.next.as_ref(),
        }
    }
}

/// A short, one-way name for a key: what the Worker stores to remember
/// which key is active, never the key.
pub fn fingerprint(key: &ApiKey) -> String {
    hex::encode(&Sha256::digest(key.expose().as_bytes())[..16])
}

pub struct WidgetConfig {
    /// Exact origins (`https://shop.example`) whose pages may call the
    /// widget endpoints; empty = no widget.
    pub origins: Vec<String>,
    /// Share of each rates/address per-minute budget the widget may use.
    pub share: f64,
    /// Widget calls per client IP per minute.
    pub ip_per_minute: u32,
    /// How long an identical widget quote is answered from cache (0 = never).
    pub quote_cache_seconds: u64,
    /// The widget page's ship-from address, as compact JSON (`None`: the
    /// page says it is not configured).
    pub ship_from: Option<String>,
    /// An organization's fallback option (`api::orgs::WidgetFallback`) as
    /// JSON, written into the page as it is.
    pub fallback: Option<String>,
}

/// The keys of an organization: one mode or both. The deployment's own
/// organization always has one; another organization has none until its
/// admin enters them.
pub enum Keys {
    None,
    Live(ModeKeys),
    Sandbox(ModeKeys),
    Both { live: ModeKeys, sandbox: ModeKeys },
}

impl Keys {
    pub fn of(live: Option<ModeKeys>, sandbox: Option<ModeKeys>) -> Keys {
        match (live, sandbox) {
            (Some(live), Some(sandbox)) => Keys::Both { live, sandbox },
            (Some(live), None) => Keys::Live(live),
            (None, Some(sandbox)) => Keys::Sandbox(sandbox),
            (None, None) => Keys::None,
        }
    }
}

/// The settings a request works with: the deployment's, or (`for_org`) one
/// organization's, which never holds the deployment's keys, people,
/// widget origins or webhook secrets.
pub struct Config {
    /// Whose settings these are.
    pub org: OrgId,
    /// In an organization's settings made for a request of its session:
    /// the role its object gives the session's person now (`None`: no
    /// longer a member). Never set in the deployment's.
    pub member: Option<Role>,
    /// Base URL of the v1 service, without a trailing slash.
    pub upstream: String,
    pub keys: Keys,
    pub upstream_timeout_ms: u64,
    pub users: Users,
    pub session_secret: Vec<u8>,
    pub roles: RoleTable,
    pub widget: WidgetConfig,
    /// Unset: every webhook delivery is refused with 503 until it is set.
    pub webhook: Secrets,
    /// The share of the rates limit batch jobs may use (the rest is kept
    /// for interactive users and the widget).
    pub batch_rates_share: f64,
    /// At most this many rows per v1 batch (smaller batches put less at
    /// stake when one's outcome is unknown).
    pub batch_max_chunk_rows: u32,
    /// A live label bought at this price or more is an audit entry of its
    /// organization (`orgs::wire::Record::large_purchase`).
    pub audit_purchase_cents: i64,
}

/// The ship-from address, checked with the rule the service applies to
/// `from_address` (`api::Address::check`), so a bad one fails here, naming
/// the setting, and not in every widget quote.
fn parse_ship_from(json: &str) -> Result<String, EdgeError> {
    let bad = |problem: String| {
        invalid(
            names::WIDGET_SHIP_FROM,
            format!(
                "it must be the ship-from address as JSON (name, street1, city, state, zip, country): {problem}"
            ),
        )
    };
    let address: Address =
        api::validation::parse_json(json.as_bytes()).map_err(|e| bad(e.message()))?;
    address.check("").map_err(|e| bad(e.message()))?;
    serde_json::to_string(&address).map_err(|e| bad(e.to_string()))
}

fn invalid(setting: &'static str, problem: impl Into<String>) -> EdgeError {
    EdgeError::Config {
        setting,
        problem: problem.into(),
    }
}

impl Config {
    /// Reads settings through `get`, so tests need no Worker environment.
    pub fn from_lookup(get: impl Fn(&'static str) -> Option<String>) -> Result<Config, EdgeError> {
        let get = |name| get(name).filter(|v: &String| !v.trim().is_empty());
        let upstream =
            get(names::UPSTREAM_URL).ok_or(invalid(names::UPSTREAM_URL, "it is not set"))?;
        let upstream = validate_upstream(&upstream)?;
        let keys = Keys::of(
            read_mode(&get, KeyEnv::Live)?,
            read_mode(&get, KeyEnv::Sandbox)?,
        );
        if matches!(keys, Keys::None) {
            return Err(invalid(
                names::LIVE_KEY,
                format!(
                    "neither {} nor {} is set",
                    names::LIVE_KEY,
                    names::SANDBOX_KEY
                ),
            ));
        }
        let upstream_timeout_ms = bounded(
            get(names::UPSTREAM_TIMEOUT_MS),
            names::UPSTREAM_TIMEOUT_MS,
            DEFAULT_UPSTREAM_TIMEOUT_MS,
            100..=60_000,
            "a whole number of milliseconds from 100 to 60000",
        )?;
        let users = Users::parse(&get(names::USERS).unwrap_or_default())
            .map_err(|problem| invalid(names::USERS, problem))?;
        let session_secret = get(names::SESSION_SECRET)
            .map(|s| s.trim().as_bytes().to_vec())
            .filter(|s| s.len() >= 32)
            .ok_or(invalid(
                names::SESSION_SECRET,
                "it must be set to at least 32 random characters",
            ))?;
        let roles = RoleTable::parse(get(names::ROLES).as_deref())
            .map_err(|problem| invalid(names::ROLES, problem))?;
        let widget = WidgetConfig {
            origins: parse_origins(get(names::WIDGET_ORIGINS).as_deref().unwrap_or(""))?,
            share: share(
                get(names::WIDGET_SHARE),
                names::WIDGET_SHARE,
                DEFAULT_WIDGET_SHARE,
            )?,
            ip_per_minute: bounded(
                get(names::WIDGET_IP_PER_MINUTE),
                names::WIDGET_IP_PER_MINUTE,
                u64::from(DEFAULT_WIDGET_IP_PER_MINUTE),
                1..=10_000,
                "a whole number from 1 to 10000",
            )? as u32,
            quote_cache_seconds: bounded(
                get(names::WIDGET_QUOTE_CACHE_SECONDS),
                names::WIDGET_QUOTE_CACHE_SECONDS,
                DEFAULT_WIDGET_QUOTE_CACHE_SECONDS,
                0..=MAX_WIDGET_QUOTE_CACHE_SECONDS,
                "a whole number of seconds from 0 to 600 (rates are valid 15 minutes)",
            )?,
            ship_from: get(names::WIDGET_SHIP_FROM)
                .map(|json| parse_ship_from(&json))
                .transpose()?,
            fallback: None,
        };
        let webhook_secret = |name| {
            get(name)
                .map(|s| s.trim().as_bytes().to_vec())
                .map(|s| {
                    if s.len() >= 16 {
                        Ok(s)
                    } else {
                        Err(invalid(
                            name,
                            "it must be the service's webhook secret (at least 16 characters)",
                        ))
                    }
                })
                .transpose()
        };
        let webhook = Secrets {
            current: webhook_secret(names::WEBHOOK_SECRET)?,
            next: webhook_secret(names::WEBHOOK_SECRET_NEXT)?,
        };
        Ok(Config {
            org: OrgId::deployment(),
            member: None,
            upstream,
            keys,
            upstream_timeout_ms,
            users,
            session_secret,
            roles,
            widget,
            webhook,
            batch_rates_share: share(
                get(names::BATCH_RATES_SHARE),
                names::BATCH_RATES_SHARE,
                crate::jobs::plan::DEFAULT_RATES_SHARE,
            )?,
            batch_max_chunk_rows: bounded(
                get(names::BATCH_MAX_CHUNK_ROWS),
                names::BATCH_MAX_CHUNK_ROWS,
                api::jobs::MAX_ROWS as u64,
                1..=api::jobs::MAX_ROWS as u64,
                "a whole number of rows from 1 to 5000",
            )? as u32,
            audit_purchase_cents: bounded(
                get(names::AUDIT_PURCHASE_CENTS),
                names::AUDIT_PURCHASE_CENTS,
                DEFAULT_AUDIT_PURCHASE_CENTS,
                0..=100_000_000,
                "a whole number of cents from 0 (every live label) to 100000000",
            )? as i64,
        })
    }

    pub fn mode(&self, mode: KeyEnv) -> Option<&ModeKeys> {
        match (&self.keys, mode) {
            (Keys::Live(live) | Keys::Both { live, .. }, KeyEnv::Live) => Some(live),
            (Keys::Sandbox(sandbox) | Keys::Both { sandbox, .. }, KeyEnv::Sandbox) => Some(sandbox),
            _ => None,
        }
    }

    /// `org`'s settings: the deployment-wide ones (service, timeouts,
    /// session secret, roles, shares) and nothing of the deployment's own
    /// organization.
    pub fn for_org(&self, org: OrgId) -> Config {
        Config {
            org,
            member: None,
            upstream: self.upstream.clone(),
            keys: Keys::None,
            upstream_timeout_ms: self.upstream_timeout_ms,
            users: Users::default(),
            session_secret: self.session_secret.clone(),
            roles: self.roles.clone(),
            widget: WidgetConfig {
                origins: Vec::new(),
                ship_from: None,
                fallback: None,
                ..self.widget
            },
            webhook: Secrets::default(),
            batch_rates_share: self.batch_rates_share,
            batch_max_chunk_rows: self.batch_max_chunk_rows,
            audit_purchase_cents: self.audit_purchase_cents,
        }
    }

    /// Modes this deployment has a key for.
    pub fn modes(&self) -> Vec<KeyEnv> {
        [KeyEnv::Live, KeyEnv::Sandbox]
            .into_iter()
            .filter(|m| self.mode(*m).is_some())
            .collect()
    }

    /// The mode a new session starts in: live when a live key is set;
    /// sandbox without keys (nothing real can be spent by mistake).
    pub fn default_mode(&self) -> KeyEnv {
        match &self.keys {
            Keys::Live(keys) | Keys::Sandbox(keys) | Keys::Both { live: keys, .. } => keys.mode,
            Keys::None => KeyEnv::Sandbox,
        }
    }

    /// The keys of `mode`; never the other mode's, which would spend real
    /// money for a sandbox job or buy unmailable labels for a live one.
    pub fn keys_for(&self, mode: KeyEnv) -> Result<&ModeKeys, EdgeError> {
        self.mode(mode).ok_or(EdgeError::ModeUnavailable {
            mode: mode.as_str(),
        })
    }

    /// The mode a session works in: its own while this deployment has a key
    /// for it, else the default (a session from before a key was removed).
    pub fn session_mode(&self, mode: KeyEnv) -> KeyEnv {
        self.mode(mode)
            .map_or_else(|| self.default_mode(), |keys| keys.mode)
    }
}

/// A share of a limit: a number from 0 to 1.
fn share(value: Option<String>, setting: &'static str, default: f64) -> Result<f64, EdgeError> {
    match value {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| (0.0..=1.0).contains(s))
            .ok_or(invalid(setting, "it must be a number from 0 to 1")),
    }
}

fn bounded(
    value: Option<String>,
    setting: &'static str,
    default: u64,
    range: std::ops::RangeInclusive<u64>,
    expected: &str,
) -> Result<u64, EdgeError> {
    match value {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse()
            .ok()
            .filter(|n| range.contains(n))
            .ok_or(invalid(setting, format!("it must be {expected}"))),
    }
}

fn read_mode(
    get: &impl Fn(&'static str) -> Option<String>,
    mode: KeyEnv,
) -> Result<Option<ModeKeys>, EdgeError> {
    let (current, next, scopes) = match mode {
        KeyEnv::Live => (
            names::LIVE_KEY,
            names::LIVE_KEY_NEXT,
            names::LIVE_KEY_SCOPES,
        ),
        KeyEnv::Sandbox => (
            names::SANDBOX_KEY,
            names::SANDBOX_KEY_NEXT,
            names::SANDBOX_KEY_SCOPES,
        ),
    };
    let next_key = read_key(get, next, mode)?;
    let Some(current_key) = read_key(get, current, mode)? else {
        return match next_key {
            Some(_) => Err(invalid(next, format!("it is set without {current}"))),
            None => Ok(None),
        };
    };
    let scopes = match get(scopes) {
        None => Scope::ALL.to_vec(),
        Some(list) => parse_scopes(&list).map_err(|problem| invalid(scopes, problem))?,
    };
    Ok(Some(ModeKeys {
        mode,
        current: current_key,
        next: next_key,
        scopes,
    }))
}

/// A comma-separated list of v1 scopes (`rates:read,labels:write`).
pub fn parse_scopes(list: &str) -> Result<Vec<Scope>, String> {
    let mut scopes = Vec::new();
    for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let scope: Scope = name.parse()?;
        if !scopes.contains(&scope) {
            scopes.push(scope);
        }
    }
    Ok(scopes)
}

fn read_key(
    get: &impl Fn(&'static str) -> Option<String>,
    setting: &'static str,
    env: KeyEnv,
) -> Result<Option<ApiKey>, EdgeError> {
    let Some(raw) = get(setting) else {
        return Ok(None);
    };
    let key = ApiKey::parse(raw.trim()).map_err(|_| {
        invalid(
            setting,
            "it is not a v1 API key (prefix + 32 hex characters)",
        )
    })?;
    if key.env() != env {
        return Err(invalid(
            setting,
            format!("it must be a {} key", env.prefix()),
        ));
    }
    Ok(Some(key))
}

/// `https://shop.example`, `https://shop.example:8443` or, for local
/// development, `http://127.0.0.1:PORT` / `http://localhost:PORT`.
fn parse_origins(list: &str) -> Result<Vec<String>, EdgeError> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|origin| check_origin(origin).map_err(|p| invalid(names::WIDGET_ORIGINS, p)))
        .collect()
}

/// One widget origin as the CSP will name it (lower-cased), or what is
/// wrong with it: `https://` and a host (and port), no path; `http://`
/// only for 127.0.0.1 or localhost. (`WIDGET_ORIGINS` and an
/// organization's widget settings both hold to it.)
pub fn check_origin(origin: &str) -> Result<String, String> {
    let host = origin
        .strip_prefix("https://")
        .or_else(|| {
            origin
                .strip_prefix("http://")
                .filter(|h| h.starts_with("127.0.0.1") || h.starts_with("localhost"))
        })
        .ok_or_else(|| {
            format!("{origin} must start with https:// (http:// only for 127.0.0.1 or localhost)")
        })?;
    if host.is_empty()
        || !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':'))
    {
        return Err(format!(
            "{origin} must be an origin: scheme and host (and port), no path"
        ));
    }
    Ok(origin.to_ascii_lowercase())
}

pub fn validate_upstream(raw: &str) -> Result<String, EdgeError> {
    let trimmed = raw.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))
        .ok_or(invalid(
            names::UPSTREAM_URL,
            "it must start with https:// or http://",
        ))?;
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty() || rest.contains(['?', '#', '@', ' ']) {
        return Err(invalid(
            names::UPSTREAM_URL,
            "it must be a base URL such as https://api.example.com (no credentials, query or fragment)",
        ));
    }
    Ok(trimmed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const LIVE: &str = "svc_live_0123456789abcdef0123456789abcdef";
    const LIVE2: &str = "svc_live_fedcba9876543210fedcba9876543210";
    const TEST: &str = "svc_test_0123456789abcdef0123456789abcdef";
    const USERS: &str =
        "ada:admin:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";

    /// `pairs` over a valid base (upstream, users, session secret).
    fn config(pairs: &[(&'static str, &str)]) -> Result<Config, EdgeError> {
        let mut map: HashMap<&str, String> = HashMap::from([
            ("USERS", USERS.to_string()),
            ("SESSION_SECRET", "s".repeat(32)),
        ]);
        map.extend(pairs.iter().map(|(k, v)| (*k, v.to_string())));
        Config::from_lookup(|k| map.get(k).cloned())
    }

    fn setting_of(result: Result<Config, EdgeError>) -> &'static str {
        match result.err() {
            Some(EdgeError::Config { setting, .. }) => setting,
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
        assert_eq!(c.upstream, "http://127.0.0.1:8788");
        assert_eq!(c.default_mode(), KeyEnv::Live);
        assert_eq!(c.modes(), vec![KeyEnv::Live, KeyEnv::Sandbox]);
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
        let Err(EdgeError::Config { problem, .. }) = config(&[
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
        assert_eq!(c.default_mode(), KeyEnv::Sandbox);
        assert_eq!(c.modes(), vec![KeyEnv::Sandbox]);
        assert_eq!(c.session_mode(KeyEnv::Live), KeyEnv::Sandbox);
    }

    #[test]
    fn defect_h_a_mode_without_a_key_never_borrows_the_other_mode_s() {
        let c = config(&[UP, ("SVC_SANDBOX_KEY", TEST)]).unwrap();
        let Err(EdgeError::ModeUnavailable { mode }) = c.keys_for(KeyEnv::Live) else {
            panic!("a live job would run on the sandbox key")
        };
        assert_eq!(mode, "live");
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
        assert_eq!(c.upstream_timeout_ms, DEFAULT_UPSTREAM_TIMEOUT_MS);
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
        assert_eq!(c.upstream_timeout_ms, 2500);
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
