//! The pages most visits never open, each a chunk of the dashboard's build:
//! the code only a `#[wasm_split(chunk)]` function reaches goes to that
//! chunk's own file, which the browser fetches the first time the function
//! is called (`scripts/app-wasm.mjs` splits the module after cargo links
//! it). Code a chunk shares with the first load stays in the first load;
//! code two chunks share goes to a file both fetch. The functions are in
//! the dashboard's bin (`main.rs`): they are exported symbols, so in this
//! library every build linking it (the widget's) would keep their pages.

use crate::api::ClientError;
use crate::components::loader::{busy, failed};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos::wasm_split::SplitLoaderError;
use std::future::Future;
use std::pin::Pin;

/// A page's view, once its chunk is there.
pub type Page = fn() -> AnyView;
/// Fetches a page's chunk (the first time) and hands back its view.
pub type Load = fn() -> Pin<Box<dyn Future<Output = Result<Page, SplitLoaderError>>>>;
/// The chunk of a table path (`super::PAGES`), if its page is one.
pub type OnDemand = fn(&str) -> Option<Load>;

/// The page `load` brings: a busy line while its chunk is fetched (the
/// first time only), then the page; if the fetch fails, the network error
/// with "Try again", which fetches it anew (a failure is not remembered).
pub fn show(load: Load) -> AnyView {
    let page = RwSignal::new(None);
    let fetch = Callback::new(move |()| {
        page.set(None);
        spawn_local(async move {
            let loaded = load()
                .await
                .map_err(|e| ClientError::Network(e.to_string()));
            page.set(Some(loaded));
        });
    });
    fetch.run(());
    (move || match page.get() {
        None => busy("Loading…"),
        Some(Err(error)) => failed(error, fetch),
        Some(Ok(view)) => view(),
    })
    .into_any()
}
