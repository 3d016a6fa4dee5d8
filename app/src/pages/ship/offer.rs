//! What the ship page shows once rates are in: every carrier's rates, the
//! purchase after a confirmation, and the bought label. A chunk of the
//! dashboard's build (`main.rs`): a visit that only looks, tracks or
//! batches never fetches it, and the page starts fetching it as soon as
//! the merchant starts filling the form, so it is there when rates are.

use super::Offer;
use crate::api::{Client, encode};
use crate::components::confirm_purchase::ConfirmPurchase;
use crate::components::money::Money;
use crate::components::rate_table::RateTable;
use crate::state::purchase::{fresh_key, key_for, stays_open};
use crate::state::write::Write;
use api::inbox::label_pdf_path;
use api::{Label, Rate, Scope};
use leptos::prelude::*;
use leptos_router::components::A;

/// The rates, the confirmation and the bought label of the page's `offer`.
pub fn view(offer: Offer) -> AnyView {
    let Offer {
        quote,
        confirm,
        open_intent,
        bought,
        requote,
        reference,
    } = offer;
    let client = Client::get();
    let can_buy = client.can(Scope::LabelsWrite);
    let bought_reference = StoredValue::new(None::<String>);
    let buy = Write::new(move || async move {
        let Some(rate) = confirm.get_untracked() else {
            return Ok(());
        };
        let intent = open_intent.with_value(|open| key_for(open.as_ref(), &rate.id, fresh_key));
        open_intent.set_value(Some(intent.clone()));
        let typed = reference.get_untracked();
        let sent = typed.trim();
        let sent = (!sent.is_empty()).then(|| sent.to_string());
        let answer = client
            .buy_label(intent.rate_id, intent.key, sent.clone())
            .await;
        match &answer {
            Ok(label) => {
                open_intent.set_value(None);
                confirm.set(None);
                bought_reference.set_value(sent);
                bought.set(Some(label.clone()));
                // The next parcel is another order.
                reference.set(String::new());
                quote.set(None);
            }
            Err(e) if !stays_open(e) => open_intent.set_value(None),
            Err(_) => {}
        }
        answer.map(drop)
    });
    let on_buy = Callback::new(move |rate: Rate| {
        buy.clear();
        confirm.set(Some(rate));
    });
    let on_confirm = Callback::new(move |()| buy.submit());
    let on_cancel = Callback::new(move |()| {
        confirm.set(None);
        buy.clear();
    });
    let requote_from_dialog = Callback::new(move |()| {
        confirm.set(None);
        requote.run(());
    });
    let mode = client.mode();
    view! {
        {move || quote.get().map(|q| view! {
            {q.partial.map(|e| view! {
                <div class="notice notice-warn" role="status">
                    <p>{format!(
                        "{} Rates from the other carriers are shown.",
                        e.unavailable_carriers.as_ref().map(|c| format!("No answer from {}.", c.join(", "))).unwrap_or(e.message.clone()),
                    )}</p>
                </div>
            })}
            {(!can_buy).then(|| view! {
                <p class="notice" role="note">"Your role can compare rates but not buy labels."</p>
            })}
            <RateTable
                rates=q.rates
                deadline_ms=q.deadline_ms
                can_buy
                on_buy
                on_requote=requote
                busy=Signal::derive(move || buy.pending())
            />
        })}
        {move || confirm.get().map(|rate| {
            // Read as the dialog opens, for the balance after the purchase.
            let wallet = client
                .can(Scope::WalletRead)
                .then(|| LocalResource::new(move || client.wallet()));
            view! {
                <ConfirmPurchase
                    rate
                    sandbox=mode == Some(api::KeyEnv::Sandbox)
                    wallet=Signal::derive(move || wallet.and_then(|w| w.get()))
                    pending=Signal::derive(move || buy.pending())
                    error=Signal::derive(move || buy.error())
                    on_confirm
                    on_cancel
                    on_requote=requote_from_dialog
                />
            }
        })}
        {move || bought.get().map(|label| view! {
            <Bought label reference=bought_reference.get_value() on_again=Callback::new(move |()| bought.set(None)) />
        })}
    }
    .into_any()
}

/// The bought label: tracking number, its reference, the PDF and the
/// wallet after it.
#[component]
fn Bought(label: Label, reference: Option<String>, on_again: Callback<()>) -> impl IntoView {
    let heading = NodeRef::<leptos::html::H2>::new();
    Effect::new(move |_| {
        if let Some(h) = heading.get() {
            let _ = h.focus();
        }
    });
    let track_href = format!("/tracking?number={}", encode(&label.tracking_number));
    view! {
        <section class="card result" aria-labelledby="bought-title">
            <h2 id="bought-title" tabindex="-1" node_ref=heading>"Label bought"</h2>
            <dl class="facts">
                <dt>"Tracking number"</dt>
                <dd><code data-testid="tracking-number">{label.tracking_number.clone()}</code></dd>
                {reference.map(|r| view! { <dt>"Reference"</dt><dd data-testid="bought-reference">{r}</dd> })}
                <dt>"Service"</dt>
                <dd>{format!("{} {}", label.carrier, label.service)}</dd>
                <dt>"Price"</dt>
                <dd><Money cents=label.rate_cents /></dd>
                <dt>"Mode"</dt>
                <dd>{if label.sandbox { "Sandbox: a test label, not mailable, nothing charged" } else { "Live: mailable, charged to the wallet" }}</dd>
                <dt>"Wallet balance now"</dt>
                <dd data-testid="balance-after"><Money cents=label.wallet_balance_after_cents /></dd>
            </dl>
            <p class="links">
                <a href=format!("{}?inline=1", label_pdf_path(&encode(&label.id))) target="_blank" rel="noopener">"Open label PDF"</a>
                <a href=label_pdf_path(&encode(&label.id)) download=format!("{}.pdf", label.id)>"Download label PDF"</a>
                <A href=format!("/labels/{}", label.id)>"Label details"</A>
                <A href=track_href>"Track this parcel"</A>
            </p>
            <button type="button" class="secondary" on:click=move |_| on_again.run(())>"Ship another parcel"</button>
        </section>
    }
}
