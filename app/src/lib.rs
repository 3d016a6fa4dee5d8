//! The merchant dashboard and the storefront widget (`widget`, its own
//! build). Pages own their data (one page per route, in `pages/`);
//! components in `components/` take props and never fetch; every call goes
//! through the one typed client in `api/`.

pub mod api;
pub mod components;
pub mod pages;
pub mod state;
pub mod widget;

use api::{Client, ClientError};
use components::error_view::ErrorView;
use components::shell::Shell;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::{Route, Router, Routes};
use leptos_router::path;

/// Where the first session check stands.
#[derive(Clone, Debug, PartialEq)]
enum Start {
    Checking,
    Done,
    /// Neither signed in nor signed out: the Worker could not say.
    Failed(ClientError),
}

#[component]
pub fn App() -> impl IntoView {
    let client = Client::provide();
    state::clock::Clock::provide();
    let start = RwSignal::new(Start::Checking);
    let check = move || {
        start.set(Start::Checking);
        spawn_local(async move {
            match client.session().await {
                Ok(info) => {
                    client.session.set(Some(info));
                    start.set(Start::Done);
                }
                Err(e) if e.is_sign_in_required() => start.set(Start::Done),
                Err(e) => start.set(Start::Failed(e)),
            }
        });
    };
    check();
    let failure = RwSignal::new(None::<ClientError>);
    let on_mode = Callback::new(move |mode| {
        spawn_local(async move { failure.set(client.set_mode(mode).await.err()) });
    });
    let on_sign_out = Callback::new(move |()| {
        spawn_local(async move { failure.set(client.sign_out().await.err()) });
    });
    view! {
        <Router>
            {move || match start.get() {
                Start::Checking => view! { <p class="loading" aria-busy="true">"Loading…"</p> }.into_any(),
                Start::Failed(error) => view! {
                    <main id="main">
                        <ErrorView error />
                        <button type="button" on:click=move |_| check()>"Try again"</button>
                    </main>
                }.into_any(),
                Start::Done => match client.session.get() {
                    None => view! { <main id="main"><pages::login::LoginPage /></main> }.into_any(),
                    Some(session) => view! {
                        <Shell session on_mode on_sign_out failure>
                            <Routes fallback=pages::not_found::NotFound>
                                <Route path=path!("/") view=pages::ship::ShipPage />
                                <Route path=path!("/ship") view=pages::ship::ShipPage />
                                <Route path=path!("/labels") view=pages::labels::LabelsPage />
                                <Route path=path!("/labels/:id") view=pages::label::LabelPage />
                                <Route path=path!("/tracking") view=pages::tracking::TrackingPage />
                                <Route path=path!("/carriers") view=pages::carriers::CarriersPage />
                                <Route path=path!("/wallet") view=pages::wallet::WalletPage />
                                <Route path=path!("/status") view=pages::status::StatusPage />
                                <Route path=path!("/webhooks") view=pages::webhooks::WebhooksPage />
                            </Routes>
                        </Shell>
                    }.into_any(),
                },
            }}
        </Router>
    }
}
