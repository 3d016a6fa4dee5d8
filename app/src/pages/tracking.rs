//! Tracking: register a tracker by tracking number, then its status and
//! events (`?id=` holds the tracker, `?number=` prefills the form).

use crate::api::{Client, encode};
use crate::components::dates::calendar_day;
use crate::components::error_view::ErrorView;
use crate::components::loader::Loader;
use crate::components::status_badge::StatusBadge;
use crate::components::timeline::{Timeline, status_text};
use crate::state::write::Write;
use api::CreateTrackerRequest;
use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::hooks::{use_navigate, use_query_map};

#[component]
pub fn TrackingPage() -> impl IntoView {
    let client = Client::get();
    let query = use_query_map();
    let navigate = use_navigate();
    let number = RwSignal::new(query.with_untracked(|q| q.get("number").unwrap_or_default()));
    let carrier = RwSignal::new(String::new());
    let tracker_id = move || query.with(|q| q.get("id"));
    let tracker = LocalResource::new(move || {
        let id = tracker_id();
        async move {
            match id {
                Some(id) => client.tracker(id).await.map(Some),
                None => Ok(None),
            }
        }
    });
    let register = Write::new(move || {
        let navigate = navigate.clone();
        let request = CreateTrackerRequest {
            tracking_number: number.get_untracked().trim().to_string(),
            carrier: Some(carrier.get_untracked()).filter(|c| !c.trim().is_empty()),
        };
        async move {
            let tracker = client.create_tracker(request).await?;
            navigate(
                &format!("/tracking?id={}", encode(&tracker.id)),
                NavigateOptions::default(),
            );
            Ok(())
        }
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if !number.get_untracked().trim().is_empty() {
            register.submit();
        }
    };
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
            <button type="submit" disabled=move || register.pending()>
                {move || register.label("Track", "Registering…")}
            </button>
        </form>
        {move || register.error().map(|error| view! { <ErrorView error /> })}
        <Loader resource=tracker loading="Loading the tracker…" let:found>
            {found.map(|t| {
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
                }
            })}
        </Loader>
    }
}
