//! One label: what it ships (carrier, service, both addresses, the parcel,
//! the reference), who bought it and when, its cost and carbon, the
//! carrier's tracking with its events, the PDF, and the void. The
//! service's label details, the ledger's record of it and the tracker are
//! read together.

use crate::api::{Client, ClientError, encode};
use crate::components::address_form::address_lines;
use crate::components::dates::{When, calendar_day};
use crate::components::error_view::ErrorView;
use crate::components::loader::Loader;
use crate::components::money::Money;
use crate::components::parcel_form::describe_parcel;
use crate::components::service::service;
use crate::components::status_badge::{StatusBadge, Tone};
use crate::components::timeline::{Timeline, status_text};
use crate::state::write::Write;
use api::inbox::label_pdf_path;
use api::insights::{HistoryRow, LabelRecord};
use api::{Address, ErrorCode, KeyEnv, Label, LabelDetails, Scope, Tracker, VoidStatus};
use leptos::prelude::*;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;

/// Why a void was refused, in the user's terms.
pub fn void_refusal(code: Option<&ErrorCode>) -> Option<&'static str> {
    match code? {
        ErrorCode::LabelVoidIneligible => {
            Some("This label can no longer be voided: the carrier has already scanned the package.")
        }
        ErrorCode::LabelVoidAlreadyRequested => Some(
            "A void of this label is already in progress; the carrier confirms it within minutes. There is nothing more to do.",
        ),
        _ => None,
    }
}

fn void_badge(d: &LabelDetails) -> (&'static str, Tone) {
    match d.void_status {
        VoidStatus::None => ("Active", Tone::Good),
        VoidStatus::Requested => ("Void requested", Tone::Warn),
        VoidStatus::Voided => ("Voided", Tone::Bad),
    }
}

/// Where the label's void stands, and the void itself for roles that may.
#[component]
fn VoidSection(details: LabelDetails, void: Write, confirming: RwSignal<bool>) -> impl IntoView {
    if !Client::get().can(Scope::LabelsWrite) {
        return view! { <p class="hint">"Your role cannot void labels."</p> }.into_any();
    }
    let state = match (details.void_status, details.scanned) {
        (VoidStatus::Voided, _) => view! {
            <p role="status">{if details.label.sandbox { "Voided." } else { "Voided. The price was refunded to the wallet." }}</p>
        }.into_any(),
        (VoidStatus::Requested, _) => view! {
            <p role="status">"Void requested: the carrier confirms it within minutes; a live label is refunded then."</p>
        }.into_any(),
        (VoidStatus::None, true) => view! {
            <p role="status">"This label cannot be voided: the carrier has scanned the package."</p>
        }.into_any(),
        (VoidStatus::None, false) => (move || if confirming.get() {
            view! {
                <div class="notice notice-warn" role="group" aria-labelledby="void-confirm">
                    <p id="void-confirm">"Void this label? It can no longer be used; a live label is refunded once the carrier confirms."</p>
                    <div class="dialog-actions">
                        <button type="button" class="danger" disabled=move || void.pending() on:click=move |_| void.submit()>
                            {move || void.label("Yes, void the label", "Voiding…")}
                        </button>
                        <button type="button" class="secondary" disabled=move || void.pending() on:click=move |_| confirming.set(false)>"Keep the label"</button>
                    </div>
                </div>
            }.into_any()
        } else {
            view! { <button type="button" class="secondary" on:click=move |_| { void.clear(); confirming.set(true) }>"Void label"</button> }.into_any()
        }).into_any(),
    };
    let refused = move || {
        void.error().map(|e| view! {
        {void_refusal(e.code()).map(|w| view! { <p class="notice notice-warn" role="alert" data-testid="void-refusal">{w}</p> })}
        <ErrorView error=e />
    })
    };
    view! { {state} {refused} }.into_any()
}

/// The label as the service, the ledger and the carrier know it.
#[derive(Clone)]
struct Shown {
    details: LabelDetails,
    /// The ledger's record (buyer, reference, addresses, parcel, carbon,
    /// refund).
    record: Record,
    /// The carrier's tracking, once the label is followed.
    tracker: Option<Tracker>,
}

/// What the organization's ledger says of the label.
#[derive(Clone)]
enum Record {
    Held(Box<LabelRecord>),
    /// It has no record of it: a label bought elsewhere.
    Absent,
    /// It could not be read now.
    Unread,
}

impl Record {
    fn held(&self) -> Option<&LabelRecord> {
        match self {
            Record::Held(r) => Some(r),
            _ => None,
        }
    }
}

/// The page's heading: what a person reads on the parcel (carrier, service
/// and the recipient, else the tracking number), never the label's id.
pub fn title(label: &Label, recipient: Option<&str>) -> String {
    match recipient.map(str::trim).filter(|r| !r.is_empty()) {
        Some(to) => format!("{} {} to {to}", label.carrier, label.service),
        None => format!(
            "{} {} {}",
            label.carrier, label.service, label.tracking_number
        ),
    }
}

async fn load(client: Client, id: String) -> Result<Shown, ClientError> {
    let details = client.label(id).await?;
    let l = &details.label;
    let mode = if l.sandbox {
        KeyEnv::Sandbox
    } else {
        KeyEnv::Live
    };
    let record = async {
        match client.label_record(&l.id, mode).await {
            Ok(record) => Record::Held(Box::new(record)),
            Err(e) if e.code() == Some(&ErrorCode::LabelNotFound) => Record::Absent,
            Err(_) => Record::Unread,
        }
    };
    let tracker = async {
        let id = details.tracker_id.clone()?;
        if !client.can(Scope::TrackingRead) {
            return None;
        }
        client.tracker(id).await.ok()
    };
    let (record, tracker) = futures::join!(record, tracker);
    Ok(Shown {
        details,
        record,
        tracker,
    })
}

/// Who bought the label: a person by name (in a batch or not), a batch, or
/// nobody here.
fn buyer(record: &HistoryRow) -> impl IntoView + use<> {
    let batch = |job: &String| view! { <A href=format!("/batches/{job}")>"a batch"</A> };
    match (&record.bought_by, &record.job) {
        (Some(name), Some(job)) => view! { {name.clone()} " in " {batch(job)} }.into_any(),
        (Some(name), None) => name.clone().into_any(),
        (None, Some(job)) => view! { "Bought in " {batch(job)} }.into_any(),
        (None, None) => {
            format!("Not bought here: announced by {}'s webhook", service().name).into_any()
        }
    }
}

/// "Not known": what the ledger did not learn (a label bought elsewhere, or
/// before it kept this), never a blank.
fn not_known() -> AnyView {
    view! { <span class="hint">"Not known"</span> }.into_any()
}

fn address_view(a: Option<&Address>) -> AnyView {
    match a {
        Some(a) => view! {
            <span class="address-lines">
                {address_lines(a).into_iter().map(|line| view! { <span>{line}</span> }).collect_view()}
            </span>
        }
        .into_any(),
        None => not_known(),
    }
}

/// The ledger's facts about the label: who bought it, the reference, both
/// addresses and the parcel, the refund and the carbon; "Not known" for
/// each when the ledger has no record of it.
fn ledger_facts(record: Record) -> impl IntoView {
    let r = record.held();
    let row: Option<&HistoryRow> = r.map(|r| &r.row);
    let bought_by = match (&record, row) {
        (_, Some(row)) => buyer(row).into_any(),
        (Record::Unread, _) => {
            view! { <span class="hint">"Not known: the label history could not be read"</span> }.into_any()
        }
        _ => view! { <span class="hint">"Not known: not in this organization's label history"</span> }.into_any(),
    };
    let reference = match row.map(|row| row.reference.clone()) {
        Some(Some(reference)) => reference.into_any(),
        Some(None) => "None".into_any(),
        None => not_known(),
    };
    // Labels recorded before the addresses were kept still name the recipient.
    let to = match (
        r.and_then(|r| r.to_address.as_ref()),
        row.and_then(|r| r.recipient.clone()),
    ) {
        (None, Some(name)) => name.into_any(),
        (to, _) => address_view(to),
    };
    let parcel = r
        .and_then(|r| r.parcel.as_ref())
        .map_or_else(not_known, |p| describe_parcel(p).into_any());
    let refund = row.map_or(0, |row| row.refund_cents);
    let carbon = row.and_then(|row| row.carbon_grams);
    view! {
        <dt>"Bought by"</dt><dd data-testid="bought-by">{bought_by}</dd>
        <dt>"Reference"</dt><dd data-testid="reference">{reference}</dd>
        <dt>"Ship from"</dt><dd data-testid="ship-from">{address_view(r.and_then(|r| r.from_address.as_ref()))}</dd>
        <dt>"Ship to"</dt><dd data-testid="ship-to">{to}</dd>
        <dt>"Parcel"</dt><dd data-testid="parcel">{parcel}</dd>
        {(refund > 0).then(|| view! { <dt>"Refunded"</dt><dd><Money cents=refund /></dd> })}
        {carbon.map(|g| view! { <dt>"Carbon"</dt><dd data-testid="carbon">{format!("{g} g CO₂e")}</dd> })}
    }
}

/// The carrier's status, estimated day and events.
fn tracking_section(tracker: Option<Tracker>, tracking_number: &str) -> impl IntoView + use<> {
    let track = format!("/tracking?number={}", encode(tracking_number));
    let Some(t) = tracker else {
        let text = if Client::get().can(Scope::TrackingRead) {
            "The carrier has no tracking for this label yet."
        } else {
            "Your role cannot read tracking."
        };
        return view! { <p data-testid="tracking-status">{text}</p> }.into_any();
    };
    let (text, tone) = status_text(t.status);
    let open = format!("/tracking?id={}", encode(&t.id));
    view! {
        <p data-testid="tracking-status">"Status: " <StatusBadge text=text tone /></p>
        {t.estimated_delivery.map(|d| view! { <p>"Estimated delivery: " {calendar_day(&d)}</p> })}
        <Timeline events=t.events />
        <p class="links"><A href=open>"Open in Tracking"</A> <A href=track>"Track again"</A></p>
    }
    .into_any()
}

#[component]
pub fn LabelPage() -> impl IntoView {
    let client = Client::get();
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").unwrap_or_default());
    let shown = LocalResource::new(move || load(client, id()));
    let confirming = RwSignal::new(false);
    // Refused or not, the label is read again: a refusal says its state moved on.
    let void = Write::new(move || async move {
        let answer = client
            .void_label(params.with_untracked(|p| p.get("id").unwrap_or_default()))
            .await;
        confirming.set(false);
        shown.refetch();
        answer.map(drop)
    });
    let heading = move || {
        shown.with(|s| match s {
            Some(Ok(s)) => title(
                &s.details.label,
                s.record.held().and_then(|r| r.row.recipient.as_deref()),
            ),
            _ => "Label".to_string(),
        })
    };
    view! {
        <p><A href="/labels">"← All labels"</A></p>
        <h1>{heading}</h1>
        <Loader resource=shown loading="Loading the label…" let:s>
            {
                let d = s.details;
                let (badge, tone) = void_badge(&d);
                let l = d.label.clone();
                let pdf = label_pdf_path(&encode(&l.id));
                let bought = l.created_at.or(s.record.held().map(|r| r.row.at));
                view! {
                    <section class="card wide" aria-label="Label details">
                        <p><StatusBadge text=badge tone /></p>
                        <dl class="facts">
                            <dt>"Tracking number"</dt><dd><code data-testid="tracking-number">{l.tracking_number.clone()}</code></dd>
                            <dt>"Service"</dt><dd>{format!("{} {}", l.carrier, l.service)}</dd>
                            <dt>"Price"</dt><dd><Money cents=l.rate_cents /></dd>
                            <dt>"Mode"</dt><dd>{if l.sandbox { "Sandbox (not mailable)" } else { "Live" }}</dd>
                            <dt>"Bought"</dt><dd>{bought.map(|unix| view! { <When unix /> })}</dd>
                            {ledger_facts(s.record)}
                            <dt>"Scanned by the carrier"</dt><dd>{if d.scanned { "Yes" } else { "Not yet" }}</dd>
                            <dt>"Label id"</dt><dd><code>{l.id.clone()}</code></dd>
                        </dl>
                        <p class="links">
                            <a href=format!("{pdf}?inline=1") target="_blank" rel="noopener">"Open label PDF"</a>
                            <a href=pdf download=format!("{}.pdf", l.id)>"Download label PDF"</a>
                            <a href=format!("/webhooks?q={}", encode(&l.id))>"Webhook events"</a>
                        </p>
                    </section>
                    <section aria-labelledby="tracking-title">
                        <h2 id="tracking-title">"Tracking"</h2>
                        {tracking_section(s.tracker, &l.tracking_number)}
                    </section>
                    <section aria-labelledby="void-title">
                        <h2 id="void-title">"Void"</h2>
                        <VoidSection details=d void confirming />
                    </section>
                }
            }
        </Loader>
    }
}

#[cfg(test)]
mod tests {
    use super::void_refusal;
    use api::ErrorCode;

    #[test]
    fn explains_both_void_refusals_only() {
        assert!(
            void_refusal(Some(&ErrorCode::LabelVoidIneligible))
                .unwrap()
                .contains("scanned")
        );
        assert!(
            void_refusal(Some(&ErrorCode::LabelVoidAlreadyRequested))
                .unwrap()
                .contains("already in progress")
        );
        assert_eq!(void_refusal(Some(&ErrorCode::LabelNotFound)), None);
        assert_eq!(void_refusal(None), None);
    }
}
