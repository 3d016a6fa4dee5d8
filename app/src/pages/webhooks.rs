//! `/webhooks`: what the Worker received (live), what it refused, the
//! service's own delivery log beside it, and a payload checker.

use crate::api::Client;
use crate::api::live::use_live_feed;
use crate::components::error_view::ErrorView;
use crate::components::loader::Loader;
use crate::components::webhooks::{DeliveryTable, EventTable, RejectedTable, VerifyOutcome};
use crate::state::write::Write;
use api::inbox::{
    Inbox, LedgerEntry, LiveMessage, PAGE_ROWS, RECEIVE_PATH, VerifyRequest, VerifyResult,
};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;

/// Which rows the page shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Filter {
    pub q: String,
    /// `accepted`, `rejected` or empty for both.
    pub state: String,
}

impl Filter {
    fn shows_accepted(&self) -> bool {
        self.state != "rejected"
    }

    fn shows_rejected(&self) -> bool {
        self.state != "accepted"
    }

    /// The inbox's own search: label id, tracking number or carrier.
    fn matches(&self, entry: &LedgerEntry) -> bool {
        let q = self.q.trim().to_lowercase();
        q.is_empty()
            || [
                &entry.label.id,
                &entry.label.tracking_number,
                &entry.label.carrier,
            ]
            .iter()
            .any(|field| field.to_lowercase().contains(&q))
    }
}

/// Folds one live message into what the page shows: an event moves to the
/// top (replacing its older row), a refusal is prepended.
pub fn fold(inbox: &mut Inbox, message: LiveMessage, filter: &Filter) {
    let cap = PAGE_ROWS as usize;
    match message {
        LiveMessage::Accepted { entry } => {
            if filter.shows_accepted() && filter.matches(&entry) {
                inbox.accepted.retain(|e| e.label.id != entry.label.id);
                inbox.accepted.insert(0, entry);
                inbox.accepted.truncate(cap);
            }
        }
        LiveMessage::Rejected { rejected } => {
            let q = filter.q.trim().to_lowercase();
            if filter.shows_rejected()
                && (q.is_empty() || rejected.excerpt.to_lowercase().contains(&q))
            {
                inbox.rejected.retain(|r| r.id != rejected.id);
                inbox.rejected.insert(0, rejected);
                inbox.rejected.truncate(cap);
            }
        }
    }
}

#[component]
pub fn WebhooksPage() -> impl IntoView {
    let client = Client::get();
    let query = use_query_map();
    let filter = RwSignal::new(Filter {
        q: query.with_untracked(|m| m.get("q").unwrap_or_default()),
        state: String::new(),
    });
    let inbox = LocalResource::new(move || {
        let f = filter.get();
        client.inbox(f.q, f.state)
    });
    let deliveries = LocalResource::new(move || client.webhook_deliveries());
    let feed = use_live_feed();
    // Live messages are folded into the last fetch as they arrive.
    Effect::new(move || {
        if let Some(message) = feed.message.get() {
            let refresh_log = matches!(message, LiveMessage::Accepted { .. });
            inbox.update(|fetched| {
                if let Some(Ok(shown)) = fetched {
                    fold(shown, message, &filter.get_untracked());
                }
            });
            // The service logs the delivery it just made; show both sides.
            if refresh_log {
                deliveries.refetch();
            }
        }
    });

    let endpoint = web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .map(|origin| format!("{origin}{RECEIVE_PATH}"))
        .unwrap_or_else(|| RECEIVE_PATH.to_string());
    let body = RwSignal::new(String::new());
    let signature = RwSignal::new(String::new());
    let verdict = RwSignal::new(None::<VerifyResult>);
    let verify = Write::new(move || async move {
        verdict.set(None);
        let request = VerifyRequest {
            body: body.get_untracked(),
            signature: signature.get_untracked(),
        };
        verdict.set(Some(client.verify_webhook(request).await?));
        Ok(())
    });

    view! {
        <h1>"Webhooks"</h1>
        <p class="hint">
            "Set this URL as the webhook URL in the shipping service's dashboard: "
            <code class="copyable">{endpoint}</code>
        </p>
        <p class="live" role="status">
            {move || if feed.connected.get() {
                "● Live: new events appear as they arrive"
            } else {
                "○ Connecting to the live feed…"
            }}
        </p>
        <form class="filters" role="search" on:submit=|ev| ev.prevent_default()>
            <div>
                <label for="hook-q">"Search"</label>
                <input id="hook-q" type="search" placeholder="Label id, tracking number or carrier"
                    prop:value=move || filter.with(|f| f.q.clone())
                    on:input=move |ev| filter.update(|f| f.q = event_target_value(&ev)) />
            </div>
            <div>
                <label for="hook-state">"Show"</label>
                <select id="hook-state" on:change=move |ev| filter.update(|f| f.state = event_target_value(&ev))>
                    <option value="">"Received and refused"</option>
                    <option value="accepted">"Received only"</option>
                    <option value="rejected">"Refused only"</option>
                </select>
            </div>
        </form>
        <Loader resource=inbox loading="Loading the inbox…" let:inbox>
            {
                // Untracked: a new filter refetches the inbox, which redraws this.
                let f = filter.get_untracked();
                view! {
                    {(!inbox.receiving).then(|| view! {
                        <p class="banner banner-danger" role="alert">
                            "No webhook secret is set, so every delivery is refused. An admin sets it with `wrangler secret put WEBHOOK_SECRET`."
                        </p>
                    })}
                    {f.shows_accepted().then(|| view! {
                        <section aria-labelledby="received-h">
                            <h2 id="received-h">"Received events"</h2>
                            <EventTable entries=inbox.accepted.clone() />
                        </section>
                    })}
                    {f.shows_rejected().then(|| view! {
                        <section aria-labelledby="refused-h">
                            <h2 id="refused-h">"Refused deliveries"</h2>
                            <p class="hint">"Missing, malformed or wrong signatures: recorded, never acted on."</p>
                            <RejectedTable rows=inbox.rejected.clone() />
                        </section>
                    })}
                }
            }
        </Loader>
        <section aria-labelledby="log-h">
            <h2 id="log-h">"The service's delivery log"</h2>
            <p class="hint">"Each attempt the service made, with its retry schedule (5 attempts: now, +5 min, +30 min, +2 h, +24 h)."</p>
            <button type="button" class="secondary" on:click=move |_| deliveries.refetch()>"Refresh the log"</button>
            <Loader resource=deliveries loading="Loading the log…" let:list>
                <DeliveryTable deliveries=list.deliveries />
            </Loader>
        </section>
        <section aria-labelledby="verify-h">
            <h2 id="verify-h">"Verify a payload"</h2>
            <p class="hint">"Paste a delivery's raw body and its svc-signature header. The check runs in the Worker; the secret never reaches your browser."</p>
            <form on:submit=move |ev| {
                ev.prevent_default();
                verify.submit();
            }>
                <label for="verify-body">"Body"</label>
                <textarea id="verify-body" rows="6" prop:value=move || body.get()
                    on:input=move |ev| body.set(event_target_value(&ev))></textarea>
                <label for="verify-signature">"Signature"</label>
                <input id="verify-signature" placeholder="sha256=…" prop:value=move || signature.get()
                    on:input=move |ev| signature.set(event_target_value(&ev)) />
                <button type="submit" disabled=move || verify.pending()>{move || verify.label("Verify", "Verifying…")}</button>
            </form>
            {move || verdict.get().map(|result| view! { <VerifyOutcome result /> })}
            {move || verify.error().map(|error| view! { <ErrorView error /> })}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::inbox::{Receipt, RejectReason, Rejected, SecretSlot};

    fn entry(id: &str, deliveries: u32) -> LedgerEntry {
        LedgerEntry {
            label: api::Label {
                id: id.into(),
                tracking_number: format!("1Z{id}"),
                label_url: String::new(),
                carrier: "ups".into(),
                service: "ground".into(),
                rate_cents: 800,
                sandbox: false,
                wallet_balance_after_cents: 0,
            },
            seen_at: 1,
            bought_by: None,
            event: Some(Receipt {
                first_received_at: 1,
                last_received_at: 1 + u64::from(deliveries),
                deliveries,
                verified_with: SecretSlot::Current,
            }),
        }
    }

    fn inbox() -> Inbox {
        Inbox {
            accepted: vec![entry("lbl_a", 1), entry("lbl_b", 1)],
            rejected: vec![],
            receiving: true,
        }
    }

    #[test]
    fn a_repeat_moves_the_row_up_instead_of_adding_one() {
        let mut shown = inbox();
        let message = LiveMessage::Accepted {
            entry: entry("lbl_b", 2),
        };
        fold(&mut shown, message, &Filter::default());
        let ids: Vec<_> = shown.accepted.iter().map(|e| e.label.id.as_str()).collect();
        assert_eq!(ids, ["lbl_b", "lbl_a"]);
        assert_eq!(shown.accepted[0].event.as_ref().unwrap().deliveries, 2);
    }

    #[test]
    fn live_rows_respect_the_filter() {
        let mut shown = inbox();
        let filter = Filter {
            q: "LBL_Z".into(),
            state: String::new(),
        };
        fold(
            &mut shown,
            LiveMessage::Accepted {
                entry: entry("lbl_c", 1),
            },
            &filter,
        );
        assert_eq!(shown.accepted.len(), 2);
        fold(
            &mut shown,
            LiveMessage::Accepted {
                entry: entry("lbl_z", 1),
            },
            &filter,
        );
        assert_eq!(shown.accepted[0].label.id, "lbl_z");
        let only_received = Filter {
            q: String::new(),
            state: "accepted".into(),
        };
        let refusal = Rejected {
            id: 7,
            received_at: 1,
            reason: RejectReason::WrongSignature,
            source_ip: "203.0.113.7".into(),
            excerpt: "{}".into(),
            body_bytes: 2,
        };
        fold(
            &mut shown,
            LiveMessage::Rejected {
                rejected: refusal.clone(),
            },
            &only_received,
        );
        assert!(shown.rejected.is_empty());
        fold(
            &mut shown,
            LiveMessage::Rejected { rejected: refusal },
            &Filter::default(),
        );
        assert_eq!(shown.rejected.len(), 1);
    }
}
