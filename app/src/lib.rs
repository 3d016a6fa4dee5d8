//! The merchant dashboard (its batch screens in `batches`) and the
//! storefront widget (`widget`), each its own build. Pages own their data
//! (one page per route, listed in `page_table::PAGES`); components in `components/` take props and never fetch;
//! every call goes through the one typed client in `api/`, every write
//! through a `state::write::Write`.

pub mod api;
pub mod batches;
pub mod components;
pub mod page_table;
pub mod pages;
pub mod state;
pub mod widget;

use api::Client;
use components::loader::{busy, failed};
use components::shell::Shell;
use leptos::prelude::*;
use leptos_router::components::Router;
use leptos_router::hooks::use_location;
use pages::chunks::OnDemand;
use pages::login::LoginChunks;
use pages::ship::ShipChunks;

/// The dashboard's chunks, as its bin (`main.rs`) declares them: the
/// on-demand pages, and the parts of a page that a step into it fetches
/// (each page reads its own from the context).
#[derive(Clone, Copy)]
pub struct Chunks {
    pub pages: OnDemand,
    pub ship: ShipChunks,
    pub login: LoginChunks,
}

/// The router around the frame.
#[component]
pub fn App(
    /// The chunks of the build (the dashboard's bin has them).
    chunks: Chunks,
) -> impl IntoView {
    provide_context(chunks.ship);
    provide_context(chunks.login);
    let client = Client::provide();
    state::clock::Clock::provide();
    view! {
        <Router>
            <Frame on_demand=chunks.pages client />
        </Router>
    }
}

/// A page anyone may open (an invitation, a setup link) as it is; else the
/// first session check, then the login page or the shell around the pages.
#[component]
fn Frame(on_demand: OnDemand, client: Client) -> impl IntoView {
    // Inside the router: switching organizations lands on `/`.
    let session = state::session::use_session(client);
    let location = use_location();
    let open = Memo::new(move |_| location.pathname.with(|p| page_table::open_to_anyone(p)));
    let framed = move || match session.started.get() {
        None => busy("Loading…"),
        Some(Err(error)) => failed(error, session.start),
        Some(Ok(())) => match client.session.get() {
            None => view! { <main id="main"><pages::login::LoginPage /></main> }.into_any(),
            Some(info) => view! {
                <Shell session=info switch_mode=session.switch_mode
                    switch_org=session.switch_org sign_out=session.sign_out>
                    {pages::routes(on_demand)}
                </Shell>
            }
            .into_any(),
        },
    };
    move || match open.get() {
        Some(path) => {
            view! { <main id="main">{pages::page_view(path, on_demand)}</main> }.into_any()
        }
        None => framed(),
    }
}
