//! The merchant dashboard. Pages own their data (one page per route, in
//! `pages/`); components in `components/` take props and never fetch; every
//! call goes through the one typed client in `api/`.

pub mod api;
pub mod components;
pub mod pages;

use leptos::prelude::*;
use leptos_router::components::{A, Route, Router, Routes};
use leptos_router::path;

#[component]
pub fn App() -> impl IntoView {
    api::Client::provide();
    view! {
        <Router>
            <header class="topbar">
                <A href="/" attr:class="brand">"Parcel"</A>
                <nav aria-label="Main">
                    <A href="/">"Wallet"</A>
                </nav>
            </header>
            <main id="main">
                <Routes fallback=pages::not_found::NotFound>
                    <Route path=path!("/") view=pages::wallet::WalletPage />
                </Routes>
            </main>
        </Router>
    }
}
