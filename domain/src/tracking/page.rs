//! The shopper's tracking page: plain HTML with its CSS inline, no script,
//! in the organization's brand (`Brand`). What it says is decided here: the
//! status in words, the timeline, the estimated day ("arriving soon" the
//! day before), the carbon of the delivery, and the recipient's name and
//! street only to someone who gave the destination's postcode. A lookup
//! that fails (an unknown order, a wrong postcode, too many tries) is one
//! answer, whatever the reason.

pub use api::shipments::Brand;
use api::{TrackerEvent, TrackerStatus};

/// Why a brand was refused, naming the field.
pub fn check_brand(b: &Brand) -> Result<(), (&'static str, &'static str)> {
    let url = |u: &Option<String>, mailto: bool| {
        u.as_ref().is_none_or(|u| {
            u.len() <= 500
                && !u.chars().any(|c| c.is_whitespace() || c == '"' || c == '<')
                && (u.starts_with("https://") || (mailto && u.starts_with("mailto:")))
        })
    };
    if b.name.trim().is_empty() || b.name.chars().count() > 80 {
        return Err(("name", "1 to 80 characters"));
    }
    if !url(&b.logo_url, false) {
        return Err(("logo_url", "an https:// address"));
    }
    if !url(&b.support_url, true) {
        return Err(("support_url", "an https:// address or mailto:"));
    }
    if b.accent.as_ref().is_some_and(|a| rgb(a).is_none()) {
        return Err(("accent", "#rgb or #rrggbb"));
    }
    if b.radius.is_some_and(|r| r > 24) {
        return Err(("radius", "0 to 24 (px)"));
    }
    let font_ok = |f: &String| {
        f.len() <= 60
            && f.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '-')
    };
    if b.font.as_ref().is_some_and(|f| !font_ok(f)) {
        return Err(("font", "a font family name"));
    }
    if b.theme
        .as_deref()
        .is_some_and(|t| !["light", "dark", "auto"].contains(&t))
    {
        return Err(("theme", "light, dark or auto"));
    }
    Ok(())
}

/// One parcel of the page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parcel {
    pub carrier: String,
    pub service: String,
    pub tracking_number: String,
    /// `None` before the tracker's first read.
    pub status: Option<TrackerStatus>,
    /// Oldest first.
    pub events: Vec<TrackerEvent>,
    /// `YYYY-MM-DD`: the carrier's estimate.
    pub estimated: Option<String>,
    pub carbon_grams: Option<i64>,
}

/// Who the parcels go to: shown only after the postcode was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recipient {
    pub name: String,
    pub street: String,
    pub city: String,
}

/// A page of one shipment (one parcel) or one order (all its parcels).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub reference: Option<String>,
    pub recipient: Option<Recipient>,
    pub parcels: Vec<Parcel>,
}

/// The status in words.
pub fn status_words(status: Option<TrackerStatus>) -> &'static str {
    match status {
        None | Some(TrackerStatus::PreTransit) => "Label created, waiting for the carrier",
        Some(TrackerStatus::InTransit) => "On its way",
        Some(TrackerStatus::OutForDelivery) => "Out for delivery",
        Some(TrackerStatus::Delivered) => "Delivered",
        Some(TrackerStatus::Unknown) => "No tracking information yet",
    }
}

/// The estimated day in words, seen on `today` (`YYYY-MM-DD`, both UTC).
pub fn estimate_words(parcel: &Parcel, today: &str) -> Option<String> {
    if parcel.status == Some(TrackerStatus::Delivered) {
        let at = parcel.events.last()?.occurred_at;
        return Some(format!("Delivered {}", long_date(days_of(at))));
    }
    let estimated = parcel.estimated.as_deref()?;
    let day = parse_day(estimated)?;
    Some(match days_between(today, estimated)? {
        ..0 => format!("Expected {}: later than estimated", long_date(day)),
        0 => "Arriving today".to_string(),
        1 => format!("Arriving soon: tomorrow, {}", long_date(day)),
        _ => format!("Estimated delivery {}", long_date(day)),
    })
}

/// Days from `from` to `to` (both `YYYY-MM-DD`).
pub fn days_between(from: &str, to: &str) -> Option<i64> {
    Some(parse_day(to)? - parse_day(from)?)
}

/// "This delivery: N g CO₂e".
pub fn carbon_words(grams: i64) -> String {
    format!("This delivery: {grams} g CO₂e")
}

/// Days since 1970-01-01 of unix seconds.
fn days_of(unix: u64) -> i64 {
    (unix / 86_400) as i64
}

/// `YYYY-MM-DD` of unix seconds.
pub fn day_of(unix: u64) -> String {
    let (y, m, d) = civil(days_of(unix));
    format!("{y:04}-{m:02}-{d:02}")
}

fn parse_day(s: &str) -> Option<i64> {
    let mut parts = s.splitn(3, '-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let d: i64 = parts.next()?.parse().ok()?;
    ((1..=12).contains(&m) && (1..=31).contains(&d)).then(|| days_from_civil(y, m, d))
}

// Howard Hinnant's civil calendar algorithms (public domain).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (
        if m <= 2 {
            yoe + era * 400 + 1
        } else {
            yoe + era * 400
        },
        m,
        d,
    )
}

const WEEKDAYS: [&str; 7] = [
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// `Monday, June 1`.
fn long_date(days: i64) -> String {
    let (_, m, d) = civil(days);
    format!(
        "{}, {} {d}",
        WEEKDAYS[days.rem_euclid(7) as usize],
        MONTHS[(m - 1) as usize]
    )
}

/// `Jun 1, 14:05 UTC` of unix seconds.
fn event_time(unix: u64) -> String {
    let (_, m, d) = civil(days_of(unix));
    let secs = unix % 86_400;
    format!(
        "{} {d}, {:02}:{:02} UTC",
        &MONTHS[(m - 1) as usize][..3],
        secs / 3600,
        secs % 3600 / 60
    )
}

/// Text made safe for HTML content and quoted attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `#rgb` or `#rrggbb` as three bytes.
fn rgb(hex: &str) -> Option<[u8; 3]> {
    let h = hex.strip_prefix('#')?;
    let digit = |i: usize, n: usize| u8::from_str_radix(h.get(i..i + n)?, 16).ok();
    match h.len() {
        3 => Some([digit(0, 1)? * 17, digit(1, 1)? * 17, digit(2, 1)? * 17]),
        6 => Some([digit(0, 2)?, digit(2, 2)?, digit(4, 2)?]),
        _ => None,
    }
}

fn luminance([r, g, b]: [u8; 3]) -> f64 {
    let c = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.039_28 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * c(r) + 0.7152 * c(g) + 0.0722 * c(b)
}

fn contrast(a: [u8; 3], b: [u8; 3]) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

const LIGHT_BG: [u8; 3] = [0xff, 0xff, 0xff];
const DARK_BG: [u8; 3] = [0x12, 0x14, 0x18];
const LIGHT_ACCENT: &str = "#1d4ed8";
const DARK_ACCENT: &str = "#93b4ff";

/// The accent for one background: the brand's when it reads at 4.5:1
/// (WCAG AA) on it, else the page's own.
fn accent_on(brand: &Brand, bg: [u8; 3], fallback: &'static str) -> String {
    brand
        .accent
        .as_deref()
        .and_then(|a| rgb(a).map(|c| (a, c)))
        .filter(|(_, c)| contrast(*c, bg) >= 4.5)
        .map_or(fallback.to_string(), |(a, _)| a.to_string())
}

/// The page's CSS: the brand's accent, radius and font, light and dark.
fn css(brand: &Brand) -> String {
    let light = format!(
        "--bg:#fff;--fg:#1a1c20;--muted:#4a505a;--line:#d5d9e0;--accent:{}",
        accent_on(brand, LIGHT_BG, LIGHT_ACCENT)
    );
    let dark = format!(
        "--bg:#121418;--fg:#eceef2;--muted:#b5bbc6;--line:#3a404a;--accent:{}",
        accent_on(brand, DARK_BG, DARK_ACCENT)
    );
    let scheme = match brand.theme.as_deref() {
        Some("dark") => format!(":root{{color-scheme:dark;{dark}}}"),
        Some("light") => format!(":root{{color-scheme:light;{light}}}"),
        _ => format!(
            ":root{{color-scheme:light dark;{light}}}@media (prefers-color-scheme:dark){{:root{{{dark}}}}}"
        ),
    };
    let font = brand
        .font
        .as_deref()
        .map_or(String::new(), |f| format!("\"{f}\","));
    let radius = brand.radius.unwrap_or(8);
    format!(
        "{scheme}*{{box-sizing:border-box}}body{{margin:0;background:var(--bg);color:var(--fg);\
font:16px/1.5 {font}system-ui,sans-serif}}main{{max-width:40rem;margin:0 auto;padding:1rem}}\
header{{display:flex;align-items:center;gap:.75rem;padding:1rem;border-bottom:3px solid var(--accent)}}\
header img{{max-height:2.5rem;max-width:8rem}}h1{{font-size:1.5rem;margin:.5rem 0}}h2{{font-size:1.25rem;margin:0}}\
section{{border:1px solid var(--line);border-radius:{radius}px;padding:1rem;margin:1rem 0}}\
.status{{font-size:1.25rem;font-weight:700;color:var(--accent)}}.muted{{color:var(--muted)}}\
ol{{list-style:none;padding:0;margin:1rem 0 0;border-left:3px solid var(--line)}}\
li{{padding:0 0 .75rem 1rem}}li:first-child{{border-left:3px solid var(--accent);margin-left:-3px}}\
dl{{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:.75rem 0}}dt{{color:var(--muted)}}dd{{margin:0}}\
a{{color:var(--accent)}}label{{display:block;margin:.75rem 0 .25rem}}\
input{{font:inherit;width:100%;padding:.5rem;border:1px solid var(--muted);border-radius:{radius}px;background:var(--bg);color:var(--fg)}}\
button{{font:inherit;margin-top:1rem;padding:.5rem 1rem;border:0;border-radius:{radius}px;background:var(--accent);color:var(--bg)}}\
footer{{padding:1rem;text-align:center}}"
    )
}

/// The page's frame: head, the brand's header, `body`, the support link.
fn frame(brand: &Brand, title: &str, body: &str) -> String {
    let name = escape(&brand.name);
    let logo = brand.logo_url.as_deref().map_or(String::new(), |u| {
        format!("<img src=\"{}\" alt=\"{name}\">", escape(u))
    });
    let named = if logo.is_empty() {
        format!("<strong>{name}</strong>")
    } else {
        logo
    };
    let support = brand.support_url.as_deref().map_or(String::new(), |u| {
        format!(
            "<footer><a href=\"{}\">Questions? Contact {name}</a></footer>",
            escape(u)
        )
    });
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
<meta name=\"robots\" content=\"noindex\"><title>{} · {name}</title><style>{}</style></head>\
<body><header>{named}</header><main>{body}</main>{support}</body></html>",
        escape(title),
        css(brand)
    )
}

/// The page of a shipment or an order, seen on `today` (`YYYY-MM-DD`).
pub fn render(brand: &Brand, page: &Page, today: &str) -> String {
    let mut body = String::new();
    let title = match &page.reference {
        Some(r) => format!("Order {r}"),
        None => "Your parcel".to_string(),
    };
    body.push_str(&format!("<h1>{}</h1>", escape(&title)));
    if let Some(r) = &page.recipient {
        body.push_str(&format!(
            "<p>To {}, {}, {}</p>",
            escape(&r.name),
            escape(&r.street),
            escape(&r.city)
        ));
    }
    let count = page.parcels.len();
    for (i, p) in page.parcels.iter().enumerate() {
        let heading = if count > 1 {
            format!("Parcel {} of {count}", i + 1)
        } else {
            "Parcel".to_string()
        };
        body.push_str(&format!(
            "<section aria-labelledby=\"p{i}\"><h2 id=\"p{i}\">{heading}</h2><p class=\"status\">{}</p>",
            status_words(p.status)
        ));
        if let Some(words) = estimate_words(p, today) {
            body.push_str(&format!("<p>{}</p>", escape(&words)));
        }
        body.push_str(&format!(
            "<dl><dt>Carrier</dt><dd>{} {}</dd><dt>Tracking number</dt><dd>{}</dd>",
            escape(&p.carrier),
            escape(&p.service),
            escape(&p.tracking_number)
        ));
        if let Some(g) = p.carbon_grams {
            body.push_str(&format!(
                "<dt>Carbon</dt><dd>{}</dd>",
                escape(&carbon_words(g))
            ));
        }
        body.push_str("</dl>");
        if !p.events.is_empty() {
            body.push_str(&format!(
                "<h3 class=\"muted\" id=\"t{i}\">Timeline</h3><ol aria-labelledby=\"t{i}\">"
            ));
            for e in p.events.iter().rev() {
                let place = if e.location.is_empty() {
                    String::new()
                } else {
                    format!(", {}", escape(&e.location))
                };
                body.push_str(&format!(
                    "<li><strong>{}</strong><br><span class=\"muted\">{}{place}</span></li>",
                    escape(&e.message),
                    event_time(e.occurred_at)
                ));
            }
            body.push_str("</ol>");
        }
        body.push_str("</section>");
    }
    frame(brand, &title, &body)
}

/// The lookup form (it asks its own address); `missed`: the one answer of
/// a lookup that found nothing, whatever the reason.
pub fn lookup(brand: &Brand, missed: bool) -> String {
    let said = if missed {
        "<p role=\"alert\">We could not find an order with that reference and postcode. \
Check both and try again.</p>"
    } else {
        ""
    };
    let body = format!(
        "<h1>Track your order</h1>{said}<form method=\"get\">\
<label for=\"ref\">Order reference</label><input id=\"ref\" name=\"ref\" required autocomplete=\"off\">\
<label for=\"postcode\">Delivery postcode</label><input id=\"postcode\" name=\"postcode\" required autocomplete=\"postal-code\">\
<button type=\"submit\">Track</button></form>"
    );
    frame(brand, "Track your order", &body)
}

/// A postcode as compared: letters and digits only, upper case.
pub fn postcode_key(postcode: &str) -> String {
    postcode
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect()
}

/// Failed lookups of one reference allowed per hour; past them every
/// lookup of it is the same miss, right postcode or not.
pub const LOOKUP_TRIES_PER_HOUR: u32 = 10;

#[cfg(test)]
mod tests {
    use super::*;

    fn parcel(status: Option<TrackerStatus>, estimated: Option<&str>) -> Parcel {
        Parcel {
            carrier: "Pacific Post".into(),
            service: "Ground".into(),
            tracking_number: "9999000111".into(),
            status,
            events: vec![TrackerEvent {
                status: TrackerStatus::InTransit,
                message: "Departed <facility>".into(),
                location: "Origin hub".into(),
                occurred_at: 1_780_000_000,
            }],
            estimated: estimated.map(str::to_string),
            carbon_grams: Some(412),
        }
    }

    #[test]
    fn the_estimate_says_arriving_soon_the_day_before() {
        let p = parcel(Some(TrackerStatus::InTransit), Some("2026-06-02"));
        assert_eq!(
            estimate_words(&p, "2026-06-01").unwrap(),
            "Arriving soon: tomorrow, Tuesday, June 2"
        );
        assert_eq!(
            estimate_words(&p, "2026-05-30").unwrap(),
            "Estimated delivery Tuesday, June 2"
        );
        assert_eq!(estimate_words(&p, "2026-06-02").unwrap(), "Arriving today");
        let delivered = parcel(Some(TrackerStatus::Delivered), Some("2026-06-02"));
        assert!(
            estimate_words(&delivered, "2026-06-09")
                .unwrap()
                .starts_with("Delivered ")
        );
        assert_eq!(day_of(1_780_000_000), "2026-05-28");
    }

    #[test]
    fn the_page_is_small_escaped_and_private_without_the_postcode() {
        let brand = Brand {
            name: "Ada's <Shop>".into(),
            accent: Some("#ffff00".into()),
            ..Brand::default()
        };
        let page = Page {
            reference: Some("A-1".into()),
            recipient: None,
            parcels: vec![parcel(Some(TrackerStatus::InTransit), Some("2026-06-02"))],
        };
        let html = render(&brand, &page, "2026-06-01");
        assert!(html.len() < 15_000, "{} bytes", html.len());
        assert!(html.contains("Ada&#39;s &lt;Shop&gt;"));
        assert!(html.contains("Departed &lt;facility&gt;"));
        assert!(html.contains("This delivery: 412 g CO₂e"));
        assert!(html.contains("On its way"));
        assert!(!html.contains("<script"));
        // Yellow cannot carry text on white: the page's own accent does.
        assert!(html.contains("--accent:#1d4ed8"));
        let shown = Page {
            recipient: Some(Recipient {
                name: "Grace Hopper".into(),
                street: "12 Elm St".into(),
                city: "Brooklyn".into(),
            }),
            ..page.clone()
        };
        assert!(render(&brand, &shown, "2026-06-01").contains("To Grace Hopper, 12 Elm St"));
        assert!(!html.contains("Grace"));
    }

    #[test]
    fn brands_are_checked_field_by_field() {
        let ok = Brand {
            name: "Shop".into(),
            logo_url: Some("https://shop.example/logo.png".into()),
            support_url: Some("mailto:help@shop.example".into()),
            accent: Some("#0a5".into()),
            radius: Some(12),
            font: Some("Inter".into()),
            theme: Some("auto".into()),
        };
        assert_eq!(check_brand(&ok), Ok(()));
        let bad = |b: Brand| check_brand(&b).unwrap_err().0;
        assert_eq!(
            bad(Brand {
                logo_url: Some("http://x".into()),
                ..ok.clone()
            }),
            "logo_url"
        );
        assert_eq!(
            bad(Brand {
                font: Some("x;}body{".into()),
                ..ok.clone()
            }),
            "font"
        );
        assert_eq!(
            bad(Brand {
                accent: Some("red".into()),
                ..ok.clone()
            }),
            "accent"
        );
        assert_eq!(postcode_key(" 112-01 "), "11201");
    }
}
