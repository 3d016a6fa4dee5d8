//! An organization's storefront widget settings (`api::orgs::WidgetSettings`),
//! entered by its admin in the app: checked before they are stored in its
//! object, and each change audited with what changed. The main Worker gets
//! them with the organization's keys (`wire::Checked`) for widget requests
//! that name the organization (`api::widget`).

use api::orgs::{
    FALLBACK_MAX_CENTS, FALLBACK_NAME_MAX_CHARS, FALLBACK_WAIT_SECONDS, WIDGET_MAX_ORIGINS,
    WidgetFallback, WidgetSettings,
};
use api::validation::BodyError;
use serde::{Deserialize, Serialize};

use api::origins::check_origin;

/// The settings as stored, with who set them when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredWidget {
    pub settings: WidgetSettings,
    pub set_at: u64,
    pub set_by: String,
}

fn invalid(field: &str, reason: impl Into<String>) -> BodyError {
    BodyError::Invalid {
        field: field.to_string(),
        reason: reason.into(),
    }
}

/// The settings as they will be stored (origins lower-cased, once each;
/// names trimmed), or the first field that is wrong and why.
pub fn check(settings: WidgetSettings) -> Result<WidgetSettings, BodyError> {
    let mut origins: Vec<String> = Vec::new();
    for (i, origin) in settings.origins.iter().enumerate() {
        let origin =
            check_origin(origin.trim()).map_err(|p| invalid(&format!("origins[{i}]"), p))?;
        if !origins.contains(&origin) {
            origins.push(origin);
        }
    }
    if origins.len() > WIDGET_MAX_ORIGINS {
        return Err(invalid(
            "origins",
            format!("at most {WIDGET_MAX_ORIGINS} shop origins"),
        ));
    }
    if let Some(from) = &settings.ship_from {
        from.check("ship_from")?;
    }
    if !(0.0..=1.0).contains(&settings.share) {
        return Err(invalid(
            "share",
            "a number from 0 to 1 (the share of the organization's limits)",
        ));
    }
    let fallback = settings.fallback.map(check_fallback).transpose()?;
    Ok(WidgetSettings {
        origins,
        fallback,
        ..settings
    })
}

fn check_fallback(f: WidgetFallback) -> Result<WidgetFallback, BodyError> {
    let name = f.name.trim().to_string();
    if !(1..=FALLBACK_NAME_MAX_CHARS).contains(&name.chars().count())
        || name.chars().any(char::is_control)
    {
        return Err(invalid(
            "fallback.name",
            format!("1 to {FALLBACK_NAME_MAX_CHARS} characters, such as Standard shipping"),
        ));
    }
    if f.price_cents > FALLBACK_MAX_CENTS {
        return Err(invalid(
            "fallback.price_cents",
            format!("at most {FALLBACK_MAX_CENTS} cents"),
        ));
    }
    if !FALLBACK_WAIT_SECONDS.contains(&f.wait_seconds) {
        return Err(invalid(
            "fallback.wait_seconds",
            format!(
                "a whole number of seconds from {} to {}",
                FALLBACK_WAIT_SECONDS.start(),
                FALLBACK_WAIT_SECONDS.end()
            ),
        ));
    }
    Ok(WidgetFallback { name, ..f })
}

fn dollars(cents: u32) -> String {
    format!("${}.{:02}", cents / 100, cents % 100)
}

fn fallback_words(f: &Option<WidgetFallback>) -> String {
    match f {
        None => "none".into(),
        Some(f) => format!(
            "{} {} after {} s",
            f.name,
            dollars(f.price_cents),
            f.wait_seconds
        ),
    }
}

fn ship_from_words(a: &Option<api::Address>) -> String {
    match a {
        None => "none".into(),
        Some(a) => format!(
            "{}, {}, {}, {} {} {}",
            a.name, a.street1, a.city, a.state, a.zip, a.country
        ),
    }
}

/// The audit line's detail: each setting that changed, before → after.
pub fn describe_change(before: &WidgetSettings, after: &WidgetSettings) -> String {
    let mut parts = Vec::new();
    let added: Vec<&str> = after
        .origins
        .iter()
        .filter(|o| !before.origins.contains(o))
        .map(String::as_str)
        .collect();
    let removed: Vec<&str> = before
        .origins
        .iter()
        .filter(|o| !after.origins.contains(o))
        .map(String::as_str)
        .collect();
    if !added.is_empty() {
        parts.push(format!("shop origins added: {}", added.join(", ")));
    }
    if !removed.is_empty() {
        parts.push(format!("shop origins removed: {}", removed.join(", ")));
    }
    if before.ship_from != after.ship_from {
        parts.push(format!(
            "ship-from: {} → {}",
            ship_from_words(&before.ship_from),
            ship_from_words(&after.ship_from)
        ));
    }
    if before.share != after.share {
        parts.push(format!("share: {} → {}", before.share, after.share));
    }
    if before.fallback != after.fallback {
        parts.push(format!(
            "fallback: {} → {}",
            fallback_words(&before.fallback),
            fallback_words(&after.fallback)
        ));
    }
    if parts.is_empty() {
        return "widget settings saved unchanged".into();
    }
    format!("widget {}", parts.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn from() -> api::Address {
        api::Address {
            name: "Ada Shop".into(),
            street1: "500 Market St".into(),
            street2: None,
            city: "San Francisco".into(),
            state: "CA".into(),
            zip: "94105".into(),
            country: "US".into(),
            phone: None,
            email: None,
        }
    }

    fn fallback(name: &str, price_cents: u32, wait_seconds: u32) -> Option<WidgetFallback> {
        Some(WidgetFallback {
            name: name.into(),
            price_cents,
            wait_seconds,
        })
    }

    fn field(result: Result<WidgetSettings, BodyError>) -> String {
        result.unwrap_err().field().to_string()
    }

    #[test]
    fn settings_are_checked_field_by_field() {
        let ok = check(WidgetSettings {
            origins: vec![
                " https://Shop.Example ".into(),
                "https://shop.example".into(),
                "http://127.0.0.1:4000".into(),
            ],
            ship_from: Some(from()),
            share: 0.5,
            fallback: fallback("  Standard shipping ", 795, 8),
        })
        .unwrap();
        assert_eq!(
            ok.origins,
            ["https://shop.example", "http://127.0.0.1:4000"],
            "lower-cased, once each"
        );
        assert_eq!(ok.fallback.unwrap().name, "Standard shipping");
        let with = |f: fn(&mut WidgetSettings)| {
            let mut s = WidgetSettings::default();
            f(&mut s);
            check(s)
        };
        assert_eq!(
            field(with(|s| s.origins = vec![
                "https://a.example".into(),
                "http://shop.example".into()
            ])),
            "origins[1]"
        );
        assert_eq!(
            field(with(
                |s| s.origins = vec!["https://shop.example/cart".into()]
            )),
            "origins[0]"
        );
        assert_eq!(
            field(with(
                |s| s.origins = (0..21).map(|i| format!("https://s{i}.example")).collect()
            )),
            "origins"
        );
        assert_eq!(
            field(with(|s| {
                let mut a = from();
                a.zip = String::new();
                s.ship_from = Some(a);
            })),
            "ship_from.zip"
        );
        assert_eq!(field(with(|s| s.share = 1.5)), "share");
        assert_eq!(field(with(|s| s.share = f64::NAN)), "share");
        assert_eq!(
            field(with(|s| s.fallback = fallback(" ", 100, 8))),
            "fallback.name"
        );
        assert_eq!(
            field(with(|s| s.fallback = fallback("Flat", 100_001, 8))),
            "fallback.price_cents"
        );
        assert_eq!(
            field(with(|s| s.fallback = fallback("Flat", 100, 1))),
            "fallback.wait_seconds"
        );
        assert!(
            with(|_| {}).is_ok(),
            "nothing set is a valid (closed) widget"
        );
    }

    #[test]
    fn the_audit_says_what_changed() {
        let before = WidgetSettings {
            origins: vec!["https://a.example".into(), "https://b.example".into()],
            ..WidgetSettings::default()
        };
        let after = WidgetSettings {
            origins: vec!["https://b.example".into(), "https://c.example".into()],
            ship_from: Some(from()),
            share: 0.5,
            fallback: fallback("Standard", 795, 8),
        };
        assert_eq!(
            describe_change(&before, &after),
            "widget shop origins added: https://c.example; shop origins removed: \
             https://a.example; ship-from: none → Ada Shop, 500 Market St, San Francisco, CA \
             94105 US; share: 0.25 → 0.5; fallback: none → Standard $7.95 after 8 s"
        );
        assert_eq!(
            describe_change(&after, &after),
            "widget settings saved unchanged"
        );
    }
}
