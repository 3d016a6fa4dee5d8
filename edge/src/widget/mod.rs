//! The storefront widget page (`api::widget`): the Worker serves the
//! Trunk-built page with two things only it knows, the storefront origins
//! allowed to frame it (CSP `frame-ancestors`) and the ship-from address.

pub mod cors;
#[cfg(target_arch = "wasm32")]
pub(crate) mod glue;

use api::widget::SHIP_FROM_META;

/// The widget page's CSP with its `frame-ancestors` set to `origins`
/// (`'none'` when no widget origin is configured: nobody may frame it).
pub fn frame_ancestors(csp: &str, origins: &[String]) -> String {
    let allowed = if origins.is_empty() {
        "'none'".to_string()
    } else {
        origins.join(" ")
    };
    let mut directives: Vec<String> = csp
        .split(';')
        .map(str::trim)
        .filter(|d| !d.is_empty() && !d.to_ascii_lowercase().starts_with("frame-ancestors"))
        .map(str::to_string)
        .collect();
    directives.push(format!("frame-ancestors {allowed}"));
    directives.join("; ")
}

/// The page with the ship-from address (JSON) in its meta element. A page
/// without the element is returned as it is (the widget then says it is
/// not configured).
pub fn page(html: &str, ship_from_json: &str) -> String {
    let placeholder = format!(r#"<meta name="{SHIP_FROM_META}" content="""#);
    match html.find(&placeholder) {
        Some(at) => {
            let value_at = at + placeholder.len() - 1;
            format!(
                "{}{}{}",
                &html[..value_at],
                escape_attribute(ship_from_json),
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

    #[test]
    fn frame_ancestors_are_the_widget_origins() {
        let origins = vec![
            "https://shop.example".to_string(),
            "https://b.example".to_string(),
        ];
        assert_eq!(
            frame_ancestors(CSP, &origins),
            "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; frame-ancestors https://shop.example https://b.example"
        );
        assert_eq!(frame_ancestors(CSP, &[]), CSP);
        // Added when the built page had none.
        assert_eq!(
            frame_ancestors("default-src 'none'", &origins[..1]),
            "default-src 'none'; frame-ancestors https://shop.example"
        );
    }

    #[test]
    fn the_ship_from_goes_into_the_meta_escaped() {
        let html = r#"<head><meta name="parcel-ship-from" content="" /></head>"#;
        assert_eq!(
            page(html, r#"{"name":"A & B \"<x>\" O'Neil"}"#),
            r#"<head><meta name="parcel-ship-from" content="{&quot;name&quot;:&quot;A &amp; B \&quot;&lt;x&gt;\&quot; O&#39;Neil&quot;}" /></head>"#
        );
        assert_eq!(page("<head></head>", "{}"), "<head></head>");
    }
}
