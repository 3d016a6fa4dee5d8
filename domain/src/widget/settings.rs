//! The storefront widget's settings: the deployment's (`WIDGET_*`), or an
//! organization's (its origins, ship-from, share and fallback, from its
//! widget settings; the per-shopper cap and the quote cache stay the
//! deployment's).

use api::Address;
use api::origins::check_origin;

use crate::errors::SettingError;
use crate::settings::{Lookup, bounded, share};

pub const WIDGET_ORIGINS: &str = "WIDGET_ORIGINS";
pub const WIDGET_SHARE: &str = "WIDGET_SHARE";
pub const WIDGET_IP_PER_MINUTE: &str = "WIDGET_IP_PER_MINUTE";
pub const WIDGET_QUOTE_CACHE_SECONDS: &str = "WIDGET_QUOTE_CACHE_SECONDS";
pub const WIDGET_SHIP_FROM: &str = "WIDGET_SHIP_FROM";

/// The widget may use a quarter of the rates and address budgets by default
/// (an organization's widget too).
pub const DEFAULT_WIDGET_SHARE: f64 = api::orgs::WIDGET_DEFAULT_SHARE;
pub const DEFAULT_WIDGET_IP_PER_MINUTE: u32 = 30;
pub const DEFAULT_WIDGET_QUOTE_CACHE_SECONDS: u64 = 120;
/// A cached quote must stay well inside the 15-minute rate validity.
pub const MAX_WIDGET_QUOTE_CACHE_SECONDS: u64 = 600;

pub struct Settings {
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

impl Settings {
    pub fn from_lookup(get: Lookup) -> Result<Settings, SettingError> {
        Ok(Settings {
            origins: parse_origins(get(WIDGET_ORIGINS).as_deref().unwrap_or(""))?,
            share: share(get(WIDGET_SHARE), WIDGET_SHARE, DEFAULT_WIDGET_SHARE)?,
            ip_per_minute: bounded(
                get(WIDGET_IP_PER_MINUTE),
                WIDGET_IP_PER_MINUTE,
                u64::from(DEFAULT_WIDGET_IP_PER_MINUTE),
                1..=10_000,
                "a whole number from 1 to 10000",
            )? as u32,
            quote_cache_seconds: bounded(
                get(WIDGET_QUOTE_CACHE_SECONDS),
                WIDGET_QUOTE_CACHE_SECONDS,
                DEFAULT_WIDGET_QUOTE_CACHE_SECONDS,
                0..=MAX_WIDGET_QUOTE_CACHE_SECONDS,
                "a whole number of seconds from 0 to 600 (rates are valid 15 minutes)",
            )?,
            ship_from: get(WIDGET_SHIP_FROM)
                .map(|json| parse_ship_from(&json))
                .transpose()?,
            fallback: None,
        })
    }

    /// An organization's before its own widget settings are read: no
    /// origins (no widget), no ship-from, no fallback.
    pub fn for_org(&self) -> Settings {
        Settings {
            origins: Vec::new(),
            ship_from: None,
            fallback: None,
            ..*self
        }
    }
}

/// The ship-from address, checked with the rule the service applies to
/// `from_address` (`api::Address::check`), so a bad one fails here, naming
/// the setting, and not in every widget quote.
fn parse_ship_from(json: &str) -> Result<String, SettingError> {
    let bad = |problem: String| {
        SettingError::new(
            WIDGET_SHIP_FROM,
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

/// `https://shop.example`, `https://shop.example:8443` or, for local
/// development, `http://127.0.0.1:PORT` / `http://localhost:PORT`.
fn parse_origins(list: &str) -> Result<Vec<String>, SettingError> {
    list.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|origin| check_origin(origin).map_err(|p| SettingError::new(WIDGET_ORIGINS, p)))
        .collect()
}
