//! The storefront widget (`api::widget`): in a shop's page, a shopper types
//! where the order goes, sees every carrier's options (price, delivery day,
//! carbon) for the shop's parcel, and chooses one; the shop's window gets
//! each step as an event and may change the parcel or prefill the address.
//! Its own Trunk build (`widget.html`), so shoppers load this and not the
//! dashboard.
//!
//! `setup` (what the shop configured), `theme` (its look, held to the
//! contrast rules), `choice` (options, marks, expiry), `shopper` (sentences
//! for shoppers), `shop` (the messages with the shop's window) are plain
//! Rust; `view` holds the components that show them.

mod choice;
mod setup;
mod shop;
mod shopper;
mod theme;
mod view;

use crate::api::Client;
use crate::components::address_form::{DestinationForm, blank_address, missing_field};
use crate::state::clock::Clock;
use api::widget::{FALLBACK_META, SHIP_FROM_META, SHOP_META, events};
use api::{Address, Parcel, RatesRequest};
use choice::{
    Chosen, Cleared, ClearedDetail, FallbackChosen, FallbackOption, FallbackQuoted, OptionKey,
    Quoted, ShippingOption,
};
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Serialize;
use setup::{Page, Params, ParcelInput, meta_content};
use shop::{Command, ErrorDetail, Shop};
use shopper::Trouble;
use view::{FallbackView, Options, TroubleView};

/// The widget's root: the setup the Worker confirmed, or what the shop
/// owner must fix.
#[component]
pub fn Widget() -> impl IntoView {
    let params = setup::params_of_page();
    let page = setup::page(
        &meta_content(SHIP_FROM_META),
        &meta_content(SHOP_META),
        &meta_content(FALLBACK_META),
        &params,
        setup::is_framed(),
    );
    view! {
        <main id="main" class="widget">
            <h1>"Shipping options"</h1>
            {match page {
                Err(problem) => view! { <p class="widget-problem" role="alert">{problem}</p> }.into_any(),
                Ok(page) => view! { <Shipping page params /> }.into_any(),
            }}
        </main>
    }
}

/// A quote the shopper sees, with what it was asked for.
#[derive(Clone, Debug, PartialEq)]
struct Quote {
    options: Vec<ShippingOption>,
    unavailable: Vec<String>,
    /// When its rates stop being valid (browser clock, ms).
    deadline_ms: f64,
    destination: Address,
    parcel: Parcel,
}

/// The `ready` event's detail.
#[derive(Serialize)]
struct Ready<'a> {
    theme: &'a theme::Theme,
    parcel: Option<Parcel>,
}

/// The destination form, the options and the choice; owns the rates calls
/// and the conversation with the shop's window.
#[component]
fn Shipping(page: Page, params: Params) -> impl IntoView {
    let (theme, theme_problems) = theme::theme(&params);
    theme::apply(&theme);
    let shop = Shop {
        origin: page.shop.clone(),
    };
    shop.report_height();
    let client = Client::provide_framed(Some(page.shop.clone()), page.widget_id.clone());
    let clock = Clock::provide();
    let first_parcel = ParcelInput::from_params(&params).resolve();

    let parcel = RwSignal::new(first_parcel.clone());
    let to = RwSignal::new(Address {
        // Rates depend on where, not on whom; the contract wants a name.
        name: "Shopper".into(),
        ..blank_address()
    });
    let missing = RwSignal::new(None::<&'static str>);
    // A call in flight: `Some(true)` when quiet (a refresh the shopper need not see).
    let asking = RwSignal::new(None::<bool>);
    let trouble = RwSignal::new(None::<Trouble>);
    let quote = RwSignal::new(None::<Quote>);
    let chosen = RwSignal::new(None::<OptionKey>);
    // About the choice: why it went (another address, expiry).
    let note = RwSignal::new(None::<String>);
    // Whether the shop holds a valid choice now (it got `chosen`, not yet `cleared`).
    let held = StoredValue::new(false);
    // Only the newest call's answer counts.
    let calls = StoredValue::new(0u32);
    // The quote deadline a refresh was already tried for.
    let refreshed_for = StoredValue::new(0.0f64);
    let ship_from = StoredValue::new(page.ship_from.clone());
    let outbox = Outbox(StoredValue::new(shop));
    // The shop's fallback option, and whether it is offered (no carrier
    // answered in time, or the quote failed) and chosen.
    let fallback = StoredValue::new(page.fallback.clone());
    let fallback_offered = RwSignal::new(false);
    let fallback_chosen = RwSignal::new(false);

    let clear = move |reason: Cleared| {
        if held.get_value() {
            held.set_value(false);
            outbox.send(events::CLEARED, &ClearedDetail { reason }, &[]);
        }
    };
    // Hands the shop the chosen option of the current quote, or tells it
    // (and the shopper) that the option is gone.
    let hand_over = move || {
        let Some(key) = chosen.get_untracked() else {
            return;
        };
        let found = quote.with_untracked(|q| {
            q.as_ref().map(|q| {
                let option = q.options.iter().find(|o| o.key() == key);
                let detail = option.map(|o| Chosen {
                    rate: (&o.rate).into(),
                    destination: q.destination.clone(),
                    parcel: q.parcel,
                });
                (detail, q.deadline_ms)
            })
        });
        match found {
            Some((Some(detail), deadline)) => {
                held.set_value(true);
                let ttl = deadline - clock.now_untracked();
                outbox.send(events::CHOSEN, &detail, &[("ttl_ms", ttl)]);
            }
            Some((None, _)) => {
                clear(Cleared::NotOffered);
                chosen.set(None);
                note.set(Some(format!(
                    "{} {} is not offered for this order. Please choose another option.",
                    key.carrier, key.service
                )));
            }
            None => {}
        }
    };
    // Offers the fallback instead of the carriers' options; answers still
    // on their way for this quote no longer count.
    let offer_fallback = move |unavailable: Vec<String>| {
        let Some(option) = fallback.with_value(|f| f.as_ref().map(FallbackOption::of)) else {
            return false;
        };
        calls.set_value(calls.get_value().wrapping_add(1));
        asking.set(None);
        trouble.set(None);
        quote.set(None);
        fallback_offered.set(true);
        let detail = FallbackQuoted {
            fallback: true,
            options: vec![option],
            unavailable_carriers: unavailable,
        };
        outbox.send(events::QUOTED, &detail, &[]);
        true
    };
    let choose_fallback = Callback::new(move |()| {
        let (Some(option), Ok(parcel)) = (
            fallback.with_value(|f| f.as_ref().map(FallbackOption::of)),
            parcel.get_untracked(),
        ) else {
            return;
        };
        fallback_chosen.set(true);
        held.set_value(true);
        let detail = FallbackChosen {
            option,
            destination: to.get_untracked(),
            parcel,
        };
        // It does not expire: the shop sets its price.
        outbox.send(events::CHOSEN, &detail, &[("ttl_ms", FALLBACK_TTL_MS)]);
    });
    // Quotes the current address and parcel; `quiet` keeps the options on
    // screen (a refresh before the chosen rate expires).
    let ask = move |quiet: bool| {
        let destination = to.get_untracked();
        let blank = missing_field(&destination);
        if !quiet {
            missing.set(blank);
        }
        let Ok(parcel_now) = parcel.get_untracked() else {
            return;
        };
        if blank.is_some() {
            return;
        }
        let call = calls.get_value().wrapping_add(1);
        calls.set_value(call);
        if !quiet {
            let same = quote.with_untracked(|q| {
                q.as_ref()
                    .is_some_and(|q| q.destination == destination && q.parcel == parcel_now)
            });
            if !same {
                clear(Cleared::Changed);
            }
            quote.set(None);
            trouble.set(None);
            note.set(None);
            if fallback_offered.get_untracked() {
                fallback_offered.set(false);
                fallback_chosen.set(false);
                clear(Cleared::Changed);
            }
            // No carrier in time: the fallback, so checkout never waits on shipping.
            if let Some(wait) = fallback.with_value(|f| f.as_ref().map(|f| f.wait_seconds)) {
                set_timeout(
                    move || {
                        if calls.get_value() == call && asking.get_untracked().is_some() {
                            offer_fallback(Vec::new());
                        }
                    },
                    std::time::Duration::from_secs(u64::from(wait)),
                );
            }
        }
        asking.set(Some(quiet));
        let body = RatesRequest {
            from_address: ship_from.get_value(),
            to_address: destination.clone(),
            parcel: parcel_now,
        };
        spawn_local(async move {
            let answer = client.rates_with_age(&body).await;
            if calls.get_value() != call {
                return;
            }
            asking.set(None);
            match answer {
                Ok((response, age)) => {
                    let unavailable = response
                        .error
                        .and_then(|e| e.unavailable_carriers)
                        .unwrap_or_default();
                    let options = choice::options(&response.rates);
                    if options.is_empty() && !quiet && offer_fallback(unavailable.clone()) {
                        return;
                    }
                    outbox.send(events::QUOTED, &Quoted::new(&options, &unavailable), &[]);
                    trouble.set(None);
                    quote.set(Some(Quote {
                        options,
                        unavailable,
                        deadline_ms: choice::deadline_ms(clock.now_untracked(), age),
                        destination,
                        parcel: parcel_now,
                    }));
                    hand_over();
                }
                Err(error) => {
                    outbox.send(events::ERROR, &shopper::error_detail(&error), &[]);
                    if quiet || !shopper::fallback_instead(&error) || !offer_fallback(Vec::new()) {
                        trouble.set(Some(shopper::trouble(&error)));
                    }
                }
            }
        });
    };
    let choose = Callback::new(move |key: OptionKey| {
        chosen.set(Some(key));
        note.set(None);
        let fresh = quote.with_untracked(|q| {
            q.as_ref()
                .is_some_and(|q| !choice::stale(q.deadline_ms, clock.now_untracked()))
        });
        // An option from a quote about to expire is re-quoted before the shop gets it.
        if fresh { hand_over() } else { ask(true) }
    });
    // A chosen rate is re-quoted before it expires (or, if the page slept
    // past that, as soon as it wakes), so the shop never holds an expired one.
    Effect::new(move |_| {
        let now = clock.now_ms.get();
        let Some(deadline) = quote.with(|q| q.as_ref().map(|q| q.deadline_ms)) else {
            return;
        };
        if chosen.with(Option::is_none) || !choice::stale(deadline, now) {
            return;
        }
        if now >= deadline {
            clear(Cleared::Expired);
        }
        if asking.get_untracked().is_none() && refreshed_for.get_value() != deadline {
            refreshed_for.set_value(deadline);
            ask(true);
        }
    });

    let on_command = move |command: Result<Command, String>| match command {
        Ok(Command::SetParcel(input)) => match input.resolve() {
            Ok(new) => {
                let asked = quote.with_untracked(Option::is_some)
                    || trouble.with_untracked(Option::is_some);
                parcel.set(Ok(new));
                if asked {
                    ask(false);
                }
            }
            Err(problem) => outbox.send(events::ERROR, &parcel_error(problem), &[]),
        },
        Ok(Command::SetDestination(address)) => {
            to.update(|a| address.apply(a));
            if missing_field(&to.get_untracked()).is_none() {
                ask(false);
            }
        }
        Err(message) => outbox.send(
            events::ERROR,
            &ErrorDetail::widget("WIDGET.MESSAGE.INVALID", message, None),
            &[],
        ),
    };
    outbox.0.with_value(|s| s.listen(on_command));
    // After the first render: the form is there and commands are taken.
    Effect::new(move |_| {
        outbox.send(
            events::READY,
            &Ready {
                theme: &theme,
                parcel: first_parcel.as_ref().ok().copied(),
            },
            &[],
        );
        for message in &theme_problems {
            let detail = ErrorDetail::widget("WIDGET.THEME.INVALID", message.clone(), None);
            outbox.send(events::ERROR, &detail, &[]);
        }
        if let Err(problem) = &first_parcel {
            outbox.send(events::ERROR, &parcel_error(problem.clone()), &[]);
        }
    });

    let on_edit = Callback::new(move |()| missing.set(None));
    let parcel_problem =
        Memo::new(move |_| parcel.with(|p| p.as_ref().err().map(|e| e.message.clone())));
    let from = page.ship_from;
    view! {
        <p class="widget-from">"Ships from " {format!("{}, {}", from.city, from.state)}</p>
        {move || match parcel_problem.get() {
            Some(problem) => view! { <p class="widget-problem" role="alert">{problem}</p> }.into_any(),
            None => view! {
                <form
                    class="widget-form"
                    novalidate
                    on:submit=move |ev| {
                        ev.prevent_default();
                        ask(false);
                    }
                >
                    <DestinationForm legend="Ship to" prefix="to" address=to on_edit />
                    {move || missing.get().map(|label| view! {
                        <p class="field-problem" role="alert">{format!("{label} is required to see shipping options.")}</p>
                    })}
                    <button type="submit" disabled=move || asking.get() == Some(false)>
                        {move || if asking.get() == Some(false) { "Getting rates…" } else { "Get rates" }}
                    </button>
                </form>
            }.into_any(),
        }}
        <div class="widget-results" aria-live="polite">
            {move || (asking.get() == Some(false)).then(|| view! {
                <p class="widget-asking" role="status">"Asking the carriers…"</p>
            })}
            {move || trouble.get().map(|trouble| view! {
                <TroubleView trouble retry=Callback::new(move |()| ask(false)) />
            })}
            {move || quote.get().map(|q| view! {
                <Options
                    options=q.options
                    unavailable=q.unavailable
                    chosen=chosen
                    on_choose=choose
                    on_retry=Callback::new(move |()| ask(false))
                />
            })}
            {move || fallback_offered.get().then(|| fallback.get_value().map(|f| view! {
                <FallbackView
                    fallback=f
                    chosen=fallback_chosen
                    on_choose=choose_fallback
                    on_retry=Callback::new(move |()| ask(false))
                />
            })).flatten()}
            {move || note.get().map(|n| view! { <p class="widget-note" role="status">{n}</p> })}
        </div>
    }
}

/// How long the shop holds a chosen fallback (`ttl_ms`): a day, as it has no rate to expire.
const FALLBACK_TTL_MS: f64 = 86_400_000.0;

/// The shop's window, copied into every closure that talks to it.
#[derive(Clone, Copy)]
struct Outbox(StoredValue<Shop>);

impl Outbox {
    fn send<T: Serialize>(self, kind: &str, detail: &T, extra: &[(&str, f64)]) {
        self.0.with_value(|shop| shop.send(kind, detail, extra));
    }
}

fn parcel_error(problem: setup::ParcelProblem) -> ErrorDetail {
    ErrorDetail::widget(
        "WIDGET.PARCEL.INVALID",
        problem.message,
        Some(problem.field),
    )
}
