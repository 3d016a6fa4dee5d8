//! The merchant dashboard (its batch screens in `batches`) and the
//! storefront widget (`widget`), each its own build. Pages own their data
//! (one page per route, listed in `pages::PAGES`); components in `components/` take props and never fetch;
//! every call goes through the one typed client in `api/`, every write
//! through a `state::write::Write`.

pub mod api;
pub mod batches;
pub mod components;
pub mod pages;
pub mod state;
pub mod widget;

use api::Client;
use components::loader::{busy, failed};
use components::shell::Shell;
use leptos::prelude::*;
use leptos_router::components::Router;

/// The first session check, then the login page or the shell around the
/// pages.
#[component]
pub fn App(
    /// The chunks of the build (the dashboard's bin has them).
    chunks: pages::chunks::Chunks,
) -> impl IntoView {
    provide_context(chunks);
    let client = Client::provide();
    state::clock::Clock::provide();
    let session = state::session::use_session(client);
    view! {
        <Router>
            {move || match session.started.get() {
                None => busy("Loading…"),
                Some(Err(error)) => failed(error, session.start),
                Some(Ok(())) => match client.session.get() {
                    None => view! { <main id="main"><pages::login::LoginPage /></main> }.into_any(),
                    Some(info) => view! {
                        <Shell session=info switch_mode=session.switch_mode sign_out=session.sign_out>
                            {pages::routes(chunks.pages)}
                        </Shell>
                    }.into_any(),
                },
            }}
        </Router>
    }
}
