//! The widget's views: the options to choose from, and a failed quote.
//! Pure: they take what to show and report the shopper's actions.

use super::choice::{OptionKey, ShippingOption};
use super::shopper::{Trouble, no_options, unavailable_note};
use crate::components::dates::calendar_day;
use crate::components::money::{Money, format_cents};
use crate::components::rate_table::carbon;
use crate::state::clock::Clock;
use leptos::prelude::*;

/// Every option as a radio button, with its price, delivery day and carbon;
/// the cheapest, fastest and lowest-carbon ones marked. A carrier that did
/// not answer gets a quiet note.
#[component]
pub fn Options(
    options: Vec<ShippingOption>,
    unavailable: Vec<String>,
    #[prop(into)] chosen: Signal<Option<OptionKey>>,
    on_choose: Callback<OptionKey>,
    /// Asks again (when no option came back).
    on_retry: Callback<()>,
) -> impl IntoView {
    let note = unavailable_note(&unavailable)
        .map(|note| view! { <p class="widget-note" role="status">{note}</p> });
    if options.is_empty() {
        return view! {
            {note}
            <div class="widget-trouble" role="alert">
                <p>{no_options(&unavailable)}</p>
                <button type="button" class="secondary" on:click=move |_| on_retry.run(())>"Try again"</button>
            </div>
        }
        .into_any();
    }
    let summary = {
        let options = options.clone();
        move || {
            let key = chosen.get()?;
            let o = options.iter().find(|o| o.key() == key)?;
            Some(format!(
                "You chose {}: {}, arriving {}.",
                o.name(),
                format_cents(o.rate.rate_cents),
                calendar_day(&o.rate.carrier_eta)
            ))
        }
    };
    let rows = options
        .into_iter()
        .map(|option| {
            let key = option.key();
            let checked = {
                let key = key.clone();
                move || chosen.with(|c| c.as_ref() == Some(&key))
            };
            let mark = |on: bool, text: &'static str| on.then(|| view! { <span class="widget-mark">{text}</span> });
            let rate = option.rate.clone();
            view! {
                <label class="widget-option">
                    <input
                        type="radio"
                        name="shipping-option"
                        prop:checked=checked
                        on:change=move |_| on_choose.run(key.clone())
                    />
                    <span class="widget-option-name">{option.name()}</span>
                    <Money cents=rate.rate_cents />
                    <span class="widget-option-facts">
                        "Arrives " {calendar_day(&rate.carrier_eta)} " · " {carbon(rate.carbon_grams)} " CO₂"
                    </span>
                    <span class="widget-marks">
                        {mark(option.cheapest, "Cheapest")}
                        {mark(option.fastest, "Fastest")}
                        {mark(option.lowest_carbon, "Lowest carbon")}
                    </span>
                </label>
            }
        })
        .collect_view();
    view! {
        {note}
        <fieldset class="widget-options">
            <legend>"Choose how it ships"</legend>
            {rows}
        </fieldset>
        <p class="widget-choice" role="status">{summary}</p>
    }
    .into_any()
}

/// The shop's fallback option, offered when no carrier answered in time
/// (or the quote failed), with a way to ask the carriers again.
#[component]
pub fn FallbackView(
    fallback: api::orgs::WidgetFallback,
    #[prop(into)] chosen: Signal<bool>,
    on_choose: Callback<()>,
    on_retry: Callback<()>,
) -> impl IntoView {
    view! {
        <p class="widget-note" role="status">"The carriers are taking too long to answer, so this shop offers its own option."</p>
        <fieldset class="widget-options">
            <legend>"Choose how it ships"</legend>
            <label class="widget-option widget-fallback">
                <input
                    type="radio"
                    name="shipping-option"
                    prop:checked=move || chosen.get()
                    on:change=move |_| on_choose.run(())
                />
                <span class="widget-option-name">{fallback.name.clone()}</span>
                <Money cents=i64::from(fallback.price_cents) />
            </label>
        </fieldset>
        <p class="widget-choice" role="status">
            {move || chosen.get().then(|| format!("You chose {}: {}.", fallback.name, format_cents(i64::from(fallback.price_cents))))}
        </p>
        <button type="button" class="secondary" on:click=move |_| on_retry.run(())>"Ask the carriers again"</button>
    }
}

/// A failed quote in a sentence, with "Try again", or (over a limit) a
/// countdown after which it asks again by itself.
#[component]
pub fn TroubleView(trouble: Trouble, retry: Callback<()>) -> impl IntoView {
    let countdown = trouble.retry_after.map(|seconds| {
        let clock = Clock::get();
        let deadline = clock.now_untracked() + seconds as f64 * 1000.0;
        let left = clock.seconds_until(deadline);
        let fired = StoredValue::new(false);
        Effect::new(move |_| {
            if left.get() == 0 && !fired.get_value() {
                fired.set_value(true);
                retry.run(());
            }
        });
        view! {
            <p data-testid="retry-countdown">{move || format!("Trying again in {} s.", left.get())}</p>
        }
    });
    let button = countdown.is_none().then(|| {
        view! { <button type="button" class="secondary" on:click=move |_| retry.run(())>"Try again"</button> }
    });
    view! {
        <div class="widget-trouble" role="alert">
            <p>{trouble.sentence}</p>
            {countdown}
            {button}
        </div>
    }
}
