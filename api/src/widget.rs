//! The storefront widget page (not part of v1): a small page the Worker
//! serves at [`PAGE_PATH`] for shop owners to embed in an `<iframe>` on a
//! configured widget origin. Stated here once so the app and the edge
//! cannot disagree; `widget/embed.js` restates the names it uses (a test
//! in `app::widget` checks it does).
//!
//! - The iframe's URL names the shop that frames it ([`SHOP_PARAM`], the
//!   embed script sets it to the page's origin) and carries the parcel of
//!   the product or cart being quoted:
//!   `/widget/?shop=https%3A%2F%2Fshop.example&weight_oz=20&length=10&width=8&height=4`.
//! - The Worker serves the page only to that shop, and only when it is in
//!   `WIDGET_ORIGINS`: the CSP's `frame-ancestors` is exactly that origin
//!   (the browser enforces it, so a page lying about who frames it is not
//!   shown), and the origin goes into `<meta name="parcel-shop">`
//!   ([`SHOP_META`]). Otherwise the answer is a 403 with `frame-ancestors
//!   'none'` and an empty meta. No referrer or `ancestorOrigins` is read,
//!   so the shop's `Referrer-Policy` does not matter.
//! - The Worker writes the configured ship-from address into the page, as
//!   JSON in the `content` of `<meta name="parcel-ship-from">`.
//! - The page calls `/api/v1/rates` on its own origin with [`ORIGIN_HEADER`]
//!   set to the shop; the Worker answers it as the widget principal of that
//!   origin (caps, cache and scopes of the widget), never as a signed-in
//!   user. A quote answered from the Worker's cache carries `Age` (seconds
//!   since it was quoted), so the page knows how long its rates stay valid.
//! - The page and the shop's window talk with `postMessage`, each to the
//!   other's origin only: the page sends [`events`], the shop sends
//!   [`commands`] (the embed script turns them into DOM events and methods
//!   on the host element).

/// Where the widget page lives (Trunk builds it with this public URL).
pub const PAGE_PATH: &str = "/widget/";
/// The same page without the slash (served alike).
pub const PAGE_PATH_BARE: &str = "/widget";

/// The storefront origin that frames the widget page, sent on its calls.
pub const ORIGIN_HEADER: &str = "Parcel-Widget-Origin";

/// The `name` of the meta element holding the ship-from address.
pub const SHIP_FROM_META: &str = "parcel-ship-from";

/// The iframe URL's parameter naming the shop's origin.
pub const SHOP_PARAM: &str = "shop";

/// The `name` of the meta element in which the Worker confirms the shop
/// (its configured origin; empty when the shop may not show the widget).
pub const SHOP_META: &str = "parcel-shop";

/// The iframe URL's parcel parameters (ounces, inches).
pub const PARCEL_PARAMS: [&str; 4] = ["weight_oz", "length", "width", "height"];

/// The iframe URL's parameter naming a parcel preset (a box size; the
/// weight still comes from `weight_oz`).
pub const PRESET_PARAM: &str = "preset";

/// The iframe URL's theme parameters: accent colour (`#rgb` or `#rrggbb`),
/// corner radius (px), font family, and `light`, `dark` or `auto`.
pub const THEME_PARAMS: [&str; 4] = ["accent", "radius", "font", "theme"];

/// Messages from the widget page to the shop's window: `{type, detail}`,
/// re-dispatched by the embed script as `CustomEvent`s of the same name on
/// the host element.
pub mod events {
    /// The page's height changed (`{type, height}`; sizes the iframe, not re-dispatched).
    pub const HEIGHT: &str = "parcel-widget:height";
    /// The widget listens: the shop's commands are taken from now on.
    pub const READY: &str = "parcel-widget:ready";
    /// Options were quoted for the shopper's destination.
    pub const QUOTED: &str = "parcel-widget:quoted";
    /// The shopper chose an option (or it was re-quoted before expiring).
    pub const CHOSEN: &str = "parcel-widget:chosen";
    /// There is no choice any more (the options changed, or it expired).
    pub const CLEARED: &str = "parcel-widget:cleared";
    /// Something the shop should know: a bad parcel or theme, a failed quote.
    pub const ERROR: &str = "parcel-widget:error";
    /// Every event the embed script re-dispatches.
    pub const DISPATCHED: [&str; 5] = [READY, QUOTED, CHOSEN, CLEARED, ERROR];
}

/// Messages from the shop's window to the widget page: `{type, ...}`.
pub mod commands {
    /// `{type, parcel: {weight_oz, length, width, height} | {preset, weight_oz}}`
    pub const SET_PARCEL: &str = "parcel-widget:set-parcel";
    /// `{type, address: {street1, city, state, zip, country?, name?, street2?}}`
    pub const SET_DESTINATION: &str = "parcel-widget:set-destination";
}
