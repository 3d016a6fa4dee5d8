//! Tracking: register a tracker by tracking number, then its status and
//! events (`?id=` holds the tracker, `?number=` prefills the form).

use crate::api::{Client, ClientError, encode};
use crate::components::dates::calendar_day;
use crate::components::error_view::ErrorView;
use crate::components::status_badge::StatusBadge;
use crate::components::timeline::{Timeline, status_text};
use api::{CreateTrackerRequest, Scope};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::NavigateOptions;
use leptos_router::hooks::{use_navigate, use_query_map};

#[component]
pub fn TrackingPage() -> impl IntoView {
    let client = Client::get();
    let query = use_query_map();
    let navigate = use_navigate();
    let number = RwSignal::new(query.with_untracked(|q| q.get("number").unwrap_or_default()));
    let carrier = RwSignal::new(String::new());
    let registering = RwSignal::new(false);
    let register_error = RwSignal::new(None::<ClientError>);
    let tracker_id = move || query.with(|q| q.get("id"));
    let tracker = LocalResource::new(move || {
        let id = tracker_id();
        async move {
            match id {
                Some(id) => Some(client.tracker(id).await),
                None => None,
            }
        }
    });
    let can = client.can(Scope::TrackingRead);
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let tracking_number = number.get_untracked().trim().to_string();
        if tracking_number.is_empty() {
            return;
        }
        let carrier = Some(carrier.get_untracked()).filter(|c| !c.trim().is_empty());
        let navigate = navigate.clone();
        registering.set(true);
        register_error.set(None);
        spawn_local(async move {
            match client
                .create_tracker(CreateTrackerRequest {
                    tracking_number,
                    carrier,
                })
                .await
            {
                Ok(t) => navigate(
                    &format!("/tracking?id={}", encode(&t.id)),
                    NavigateOptions::default(),
                ),
                Err(e) => register_error.set(Some(e)),
            }
            registering.set(false);
        });
    };
    if !can {
        return view! { <h1>"Tracking"</h1><p class="notice">"Your role cannot track parcels (tracking:read)."</p> }.into_any();
    }
    view! {
        <h1>"Tracking"</h1>
        <form class="inline-form" on:submit=on_submit>
            <div class="field">
                <label for="track-number">"Tracking number"</label>
                <input id="track-number" type="text" required autocomplete="off"
                    prop:value=move || number.get() on:input=move |ev| number.set(event_target_value(&ev)) />
            </div>
            <div class="field">
                <label for="track-carrier">"Carrier (optional)"</label>
                <input id="track-carrier" type="text"
                    prop:value=move || carrier.get() on:input=move |ev| carrier.set(event_target_value(&ev)) />
            </div>
            <button type="submit" disabled=move || registering.get()>
                {move || if registering.get() { "Registering…" } else { "Track" }}
            </button>
        </form>
        {move || register_error.get().map(|error| view! { <ErrorView error /> })}
        {move || match tracker.get() {
            None => view! { <p aria-busy="true">"Loading the tracker…"</p> }.into_any(),
            Some(None) => ().into_any(),
            Some(Some(Err(error))) => view! { <ErrorView error retry=Callback::new(move |()| tracker.refetch()) /> }.into_any(),
            Some(Some(Ok(t))) => {
                let (text, tone) = status_text(t.status);
                view! {
                    <section class="card wide" aria-labelledby="tracker-title">
                        <h2 id="tracker-title">{format!("Tracking {}", t.tracking_number)}</h2>
                        <p data-testid="tracker-status">"Status: " <StatusBadge text=text tone /></p>
                        <dl class="facts">
                            <dt>"Carrier"</dt><dd>{t.carrier.clone()}</dd>
                            <dt>"Tracker"</dt><dd><code>{t.id.clone()}</code></dd>
                            {t.estimated_delivery.clone().map(|d| view! { <dt>"Estimated delivery"</dt><dd>{calendar_day(&d)}</dd> })}
                        </dl>
                        <Timeline events=t.events />
                        <button type="button" class="secondary" on:click=move |_| tracker.refetch()>"Refresh"</button>
                    </section>
                }.into_any()
            }
        }}
    }.into_any()
}
