//! The wallet: balance, live or sandbox, a low-balance warning, and what
//! auto-reload means for the next purchase.

use crate::api::Client;
use crate::components::loader::Loader;
use crate::components::money::{Money, format_cents};
use api::{CardState, Wallet};
use leptos::prelude::*;

/// Below this a live balance is called low ($25: a few labels).
pub const LOW_BALANCE_CENTS: i64 = 2_500;

/// What happens to the next purchase the balance cannot cover.
pub fn auto_reload_text(w: &Wallet) -> String {
    if w.sandbox || w.unlimited {
        return "Sandbox wallet: unlimited. Purchases are free and never charged.".into();
    }
    match (w.auto_reload, w.card) {
        (None, _) => "Auto-reload is off: a purchase that costs more than the balance is refused (WALLET.INSUFFICIENT_BALANCE). Top the wallet up in the service's dashboard.".into(),
        (Some(r), CardState::Ok) => format!(
            "Auto-reload is on: when a purchase costs more than the balance, your card is charged {} (as many times as needed) so at least {} remains after it.",
            format_cents(r.amount_cents),
            format_cents(r.threshold_cents)
        ),
        (Some(_), CardState::Declined) => "Auto-reload is on, but the card on file was declined: a purchase that costs more than the balance will fail (WALLET.PAYMENT.FAILED). Update the card in the service's dashboard.".into(),
        (Some(_), CardState::Missing) => "Auto-reload is on, but there is no card on file: a purchase that costs more than the balance will fail (WALLET.PAYMENT_METHOD.MISSING). Add a card in the service's dashboard.".into(),
    }
}

pub fn is_low(w: &Wallet) -> bool {
    !w.sandbox && !w.unlimited && w.balance_cents < LOW_BALANCE_CENTS
}

#[component]
pub fn WalletPage() -> impl IntoView {
    let client = Client::get();
    let wallet = LocalResource::new(move || client.wallet());
    view! {
        <h1>"Wallet"</h1>
        <Loader resource=wallet loading="Loading balance…" let:w>
            <section class="card" aria-labelledby="balance-label">
                <p id="balance-label" class="label">
                    {if w.sandbox { "Sandbox balance" } else { "Balance" }}
                </p>
                <p class="balance" data-testid="balance"><Money cents=w.balance_cents /></p>
                <p>
                    {if w.sandbox {
                        view! { <span class="badge badge-warn">"Sandbox"</span> " Test labels only." }.into_any()
                    } else {
                        view! { <span class="badge badge-live">"Live"</span> " Real labels, charged here." }.into_any()
                    }}
                </p>
            </section>
            {is_low(&w).then(|| view! {
                <p class="notice notice-warn" role="alert">
                    {format!("Low balance: less than {}.", format_cents(LOW_BALANCE_CENTS))}
                </p>
            })}
            <section aria-labelledby="reload-title">
                <h2 id="reload-title">"Next purchase"</h2>
                <p data-testid="auto-reload">{auto_reload_text(&w)}</p>
            </section>
        </Loader>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::AutoReload;

    fn w(balance: i64, auto: Option<AutoReload>, card: CardState) -> Wallet {
        Wallet {
            balance_cents: balance,
            currency: "USD".into(),
            sandbox: false,
            unlimited: false,
            auto_reload: auto,
            card,
        }
    }

    #[test]
    fn low_and_auto_reload() {
        assert!(is_low(&w(2_499, None, CardState::Ok)));
        assert!(!is_low(&w(2_500, None, CardState::Ok)));
        let auto = Some(AutoReload {
            threshold_cents: 1_000,
            amount_cents: 5_000,
        });
        assert!(auto_reload_text(&w(0, auto, CardState::Ok)).contains("$50.00"));
        assert!(
            auto_reload_text(&w(0, auto, CardState::Missing)).contains("PAYMENT_METHOD.MISSING")
        );
        assert!(auto_reload_text(&w(0, None, CardState::Ok)).contains("off"));
    }
}
