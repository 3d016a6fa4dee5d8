//! Ship: from and to addresses (checked by the service), the parcel, every
//! carrier's rates, and the purchase after a confirmation (`offer`, a chunk).
//! An organization made in the app offers its saved addresses and package
//! presets (`saved`, a chunk); the deployment's own, this browser's senders.

pub mod balance;
pub mod offer;
pub mod saved;

use super::chunks::{Lazy, Load};
use crate::api::{Client, ClientError, keeps_presets};
use crate::components::address_form::{
    AddressForm, blank_address, differs, first_problem, one_line,
};
use crate::components::error_view::ErrorView;
use crate::components::field::{advice, focus};
use crate::components::loader::{busy, failed};
use crate::components::parcel_form::{ParcelDraft, ParcelForm, WeightUnit};
use crate::state::clock::Clock;
use crate::state::purchase::Intent;
use crate::state::senders;
use crate::state::write::Write;
use api::rates::RATE_VALIDITY_SECONDS;
use api::{
    Address, AddressValidation, ApiError, ErrorCode, KeyEnv, Label, Parcel, Rate, RatesRequest,
    Scope,
};
use leptos::prelude::*;

/// Where one address stands with the validation service.
#[derive(Clone, Debug, PartialEq)]
enum Check {
    Unchecked,
    Checking,
    /// Deliverable, as typed; the service's own form of it, if different,
    /// is offered, never put in its place.
    Valid(AddressValidation, Suggestion),
    Ambiguous(Vec<Address>),
    /// `ADDRESS.VALIDATION.FAILED`: no override, labels to it are refused.
    Undeliverable(ClientError),
    /// `ADDRESS.VALIDATION.SERVICE_ERROR`: validation is not required by
    /// `POST /v1/rates`, so the user may go on without it.
    ServiceDown(ClientError),
    Overridden,
    /// Anything else (a field refused, the network): shown as it is.
    Failed(ClientError),
}

impl Check {
    fn ready(&self) -> bool {
        matches!(self, Check::Valid(..) | Check::Overridden)
    }
}

/// The service's form of a deliverable address (capitals, ZIP+4, a
/// corrected street) and what the merchant made of it.
#[derive(Clone, Debug, PartialEq)]
enum Suggestion {
    /// The service has nothing to change.
    Same,
    /// Its form (`normalized`) differs, and is offered.
    Open,
    Used,
    Kept,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Quote {
    rates: Vec<Rate>,
    deadline_ms: f64,
    /// `RATE.CARRIER.UNAVAILABLE`: the other carriers' rates are shown.
    partial: Option<ApiError>,
    /// Bumped per quote so the table is rebuilt with its new countdown.
    serial: u32,
    /// What was quoted: the rates are for these addresses and this parcel only.
    request: RatesRequest,
}

/// The page's state that `offer` shows and changes: the page resets it
/// for each new quote.
#[derive(Clone, Copy)]
pub struct Offer {
    quote: RwSignal<Option<Quote>>,
    confirm: RwSignal<Option<Rate>>,
    /// The purchase whose answer is not known yet, kept for its retry.
    open_intent: StoredValue<Option<Intent>>,
    bought: RwSignal<Option<Label>>,
    /// Asks every carrier again (the rates expired, or the price changed).
    requote: Callback<()>,
    /// The merchant's reference (an order number) as typed, sent with the
    /// purchase for the ledger.
    reference: RwSignal<String>,
}

/// `offer::view`, reached through its chunk, and `balance::view`, the
/// wallet's balance it shows in live mode from the form's first entry on
/// (the wallet's decoding stays out of the page's chunk).
#[derive(Clone, Copy)]
pub struct OfferView {
    pub offer: fn(Offer) -> AnyView,
    pub balance: fn() -> AnyView,
}

/// The ship page's chunks, as the bin (`main.rs`) declares them.
#[derive(Clone, Copy)]
pub struct ShipChunks {
    /// The rates, purchase and bought label.
    pub offer: Load<OfferView>,
    /// The organization's saved addresses and presets.
    pub saved: Load<SavedView>,
}

/// What the organization's saved addresses and presets (`saved::view`)
/// act on; nothing of `api::presets` is in the page's chunk.
#[derive(Clone, Copy)]
pub struct SavedSender {
    pub from: RwSignal<Address>,
    /// The recipient: while untouched, in the default sender's country.
    pub to: RwSignal<Address>,
    /// A saved address chosen: it becomes the sender, to be checked again.
    pub pick: Callback<Address>,
    /// The sender to save, once complete (else its problems show).
    pub to_save: Callback<(), Option<Address>>,
    pub note: RwSignal<Option<String>>,
    /// The organization's package presets, named, for the parcel form.
    pub packages: RwSignal<Vec<(String, Parcel)>>,
}

/// `saved::view`, reached through its chunk.
pub type SavedView = fn(SavedSender) -> AnyView;

/// Where the offer's chunk stands, as far as the page shows it.
#[derive(Clone, PartialEq)]
enum Stage {
    Nothing,
    Fetching,
    Failed(ClientError),
    Ready,
}

/// What is wrong with a reference as typed (the Worker's rule), if anything.
fn reference_problem(typed: &str) -> Option<String> {
    api::labels::purchase_reference(typed)
        .err()
        .map(|e| match e {
            api::validation::BodyError::Invalid { reason, .. } => {
                format!("The reference {reason}.")
            }
            _ => "Check the reference.".into(),
        })
}

/// The optional reference the label is bought with: shown on its page and
/// found by the label history's search, like a batch row's.
#[component]
fn ReferenceField(reference: RwSignal<String>) -> impl IntoView {
    let problem = move || reference.with(|r| reference_problem(r));
    view! {
        <div class="field reference-field">
            <label for="reference">"Reference (optional)"</label>
            <input
                id="reference"
                name="reference"
                type="text"
                autocomplete="off"
                aria-invalid=move || problem().map(|_| "true")
                aria-describedby=move || if problem().is_some() { "reference-problem reference-hint" } else { "reference-hint" }
                prop:value=move || reference.get()
                on:input=move |ev| reference.set(event_target_value(&ev))
            />
            {advice("reference".to_string(), problem)}
            <p class="hint" id="reference-hint">"Your order number, for instance: shown on the label's page and found by the label history's search."</p>
        </div>
    }
}

/// Safety margin under the 15 minutes, for the time the answer travelled.
const VALIDITY_MARGIN_SECONDS: u64 = 5;

/// Asks the validation service about a complete address; `true` when
/// rates may be asked for it.
async fn check(client: Client, address: RwSignal<Address>, state: RwSignal<Check>) -> bool {
    let current = address.get_untracked();
    if !current.problems().is_empty() {
        return false;
    }
    if !client.can(Scope::AddressesRead) {
        // The role cannot use the validation service; rates do not need it.
        state.set(Check::Overridden);
        return true;
    }
    state.set(Check::Checking);
    let next = match client.validate_address(current.clone()).await {
        Ok(v) => {
            let suggestion = if differs(&current, &v.normalized) {
                Suggestion::Open
            } else {
                Suggestion::Same
            };
            Check::Valid(v, suggestion)
        }
        Err(e) => match e.code() {
            Some(ErrorCode::AddressValidationAmbiguous) => Check::Ambiguous(
                e.api()
                    .and_then(|a| a.suggestions.clone())
                    .unwrap_or_default(),
            ),
            Some(ErrorCode::AddressValidationFailed) => Check::Undeliverable(e),
            Some(ErrorCode::AddressValidationServiceError) => Check::ServiceDown(e),
            _ => Check::Failed(e),
        },
    };
    let ok = next.ready();
    state.set(next);
    ok
}

/// What the service said about one address, and the choices it leaves.
/// Residential or commercial is the carriers' classification of where a
/// parcel is delivered, shown as theirs for the recipient only.
#[component]
fn AddressStatus(
    prefix: &'static str,
    state: RwSignal<Check>,
    address: RwSignal<Address>,
    on_check: Callback<()>,
    #[prop(optional)] delivery: bool,
) -> impl IntoView {
    let outcome = format!("{prefix}-suggestion-outcome");
    let choose = move |v: AddressValidation, choice: Suggestion| {
        let outcome = outcome.clone();
        move |_| {
            if choice == Suggestion::Used {
                address.set(v.normalized.clone());
            }
            state.set(Check::Valid(v.clone(), choice.clone()));
            // The buttons are gone: focus goes to what was chosen.
            let outcome = outcome.clone();
            request_animation_frame(move || focus(&outcome));
        }
    };
    move || {
        match state.get() {
        Check::Unchecked => view! {
            <p class="check-status">
                <button type="button" class="secondary" on:click=move |_| on_check.run(())>"Check address"</button>
            </p>
        }.into_any(),
        Check::Checking => view! { <p class="check-status" aria-busy="true">"Checking the address…"</p> }.into_any(),
        Check::Valid(v, suggestion) => {
            let id = format!("{prefix}-suggestion");
            let outcome = format!("{prefix}-suggestion-outcome");
            let class = delivery.then(|| if v.residential {
                view! { " " <span class="badge badge-warn">"Residential"</span> " as carriers class it: they may add a residential delivery surcharge." }.into_any()
            } else {
                view! { " " <span class="badge">"Commercial"</span> " as carriers class it." }.into_any()
            });
            let offer = match suggestion {
                Suggestion::Same => ().into_any(),
                Suggestion::Open => view! {
                    <div class="suggestion" role="group" aria-labelledby=id.clone()>
                        <p id=id.clone()>"We suggest: " <strong>{one_line(&v.normalized)}</strong></p>
                        <button type="button" class="secondary" on:click=choose(v.clone(), Suggestion::Used)>"Use suggested"</button>
                        " "
                        <button type="button" class="secondary" on:click=choose(v.clone(), Suggestion::Kept)>"Keep mine"</button>
                    </div>
                }.into_any(),
                Suggestion::Used => view! { <p id=outcome tabindex="-1">"Using the suggested address."</p> }.into_any(),
                Suggestion::Kept => view! { <p id=outcome tabindex="-1">"Keeping the address as you typed it."</p> }.into_any(),
            };
            view! {
                <div class="check-status ok">
                    <p role="status"><span class="badge badge-good">"Deliverable"</span> {class}</p>
                    {offer}
                </div>
            }.into_any()
        }
        Check::Ambiguous(suggestions) => view! {
            <div class="check-status notice notice-warn" role="alert">
                <p>"Several addresses match. Pick the right one:"</p>
                <ul class="suggestions">
                    {suggestions.into_iter().map(|s| {
                        let text = one_line(&s);
                        view! {
                            <li>
                                <button type="button" class="secondary" on:click=move |_| {
                                    address.set(s.clone());
                                    on_check.run(());
                                }>{format!("Use {text}")}</button>
                            </li>
                        }
                    }).collect_view()}
                </ul>
            </div>
        }.into_any(),
        Check::Undeliverable(error) => view! {
            <div class="check-status">
                <ErrorView error />
                <p class="hint">
                    "Carriers cannot deliver to this address, and a label to it would be refused "
                    "(LABEL.ADDRESS.UNDELIVERABLE), so it cannot be overridden. Correct the address and check it again."
                </p>
            </div>
        }.into_any(),
        Check::ServiceDown(error) => view! {
            <div class="check-status">
                <ErrorView error retry=on_check />
                <button type="button" class="secondary" on:click=move |_| state.set(Check::Overridden)>
                    "Continue without checking"
                </button>
            </div>
        }.into_any(),
        Check::Overridden => view! {
            <p class="check-status" role="status">
                <span class="badge badge-warn">"Not checked"</span>
                " Residential or commercial: unknown."
            </p>
        }.into_any(),
        Check::Failed(error) => view! {
            <div class="check-status"><ErrorView error retry=on_check /></div>
        }.into_any(),
    }
    }
}

#[component]
pub fn ShipPage() -> impl IntoView {
    let client = Client::get();
    let clock = Clock::get();
    let from = RwSignal::new(blank_address());
    let to = RwSignal::new(blank_address());
    let from_check = RwSignal::new(Check::Unchecked);
    let to_check = RwSignal::new(Check::Unchecked);
    let parcel = RwSignal::new(ParcelDraft {
        weight: String::new(),
        unit: WeightUnit::Oz,
        length: String::new(),
        width: String::new(),
        height: String::new(),
    });
    // Each form shows its problems from its first submit or check on.
    let from_shown = RwSignal::new(false);
    let to_shown = RwSignal::new(false);
    let parcel_shown = RwSignal::new(false);
    let saved = RwSignal::new(senders::load());
    let saved_note = RwSignal::new(None::<String>);

    let quote = RwSignal::new(None::<Quote>);
    let serial = StoredValue::new(0u32);
    let confirm = RwSignal::new(None::<Rate>);
    let open_intent = StoredValue::new(None::<Intent>);
    let bought = RwSignal::new(None::<Label>);
    let reference = RwSignal::new(String::new());
    // The merchant is on the way to rates: the offer's chunk comes meanwhile.
    let offer_chunk = Lazy::new(expect_context::<ShipChunks>().offer);
    let prefetch = move |_| offer_chunk.start();
    // The mode and, in live, the balance (with the offer's chunk): what a purchase here spends.
    let live = client.mode() == Some(KeyEnv::Live);
    let show_balance = live && client.can(Scope::WalletRead);

    // Both addresses checked (one after the other), then every carrier's rates.
    let get_rates = Write::new(move || async move {
        let from_ok = from_check.get_untracked().ready() || check(client, from, from_check).await;
        let to_ok = to_check.get_untracked().ready() || check(client, to, to_check).await;
        let Some(p) = parcel.get_untracked().to_parcel() else {
            return Ok(());
        };
        if !(from_ok && to_ok) {
            return Ok(());
        }
        confirm.set(None);
        open_intent.set_value(None);
        let request = RatesRequest {
            from_address: from.get_untracked(),
            to_address: to.get_untracked(),
            parcel: p,
        };
        match client.rates(&request).await {
            Ok(resp) => {
                serial.update_value(|s| *s += 1);
                let validity = (RATE_VALIDITY_SECONDS - VALIDITY_MARGIN_SECONDS) as f64 * 1000.0;
                quote.set(Some(Quote {
                    rates: resp.rates,
                    deadline_ms: clock.now_untracked() + validity,
                    partial: resp.error,
                    serial: serial.get_value(),
                    request,
                }));
                bought.set(None);
                Ok(())
            }
            Err(e) => {
                quote.set(None);
                Err(e)
            }
        }
    });
    // Every problem of the three forms at once; focus on the first.
    let submit = Callback::new(move |()| {
        for shown in [from_shown, to_shown, parcel_shown] {
            shown.set(true);
        }
        let first = first_problem("from", &from.get_untracked())
            .or_else(|| first_problem("to", &to.get_untracked()))
            .or_else(|| {
                parcel.with_untracked(|p| p.problems().first().map(|(f, _)| f.id().to_string()))
            })
            .or_else(|| {
                reference
                    .with_untracked(|r| reference_problem(r))
                    .map(|_| "reference".to_string())
            });
        offer_chunk.start();
        match first {
            Some(id) => focus(&id),
            None => get_rates.submit(),
        }
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        submit.run(());
    };
    let edited = move |state: RwSignal<Check>| {
        Callback::new(move |()| {
            if state.get_untracked() != Check::Unchecked {
                state.set(Check::Unchecked);
            }
        })
    };
    let checker = move |prefix: &'static str,
                        address: RwSignal<Address>,
                        state: RwSignal<Check>,
                        shown: RwSignal<bool>| {
        let write = Write::new(move || async move {
            check(client, address, state).await;
            Ok(())
        });
        Callback::new(move |()| {
            shown.set(true);
            match first_problem(prefix, &address.get_untracked()) {
                Some(id) => focus(&id),
                None => write.submit(),
            }
        })
    };
    let check_from = checker("from", from, from_check, from_shown);
    let check_to = checker("to", to, to_check, to_shown);
    // A rate is bought by its id, for the addresses and parcel it was
    // quoted for: once the form says otherwise (typed, a saved address or
    // a suggestion used), the quote and any purchase of it are gone, so
    // what is bought is always what the page shows.
    Effect::new(move |_| {
        let (f, t, p) = (from.get(), to.get(), parcel.with(|p| p.to_parcel()));
        let stale = quote.with_untracked(|q| {
            q.as_ref().is_some_and(|q| {
                q.request.from_address != f
                    || q.request.to_address != t
                    || Some(&q.request.parcel) != p.as_ref()
            })
        });
        if stale {
            confirm.set(None);
            quote.set(None);
        }
    });

    let to_save = Callback::new(move |()| {
        let a = from.get_untracked();
        from_shown.set(true);
        if let Some(id) = first_problem("from", &a) {
            saved_note.set(Some("Complete the sender before saving it.".into()));
            focus(&id);
            return None;
        }
        Some(a)
    });
    let pick = Callback::new(move |a: Address| {
        from.set(a);
        from_check.set(Check::Unchecked);
    });
    let packages = RwSignal::new(Vec::new());
    let kept = client
        .session
        .with_untracked(|s| s.as_ref().is_some_and(keeps_presets));
    let saved_chunk = Lazy::new(expect_context::<ShipChunks>().saved);
    if kept {
        saved_chunk.start();
    }
    let save_sender = move |_| {
        let Some(a) = to_save.run(()) else {
            return;
        };
        let list = senders::with_added(saved.get_untracked(), a);
        senders::store(&list);
        saved.set(list);
        saved_note.set(Some("Sender saved in this browser.".into()));
    };
    let sender_picker = move || {
        if kept {
            let sender = SavedSender {
                from,
                to,
                pick,
                to_save,
                note: saved_note,
                packages,
            };
            return (move || match saved_chunk.get() {
                None => busy("Loading the saved addresses…"),
                Some(Err(error)) => failed(error, Callback::new(move |()| saved_chunk.start())),
                Some(Ok(view)) => view(sender),
            })
            .into_any();
        }
        view! {
            <div class="sender-tools">
                {move || (!saved.get().is_empty()).then(|| view! {
                    <div class="field">
                        <label for="saved-sender">"Saved senders"</label>
                        <select
                            id="saved-sender"
                            on:change=move |ev| {
                                if let Ok(i) = event_target_value(&ev).parse::<usize>()
                                    && let Some(a) = saved.get_untracked().get(i).cloned()
                                {
                                    pick.run(a);
                                }
                            }
                        >
                            <option value="">"Choose a saved sender…"</option>
                            {saved.get().iter().enumerate().map(|(i, a)| view! {
                                <option value=i.to_string()>{senders::describe(a)}</option>
                            }).collect_view()}
                        </select>
                    </div>
                })}
                <button type="button" class="secondary" on:click=save_sender>"Save sender"</button>
                <span class="hint" role="status">{move || saved_note.get()}</span>
            </div>
        }
        .into_any()
    };

    let offer = Offer {
        quote,
        confirm,
        open_intent,
        bought,
        requote: submit,
        reference,
    };
    let stage = Memo::new(move |_| match offer_chunk.get() {
        Some(Ok(_)) => Stage::Ready,
        _ if quote.with(Option::is_none) => Stage::Nothing,
        None => Stage::Fetching,
        Some(Err(error)) => Stage::Failed(error),
    });
    view! {
        <h1>"Ship a parcel"</h1>
        <p class="ship-mode" data-testid="ship-mode">
            <span class=if live { "mode mode-live" } else { "mode mode-sandbox" }>{if live { "Live" } else { "Sandbox" }}</span>
            {if live { " Labels bought here are real and charged to the wallet." } else { " Test labels: nothing is charged." }}
            {move || offer_chunk.get().and_then(Result::ok).filter(|_| show_balance).map(|chunk| (chunk.balance)())}
        </p>
        <form class="ship-form" on:submit=on_submit on:focusin=prefetch novalidate>
            <div class="addresses">
                <div>
                    <AddressForm legend="From" prefix="from" address=from on_edit=edited(from_check) show_problems=from_shown>
                        {sender_picker()}
                    </AddressForm>
                    <AddressStatus prefix="from" state=from_check address=from on_check=check_from />
                </div>
                <div>
                    <AddressForm legend="To" prefix="to" address=to on_edit=edited(to_check) show_problems=to_shown />
                    <AddressStatus prefix="to" state=to_check address=to on_check=check_to delivery=true />
                </div>
            </div>
            <ParcelForm parcel show_problems=parcel_shown saved=packages />
            <ReferenceField reference />
            <button type="submit" class="primary" disabled=move || get_rates.pending()>
                {move || get_rates.label("Get rates", "Getting rates…")}
            </button>
        </form>
        {move || get_rates.error().map(|error| view! { <ErrorView error retry=submit /> })}
        {move || match stage.get() {
            Stage::Nothing => ().into_any(),
            Stage::Fetching => busy("Loading the rates…"),
            Stage::Failed(error) => failed(error, Callback::new(move |()| offer_chunk.start())),
            Stage::Ready => match offer_chunk.get_untracked() {
                Some(Ok(chunk)) => (chunk.offer)(offer),
                _ => ().into_any(),
            },
        }}
    }
}
