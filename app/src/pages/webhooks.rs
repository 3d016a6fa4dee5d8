//! `/webhooks`: what the Worker received (live), what it refused, the
//! service's own delivery log beside it, and a payload checker.

use crate::api::Client;
use crate::api::live::use_feed;
use crate::components::error_view::ErrorView;
use crate::components::loader::Loader;
use crate::components::service::{ServiceDashboard, service};
use crate::components::webhooks::{DeliveryTable, EventTable, RejectedTable, VerifyOutcome};
use crate::page_table::WEBHOOK_SETTINGS_PAGE;
use crate::state::write::Write;
use api::inbox::{
    Inbox, LIVE_PATH, LedgerEntry, LiveMessage, PAGE_ROWS, RECEIVE_PATH, VerifyRequest,
    VerifyResult,
};
use api::session::Role;
use leptos::prelude::*;
use leptos_router::components::A;
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

/// Live messages the shown inbox may not hold yet, numbered as they came.
#[derive(Clone, Debug, Default)]
pub struct Arrivals {
    next: u64,
    messages: Vec<(u64, LiveMessage)>,
}

impl Arrivals {
    /// Where a fetch that begins now starts: it holds what came before.
    pub fn mark(&self) -> u64 {
        self.next
    }

    pub fn push(&mut self, message: LiveMessage) {
        self.messages.push((self.next, message));
        self.next += 1;
        // Folding keeps a page of each kind; older arrivals cannot show.
        let over = self.messages.len().saturating_sub(2 * PAGE_ROWS as usize);
        self.messages.drain(..over);
    }

    /// A fetch begun at `mark` answered: what came before it is in its answer.
    pub fn fetched(&mut self, mark: u64) {
        self.messages.retain(|(n, _)| *n >= mark);
    }

    /// What the page shows: the fetched inbox with later arrivals folded in.
    pub fn over(&self, fetched: &Inbox, filter: &Filter) -> Inbox {
        let mut shown = fetched.clone();
        for (_, message) in &self.messages {
            fold(&mut shown, message.clone(), filter);
        }
        shown
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
    // Live messages are never written into the fetched inbox: a write while
    // a fetch is in flight makes Leptos drop that fetch's answer (the page
    // stayed "Loading" for good). They are shown over it instead.
    let arrivals = RwSignal::new(Arrivals::default());
    let inbox = LocalResource::new(move || {
        let f = filter.get();
        let mark = arrivals.with_untracked(Arrivals::mark);
        async move {
            let fetched = client.inbox(f.q, f.state).await;
            if fetched.is_ok() {
                arrivals.update(|a| a.fetched(mark));
            }
            fetched
        }
    });
    let deliveries = LocalResource::new(move || client.webhook_deliveries());
    let connected = use_feed(LIVE_PATH, move |message: LiveMessage| {
        let refresh_log = matches!(message, LiveMessage::Accepted { .. });
        arrivals.update(|a| a.push(message));
        // The service logs the delivery it just made; show both sides.
        if refresh_log {
            deliveries.refetch();
        }
    });

    // Whether the organization's webhook is set in the app (its URL and
    // secret on the settings page): any but the deployment's own, which
    // the Worker's settings configure.
    let (in_app, admin) = client.session.with_untracked(|s| {
        s.as_ref().map_or((false, false), |s| {
            (!s.org.id.is_deployment(), s.role == Role::Admin)
        })
    });
    let where_set = move || {
        if !in_app {
            let endpoint = web_sys::window()
                .and_then(|w| w.location().origin().ok())
                .map(|origin| format!("{origin}{RECEIVE_PATH}"))
                .unwrap_or_else(|| RECEIVE_PATH.to_string());
            view! {
                "Set this URL as the webhook URL in " <ServiceDashboard/> ": "
                <code class="copyable">{endpoint}</code>
            }
            .into_any()
        } else if admin {
            view! {
                "The organization's webhook URL and secret are in the "
                <A href=WEBHOOK_SETTINGS_PAGE>"webhook settings"</A> "."
            }
            .into_any()
        } else {
            "An admin of the organization sets its webhook URL and secret in the webhook settings."
                .into_any()
        }
    };
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
        <p class="hint">{where_set()}</p>
        <p class="live" role="status">
            {move || if connected.get() {
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
        <Loader resource=inbox loading="Loading the inbox…" let:fetched>
            {
                // Untracked: a new filter refetches the inbox, which redraws this.
                let f = filter.get_untracked();
                let (accepted, rejected) = (f.shows_accepted(), f.shows_rejected());
                let receiving = fetched.receiving;
                let shown = Signal::derive(move || arrivals.with(|a| a.over(&fetched, &f)));
                view! {
                    {(!receiving).then(|| view! {
                        <p class="banner banner-danger" role="alert">
                            "No webhook secret is set, so every delivery is refused. "
                            {if !in_app {
                                "An admin sets it with `wrangler secret put WEBHOOK_SECRET`.".into_any()
                            } else if admin {
                                view! { <A href=WEBHOOK_SETTINGS_PAGE>"Enter it in the webhook settings"</A> }.into_any()
                            } else {
                                "Ask an admin of the organization to enter it in the webhook settings.".into_any()
                            }}
                        </p>
                    })}
                    {accepted.then(|| view! {
                        <section aria-labelledby="received-h">
                            <h2 id="received-h">"Received events"</h2>
                            {move || view! { <EventTable entries=shown.with(|s| s.accepted.clone()) /> }}
                        </section>
                    })}
                    {rejected.then(|| view! {
                        <section aria-labelledby="refused-h">
                            <h2 id="refused-h">"Refused deliveries"</h2>
                            <p class="hint">"Missing, malformed or wrong signatures: recorded, never acted on."</p>
                            {move || view! { <RejectedTable rows=shown.with(|s| s.rejected.clone()) /> }}
                        </section>
                    })}
                }
            }
        </Loader>
        <section aria-labelledby="log-h">
            <h2 id="log-h">{format!("Delivery log of {}", service().name)}</h2>
            <p class="hint">"Each attempt it made, with its retry schedule (5 attempts: now, +5 min, +30 min, +2 h, +24 h)."</p>
            <button type="button" class="secondary" on:click=move |_| deliveries.refetch()>"Refresh the log"</button>
            <Loader resource=deliveries loading="Loading the log…" let:list>
                <DeliveryTable deliveries=list.deliveries />
            </Loader>
        </section>
        <section aria-labelledby="verify-h">
            <h2 id="verify-h">"Verify a payload"</h2>
            <p class="hint">"Paste a delivery's raw body and its svc-signature header. The check runs on the server; the secret never reaches your browser."</p>
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
                created_at: None,
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
    fn an_event_that_arrives_during_a_fetch_shows_once_whatever_the_fetch_holds() {
        let accepted = |id: &str| LiveMessage::Accepted {
            entry: entry(id, 1),
        };
        let mut arrivals = Arrivals::default();
        arrivals.push(accepted("lbl_old"));
        let mark = arrivals.mark();
        arrivals.push(accepted("lbl_c"));
        let ids = |inbox: Inbox| -> Vec<String> {
            inbox.accepted.into_iter().map(|e| e.label.id).collect()
        };
        // Before the fetch answers, the shown (older) inbox has both on top.
        assert_eq!(
            ids(arrivals.over(&inbox(), &Filter::default())),
            ["lbl_c", "lbl_old", "lbl_a", "lbl_b"]
        );
        arrivals.fetched(mark);
        // The answer was read before lbl_c was stored: it is still shown.
        assert_eq!(
            ids(arrivals.over(&inbox(), &Filter::default())),
            ["lbl_c", "lbl_a", "lbl_b"]
        );
        // Or after: it is shown once.
        let mut later = inbox();
        later.accepted.insert(0, entry("lbl_c", 1));
        assert_eq!(
            ids(arrivals.over(&later, &Filter::default())),
            ["lbl_c", "lbl_a", "lbl_b"]
        );
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
