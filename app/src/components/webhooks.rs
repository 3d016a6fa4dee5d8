//! The webhook views: events the Worker received, deliveries it refused,
//! the service's own delivery log and a verification result.

use crate::components::dates::When;
use api::inbox::{LedgerEntry, Rejected, SecretSlot, VerifyResult};
use api::{DeliveryStatus, WebhookDelivery};
use leptos::prelude::*;
use leptos_router::components::A;

fn slot_text(slot: SecretSlot) -> &'static str {
    match slot {
        SecretSlot::Current => "Verified (current secret)",
        SecretSlot::Next => "Verified (next secret)",
    }
}

/// The frame the three tables share: it scrolls (or stacks) on phones and
/// tells screen readers what it lists.
fn framed(
    caption: &'static str,
    headers: &'static [&'static str],
    rows: impl IntoView + 'static,
) -> AnyView {
    let headers = headers
        .iter()
        .map(|h| view! { <th scope="col">{*h}</th> })
        .collect_view();
    view! {
        <div class="table-wrap">
            <table>
                <caption class="visually-hidden">{caption}</caption>
                <thead><tr>{headers}</tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
    .into_any()
}

#[component]
pub fn EventTable(entries: Vec<LedgerEntry>) -> impl IntoView {
    if entries.is_empty() {
        return view! { <p class="empty">"No label.created events yet."</p> }.into_any();
    }
    let rows = entries
        .into_iter()
        .filter_map(|entry| {
            let event = entry.event?;
            let label = entry.label;
            let href = format!("/labels/{}", label.id);
            let id = label.id.clone();
            Some(view! {
                <tr data-label-id=id>
                    <td data-label="Label"><A href=href>{label.id}</A></td>
                    <td data-label="Carrier">{label.carrier}</td>
                    <td data-label="Tracking number"><code>{label.tracking_number}</code></td>
                    <td data-label="First received"><When unix=event.first_received_at /></td>
                    <td data-label="Last received"><When unix=event.last_received_at /></td>
                    <td data-label="Deliveries" class="num">{event.deliveries}</td>
                    <td data-label="Signature"><span class="badge badge-good">{slot_text(event.verified_with)}</span></td>
                </tr>
            })
        })
        .collect_view();
    framed(
        "Received label.created events, newest first",
        &[
            "Label",
            "Carrier",
            "Tracking number",
            "First received",
            "Last received",
            "Deliveries",
            "Signature",
        ],
        rows,
    )
}

#[component]
pub fn RejectedTable(rows: Vec<Rejected>) -> impl IntoView {
    if rows.is_empty() {
        return view! { <p class="empty">"No refused deliveries."</p> }.into_any();
    }
    let rows = rows
        .into_iter()
        .map(|r| {
            view! {
                <tr>
                    <td data-label="Received"><When unix=r.received_at /></td>
                    <td data-label="Reason"><span class="badge badge-bad">{r.reason.describe()}</span></td>
                    <td data-label="Source IP">{r.source_ip}</td>
                    <td data-label="Size" class="num">{r.body_bytes} " B"</td>
                    <td data-label="Start of body"><code class="excerpt">{r.excerpt}</code></td>
                </tr>
            }
        })
        .collect_view();
    framed(
        "Refused deliveries, newest first: never trusted or acted on",
        &["Received", "Reason", "Source IP", "Size", "Start of body"],
        rows,
    )
}

#[component]
pub fn DeliveryTable(deliveries: Vec<WebhookDelivery>) -> impl IntoView {
    if deliveries.is_empty() {
        return view! { <p class="empty">"The service has not attempted any delivery yet."</p> }
            .into_any();
    }
    let rows = deliveries
        .into_iter()
        .map(|d| {
            let (class, outcome) = match d.status {
                DeliveryStatus::Succeeded => ("badge badge-good", "Delivered"),
                DeliveryStatus::Failed => ("badge badge-bad", "Failed"),
                DeliveryStatus::Pending => ("badge", "Pending"),
            };
            let response = match (d.response_status, d.error) {
                (Some(status), _) => format!("HTTP {status}"),
                (None, Some(error)) => error,
                (None, None) => "—".to_string(),
            };
            view! {
                <tr>
                    <td data-label="Label">{d.label_id}</td>
                    <td data-label="Attempt" class="num">{d.attempt} " of 5"</td>
                    <td data-label="Outcome"><span class=class>{outcome}</span></td>
                    <td data-label="Answer">{response}</td>
                    <td data-label="Attempted">{d.attempted_at.map(|t| view! { <When unix=t /> })}</td>
                    <td data-label="Next attempt due">{match d.next_attempt_at {
                        Some(t) => view! { <When unix=t /> }.into_any(),
                        None => "—".into_any(),
                    }}</td>
                </tr>
            }
        })
        .collect_view();
    framed(
        "The service's delivery attempts, newest first",
        &[
            "Label",
            "Attempt",
            "Outcome",
            "Answer",
            "Attempted",
            "Next attempt due",
        ],
        rows,
    )
}

#[component]
pub fn VerifyOutcome(result: VerifyResult) -> impl IntoView {
    let label = result.label_id.map(|id| format!(" Label {id}."));
    match (result.reason, result.verified_with) {
        (None, Some(slot)) => view! {
            <p class="verdict verdict-ok" role="status">
                {slot_text(slot)} ". This payload came from the service." {label}
            </p>
        }
        .into_any(),
        (reason, _) => view! {
            <p class="verdict verdict-bad" role="status">
                "Does not verify: " {reason.map(|r| r.describe())} "." {label}
            </p>
        }
        .into_any(),
    }
}
