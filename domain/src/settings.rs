//! Reading settings (wrangler.toml `[vars]` and secrets): each feature
//! parses its own through a [`Lookup`], so tests need no Worker
//! environment, and names the setting it refuses (never its value).

use crate::errors::SettingError;

/// A setting's value by name; blank values read as unset.
pub type Lookup<'a> = &'a dyn Fn(&'static str) -> Option<String>;

/// A share of a limit: a number from 0 to 1.
pub fn share(
    value: Option<String>,
    setting: &'static str,
    default: f64,
) -> Result<f64, SettingError> {
    match value {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| (0.0..=1.0).contains(s))
            .ok_or(SettingError::new(
                setting,
                "it must be a number from 0 to 1",
            )),
    }
}

/// A whole number within `range`, `default` when unset.
pub fn bounded(
    value: Option<String>,
    setting: &'static str,
    default: u64,
    range: std::ops::RangeInclusive<u64>,
    expected: &str,
) -> Result<u64, SettingError> {
    match value {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse()
            .ok()
            .filter(|n| range.contains(n))
            .ok_or(SettingError::new(setting, format!("it must be {expected}"))),
    }
}
