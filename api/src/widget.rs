//! The storefront widget page (not part of v1): a small page the Worker
//! serves at [`PAGE_PATH`] for shop owners to embed in an `<iframe>` on a
//! configured widget origin. Stated here once so the app and the edge
//! cannot disagree.
//!
//! - The iframe's URL carries the parcel of the product or cart being
//!   quoted: `/widget/?weight_oz=20&length=10&width=8&height=4` (inches).
//! - The Worker writes the configured ship-from address into the page, as
//!   JSON in the `content` of `<meta name="parcel-ship-from">`.
//! - The page calls `/api/v1/rates` on its own origin with [`ORIGIN_HEADER`]
//!   set to the storefront that frames it; the Worker answers it as the
//!   widget principal of that origin (caps, cache and scopes of the widget),
//!   never as a signed-in user.
//! - The page tells the framing window its height (`postMessage` of
//!   `{type: HEIGHT_MESSAGE, height}` to the shop's origin only), so the
//!   embed script (`widget/embed.js`) keeps the iframe as tall as its content.

/// Where the widget page lives (Trunk builds it with this public URL).
pub const PAGE_PATH: &str = "/widget/";
/// The same page without the slash (served alike).
pub const PAGE_PATH_BARE: &str = "/widget";

/// The storefront origin that frames the widget page, sent on its calls.
pub const ORIGIN_HEADER: &str = "Parcel-Widget-Origin";

/// The `name` of the meta element holding the ship-from address.
pub const SHIP_FROM_META: &str = "parcel-ship-from";

/// The iframe URL's parcel parameters, in the order the page reads them.
pub const PARCEL_PARAMS: [&str; 4] = ["weight_oz", "length", "width", "height"];

/// The `type` of the page's height messages (restated in `widget/embed.js`).
pub const HEIGHT_MESSAGE: &str = "parcel-widget:height";
