//! Where the v1 service is and how long the Worker waits for it.

use crate::errors::SettingError;
use crate::settings::{Lookup, bounded};

pub const UPSTREAM_URL: &str = "UPSTREAM_URL";
pub const UPSTREAM_TIMEOUT_MS: &str = "UPSTREAM_TIMEOUT_MS";

/// Carriers can take seconds to make a label; past this the Worker answers
/// 504 and, for a purchase, says the outcome is unknown.
pub const DEFAULT_UPSTREAM_TIMEOUT_MS: u64 = 15_000;

pub struct Settings {
    /// Base URL of the v1 service, without a trailing slash.
    pub url: String,
    pub timeout_ms: u64,
}

impl Settings {
    pub fn from_lookup(get: Lookup) -> Result<Settings, SettingError> {
        let url = get(UPSTREAM_URL).ok_or(SettingError::new(UPSTREAM_URL, "it is not set"))?;
        Ok(Settings {
            url: validate_upstream(&url)?,
            timeout_ms: bounded(
                get(UPSTREAM_TIMEOUT_MS),
                UPSTREAM_TIMEOUT_MS,
                DEFAULT_UPSTREAM_TIMEOUT_MS,
                100..=60_000,
                "a whole number of milliseconds from 100 to 60000",
            )?,
        })
    }
}

pub fn validate_upstream(raw: &str) -> Result<String, SettingError> {
    let trimmed = raw.trim().trim_end_matches('/');
    let rest = trimmed
        .strip_prefix("https://")
        .or_else(|| trimmed.strip_prefix("http://"))
        .ok_or(SettingError::new(
            UPSTREAM_URL,
            "it must start with https:// or http://",
        ))?;
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty() || rest.contains(['?', '#', '@', ' ']) {
        return Err(SettingError::new(
            UPSTREAM_URL,
            "it must be a base URL such as https://api.example.com (no credentials, query or fragment)",
        ));
    }
    Ok(trimmed.to_string())
}
