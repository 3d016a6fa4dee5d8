//! The storefront widget (`api::widget`): on a shop's page, a shopper types
//! where the order goes and sees every carrier's price and delivery day for
//! the parcel the shop put in the iframe's URL, from the ship-from address
//! the Worker wrote into the page. Its own Trunk build (`widget.html`), so
//! shoppers load this and not the dashboard.

use crate::api::{Client, ClientError};
use crate::components::address_form::{AddressForm, blank_address, missing_field};
use crate::components::dates::calendar_day;
use crate::components::error_view::ErrorView;
use crate::components::money::Money;
use crate::state::clock::Clock;
use api::widget::SHIP_FROM_META;
use api::{Address, Rate, RatesRequest, RatesResponse};
use leptos::prelude::*;
use leptos::task::spawn_local;

mod messages;
mod setup;

use messages::report_height;
pub use setup::{Setup, origin_of, setup};
use setup::{meta_content, storefront};

/// The widget's root: reads the setup once, then quotes on each submit.
#[component]
pub fn Widget() -> impl IntoView {
    let framed_by = storefront();
    if let Some(origin) = &framed_by {
        report_height(origin);
    }
    let client = Client::provide_framed(framed_by.clone());
    Clock::provide();
    let query = web_sys::window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default();
    let setup = match (setup(&meta_content(SHIP_FROM_META), &query), framed_by) {
        (Err(problem), _) => Err(problem),
        (Ok(_), None) => Err(
            "This widget works inside an iframe on your shop's pages (an origin in \
             WIDGET_ORIGINS). Shop owner: embed it there to try it."
                .to_string(),
        ),
        (Ok(setup), Some(_)) => Ok(setup),
    };
    view! {
        <main id="main" class="widget">
            <h1>"Shipping estimate"</h1>
            {match setup {
                Err(problem) => view! { <p class="widget-problem" role="alert">{problem}</p> }.into_any(),
                Ok(setup) => view! { <Quote setup client /> }.into_any(),
            }}
        </main>
    }
}

/// Where the quote stands.
#[derive(Clone, Debug, PartialEq)]
enum Answer {
    None,
    Asking,
    Rates(Box<RatesResponse>),
    Failed(ClientError),
}

/// The destination form and its answer (owns the rates call).
#[component]
fn Quote(setup: Setup, client: Client) -> impl IntoView {
    let ship_from = setup.ship_from.clone();
    let to = RwSignal::new(Address {
        // Rates depend on where, not on whom; the contract wants a name.
        name: "Shopper".into(),
        ..blank_address()
    });
    let missing = RwSignal::new(None::<&'static str>);
    let on_edit = Callback::new(move |()| missing.set(None));
    let answer = RwSignal::new(Answer::None);
    let request = StoredValue::new(setup);
    let ask = move || {
        let address = to.get_untracked();
        let blank = missing_field(&address);
        missing.set(blank);
        if blank.is_some() {
            return;
        }
        let Setup { ship_from, parcel } = request.get_value();
        answer.set(Answer::Asking);
        spawn_local(async move {
            let body = RatesRequest {
                from_address: ship_from,
                to_address: address,
                parcel,
            };
            answer.set(match client.rates(&body).await {
                Ok(rates) => Answer::Rates(Box::new(rates)),
                Err(e) => Answer::Failed(e),
            });
        });
    };
    view! {
        <p class="widget-from">"Ships from " {format!("{}, {}", ship_from.city, ship_from.state)}</p>
        <form
            class="widget-form"
            novalidate
            on:submit=move |ev| {
                ev.prevent_default();
                ask();
            }
        >
            <AddressForm legend="Ship to" prefix="to" address=to on_edit destination_only=true />
            {move || missing.get().map(|label| view! {
                <p class="field-problem" role="alert">{format!("{label} is required to see rates.")}</p>
            })}
            <button type="submit" disabled=move || answer.with(|a| *a == Answer::Asking)>
                {move || if answer.with(|a| *a == Answer::Asking) { "Getting rates…" } else { "Get rates" }}
            </button>
        </form>
        <div aria-live="polite">
            {move || match answer.get() {
                Answer::None => ().into_any(),
                Answer::Asking => view! { <p class="loading" aria-busy="true">"Asking the carriers…"</p> }.into_any(),
                Answer::Rates(r) => view! { <WidgetRates response=*r /> }.into_any(),
                Answer::Failed(error) => view! { <ErrorView error retry=Callback::new(move |()| ask()) /> }.into_any(),
            }}
        </div>
    }
}

/// The quote for a shopper: cheapest first, with the delivery day; a
/// carrier that did not answer is named.
#[component]
pub fn WidgetRates(response: RatesResponse) -> impl IntoView {
    let partial = response.error.map(|e| e.message);
    let rows = response
        .rates
        .into_iter()
        .map(
            |Rate {
                 carrier,
                 service,
                 rate_cents,
                 carrier_eta,
                 ..
             }| {
                view! {
                    <li class="widget-rate">
                        <span class="widget-service">{format!("{carrier} {service}")}</span>
                        <Money cents=rate_cents />
                        <span class="widget-eta">"Arrives " {calendar_day(&carrier_eta)}</span>
                    </li>
                }
            },
        )
        .collect_view();
    view! {
        {partial.map(|message| view! { <p class="widget-partial" role="status">{message}</p> })}
        <ol class="widget-rates" aria-label="Shipping rates">{rows}</ol>
    }
}
