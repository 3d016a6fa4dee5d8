//! The shop's look: accent colour, corner radius, font family and light or
//! dark, from the iframe's URL. The accent is held to WCAG AA: it is used
//! for text, the chosen option's outline and the button, so it must reach
//! 4.5:1 against the widget's background; an accent that does not is
//! darkened (light) or lightened (dark) until it does, and the button's
//! text is black or white, whichever contrasts more (always over 4.5:1).

use super::setup::Params;
use serde::Serialize;

/// The widget's backgrounds (`style/widget.css`, `--bg`).
const LIGHT_BG: Rgb = Rgb(0xff, 0xff, 0xff);
const DARK_BG: Rgb = Rgb(0x0f, 0x17, 0x2a);
/// The default accents: one per scheme, both well over 4.5:1.
const LIGHT_ACCENT: Rgb = Rgb(0x1d, 0x4e, 0xd8);
const DARK_ACCENT: Rgb = Rgb(0x93, 0xc5, 0xfd);
const MIN_CONTRAST: f64 = 4.5;
const DEFAULT_RADIUS_PX: u8 = 8;
const MAX_RADIUS_PX: u8 = 24;
const MAX_FONT_CHARS: usize = 120;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// `#rgb` or `#rrggbb`.
    pub fn parse(text: &str) -> Option<Rgb> {
        let hex = text.trim().strip_prefix('#')?;
        if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let digit = |i: usize| u8::from_str_radix(&hex[i..=i], 16).ok();
        let pair = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
        match hex.len() {
            3 => Some(Rgb(digit(0)? * 17, digit(1)? * 17, digit(2)? * 17)),
            6 => Some(Rgb(pair(0)?, pair(2)?, pair(4)?)),
            _ => None,
        }
    }

    pub fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }

    /// WCAG 2 relative luminance.
    fn luminance(self) -> f64 {
        let channel = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(self.0) + 0.7152 * channel(self.1) + 0.0722 * channel(self.2)
    }

    /// `self` moved toward `to` by `t` (0 to 1).
    fn mix(self, to: Rgb, t: f64) -> Rgb {
        let m = |a: u8, b: u8| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as u8;
        Rgb(m(self.0, to.0), m(self.1, to.1), m(self.2, to.2))
    }
}

/// WCAG 2 contrast ratio (1 to 21).
pub fn contrast(a: Rgb, b: Rgb) -> f64 {
    let (la, lb) = (a.luminance(), b.luminance());
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scheme {
    Light,
    Dark,
    /// The shopper's system setting (`prefers-color-scheme`).
    Auto,
}

/// The colours of one scheme.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Palette {
    pub accent: String,
    /// The text on an accent background.
    pub on_accent: String,
    /// Whether the shop's accent had to change to meet the contrast rule.
    pub adjusted: bool,
}

/// The accent held to `MIN_CONTRAST` against the scheme's background.
pub fn palette(accent: Option<Rgb>, dark: bool) -> Palette {
    let (bg, default, toward) = if dark {
        (DARK_BG, DARK_ACCENT, Rgb(0xff, 0xff, 0xff))
    } else {
        (LIGHT_BG, LIGHT_ACCENT, Rgb(0, 0, 0))
    };
    let wanted = accent.unwrap_or(default);
    let used = (0..=20)
        .map(|step| wanted.mix(toward, f64::from(step) / 20.0))
        .find(|c| contrast(*c, bg) >= MIN_CONTRAST)
        .unwrap_or(toward);
    let (white, black) = (Rgb(0xff, 0xff, 0xff), Rgb(0, 0, 0));
    let on_accent = if contrast(used, white) >= contrast(used, black) {
        white
    } else {
        black
    };
    Palette {
        accent: used.hex(),
        on_accent: on_accent.hex(),
        adjusted: used != wanted,
    }
}

/// The theme the widget applies, as the `ready` event reports it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Theme {
    pub scheme: Scheme,
    pub light: Palette,
    pub dark: Palette,
    pub radius_px: u8,
    /// The shop's font family, first in the stack (`None`: the system font).
    pub font: Option<String>,
}

impl Theme {
    pub fn font_stack(&self) -> String {
        let system = "system-ui, -apple-system, \"Segoe UI\", Roboto, sans-serif";
        match &self.font {
            Some(font) => format!("{font}, {system}"),
            None => system.to_string(),
        }
    }
}

/// The theme from the iframe's URL, and a sentence for the shop owner per
/// setting that was ignored (the default is used instead).
pub fn theme(params: &Params) -> (Theme, Vec<String>) {
    let mut problems = Vec::new();
    let accent = params.get("accent").and_then(|text| {
        let parsed = Rgb::parse(text);
        if parsed.is_none() {
            problems.push(format!(
                "The accent \"{text}\" is not a colour like #1d4ed8; the default is used."
            ));
        }
        parsed
    });
    let radius_px = match params.get("radius") {
        None => DEFAULT_RADIUS_PX,
        Some(text) => match text.trim().trim_end_matches("px").parse::<f64>() {
            Ok(r) if r.is_finite() && r >= 0.0 => r.min(f64::from(MAX_RADIUS_PX)).round() as u8,
            _ => {
                problems.push(format!(
                    "The radius \"{text}\" is not a number of pixels (0 to {MAX_RADIUS_PX}); the default is used."
                ));
                DEFAULT_RADIUS_PX
            }
        },
    };
    let font = params
        .get("font")
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .and_then(|font| {
            // Font names only: nothing that could end the CSS value.
            let plain = font.len() <= MAX_FONT_CHARS
                && font
                    .chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, ' ' | ',' | '-' | '\'' | '"'));
            if !plain {
                problems.push(format!(
                    "The font \"{font}\" is not a list of font names; the system font is used."
                ));
            }
            plain.then(|| font.to_string())
        });
    let scheme = match params.get("theme") {
        None | Some("light") => Scheme::Light,
        Some("dark") => Scheme::Dark,
        Some("auto") => Scheme::Auto,
        Some(other) => {
            problems.push(format!(
                "The theme \"{other}\" is not light, dark or auto; light is used."
            ));
            Scheme::Light
        }
    };
    let theme = Theme {
        scheme,
        light: palette(accent, false),
        dark: palette(accent, true),
        radius_px,
        font,
    };
    (theme, problems)
}

/// Applies the theme to the page (CSS custom properties and `data-theme`
/// on `<html>`); `auto` follows the shopper's system setting as it changes.
pub fn apply(theme: &Theme) {
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
    else {
        return;
    };
    let style = root.style();
    let _ = style.set_property("--radius", &format!("{}px", theme.radius_px));
    let _ = style.set_property("--font", &theme.font_stack());
    let paint = {
        let (root, light, dark) = (root.clone(), theme.light.clone(), theme.dark.clone());
        move |is_dark: bool| {
            let palette = if is_dark { &dark } else { &light };
            let style = root.style();
            let _ = style.set_property("--accent", &palette.accent);
            let _ = style.set_property("--on-accent", &palette.on_accent);
            let _ = root.set_attribute("data-theme", if is_dark { "dark" } else { "light" });
        }
    };
    match theme.scheme {
        Scheme::Light => paint(false),
        Scheme::Dark => paint(true),
        Scheme::Auto => {
            let Some(query) = web_sys::window()
                .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
            else {
                return paint(false);
            };
            paint(query.matches());
            let follow =
                wasm_bindgen::closure::Closure::<dyn FnMut(web_sys::MediaQueryListEvent)>::new(
                    move |event: web_sys::MediaQueryListEvent| paint(event.matches()),
                );
            let _ = query.add_event_listener_with_callback(
                "change",
                wasm_bindgen::JsCast::unchecked_ref(follow.as_ref()),
            );
            // Lives as long as the page.
            follow.forget();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_parse_as_hex() {
        assert_eq!(Rgb::parse("#0a7"), Some(Rgb(0x00, 0xaa, 0x77)));
        assert_eq!(Rgb::parse("#1D4ED8"), Some(Rgb(0x1d, 0x4e, 0xd8)));
        for bad in ["red", "#12", "#12345g", "1d4ed8", "#1d4ed8ff", "#é12"] {
            assert_eq!(Rgb::parse(bad), None, "{bad}");
        }
        assert!((contrast(Rgb(0, 0, 0), Rgb(255, 255, 255)) - 21.0).abs() < 1e-9);
    }

    #[test]
    fn an_accent_with_enough_contrast_is_used_as_it_is() {
        let p = palette(Rgb::parse("#1d4ed8"), false);
        assert_eq!(
            (p.accent.as_str(), p.on_accent.as_str(), p.adjusted),
            ("#1d4ed8", "#ffffff", false)
        );
    }

    #[test]
    fn a_pale_accent_is_darkened_on_light_and_kept_on_dark() {
        let yellow = Rgb::parse("#ffd60a");
        let light = palette(yellow, false);
        assert!(light.adjusted);
        let used = Rgb::parse(&light.accent).unwrap();
        assert!(contrast(used, LIGHT_BG) >= MIN_CONTRAST);
        let dark = palette(yellow, true);
        assert_eq!(
            (dark.accent.as_str(), dark.on_accent.as_str(), dark.adjusted),
            ("#ffd60a", "#000000", false)
        );
    }

    #[test]
    fn every_accent_meets_the_contrast_rule_in_both_schemes() {
        for r in (0..=255).step_by(17) {
            for g in (0..=255).step_by(17) {
                for b in (0..=255).step_by(17) {
                    for dark in [false, true] {
                        let p = palette(Some(Rgb(r, g, b)), dark);
                        let (accent, on) = (
                            Rgb::parse(&p.accent).unwrap(),
                            Rgb::parse(&p.on_accent).unwrap(),
                        );
                        let bg = if dark { DARK_BG } else { LIGHT_BG };
                        assert!(contrast(accent, bg) >= MIN_CONTRAST, "{p:?} dark={dark}");
                        assert!(contrast(accent, on) >= MIN_CONTRAST, "{p:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn settings_are_read_and_bad_ones_reported() {
        let (t, problems) = theme(&Params::of(&[
            ("accent", "#0a7"),
            ("radius", "14px"),
            ("font", "Georgia, 'Times New Roman', serif"),
            ("theme", "dark"),
        ]));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!((t.scheme, t.radius_px), (Scheme::Dark, 14));
        assert_eq!(
            t.font_stack(),
            "Georgia, 'Times New Roman', serif, system-ui, -apple-system, \"Segoe UI\", Roboto, sans-serif"
        );
        assert_eq!(
            theme(&Params::of(&[("radius", "99")])).0.radius_px,
            MAX_RADIUS_PX
        );

        let (t, problems) = theme(&Params::of(&[
            ("accent", "teal"),
            ("radius", "round"),
            ("font", "x; } body { display: none"),
            ("theme", "sepia"),
        ]));
        assert_eq!(problems.len(), 4, "{problems:?}");
        assert!(
            problems[0].contains("\"teal\" is not a colour"),
            "{}",
            problems[0]
        );
        assert_eq!(
            (t.scheme, t.radius_px, t.font),
            (Scheme::Light, DEFAULT_RADIUS_PX, None)
        );
        assert_eq!(t.light, palette(None, false));
    }
}
