use crate::api::Client;
use crate::components::error_view::ErrorView;
use crate::components::money::Money;
use leptos::prelude::*;

#[component]
pub fn WalletPage() -> impl IntoView {
    let client = Client::get();
    // Refetched when the session's mode changes: the other key, the other wallet.
    let wallet = LocalResource::new(move || {
        client.session.with(|s| s.as_ref().map(|s| s.mode));
        client.wallet()
    });
    view! {
        <h1>"Wallet"</h1>
        <Transition fallback=|| view! { <p aria-busy="true">"Loading balance…"</p> }>
            {move || Suspend::new(async move {
                match wallet.await {
                    Ok(w) => view! {
                        <section class="card" aria-labelledby="balance-label">
                            <p id="balance-label" class="label">
                                {if w.sandbox { "Sandbox balance" } else { "Balance" }}
                            </p>
                            <p class="balance" data-testid="balance"><Money cents=w.balance_cents /></p>
                        </section>
                    }.into_any(),
                    Err(e) => view! { <ErrorView error=e /> }.into_any(),
                }
            })}
        </Transition>
    }
}
