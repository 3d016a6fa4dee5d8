//! The shop's tracking events (admins, on the Tracking page): where Parcel
//! sends them, the signing secret shown once when it is made, and the
//! newest deliveries with their attempts, each one sendable again.
//! docs/tracking.md has the shop's side and its signature check.

use crate::api::{Client, ClientError};
use crate::components::dates::When;
use crate::components::error_view::ErrorView;
use crate::components::loader::{busy, failed};
use crate::state::write::Write;
use api::shipments::{Delivery, DeliveryState, EventSettings, ShopEvents};
use leptos::prelude::*;
use leptos::task::spawn_local;

fn state_words(d: &Delivery) -> &'static str {
    match d.state {
        DeliveryState::Pending if d.attempts.is_empty() => "Due now",
        DeliveryState::Pending => "Retrying",
        DeliveryState::Sending => "Sending",
        DeliveryState::Delivered => "Delivered",
        DeliveryState::Failed => "Failed",
    }
}

fn attempts_words(d: &Delivery) -> String {
    let last = d.attempts.last().map(|a| match a.status {
        Some(status) => format!(", last answered {status}"),
        None => ", last not answered in time".to_string(),
    });
    format!("{}{}", d.attempts.len(), last.unwrap_or_default())
}

#[component]
pub fn ShopEventsSection() -> impl IntoView {
    let client = Client::get();
    let state = RwSignal::new(None::<Result<ShopEvents, ClientError>>);
    let url = RwSignal::new(String::new());
    let secret = RwSignal::new(None::<String>);
    // The field takes the answer's URL only on the first read and after a
    // save: a refresh or a resend leaves what is being typed.
    let shown = move |events: ShopEvents, fill: bool| {
        if fill {
            url.set(events.url.clone().unwrap_or_default());
        }
        if events.secret.is_some() {
            secret.set(events.secret.clone());
        }
        state.try_set(Some(Ok(events)));
    };
    let read = move |fill: bool| {
        spawn_local(async move {
            match client.shop_events().await {
                Ok(events) => shown(events, fill),
                Err(e) => {
                    state.try_set(Some(Err(e)));
                }
            }
        });
    };
    read(true);
    let change = RwSignal::new(EventSettings::default());
    let save = Write::new(move || async move {
        shown(
            client.change_shop_events(&change.get_untracked()).await?,
            true,
        );
        Ok(())
    });
    let submit = move |settings: EventSettings| {
        secret.set(None);
        change.set(settings);
        save.submit();
    };
    // The delivery whose Resend was pressed (one resend at a time).
    let resending = RwSignal::new(String::new());
    let resend = Write::new(move || async move {
        shown(
            client.resend_event(&resending.get_untracked()).await?,
            false,
        );
        Ok(())
    });
    let loaded = move || state.with(|s| matches!(s, Some(Ok(_))));
    let is_on = move || state.with(|s| matches!(s, Some(Ok(e)) if e.url.is_some()));
    let signed = move || state.with(|s| matches!(s, Some(Ok(e)) if e.signed));
    let copied = RwSignal::new(false);
    view! {
        <section class="card wide" aria-labelledby="events-title">
            <h2 id="events-title">"Events for your shop"</h2>
            <p class="hint">"Parcel tells your shop when a parcel is in transit, arriving soon, out for delivery and delivered, as soon as the carrier's scan is seen: each event once per parcel, signed with your secret, tried again on failure (after 5 minutes, 30 minutes, 2 hours and 24 hours)."</p>
            <form class="account-form" novalidate on:submit=move |ev: leptos::ev::SubmitEvent| {
                ev.prevent_default();
                let typed = url.get_untracked().trim().to_string();
                submit(EventSettings { url: Some(typed).filter(|u| !u.is_empty()), new_secret: false });
            }>
                <label for="events-url">"Your shop's events URL"</label>
                // Editable once read: the answer fills it.
                <input id="events-url" type="url" spellcheck="false" autocapitalize="off"
                    aria-describedby="events-url-hint" disabled=move || !loaded()
                    aria-invalid=move || save.error().filter(|e| e.is_about("url")).map(|_| "true")
                    prop:value=move || url.get()
                    on:input=move |ev| { save.clear(); url.set(event_target_value(&ev)) } />
                <p class="hint" id="events-url-hint">"An https:// address that accepts a POST of JSON. Leave it empty to stop the events."</p>
                <div class="dialog-actions">
                    <button type="submit" disabled=move || save.pending() || !loaded()>
                        {move || save.label("Save the events URL", "Saving…")}
                    </button>
                    {move || (is_on() && signed()).then(|| view! {
                        <button type="button" class="secondary" disabled=move || save.pending()
                            on:click=move |_| submit(EventSettings { url: Some(url.get_untracked().trim().to_string()), new_secret: true })>
                            "Make a new signing secret"
                        </button>
                    })}
                </div>
                {move || save.error().map(|error| view! { <ErrorView error /> })}
            </form>
            {move || secret.get().map(|value| {
                let to_copy = value.clone();
                view! {
                    <div class="notice" role="status">
                        <p><strong>"Your signing secret, shown only now."</strong>" Keep it in your shop's settings: it checks that each event came from Parcel. A new secret replaces it at once."</p>
                        <div class="inline-form">
                            <input id="events-secret" class="copyable" readonly prop:value=value aria-label="Signing secret" />
                            <button type="button" class="secondary" on:click=move |_| {
                                let _ = window().navigator().clipboard().write_text(&to_copy);
                                copied.set(true);
                            }>{move || if copied.get() { "Copied" } else { "Copy the secret" }}</button>
                        </div>
                    </div>
                }
            })}
            <h3 id="deliveries-title">"Deliveries"</h3>
            <p><button type="button" class="secondary" on:click=move |_| read(false)>"Refresh the deliveries"</button></p>
            {move || resend.error().map(|error| view! { <ErrorView error /> })}
            {move || match state.get() {
                None => busy("Loading the shop's events…").into_any(),
                Some(Err(error)) => failed(error, Callback::new(move |()| read(true))).into_any(),
                Some(Ok(events)) if events.deliveries.is_empty() => view! {
                    <p class="empty">"No events yet: they start once a URL is set and a parcel moves."</p>
                }.into_any(),
                Some(Ok(events)) => deliveries_table(events.deliveries, resend, resending).into_any(),
            }}
        </section>
    }
}

fn deliveries_table(
    deliveries: Vec<Delivery>,
    resend: Write,
    resending: RwSignal<String>,
) -> impl IntoView {
    view! {
        <div class="table-wrap">
            <table class="ledger" aria-labelledby="deliveries-title">
                <thead><tr>
                    <th scope="col">"Event"</th>
                    <th scope="col">"Parcel"</th>
                    <th scope="col">"Seen"</th>
                    <th scope="col">"Attempts"</th>
                    <th scope="col">"State"</th>
                    <th scope="col"><span class="visually-hidden">"Actions"</span></th>
                </tr></thead>
                <tbody>
                    {deliveries.into_iter().map(|d| {
                        let parcel = match &d.reference {
                            Some(r) => format!("{r} · {}", d.tracking_number),
                            None => d.tracking_number.clone(),
                        };
                        let state = state_words(&d);
                        let next = d.next_attempt_at.map(|at| view! { " · next " <When unix=at /> });
                        let attempts = attempts_words(&d);
                        let label = format!("Send {} for {} again", d.event.as_str(), d.tracking_number);
                        let id = d.id.clone();
                        view! {
                            <tr>
                                <td><code>{d.event.as_str()}</code></td>
                                <td>{parcel}</td>
                                <td><When unix=d.created_at /></td>
                                <td>{attempts}</td>
                                <td>{state}{next}</td>
                                <td>
                                    <button type="button" class="secondary" aria-label=label
                                        disabled=move || resend.pending() || d.state == DeliveryState::Sending
                                        on:click=move |_| {
                                            resending.set(id.clone());
                                            resend.submit();
                                        }>"Resend"</button>
                                </td>
                            </tr>
                        }
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
}
