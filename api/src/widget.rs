//! The storefront widget page (not part of v1): a small page the Worker
//! serves at [`PAGE_PATH`] for shop owners to embed in an `<iframe>` on a
//! configured widget origin. Stated here once so the app and the edge
//! cannot disagree; `widget/embed.js` restates the names it uses (a test
//! in `app::widget` checks it does).
//!
//! - The iframe's URL names the organization whose widget it is
//!   ([`WIDGET_PARAM`]: its public widget id, which is the organization's
//!   id, `OrgId`; not a secret, its webhook URL names it too), the shop that
//!   frames it ([`SHOP_PARAM`], the embed script sets it to the page's
//!   origin) and the parcel of the product or cart being quoted:
//!   `/widget/?widget=org_1a2b&shop=https%3A%2F%2Fshop.example&weight_oz=20&length=10&width=8&height=4`.
//!   Without a widget id the widget is the deployment's own, configured by
//!   its `WIDGET_*` settings (embeds made before organizations keep working).
//! - An organization's widget is configured in the app
//!   (`crate::orgs::WidgetSettings`: shop origins, ship-from, share,
//!   fallback); the Worker reads those settings per isolate for at most
//!   [`SETTINGS_CACHE_SECONDS`], so a change reaches shoppers within that.
//!   An unknown or unconfigured widget id is refused like an unlisted shop:
//!   the page is a 403 nobody may frame, the rates call a 404
//!   `EDGE.ORG.NOT_FOUND` that says nothing about the organization.
//! - The Worker serves the page only to that shop, and only when it is one
//!   of the widget's origins (`WIDGET_ORIGINS`, or the organization's): a
//!   shop allowed by one organization cannot frame another's widget. The
//!   CSP's `frame-ancestors` is exactly that origin
//!   (the browser enforces it, so a page lying about who frames it is not
//!   shown), and the origin goes into `<meta name="parcel-shop">`
//!   ([`SHOP_META`]). Otherwise the answer is a 403 with `frame-ancestors
//!   'none'` and an empty meta. No referrer or `ancestorOrigins` is read,
//!   so the shop's `Referrer-Policy` does not matter.
//! - The Worker writes the configured ship-from address into the page, as
//!   JSON in the `content` of `<meta name="parcel-ship-from">`, and the
//!   organization's fallback option (`crate::orgs::WidgetFallback`, JSON)
//!   into [`FALLBACK_META`] (empty: none).
//! - The page calls `/api/v1/rates` on its own origin with [`ORIGIN_HEADER`]
//!   set to the shop and, for an organization's widget, [`WIDGET_ID_HEADER`]
//!   set to its id; the Worker answers it as the widget principal of that
//!   origin with that organization's keys (caps, cache and scopes of the
//!   widget; the quote cache and the per-shopper counts are the
//!   organization's own), never as a signed-in user.
//! - With a fallback, the page offers it when no carrier answered within
//!   its `wait_seconds`, none offered an option, or the quote failed on the
//!   service's side (not a bad address, not a limit): the `quoted` event then lists
//!   it as the one option and `chosen` hands it to the shop, both with
//!   `fallback: true` (and no `rate_id`: the shop charges its price and
//!   ships it as it sees fit), so checkout never blocks on shipping. A quote answered from the Worker's cache carries `Age` (seconds
//!   since it was quoted), so the page knows how long its rates stay valid.
//! - The embed script asks [`STATUS_PATH`] (`?widget=org_…`) from the shop's
//!   page as it places the widget: whether the page's `Origin` may show it,
//!   and the fallback option. Refused, or with no `ready` from the frame
//!   within the fallback's `wait_seconds` ([`DEFAULT_WAIT_SECONDS`] without
//!   one), it hides the frame, sends the shop `parcel-widget:error` and hands
//!   over the fallback as the choice, so a missing origin or a lost network
//!   never blocks checkout. The answer is public (the fallback is what
//!   shoppers read anyway); an unknown id answers like a widget that allows
//!   no shop and has no fallback.
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

/// The widget id (an organization's id) of the page's calls, beside
/// [`ORIGIN_HEADER`]; absent for the deployment's own widget.
pub const WIDGET_ID_HEADER: &str = "Parcel-Widget-Id";

/// What the embed script asks before the frame is ready (see the module's
/// text); answered with a [`Status`].
pub const STATUS_PATH: &str = "/api/widget/status";

/// The answer of [`STATUS_PATH`].
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Status {
    /// Whether the asking page's origin is one of the widget's shop origins.
    pub shop_allowed: bool,
    /// The organization's fallback option, if it set one.
    pub fallback: Option<crate::orgs::WidgetFallback>,
}

/// How long the embed script waits for the frame without a fallback's
/// `wait_seconds` (`crate::orgs::FALLBACK_DEFAULT_WAIT_SECONDS`; the
/// script restates it).
pub const DEFAULT_WAIT_SECONDS: u32 = crate::orgs::FALLBACK_DEFAULT_WAIT_SECONDS;

/// The embed script's own codes in `parcel-widget:error` (besides the
/// Worker's `EDGE.ORIGIN.REFUSED` for a shop the widget does not list).
pub mod embed_codes {
    /// The frame did not say it was ready within the wait.
    pub const FRAME_TIMEOUT: &str = "WIDGET.FRAME.TIMEOUT";
    /// Neither the status nor the frame could be reached.
    pub const UNREACHABLE: &str = "WIDGET.NETWORK.UNREACHABLE";
}

/// The iframe URL's parameter naming the widget id.
pub const WIDGET_PARAM: &str = "widget";

/// The `name` of the meta element holding the fallback option (JSON).
pub const FALLBACK_META: &str = "parcel-fallback";

/// How long the Worker keeps an organization's widget settings per isolate.
pub const SETTINGS_CACHE_SECONDS: u64 = 30;

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
