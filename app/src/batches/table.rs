//! A windowed table body: only the rows in view (and a few either side)
//! are in the page, between two spacer rows, so 5,000 rows scroll smoothly.

use super::progress::window;
use leptos::prelude::*;

/// Every row is this tall (`style/batches.css`, `.windowed tr`).
pub const ROW_PX: f64 = 48.0;
const OVERSCAN: usize = 8;

/// The scroll position of one windowed table.
#[derive(Clone, Copy)]
pub struct Viewport {
    scroll: RwSignal<(f64, f64)>,
}

impl Viewport {
    pub fn new() -> Viewport {
        Viewport {
            scroll: RwSignal::new((0.0, 480.0)),
        }
    }

    /// The scroll container's handler.
    pub fn on_scroll(self, ev: leptos::ev::Event) {
        let el: web_sys::Element = event_target(&ev);
        self.scroll
            .set((el.scroll_top() as f64, el.client_height() as f64));
    }

    /// Back to the first row (the container was scrolled to the top).
    pub fn to_top(self) {
        self.scroll.update(|s| s.0 = 0.0);
    }

    /// The rows in view among `total` (tracked).
    pub fn range(self, total: usize) -> (usize, usize) {
        let (top, height) = self.scroll.get();
        window(top, height, ROW_PX, total, OVERSCAN)
    }
}

/// A spacer row standing for `rows()` rows out of view.
pub fn spacer(rows: impl Fn() -> usize + Send + Sync + 'static, columns: usize) -> impl IntoView {
    view! {
        <tr class="spacer" aria-hidden="true" style:height=move || format!("{}px", rows() as f64 * ROW_PX)>
            <td colspan=columns.to_string()></td>
        </tr>
    }
}
