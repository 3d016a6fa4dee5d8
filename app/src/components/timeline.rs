use crate::components::dates::When;
use crate::components::status_badge::{StatusBadge, Tone};
use api::{TrackerEvent, TrackerStatus};
use leptos::prelude::*;

pub fn status_text(s: TrackerStatus) -> (&'static str, Tone) {
    match s {
        TrackerStatus::PreTransit => ("Pre-transit", Tone::Neutral),
        TrackerStatus::InTransit => ("In transit", Tone::Warn),
        TrackerStatus::OutForDelivery => ("Out for delivery", Tone::Warn),
        TrackerStatus::Delivered => ("Delivered", Tone::Good),
        TrackerStatus::Unknown => ("Unknown", Tone::Bad),
    }
}

/// A tracker's events, newest first.
#[component]
pub fn Timeline(events: Vec<TrackerEvent>) -> impl IntoView {
    if events.is_empty() {
        return view! { <p>"No tracking events yet."</p> }.into_any();
    }
    let items = events
        .into_iter()
        .rev()
        .map(|e| {
            let (text, tone) = status_text(e.status);
            view! {
                <li>
                    <p class="event-head"><StatusBadge text=text tone /> " " <strong>{e.message}</strong></p>
                    <p class="event-meta">
                        <When unix=e.occurred_at />
                        {(!e.location.is_empty()).then(|| format!(" · {}", e.location))}
                    </p>
                </li>
            }
        })
        .collect_view();
    view! { <ol class="timeline" aria-label="Tracking events, newest first">{items}</ol> }
        .into_any()
}
