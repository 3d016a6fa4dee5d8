//! What the shop set up: the ship-from address, the shop and the fallback
//! option the Worker wrote into the page, and the widget id, parcel and
//! theme in the iframe's URL (or, for the parcel, sent later by the shop).
//! Errors here are for the shop owner.

use api::orgs::WidgetFallback;
use api::widget::{PARCEL_PARAMS, PRESET_PARAM, SHOP_PARAM, THEME_PARAMS, WIDGET_PARAM};
use api::{Address, Parcel};
use serde::Deserialize;

/// The iframe URL's parameters the widget reads (decoded by the browser).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params(pub Vec<(String, String)>);

impl Params {
    /// Every name the widget reads.
    pub fn names() -> impl Iterator<Item = &'static str> {
        [SHOP_PARAM, WIDGET_PARAM, PRESET_PARAM]
            .into_iter()
            .chain(PARCEL_PARAMS)
            .chain(THEME_PARAMS)
    }

    #[cfg(test)]
    pub fn of(pairs: &[(&str, &str)]) -> Params {
        Params(
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        )
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The page as the Worker served it to a shop.
#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    pub ship_from: Address,
    /// The shop framing this page (the Worker checked it against the widget's origins).
    pub shop: String,
    /// The organization's widget id, when the link names one.
    pub widget_id: Option<String>,
    /// Offered when no carrier answers in time (or the quote fails).
    pub fallback: Option<WidgetFallback>,
}

/// Where the shop owner sets what the page lacks: the organization's
/// settings in the app, or the deployment's settings.
fn where_to_set(params: &Params, app: &str, setting: &str) -> String {
    match params.get(WIDGET_PARAM) {
        Some(_) => format!("{app} in the app's Storefront widget settings"),
        None => format!("{setting} in the deployment's settings (see the README)"),
    }
}

/// The page's setup: the Worker's meta elements and whether the page is
/// framed at all.
pub fn page(
    ship_from_json: &str,
    shop: &str,
    fallback_json: &str,
    params: &Params,
    framed: bool,
) -> Result<Page, String> {
    if shop.is_empty() {
        return Err(match params.get(SHOP_PARAM) {
            Some(named) => format!(
                "{named} may not show this widget. Shop owner: add it to {}.",
                where_to_set(params, "the shop origins", "WIDGET_ORIGINS")
            ),
            None => "This widget's link does not say which shop shows it. Shop owner: embed it \
                     with the embed script (see the README), which does."
                .to_string(),
        });
    }
    if !framed {
        return Err(
            "This widget works inside an iframe on your shop's pages. Shop owner: embed \
                    it there to try it."
                .to_string(),
        );
    }
    let ship_from = serde_json::from_str::<Address>(ship_from_json).map_err(|_| {
        format!(
            "This shop has not set the address its parcels ship from. Shop owner: set {}.",
            where_to_set(params, "the ship-from address", "WIDGET_SHIP_FROM")
        )
    })?;
    Ok(Page {
        ship_from,
        shop: shop.to_string(),
        widget_id: params.get(WIDGET_PARAM).map(str::to_string),
        fallback: serde_json::from_str(fallback_json).ok(),
    })
}

/// Box sizes a shop can name instead of dimensions (inches): `(name, length,
/// width, height)`. The weight still comes from the shop.
pub const PRESETS: [(&str, f64, f64, f64); 5] = [
    ("envelope", 12.0, 9.0, 1.0),
    ("small-box", 8.0, 6.0, 4.0),
    ("medium-box", 12.0, 10.0, 8.0),
    ("large-box", 18.0, 14.0, 12.0),
    ("tube", 36.0, 4.0, 4.0),
];

/// A parcel as the shop gives it: weight and dimensions, or a preset and a
/// weight (from the iframe's URL or `setParcel`).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct ParcelInput {
    #[serde(default)]
    pub weight_oz: Option<f64>,
    #[serde(default)]
    pub length: Option<f64>,
    #[serde(default)]
    pub width: Option<f64>,
    #[serde(default)]
    pub height: Option<f64>,
    #[serde(default)]
    pub preset: Option<String>,
}

/// Why the shop's parcel cannot be quoted: the field, and what to do.
#[derive(Clone, Debug, PartialEq)]
pub struct ParcelProblem {
    pub field: &'static str,
    pub message: String,
}

impl ParcelInput {
    pub fn from_params(params: &Params) -> ParcelInput {
        // A value that is not a number is kept as NaN, so it reads as invalid, not missing.
        let number = |name| params.get(name).map(|v| v.parse().unwrap_or(f64::NAN));
        ParcelInput {
            weight_oz: number("weight_oz"),
            length: number("length"),
            width: number("width"),
            height: number("height"),
            preset: params.get(PRESET_PARAM).map(str::to_string),
        }
    }

    pub fn resolve(&self) -> Result<Parcel, ParcelProblem> {
        let dimensions = match &self.preset {
            Some(name) => {
                let (_, l, w, h) = PRESETS.iter().find(|p| p.0 == name).ok_or_else(|| {
                    let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
                    ParcelProblem {
                        field: "preset",
                        message: format!(
                            "The parcel preset \"{name}\" is not one of {}. Shop owner: use one \
                             of them, or give length, width and height.",
                            names.join(", ")
                        ),
                    }
                })?;
                [Some(*l), Some(*w), Some(*h)]
            }
            None => [self.length, self.width, self.height],
        };
        let mut values = [0.0; 4];
        let given = [self.weight_oz].into_iter().chain(dimensions);
        for ((value, given), field) in values.iter_mut().zip(given).zip(PARCEL_PARAMS) {
            *value = given.ok_or_else(|| ParcelProblem {
                field,
                message: format!(
                    "The parcel has no {}. Shop owner: set data-{} on the widget's element or \
                     pass {field} to setParcel (see the README).",
                    describe(field),
                    field.replace('_', "-"),
                ),
            })?;
        }
        let [weight_oz, length, width, height] = values;
        let parcel = Parcel {
            weight_oz,
            length,
            width,
            height,
        };
        match parcel.invalid_field() {
            Some((field, reason)) => Err(ParcelProblem {
                field,
                message: format!(
                    "The parcel's {field} {reason}. Shop owner: correct it on the widget's \
                     element or in setParcel."
                ),
            }),
            None => Ok(parcel),
        }
    }
}

fn describe(field: &str) -> &'static str {
    match field {
        "weight_oz" => "weight (ounces)",
        "length" => "length (inches)",
        "width" => "width (inches)",
        _ => "height (inches)",
    }
}

/// Whether this page is in a frame (`window.top` is another window).
pub fn is_framed() -> bool {
    web_sys::window().is_some_and(|window| {
        window
            .top()
            .ok()
            .flatten()
            .is_some_and(|top| !js_sys::Object::is(&top, &window))
    })
}

/// The iframe URL's parameters the widget reads.
pub fn params_of_page() -> Params {
    let search = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let Ok(query) = web_sys::UrlSearchParams::new_with_str(&search) else {
        return Params::default();
    };
    Params(
        Params::names()
            .filter_map(|name| query.get(name).map(|v| (name.to_string(), v)))
            .collect(),
    )
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
    const SHOP: &str = "https://shop.example";

    #[test]
    fn the_page_comes_from_the_workers_metas() {
        let p = page(FROM, SHOP, "", &Params::default(), true).unwrap();
        assert_eq!((p.ship_from.zip.as_str(), p.shop.as_str()), ("94105", SHOP));
        assert_eq!((p.widget_id, p.fallback), (None, None));
        let org = Params::of(&[("widget", "org_acme")]);
        let fallback = r#"{"name":"Standard","price_cents":795,"wait_seconds":8}"#;
        let p = page(FROM, SHOP, fallback, &org, true).unwrap();
        assert_eq!(p.widget_id.as_deref(), Some("org_acme"));
        assert_eq!(p.fallback.unwrap().price_cents, 795);
    }

    #[test]
    fn a_page_the_worker_did_not_confirm_tells_the_shop_owner_what_to_set() {
        let refused = page(
            FROM,
            "",
            "",
            &Params::of(&[("shop", "https://x.example")]),
            true,
        )
        .unwrap_err();
        assert!(
            refused.starts_with("https://x.example may not show this widget")
                && refused.contains("WIDGET_ORIGINS"),
            "{refused}"
        );
        let unnamed = page(FROM, "", "", &Params::default(), true).unwrap_err();
        assert!(unnamed.contains("embed script"), "{unnamed}");
        let alone = page(FROM, SHOP, "", &Params::default(), false).unwrap_err();
        assert!(alone.contains("works inside an iframe"), "{alone}");
        let no_from = page("", SHOP, "", &Params::default(), true).unwrap_err();
        assert!(no_from.contains("WIDGET_SHIP_FROM"), "{no_from}");
        // An organization's widget: its settings are in the app.
        let org = Params::of(&[("shop", "https://x.example"), ("widget", "org_acme")]);
        let refused = page(FROM, "", "", &org, true).unwrap_err();
        assert!(
            refused.contains("shop origins in the app's Storefront widget settings"),
            "{refused}"
        );
        let no_from = page("", SHOP, "", &org, true).unwrap_err();
        assert!(
            no_from.contains("ship-from address in the app"),
            "{no_from}"
        );
    }

    #[test]
    fn a_parcel_comes_as_dimensions_or_as_a_preset_with_a_weight() {
        let link = Params::of(&[
            ("weight_oz", "20"),
            ("length", "10"),
            ("width", "8.5"),
            ("height", "4"),
        ]);
        assert_eq!(
            ParcelInput::from_params(&link).resolve(),
            Ok(Parcel {
                weight_oz: 20.0,
                length: 10.0,
                width: 8.5,
                height: 4.0
            })
        );
        let boxed = ParcelInput {
            weight_oz: Some(30.0),
            preset: Some("medium-box".into()),
            ..ParcelInput::default()
        };
        assert_eq!(
            boxed.resolve(),
            Ok(Parcel {
                weight_oz: 30.0,
                length: 12.0,
                width: 10.0,
                height: 8.0
            })
        );
    }

    #[test]
    fn a_bad_parcel_names_the_field_and_the_fix() {
        let no_height = ParcelInput::from_params(&Params::of(&[
            ("weight_oz", "20"),
            ("length", "10"),
            ("width", "8"),
        ]))
        .resolve()
        .unwrap_err();
        assert_eq!(no_height.field, "height");
        assert!(
            no_height
                .message
                .contains("no height (inches). Shop owner: set data-height"),
            "{}",
            no_height.message
        );
        let heavy = ParcelInput::from_params(&Params::of(&[
            ("weight_oz", "9000"),
            ("preset", "small-box"),
        ]))
        .resolve()
        .unwrap_err();
        assert!(
            heavy.message.contains("weight_oz must be at most 2400 oz"),
            "{}",
            heavy.message
        );
        let word =
            ParcelInput::from_params(&Params::of(&[("weight_oz", "heavy"), ("preset", "tube")]))
                .resolve()
                .unwrap_err();
        assert!(
            word.message.contains("must be a number greater than 0"),
            "{}",
            word.message
        );
        let unknown = ParcelInput {
            weight_oz: Some(3.0),
            preset: Some("crate".into()),
            ..ParcelInput::default()
        }
        .resolve()
        .unwrap_err();
        assert_eq!(unknown.field, "preset");
        assert!(unknown.message.contains("small-box"), "{}", unknown.message);
    }
}
