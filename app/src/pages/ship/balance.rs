//! The wallet's balance on the ship page in live mode, in the offer's chunk
//! (fetched as soon as the form is entered).

use crate::api::Client;
use crate::components::money::Money;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The balance and a link to the wallet, once read (nothing if it cannot be).
pub fn view() -> AnyView {
    let client = Client::get();
    let balance = RwSignal::new(None::<i64>);
    spawn_local(async move {
        if let Ok(w) = client.wallet().await {
            balance.set(Some(w.balance_cents));
        }
    });
    (move || {
        balance.get().map(|cents| {
            view! {
                " Balance: " <strong data-testid="ship-balance"><Money cents /></strong>
                " · " <a href="/wallet">"Wallet"</a>
            }
        })
    })
    .into_any()
}
