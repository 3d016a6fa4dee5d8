//! One label: its details, void status, and the void itself.

use crate::api::{Client, encode};
use crate::components::dates::datetime;
use crate::components::error_view::ErrorView;
use crate::components::loader::Loader;
use crate::components::money::Money;
use crate::components::status_badge::{StatusBadge, Tone};
use crate::state::write::Write;
use api::inbox::label_pdf_path;
use api::{ErrorCode, LabelDetails, Scope, VoidStatus};
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

#[component]
pub fn LabelPage() -> impl IntoView {
    let client = Client::get();
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").unwrap_or_default());
    let details = LocalResource::new(move || client.label(id()));
    let confirming = RwSignal::new(false);
    // Refused or not, the label is read again: a refusal says its state moved on.
    let void = Write::new(move || async move {
        let answer = client
            .void_label(params.with_untracked(|p| p.get("id").unwrap_or_default()))
            .await;
        confirming.set(false);
        details.refetch();
        answer.map(drop)
    });
    view! {
        <p><A href="/labels">"← All labels"</A></p>
        <h1>{move || format!("Label {}", id())}</h1>
        <Loader resource=details loading="Loading the label…" let:d>
            {
                let (badge, tone) = void_badge(&d);
                let l = d.label.clone();
                let track = format!("/tracking?number={}", encode(&l.tracking_number));
                let pdf = label_pdf_path(&encode(&l.id));
                let (created, scanned) = (d.label.created_at.map(datetime).unwrap_or_default(), d.scanned);
                view! {
                    <section class="card wide" aria-label="Label details">
                        <p><StatusBadge text=badge tone /></p>
                        <dl class="facts">
                            <dt>"Tracking number"</dt><dd><code data-testid="tracking-number">{l.tracking_number.clone()}</code></dd>
                            <dt>"Service"</dt><dd>{format!("{} {}", l.carrier, l.service)}</dd>
                            <dt>"Price"</dt><dd><Money cents=l.rate_cents /></dd>
                            <dt>"Mode"</dt><dd>{if l.sandbox { "Sandbox (not mailable)" } else { "Live" }}</dd>
                            <dt>"Created"</dt><dd>{created}</dd>
                            <dt>"Scanned by the carrier"</dt><dd>{if scanned { "Yes" } else { "Not yet" }}</dd>
                        </dl>
                        <p class="links">
                            <a href=format!("{pdf}?inline=1") target="_blank" rel="noopener">"Open label PDF"</a>
                            <a href=pdf download=format!("{}.pdf", l.id)>"Download label PDF"</a>
                            <A href=track>"Track this parcel"</A>
                            <a href=format!("/webhooks?q={}", encode(&l.id))>"Webhook events"</a>
                        </p>
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
