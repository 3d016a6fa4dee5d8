//! What the shop set up: the ship-from address the Worker wrote into the
//! page, the parcel in the iframe's URL, and the shop framing the page.

use api::widget::PARCEL_PARAMS;
use api::{Address, Parcel};

/// What the shop configured: where parcels leave from, and what is quoted.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub ship_from: Address,
    pub parcel: Parcel,
}

/// Reads the shop's setup from the page: the ship-from JSON of the meta
/// element and the iframe URL's query. The error is for the shop owner.
pub fn setup(ship_from_json: &str, query: &str) -> Result<Setup, String> {
    let ship_from = serde_json::from_str::<Address>(ship_from_json).map_err(|_| {
        "This shop has not set the address its parcels ship from. Shop owner: set \
         WIDGET_SHIP_FROM in the Worker's settings (see the README)."
            .to_string()
    })?;
    let param = |name: &str| {
        query
            .trim_start_matches('?')
            .split('&')
            .filter_map(|pair| pair.split_once('='))
            .find(|(key, _)| *key == name)
            .and_then(|(_, value)| value.parse::<f64>().ok())
    };
    let example = "for example /widget/?weight_oz=20&length=10&width=8&height=4 (ounces, inches)";
    let mut values = [0.0; 4];
    for (value, name) in values.iter_mut().zip(PARCEL_PARAMS) {
        *value = param(name).ok_or_else(|| {
            format!("This widget's link has no valid {name}. Shop owner: add it, {example}.")
        })?;
    }
    let [weight_oz, length, width, height] = values;
    let parcel = Parcel {
        weight_oz,
        length,
        width,
        height,
    };
    if let Some((field, reason)) = parcel.invalid_field() {
        return Err(format!(
            "This widget's {field} {reason}. Shop owner: correct it, {example}."
        ));
    }
    Ok(Setup { ship_from, parcel })
}

/// `https://shop.example` from `https://shop.example:443/p/1?x` (scheme,
/// host and port as written).
pub fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next()?;
    (!host.is_empty() && matches!(scheme, "http" | "https")).then(|| format!("{scheme}://{host}"))
}

/// The shop's origin framing this page: `location.ancestorOrigins` where
/// the browser has it, else the referrer. `None` when not framed.
pub fn storefront() -> Option<String> {
    let window = web_sys::window()?;
    let framed = window
        .top()
        .ok()
        .flatten()
        .is_some_and(|top| !js_sys::Object::is(&top, &window));
    if !framed {
        return None;
    }
    let ancestors = js_sys::Reflect::get(&window.location(), &"ancestorOrigins".into()).ok();
    let first = ancestors
        .and_then(|list| js_sys::Reflect::get(&list, &0.into()).ok())
        .and_then(|o| o.as_string());
    first.or_else(|| origin_of(&window.document()?.referrer()))
}

pub fn meta_content(name: &str) -> String {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| {
            d.query_selector(&format!(r#"meta[name="{name}"]"#))
                .ok()
                .flatten()
        })
        .and_then(|m| m.get_attribute("content"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const FROM: &str = r#"{"name":"Ada Shop","street1":"500 Market St","city":"San Francisco","state":"CA","zip":"94105","country":"US"}"#;

    #[test]
    fn the_setup_comes_from_the_page_and_its_link() {
        let s = setup(FROM, "?weight_oz=20&length=10&width=8.5&height=4").unwrap();
        assert_eq!(s.ship_from.zip, "94105");
        assert_eq!(
            s.parcel,
            Parcel {
                weight_oz: 20.0,
                length: 10.0,
                width: 8.5,
                height: 4.0
            }
        );
    }

    #[test]
    fn a_broken_embed_tells_the_shop_owner_what_to_fix() {
        let no_from = setup("", "?weight_oz=20&length=10&width=8&height=4").unwrap_err();
        assert!(no_from.contains("WIDGET_SHIP_FROM"), "{no_from}");
        let no_height = setup(FROM, "?weight_oz=20&length=10&width=8").unwrap_err();
        assert!(no_height.contains("no valid height"), "{no_height}");
        let heavy = setup(FROM, "?weight_oz=9000&length=10&width=8&height=4").unwrap_err();
        assert!(
            heavy.contains("weight_oz must be at most 2400 oz"),
            "{heavy}"
        );
    }

    #[test]
    fn origins_of_referrers() {
        assert_eq!(
            origin_of("https://shop.example:8443/p/1?x=1").as_deref(),
            Some("https://shop.example:8443")
        );
        assert_eq!(
            origin_of("http://127.0.0.1:9000").as_deref(),
            Some("http://127.0.0.1:9000")
        );
        assert_eq!(origin_of(""), None);
        assert_eq!(origin_of("about:blank"), None);
    }
}
