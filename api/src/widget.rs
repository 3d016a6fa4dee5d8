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

/// Where the widget page lives (Trunk builds it with this public URL).
pub const PAGE_PATH: &str = "/widget/";

/// The storefront origin that frames the widget page, sent on its calls.
pub const ORIGIN_HEADER: &str = "Parcel-Widget-Origin";

/// The `name` of the meta element holding the ship-from address.
pub const SHIP_FROM_META: &str = "parcel-ship-from";

/// The iframe URL's parcel parameters, in the order the page reads them.
pub const PARCEL_PARAMS: [&str; 4] = ["weight_oz", "length", "width", "height"];
