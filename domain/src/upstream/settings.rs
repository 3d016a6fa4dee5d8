//! Where the v1 service is, how long the Worker waits for it, and how
//! merchants know it (its name and dashboard, which the app shows).

use crate::errors::SettingError;
use crate::settings::{Lookup, bounded};
use api::session::Service;

pub const UPSTREAM_URL: &str = "UPSTREAM_URL";
pub const UPSTREAM_TIMEOUT_MS: &str = "UPSTREAM_TIMEOUT_MS";
pub const SERVICE_NAME: &str = "SERVICE_NAME";
pub const SERVICE_DASHBOARD_URL: &str = "SERVICE_DASHBOARD_URL";

/// Long enough for any brand, short enough to sit in a sentence.
const SERVICE_NAME_MAX_CHARS: usize = 60;

/// Carriers can take seconds to make a label; past this the Worker answers
/// 504 and, for a purchase, says the outcome is unknown.
pub const DEFAULT_UPSTREAM_TIMEOUT_MS: u64 = 15_000;

#[derive(Clone)]
pub struct Settings {
    /// Base URL of the v1 service, without a trailing slash.
    pub url: String,
    pub timeout_ms: u64,
    pub service: Service,
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
            service: service(get)?,
        })
    }
}

/// `SERVICE_NAME` (default `Service::DEFAULT_NAME`) and
/// `SERVICE_DASHBOARD_URL` (optional; an `https://` URL, since the app
/// links to it from every merchant's screen).
pub fn service(get: Lookup) -> Result<Service, SettingError> {
    let name = match get(SERVICE_NAME) {
        None => Service::DEFAULT_NAME.to_string(),
        Some(name) => {
            let name = name.trim();
            if name.chars().count() > SERVICE_NAME_MAX_CHARS || name.chars().any(char::is_control) {
                return Err(SettingError::new(
                    SERVICE_NAME,
                    "it must be a name of at most 60 characters on one line",
                ));
            }
            name.to_string()
        }
    };
    let dashboard_url = get(SERVICE_DASHBOARD_URL)
        .map(|raw| {
            let url = raw.trim();
            let host = url.strip_prefix("https://").map(|rest| {
                rest.split(['/', '?', '#']).next().unwrap_or("")
            });
            match host {
                Some(host) if !host.is_empty() && !host.contains('@') && !url.contains(char::is_whitespace) => {
                    Ok(url.to_string())
                }
                _ => Err(SettingError::new(
                    SERVICE_DASHBOARD_URL,
                    "it must be an https:// URL such as https://dashboard.example.com (no credentials or spaces)",
                )),
            }
        })
        .transpose()?;
    Ok(Service {
        name,
        dashboard_url,
    })
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
