//! One label: its details, void status, and the void itself.

use crate::api::{Client, ClientError, encode};
use crate::components::dates::datetime;
use crate::components::error_view::ErrorView;
use crate::components::money::Money;
use crate::components::status_badge::{StatusBadge, Tone};
use api::inbox::label_pdf_path;
use api::{LabelDetails, Scope, VoidStatus};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use leptos_router::hooks::use_params_map;

/// Why a void was refused, in the user's terms.
pub fn void_refusal(code: Option<&str>) -> Option<&'static str> {
    match code? {
        "LABEL.VOID.INELIGIBLE" => {
            Some("This label can no longer be voided: the carrier has already scanned the package.")
        }
        "LABEL.VOID.ALREADY_REQUESTED" => Some(
            "A void of this label is already in progress; the carrier confirms it within minutes. There is nothing more to do.",
        ),
        _ => None,
    }
}

fn void_badge(d: &LabelDetails) -> (String, Tone) {
    match d.void_status {
        VoidStatus::None => ("Active".into(), Tone::Good),
        VoidStatus::Requested => ("Void requested".into(), Tone::Warn),
        VoidStatus::Voided => ("Voided".into(), Tone::Bad),
    }
}

#[component]
pub fn LabelPage() -> impl IntoView {
    let client = Client::get();
    let params = use_params_map();
    let id = move || params.with(|p| p.get("id").unwrap_or_default());
    let details = LocalResource::new(move || client.label(id()));
    let confirming = RwSignal::new(false);
    let voiding = RwSignal::new(false);
    let void_error = RwSignal::new(None::<ClientError>);
    let can_void = client.can(Scope::LabelsWrite);
    let void = move || {
        voiding.set(true);
        void_error.set(None);
        let id = id();
        spawn_local(async move {
            if let Err(e) = client.void_label(id).await {
                void_error.set(Some(e));
            }
            voiding.set(false);
            confirming.set(false);
            details.refetch();
        });
    };
    let void_section = move |d: LabelDetails| {
        if !can_void {
            return view! { <p class="hint">"Your role cannot void labels."</p> }.into_any();
        }
        let refused = move || {
            void_error.get().map(|e| {
            let why = void_refusal(e.code());
            view! {
                {why.map(|w| view! { <p class="notice notice-warn" role="alert" data-testid="void-refusal">{w}</p> })}
                <ErrorView error=e />
            }
        })
        };
        let state = match (d.void_status, d.scanned) {
            (VoidStatus::Voided, _) => view! {
                <p role="status">{if d.label.sandbox { "Voided." } else { "Voided. The price was refunded to the wallet." }}</p>
            }.into_any(),
            (VoidStatus::Requested, _) => view! {
                <p role="status">"Void requested: the carrier confirms it within minutes; a live label is refunded then."</p>
            }.into_any(),
            (VoidStatus::None, true) => view! {
                <p role="status">"This label cannot be voided: the carrier has scanned the package."</p>
            }.into_any(),
            (VoidStatus::None, false) => view! {
                {move || if confirming.get() {
                    view! {
                        <div class="notice notice-warn" role="group" aria-labelledby="void-confirm">
                            <p id="void-confirm">"Void this label? It can no longer be used; a live label is refunded once the carrier confirms."</p>
                            <div class="dialog-actions">
                                <button type="button" class="danger" disabled=move || voiding.get() on:click=move |_| void()>
                                    {move || if voiding.get() { "Voiding…" } else { "Yes, void the label" }}
                                </button>
                                <button type="button" class="secondary" disabled=move || voiding.get() on:click=move |_| confirming.set(false)>"Keep the label"</button>
                            </div>
                        </div>
                    }.into_any()
                } else {
                    view! { <button type="button" class="secondary" on:click=move |_| { void_error.set(None); confirming.set(true) }>"Void label"</button> }.into_any()
                }}
            }.into_any(),
        };
        view! { {state} {refused} }.into_any()
    };
    view! {
        <p><A href="/labels">"← All labels"</A></p>
        {move || match details.get() {
            None => view! { <h1>"Label"</h1><p aria-busy="true">"Loading the label…"</p> }.into_any(),
            Some(Err(error)) => view! {
                <h1>"Label"</h1>
                <ErrorView error retry=Callback::new(move |()| details.refetch()) />
            }.into_any(),
            Some(Ok(d)) => {
                let (badge, tone) = void_badge(&d);
                let l = d.label.clone();
                let track = format!("/tracking?number={}", encode(&l.tracking_number));
                view! {
                    <h1>{format!("Label {}", l.id)}</h1>
                    <section class="card wide" aria-label="Label details">
                        <p><StatusBadge text=badge tone /></p>
                        <dl class="facts">
                            <dt>"Tracking number"</dt><dd><code data-testid="tracking-number">{l.tracking_number.clone()}</code></dd>
                            <dt>"Service"</dt><dd>{format!("{} {}", l.carrier, l.service)}</dd>
                            <dt>"Price"</dt><dd><Money cents=l.rate_cents /></dd>
                            <dt>"Mode"</dt><dd>{if l.sandbox { "Sandbox (not mailable)" } else { "Live" }}</dd>
                            <dt>"Created"</dt><dd>{datetime(d.created_at)}</dd>
                            <dt>"Scanned by the carrier"</dt><dd>{if d.scanned { "Yes" } else { "Not yet" }}</dd>
                        </dl>
                        <p class="links">
                            <a href=format!("{}?inline=1", label_pdf_path(&encode(&l.id))) target="_blank" rel="noopener">"Open label PDF"</a>
                            <a href=label_pdf_path(&encode(&l.id)) download=format!("{}.pdf", l.id)>"Download label PDF"</a>
                            <A href=track>"Track this parcel"</A>
                            <a href=format!("/webhooks?q={}", encode(&l.id))>"Webhook events"</a>
                        </p>
                    </section>
                    <section aria-labelledby="void-title">
                        <h2 id="void-title">"Void"</h2>
                        {void_section(d)}
                    </section>
                }.into_any()
            }
        }}
    }
}

#[cfg(test)]
mod tests {
    use super::void_refusal;

    #[test]
    fn explains_both_void_refusals_only() {
        assert!(
            void_refusal(Some("LABEL.VOID.INELIGIBLE"))
                .unwrap()
                .contains("scanned")
        );
        assert!(
            void_refusal(Some("LABEL.VOID.ALREADY_REQUESTED"))
                .unwrap()
                .contains("already in progress")
        );
        assert_eq!(void_refusal(Some("LABEL.NOT_FOUND")), None);
        assert_eq!(void_refusal(None), None);
    }
}
