//! The signed-in pages (and the ship page's offer, which only rates need,
//! and its saved addresses), each a chunk of the dashboard's build:
//! the code only a `#[wasm_split(chunk)]` function reaches goes to that
//! chunk's own file, which the browser fetches the first time the function
//! is called (`scripts/app-wasm.mjs` splits the module after cargo links
//! it). Code a chunk shares with the first load stays in the first load;
//! code two chunks share goes to a file both fetch. The functions are in
//! the dashboard's bin (`main.rs`): they are exported symbols, so in this
//! library every build linking it (the widget's) would keep their pages.
//! A page with chunks of its own declares them (`ship::ShipChunks`,
//! `login::LoginChunks`) and reads them from the context.

use crate::api::ClientError;
use crate::components::loader::{busy, failed};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos::wasm_split::SplitLoaderError;
use std::future::Future;
use std::pin::Pin;

/// A page's view, once its chunk is there.
pub type Page = fn() -> AnyView;
/// Fetches a chunk (the first time) and hands back what it holds: a page's
/// view, or the part of a page that only a step into it needs.
pub type Load<T = Page> = fn() -> Pin<Box<dyn Future<Output = Result<T, SplitLoaderError>>>>;
/// The chunk of a table path (`page_table::PAGES`), if its page is one.
pub type OnDemand = fn(&str) -> Option<Load>;
/// One chunk's contents as a signal: `None` until `start` fetched it. A
/// failed fetch is not remembered: `start` fetches it anew.
pub struct Lazy<T: Send + Sync + 'static> {
    state: RwSignal<Option<Result<T, ClientError>>>,
    load: Load<T>,
    started: StoredValue<bool>,
}

impl<T: Send + Sync + 'static> Clone for Lazy<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Send + Sync + 'static> Copy for Lazy<T> {}

impl<T: Clone + Send + Sync + 'static> Lazy<T> {
    pub fn new(load: Load<T>) -> Self {
        Lazy {
            state: RwSignal::new(None),
            load,
            started: StoredValue::new(false),
        }
    }

    /// Fetches the chunk unless it is there or on its way.
    pub fn start(self) {
        let failed = self.state.with_untracked(|s| matches!(s, Some(Err(_))));
        if self.started.get_value() && !failed {
            return;
        }
        self.started.set_value(true);
        self.state.set(None);
        let load = self.load;
        spawn_local(async move {
            let loaded = load()
                .await
                .map_err(|e| ClientError::Network(e.to_string()));
            self.state.set(Some(loaded));
        });
    }

    /// What the chunk holds (tracked), once fetched.
    pub fn get(self) -> Option<Result<T, ClientError>> {
        self.state.get()
    }

    pub fn get_untracked(self) -> Option<Result<T, ClientError>> {
        self.state.get_untracked()
    }
}

/// The page `load` brings: a busy line while its chunk is fetched (the
/// first time only), then the page; if the fetch fails, the network error
/// with "Try again", which fetches it anew.
pub fn show(load: Load) -> AnyView {
    let page = Lazy::new(load);
    page.start();
    let retry = Callback::new(move |()| page.start());
    (move || match page.get() {
        None => busy("Loading…"),
        Some(Err(error)) => failed(error, retry),
        Some(Ok(view)) => view(),
    })
    .into_any()
}
