//! The storefront widget page (`api::widget`): the Worker serves the
//! Trunk-built page with what only it knows: which shop may frame it (CSP
//! `frame-ancestors`, checked against the widget's origins: `WIDGET_ORIGINS`
//! or the organization's the link names), the ship-from address and the
//! fallback option. An organization's settings are kept briefly (`tenants`).

pub mod cors;
pub mod quotes;
pub mod settings;
pub mod shoppers;
pub mod tenants;

use crate::routes::query_param;
use api::widget::{FALLBACK_META, SHIP_FROM_META, SHOP_META, SHOP_PARAM};

/// The configured widget origin the page's link names as its shop, if any.
/// The embed script puts the shop page's origin there; whoever else writes
/// it gains nothing, since the page is then framed by that origin only.
pub fn framing_shop<'a>(query: Option<&str>, origins: &'a [String]) -> Option<&'a str> {
    let shop = query_param(query, SHOP_PARAM)?;
    origins
        .iter()
        .find(|o| o.eq_ignore_ascii_case(&shop))
        .map(String::as_str)
}

/// The embed script's status answer (`api::widget::Status`) for a page of
/// `origin`: whether it is one of `origins`, and the fallback option as it
/// is stored (JSON written by the accounts Worker from a checked
/// `WidgetFallback`), passed through without parsing.
pub fn status(origins: &[String], fallback_json: Option<&str>, origin: Option<&str>) -> String {
    let allowed = origin.is_some_and(|o| origins.iter().any(|x| x.eq_ignore_ascii_case(o)));
    let fallback = fallback_json.filter(|f| !f.is_empty()).unwrap_or("null");
    format!(r#"{{"shop_allowed":{allowed},"fallback":{fallback}}}"#)
}

/// The widget page's CSP with its `frame-ancestors` set to exactly `shop`
/// (`'none'` without one: nobody may frame it).
pub fn frame_ancestors(csp: &str, shop: Option<&str>) -> String {
    let mut directives: Vec<&str> = csp
        .split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty() && !d.to_ascii_lowercase().starts_with("frame-ancestors"))
        .collect();
    let allowed = format!("frame-ancestors {}", shop.unwrap_or("'none'"));
    directives.push(&allowed);
    directives.join("; ")
}

/// The page with the ship-from address and the fallback option (JSON) and
/// the shop written into their meta elements. A missing element is left
/// out (the widget then says what is not configured).
pub fn page(html: &str, ship_from_json: &str, fallback_json: &str, shop: Option<&str>) -> String {
    let html = fill_meta(html, SHIP_FROM_META, ship_from_json);
    let html = fill_meta(&html, FALLBACK_META, fallback_json);
    fill_meta(&html, SHOP_META, shop.unwrap_or(""))
}

fn fill_meta(html: &str, name: &str, value: &str) -> String {
    let placeholder = format!(r#"<meta name="{name}" content="""#);
    match html.find(&placeholder) {
        Some(at) => {
            let value_at = at + placeholder.len() - 1;
            format!(
                "{}{}{}",
                &html[..value_at],
                escape_attribute(value),
                &html[value_at..]
            )
        }
        None => html.to_string(),
    }
}

/// Escapes text for a double-quoted HTML attribute.
fn escape_attribute(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSP: &str =
        "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; frame-ancestors 'none'";

    fn origins() -> Vec<String> {
        vec![
            "https://shop.example".to_string(),
            "https://b.example".to_string(),
        ]
    }

    #[test]
    fn the_status_says_whether_this_shop_may_show_it_and_hands_over_the_fallback() {
        use api::orgs::WidgetFallback;
        use api::widget::Status;
        let read = |json: String| serde_json::from_str::<Status>(&json).unwrap();
        let fallback = WidgetFallback {
            name: "Standard \"flat\" shipping".into(),
            price_cents: 795,
            wait_seconds: 5,
        };
        let stored = serde_json::to_string(&fallback).unwrap();
        let listed = read(status(
            &origins(),
            Some(&stored),
            Some("https://SHOP.example"),
        ));
        assert_eq!(
            listed,
            Status {
                shop_allowed: true,
                fallback: Some(fallback.clone())
            }
        );
        // One `www.` missing: refused, and the fallback still handed over.
        let unlisted = read(status(
            &origins(),
            Some(&stored),
            Some("https://www.shop.example"),
        ));
        assert!(!unlisted.shop_allowed);
        assert_eq!(unlisted.fallback, Some(fallback));
        // No Origin (not a browser's page), no fallback, or no widget at all.
        assert!(!read(status(&origins(), None, None)).shop_allowed);
        assert_eq!(read(status(&origins(), Some(""), None)).fallback, None);
        assert_eq!(
            read(status(&[], None, Some("https://shop.example"))),
            Status {
                shop_allowed: false,
                fallback: None
            }
        );
    }

    #[test]
    fn the_shop_is_the_configured_origin_the_link_names() {
        let o = origins();
        let q = |s: &str| framing_shop(Some(s), &o);
        assert_eq!(
            q("weight_oz=1&shop=https%3A%2F%2Fb.example"),
            Some("https://b.example")
        );
        // The configured spelling is what goes into the CSP.
        assert_eq!(q("shop=HTTPS://SHOP.EXAMPLE"), Some("https://shop.example"));
        assert_eq!(q("shop=https://evil.example"), None);
        assert_eq!(q("shop=https://shop.example/cart"), None);
        assert_eq!(q("shop=https://shop.example;%20script-src%20*"), None);
        assert_eq!(q("weight_oz=1"), None);
        assert_eq!(framing_shop(None, &o), None);
        assert_eq!(framing_shop(Some("shop=https://b.example"), &[]), None);
    }

    #[test]
    fn frame_ancestors_are_exactly_the_shop() {
        assert_eq!(
            frame_ancestors(CSP, Some("https://shop.example")),
            "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; frame-ancestors https://shop.example"
        );
        assert_eq!(frame_ancestors(CSP, None), CSP);
        // Added when the built page had none.
        assert_eq!(
            frame_ancestors("default-src 'none'", Some("https://b.example")),
            "default-src 'none'; frame-ancestors https://b.example"
        );
    }

    #[test]
    fn the_ship_from_and_the_shop_go_into_their_metas_escaped() {
        let html = r#"<head><meta name="parcel-ship-from" content="" /><meta name="parcel-shop" content="" /><meta name="parcel-fallback" content="" /></head>"#;
        assert_eq!(
            page(
                html,
                r#"{"name":"A & B \"<x>\" O'Neil"}"#,
                r#"{"name":"<Flat>"}"#,
                Some("https://shop.example")
            ),
            r#"<head><meta name="parcel-ship-from" content="{&quot;name&quot;:&quot;A &amp; B \&quot;&lt;x&gt;\&quot; O&#39;Neil&quot;}" /><meta name="parcel-shop" content="https://shop.example" /><meta name="parcel-fallback" content="{&quot;name&quot;:&quot;&lt;Flat&gt;&quot;}" /></head>"#
        );
        assert_eq!(
            page(html, "{}", "", None),
            r#"<head><meta name="parcel-ship-from" content="{}" /><meta name="parcel-shop" content="" /><meta name="parcel-fallback" content="" /></head>"#
        );
        assert_eq!(page("<head></head>", "{}", "", None), "<head></head>");
    }
}
