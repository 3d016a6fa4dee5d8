//! The label ledger: every label the Worker knows of, bought here or
//! announced by a `label.created` webhook, searchable with `?q=`.

use crate::api::{Client, encode};
use crate::components::dates::datetime;
use crate::components::loader::Loader;
use crate::components::money::Money;
use api::inbox::LedgerEntry;
use leptos::prelude::*;
use leptos_router::NavigateOptions;
use leptos_router::components::A;
use leptos_router::hooks::{use_navigate, use_query_map};

/// Goes to a label by its id (works without the ledger).
#[component]
fn OpenById() -> impl IntoView {
    let navigate = use_navigate();
    let id = RwSignal::new(String::new());
    view! {
        <form class="inline-form" on:submit=move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let v = id.get_untracked().trim().to_string();
            if !v.is_empty() {
                navigate(&format!("/labels/{}", encode(&v)), NavigateOptions::default());
            }
        }>
            <div class="field">
                <label for="label-id">"Label id"</label>
                <input id="label-id" type="text" required placeholder="lbl_…"
                    prop:value=move || id.get() on:input=move |ev| id.set(event_target_value(&ev)) />
            </div>
            <button type="submit" class="secondary">"Open label"</button>
        </form>
    }
}

fn ledger_row(entry: LedgerEntry) -> impl IntoView {
    let label = entry.label;
    let event = match entry.event {
        Some(r) => view! {
            <span class="badge badge-good">"Received"</span>
            " " {format!("{} deliver{}", r.deliveries, if r.deliveries == 1 { "y" } else { "ies" })}
        }
        .into_any(),
        None => view! { <span class="badge badge-warn">"Not received yet"</span> }.into_any(),
    };
    let href = format!("/labels/{}", label.id);
    let hooks = format!("/webhooks?q={}", encode(&label.id));
    let hooks_name = format!("Webhook events for {}", label.id);
    view! {
        <tr>
            <td data-label="Label"><A href=href>{label.id.clone()}</A></td>
            <td data-label="Tracking number"><code>{label.tracking_number.clone()}</code></td>
            <td data-label="Service">{format!("{} {}", label.carrier, label.service)}</td>
            <td data-label="Price" class="num"><Money cents=label.rate_cents /></td>
            <td data-label="Mode">{if label.sandbox { "Sandbox" } else { "Live" }}</td>
            <td data-label="Seen">{datetime(entry.seen_at)}</td>
            <td data-label="Bought by">{entry.bought_by.unwrap_or_else(|| "webhook".into())}</td>
            <td data-label="label.created">{event}</td>
            <td data-label="Webhooks">
                <a href=hooks aria-label=hooks_name>"Events"</a>
            </td>
        </tr>
    }
}

#[component]
pub fn LabelsPage() -> impl IntoView {
    let client = Client::get();
    let query = use_query_map();
    let navigate = use_navigate();
    let q = move || query.with(|m| m.get("q").unwrap_or_default());
    let search = RwSignal::new(q());
    let ledger = LocalResource::new(move || client.ledger(q()));
    let on_search = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let v = search.get_untracked().trim().to_string();
        let href = if v.is_empty() {
            "/labels".to_string()
        } else {
            format!("/labels?q={}", encode(&v))
        };
        navigate(&href, NavigateOptions::default());
    };
    view! {
        <h1>"Labels"</h1>
        <form class="inline-form" role="search" on:submit=on_search>
            <div class="field">
                <label for="ledger-q">"Search labels"</label>
                <input id="ledger-q" type="search" placeholder="Label id, tracking number or carrier"
                    prop:value=move || search.get() on:input=move |ev| search.set(event_target_value(&ev)) />
            </div>
            <button type="submit" class="secondary">"Search"</button>
        </form>
        <Loader resource=ledger loading="Loading labels…" let:l>
            {if l.labels.is_empty() {
                view! {
                    <p class="notice" role="status">{if q().is_empty() { "No labels yet.".to_string() } else { format!("No label matches “{}”.", q()) }}</p>
                }.into_any()
            } else { view! {
                <div class="table-wrap">
                    <table class="ledger">
                        <caption class="visually-hidden">"Labels, newest first"</caption>
                        <thead><tr>
                            <th scope="col">"Label"</th><th scope="col">"Tracking number"</th><th scope="col">"Service"</th>
                            <th scope="col" class="num">"Price"</th><th scope="col">"Mode"</th><th scope="col">"Seen"</th>
                            <th scope="col">"Bought by"</th><th scope="col">"label.created"</th><th scope="col">"Webhooks"</th>
                        </tr></thead>
                        <tbody>{l.labels.into_iter().map(ledger_row).collect_view()}</tbody>
                    </table>
                </div>
            }.into_any() }}
        </Loader>
        <h2>"Open a label"</h2>
        <OpenById />
    }
}
