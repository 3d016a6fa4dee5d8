//! Worker configuration, validated on the first request so a bad deployment
//! fails with an error naming the setting instead of a confusing upstream call.

use crate::errors::EdgeError;
use api::{ApiKey, KeyEnv};

/// The names of the settings, as set in wrangler.toml (`[vars]`) and as
/// secrets (`wrangler secret put`).
pub mod names {
    pub const UPSTREAM_URL: &str = "UPSTREAM_URL";
    pub const LIVE_KEY: &str = "SVC_LIVE_KEY";
    pub const SANDBOX_KEY: &str = "SVC_SANDBOX_KEY";
    pub const UPSTREAM_TIMEOUT_MS: &str = "UPSTREAM_TIMEOUT_MS";
}

/// Carriers can take seconds to make a label; past this the Worker answers
/// 504 and, for a purchase, says the outcome is unknown.
pub const DEFAULT_UPSTREAM_TIMEOUT_MS: u64 = 15_000;

pub struct Config {
    /// Base URL of the v1 service, without a trailing slash.
    pub upstream: String,
    pub live_key: Option<ApiKey>,
    pub sandbox_key: Option<ApiKey>,
    pub upstream_timeout_ms: u64,
}

impl Config {
    /// Reads settings through `get`, so tests need no Worker environment.
    pub fn from_lookup(get: impl Fn(&'static str) -> Option<String>) -> Result<Config, EdgeError> {
        let upstream = get(names::UPSTREAM_URL)
            .filter(|v| !v.trim().is_empty())
            .ok_or(EdgeError::Config {
                setting: names::UPSTREAM_URL,
                problem: "it is not set".into(),
            })?;
        let upstream = validate_upstream(&upstream)?;
        let live_key = read_key(&get, names::LIVE_KEY, KeyEnv::Live)?;
        let sandbox_key = read_key(&get, names::SANDBOX_KEY, KeyEnv::Sandbox)?;
        if live_key.is_none() && sandbox_key.is_none() {
            return Err(EdgeError::Config {
                setting: names::LIVE_KEY,
                problem: format!(
                    "neither {} nor {} is set",
                    names::LIVE_KEY,
                    names::SANDBOX_KEY
                ),
            });
        }
        let upstream_timeout_ms = match get(names::UPSTREAM_TIMEOUT_MS)
            .filter(|v| !v.trim().is_empty())
        {
            None => DEFAULT_UPSTREAM_TIMEOUT_MS,
            Some(v) => v
                .trim()
                .parse()
                .ok()
                .filter(|ms| (100..=60_000).contains(ms))
                .ok_or(EdgeError::Config {
                    setting: names::UPSTREAM_TIMEOUT_MS,
                    problem: "it must be a whole number of milliseconds from 100 to 60000".into(),
                })?,
        };
        Ok(Config {
            upstream,
            live_key,
            sandbox_key,
            upstream_timeout_ms,
        })
    }

    /// The key forwarded calls use: live when set, else sandbox.
    pub fn active_key(&self) -> &ApiKey {
        self.live_key
            .as_ref()
            .or(self.sandbox_key.as_ref())
            .expect("validated: one key is set")
    }
}

fn read_key(
    get: &impl Fn(&'static str) -> Option<String>,
    setting: &'static str,
    env: KeyEnv,
) -> Result<Option<ApiKey>, EdgeError> {
    let Some(raw) = get(setting).filter(|v| !v.trim().is_empty()) else {
        return Ok(None);
    };
    let key = ApiKey::parse(raw.trim()).map_err(|_| EdgeError::Config {
        setting,
        problem: "it is not a v1 API key (prefix + 32 hex characters)".into(),
    })?;
    if key.env() != env {
        let expected = if env == KeyEnv::Live {
            "svc_live_"
        } else {
            "svc_test_"
        };
        return Err(EdgeError::Config {
            setting,
            problem: format!("it must be a {expected} key"),
        });
    }
    Ok(Some(key))
}

fn validate_upstream(raw: &str) -> Result<String, EdgeError> {
    let trimmed = raw.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))
        .ok_or(EdgeError::Config {
            setting: names::UPSTREAM_URL,
            problem: "it must start with https:// or http://".into(),
        })?;
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty() || rest.contains(['?', '#', '@', ' ']) {
        return Err(EdgeError::Config {
            setting: names::UPSTREAM_URL,
            problem: "it must be a base URL such as https://api.example.com (no credentials, query or fragment)".into(),
        });
    }
    Ok(trimmed.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const LIVE: &str = "svc_live_0123456789abcdef0123456789abcdef";
    const TEST: &str = "svc_test_0123456789abcdef0123456789abcdef";

    fn config(pairs: &[(&'static str, &str)]) -> Result<Config, EdgeError> {
        let map: HashMap<&str, String> = pairs.iter().map(|(k, v)| (*k, v.to_string())).collect();
        Config::from_lookup(|k| map.get(k).cloned())
    }

    fn setting_of(err: EdgeError) -> &'static str {
        match err {
            EdgeError::Config { setting, .. } => setting,
            other => panic!("expected a config error, got {other:?}"),
        }
    }

    #[test]
    fn live_key_is_preferred_and_trailing_slash_dropped() {
        let c = config(&[
            ("UPSTREAM_URL", "http://127.0.0.1:8788/"),
            ("SVC_LIVE_KEY", LIVE),
            ("SVC_SANDBOX_KEY", TEST),
        ])
        .unwrap();
        assert_eq!(c.upstream, "http://127.0.0.1:8788");
        assert_eq!(c.active_key().env(), KeyEnv::Live);
    }

    #[test]
    fn sandbox_only_deployment_uses_sandbox() {
        let c = config(&[
            ("UPSTREAM_URL", "https://api.example.com"),
            ("SVC_SANDBOX_KEY", TEST),
        ])
        .unwrap();
        assert_eq!(c.active_key().env(), KeyEnv::Sandbox);
    }

    #[test]
    fn each_bad_setting_is_named() {
        assert_eq!(
            setting_of(config(&[("SVC_LIVE_KEY", LIVE)]).err().unwrap()),
            "UPSTREAM_URL"
        );
        assert_eq!(
            setting_of(
                config(&[("UPSTREAM_URL", "ftp://x"), ("SVC_LIVE_KEY", LIVE)])
                    .err()
                    .unwrap()
            ),
            "UPSTREAM_URL"
        );
        assert_eq!(
            setting_of(
                config(&[("UPSTREAM_URL", "https://u:p@x"), ("SVC_LIVE_KEY", LIVE)])
                    .err()
                    .unwrap()
            ),
            "UPSTREAM_URL"
        );
        assert_eq!(
            setting_of(config(&[("UPSTREAM_URL", "https://x")]).err().unwrap()),
            "SVC_LIVE_KEY"
        );
        assert_eq!(
            setting_of(
                config(&[
                    ("UPSTREAM_URL", "https://x"),
                    ("SVC_LIVE_KEY", "svc_live_nothex")
                ])
                .err()
                .unwrap()
            ),
            "SVC_LIVE_KEY"
        );
        // A sandbox key in the live slot is a mistake worth naming.
        assert_eq!(
            setting_of(
                config(&[("UPSTREAM_URL", "https://x"), ("SVC_LIVE_KEY", TEST)])
                    .err()
                    .unwrap()
            ),
            "SVC_LIVE_KEY"
        );
    }

    #[test]
    fn timeout_defaults_and_is_bounded() {
        let ok = |t: &str| {
            config(&[
                ("UPSTREAM_URL", "https://x"),
                ("SVC_LIVE_KEY", LIVE),
                ("UPSTREAM_TIMEOUT_MS", t),
            ])
        };
        assert_eq!(
            ok("").unwrap().upstream_timeout_ms,
            DEFAULT_UPSTREAM_TIMEOUT_MS
        );
        assert_eq!(ok("2500").unwrap().upstream_timeout_ms, 2500);
        assert_eq!(setting_of(ok("5").err().unwrap()), "UPSTREAM_TIMEOUT_MS");
        assert_eq!(setting_of(ok("soon").err().unwrap()), "UPSTREAM_TIMEOUT_MS");
    }

    #[test]
    fn errors_never_carry_the_key_value() {
        let bad = "svc_live_0123456789abcdef0123456789abcdeZ";
        let err = config(&[("UPSTREAM_URL", "https://x"), ("SVC_LIVE_KEY", bad)])
            .err()
            .unwrap();
        assert!(!err.to_body("r").contains(bad));
    }
}
