use crate::api::ClientError;
use crate::components::error_view::ErrorView;
use crate::components::money::{Money, format_cents};
use crate::components::service::with_dashboard;
use crate::state::purchase::stays_open;
use api::{CardState, ErrorCode, Rate, Wallet};
use leptos::prelude::*;

/// What the wallet will do about a live purchase of `price` cents: `Ok`,
/// what the balance is after it; `Err`, why the service would refuse it
/// and where funds are added (the purchase is then not offered).
pub fn wallet_outcome(w: &Wallet, price: i64) -> Result<String, String> {
    if w.unlimited || w.sandbox {
        return Ok("Sandbox wallet: unlimited, nothing is charged.".into());
    }
    let after = w.balance_cents - price;
    if after >= 0 {
        return Ok(format!(
            "Balance after the purchase: {}.",
            format_cents(after)
        ));
    }
    let short = format!(
        "The balance ({}) does not cover this label ({})",
        format_cents(w.balance_cents),
        format_cents(price)
    );
    match (w.auto_reload, w.card) {
        (None, _) => Err(format!(
            "{short} and auto-reload is off, so it cannot be bought now. {ADD_FUNDS}"
        )),
        (Some(_), CardState::Missing) => Err(format!(
            "{short} and auto-reload has no card to charge, so it cannot be bought now. {ADD_FUNDS}"
        )),
        (Some(_), CardState::Declined) => Err(format!(
            "{short} and the card auto-reload charges was declined, so it cannot be bought now. {ADD_FUNDS}"
        )),
        (Some(r), CardState::Ok) => {
            // The service's rule, stated once in api::AutoReload.
            let charges = r.charges_for(w.balance_cents, price);
            let charged = r.amount_cents.max(1) * charges;
            Ok(format!(
                "Auto-reload will charge your card {} ({} × {}); balance after: {}.",
                format_cents(charged),
                charges,
                format_cents(r.amount_cents),
                format_cents(w.balance_cents + charged - price)
            ))
        }
    }
}

/// Where a wallet that cannot pay gets its funds (`{dashboard}`:
/// `service::DASHBOARD`).
pub const ADD_FUNDS: &str = "Add funds or a card in the billing settings of {dashboard}.";

/// The purchase confirmation, a modal dialog: price, live or sandbox, and the
/// wallet after it. The confirm button waits while the purchase is pending.
#[component]
pub fn ConfirmPurchase(
    rate: Rate,
    sandbox: bool,
    #[prop(into)] wallet: Signal<Option<Result<Wallet, ClientError>>>,
    #[prop(into)] pending: Signal<bool>,
    #[prop(into)] error: Signal<Option<ClientError>>,
    on_confirm: Callback<()>,
    on_cancel: Callback<()>,
    on_requote: Callback<()>,
) -> impl IntoView {
    let dialog = NodeRef::<leptos::html::Dialog>::new();
    Effect::new(move |_| {
        if let Some(d) = dialog.get()
            && !d.open()
        {
            let _ = d.show_modal();
        }
    });
    let price = rate.rate_cents;
    // Why the wallet cannot pay, known before any click: then no purchase is offered.
    let cannot_pay = move || match wallet.get() {
        Some(Ok(w)) if !sandbox => wallet_outcome(&w, price).err(),
        _ => None,
    };
    let wallet_line = move || match wallet.get() {
        None if sandbox => "Sandbox wallet: unlimited, nothing is charged.".to_string(),
        None => "Reading the wallet balance…".to_string(),
        Some(Ok(w)) => format!(
            "Balance now: {}. {}",
            format_cents(w.balance_cents),
            wallet_outcome(&w, price).unwrap_or_else(|why| why)
        ),
        Some(Err(_)) => {
            "The wallet balance could not be read; the purchase is still checked against it."
                .to_string()
        }
    };
    view! {
        <dialog
            class="confirm"
            node_ref=dialog
            aria-labelledby="confirm-title"
            on:cancel=move |ev: leptos::ev::Event| {
                ev.prevent_default();
                if !pending.get_untracked() {
                    on_cancel.run(());
                }
            }
        >
            <h2 id="confirm-title">"Confirm purchase"</h2>
            <dl class="facts">
                <dt>"Service"</dt>
                <dd>{format!("{} {}", rate.carrier, rate.service)}</dd>
                <dt>"Price"</dt>
                <dd data-testid="confirm-price"><Money cents=price /></dd>
                <dt>"Mode"</dt>
                <dd>
                    {if sandbox {
                        view! { <strong class="badge badge-warn">"Sandbox"</strong> " A test label: not mailable, nothing is charged." }.into_any()
                    } else {
                        view! { <strong class="badge badge-live">"Live"</strong> " A real, mailable label, charged to the wallet." }.into_any()
                    }}
                </dd>
                <dt>"Wallet"</dt>
                <dd data-testid="confirm-wallet" class:cannot-pay=move || cannot_pay().is_some()>{move || with_dashboard(&wallet_line())}</dd>
            </dl>
            {move || error.get().map(|e| {
                let expired = e.code() == Some(&ErrorCode::RateExpired);
                let unknown = stays_open(&e);
                view! {
                    <ErrorView error=e />
                    {unknown.then(|| view! {
                        <p class="hint">"The outcome is unknown. Confirming again retries the same purchase: you will not be charged twice."</p>
                    })}
                    {expired.then(|| view! {
                        <button type="button" on:click=move |_| on_requote.run(())>"Get new rates"</button>
                    })}
                }
            })}
            <div class="dialog-actions">
                {move || match cannot_pay() {
                    Some(_) => view! { <a href="/wallet" class="button-link">"Open the wallet"</a> }.into_any(),
                    None => view! {
                        <button type="button" disabled=move || pending.get() on:click=move |_| on_confirm.run(())>
                            {move || if pending.get() { "Buying…" } else { "Confirm purchase" }}
                        </button>
                    }.into_any(),
                }}
                <button type="button" class="secondary" disabled=move || pending.get() on:click=move |_| on_cancel.run(())>
                    "Cancel"
                </button>
            </div>
        </dialog>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::AutoReload;

    fn wallet(balance: i64, auto: Option<AutoReload>, card: CardState) -> Wallet {
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
    fn explains_the_wallet_after_a_purchase() {
        assert_eq!(
            wallet_outcome(&wallet(10_000, None, CardState::Ok), 1_234).as_deref(),
            Ok("Balance after the purchase: $87.66.")
        );
        let refused = wallet_outcome(&wallet(100, None, CardState::Ok), 1_234).unwrap_err();
        assert!(
            refused.starts_with(
                "The balance ($1.00) does not cover this label ($12.34) and auto-reload is off"
            ) && refused.contains("Add funds"),
            "{refused}"
        );
        let auto = Some(AutoReload {
            threshold_cents: 1_000,
            amount_cents: 2_000,
        });
        assert_eq!(
            wallet_outcome(&wallet(100, auto, CardState::Ok), 1_234).as_deref(),
            Ok("Auto-reload will charge your card $40.00 (2 × $20.00); balance after: $28.66.")
        );
        assert!(
            wallet_outcome(&wallet(100, auto, CardState::Declined), 1_234)
                .unwrap_err()
                .contains("declined")
        );
    }
}
