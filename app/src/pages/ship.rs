//! Ship: from and to addresses (checked by the service), the parcel, every
//! carrier's rates, and the purchase after a confirmation.

use crate::api::{Client, ClientError, encode};
use crate::components::address_form::{AddressForm, blank_address, first_problem, one_line};
use crate::components::confirm_purchase::ConfirmPurchase;
use crate::components::error_view::ErrorView;
use crate::components::field::focus;
use crate::components::money::Money;
use crate::components::parcel_form::{ParcelDraft, ParcelForm, WeightUnit};
use crate::components::rate_table::RateTable;
use crate::state::clock::Clock;
use crate::state::purchase::{Intent, fresh_key, key_for, stays_open};
use crate::state::senders;
use crate::state::write::Write;
use api::inbox::label_pdf_path;
use api::rates::RATE_VALIDITY_SECONDS;
use api::{Address, AddressValidation, ApiError, ErrorCode, Label, Rate, RatesRequest, Scope};
use leptos::prelude::*;
use leptos_router::components::A;

/// Where one address stands with the validation service.
#[derive(Clone, Debug, PartialEq)]
enum Check {
    Unchecked,
    Checking,
    Valid(AddressValidation),
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
        matches!(self, Check::Valid(_) | Check::Overridden)
    }
}

#[derive(Clone, Debug, PartialEq)]
struct Quote {
    rates: Vec<Rate>,
    deadline_ms: f64,
    /// `RATE.CARRIER.UNAVAILABLE`: the other carriers' rates are shown.
    partial: Option<ApiError>,
    /// Bumped per quote so the table is rebuilt with its new countdown.
    serial: u32,
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
    let next = match client.validate_address(current).await {
        Ok(v) => {
            address.set(v.normalized.clone());
            Check::Valid(v)
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
#[component]
fn AddressStatus(
    state: RwSignal<Check>,
    address: RwSignal<Address>,
    on_check: Callback<()>,
) -> impl IntoView {
    move || {
        match state.get() {
        Check::Unchecked => view! {
            <p class="check-status">
                <button type="button" class="secondary" on:click=move |_| on_check.run(())>"Check address"</button>
            </p>
        }.into_any(),
        Check::Checking => view! { <p class="check-status" aria-busy="true">"Checking the address…"</p> }.into_any(),
        Check::Valid(v) => view! {
            <p class="check-status ok" role="status">
                <span class="badge badge-good">"Deliverable"</span> " "
                {if v.residential {
                    view! { <span class="badge badge-warn">"Residential"</span> " Carriers may add a residential delivery surcharge." }.into_any()
                } else {
                    view! { <span class="badge">"Commercial"</span> }.into_any()
                }}
            </p>
        }.into_any(),
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
    let can_buy = client.can(Scope::LabelsWrite);

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
            });
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

    let buy = Write::new(move || async move {
        let Some(rate) = confirm.get_untracked() else {
            return Ok(());
        };
        let intent = open_intent.with_value(|open| key_for(open.as_ref(), &rate.id, fresh_key));
        open_intent.set_value(Some(intent.clone()));
        let answer = client.buy_label(intent.rate_id, intent.key).await;
        match &answer {
            Ok(label) => {
                open_intent.set_value(None);
                confirm.set(None);
                bought.set(Some(label.clone()));
                quote.set(None);
            }
            Err(e) if !stays_open(e) => open_intent.set_value(None),
            Err(_) => {}
        }
        answer.map(drop)
    });
    let on_buy = Callback::new(move |rate: Rate| {
        buy.clear();
        confirm.set(Some(rate));
    });
    let on_confirm = Callback::new(move |()| buy.submit());
    let on_cancel = Callback::new(move |()| {
        confirm.set(None);
        buy.clear();
    });
    let requote_from_dialog = Callback::new(move |()| {
        confirm.set(None);
        submit.run(());
    });

    let save_sender = move |_| {
        let a = from.get_untracked();
        from_shown.set(true);
        if let Some(id) = first_problem("from", &a) {
            saved_note.set(Some("Complete the sender before saving it.".into()));
            focus(&id);
            return;
        }
        let list = senders::with_added(saved.get_untracked(), a);
        senders::store(&list);
        saved.set(list);
        saved_note.set(Some("Sender saved in this browser.".into()));
    };
    let sender_picker = move || {
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
                                    from.set(a);
                                    from_check.set(Check::Unchecked);
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
    };

    let mode = client.mode();
    view! {
        <h1>"Ship a parcel"</h1>
        <form class="ship-form" on:submit=on_submit novalidate>
            <div class="addresses">
                <div>
                    <AddressForm legend="From" prefix="from" address=from on_edit=edited(from_check) show_problems=from_shown>
                        {sender_picker()}
                    </AddressForm>
                    <AddressStatus state=from_check address=from on_check=check_from />
                </div>
                <div>
                    <AddressForm legend="To" prefix="to" address=to on_edit=edited(to_check) show_problems=to_shown />
                    <AddressStatus state=to_check address=to on_check=check_to />
                </div>
            </div>
            <ParcelForm parcel show_problems=parcel_shown />
            <button type="submit" class="primary" disabled=move || get_rates.pending()>
                {move || get_rates.label("Get rates", "Getting rates…")}
            </button>
        </form>
        {move || get_rates.error().map(|error| view! { <ErrorView error retry=submit /> })}
        {move || quote.get().map(|q| view! {
            {q.partial.map(|e| view! {
                <div class="notice notice-warn" role="status">
                    <p>{format!(
                        "{} Rates from the other carriers are shown.",
                        e.unavailable_carriers.as_ref().map(|c| format!("No answer from {}.", c.join(", "))).unwrap_or(e.message.clone()),
                    )}</p>
                </div>
            })}
            {(!can_buy).then(|| view! {
                <p class="notice" role="note">"Your role can compare rates but not buy labels."</p>
            })}
            <RateTable
                rates=q.rates
                deadline_ms=q.deadline_ms
                can_buy
                on_buy
                on_requote=submit
                busy=Signal::derive(move || buy.pending())
            />
        })}
        {move || confirm.get().map(|rate| {
            // Read as the dialog opens, for the balance after the purchase.
            let wallet = client
                .can(Scope::WalletRead)
                .then(|| LocalResource::new(move || client.wallet()));
            view! {
                <ConfirmPurchase
                    rate
                    sandbox=mode == Some(api::KeyEnv::Sandbox)
                    wallet=Signal::derive(move || wallet.and_then(|w| w.get()))
                    pending=Signal::derive(move || buy.pending())
                    error=Signal::derive(move || buy.error())
                    on_confirm
                    on_cancel
                    on_requote=requote_from_dialog
                />
            }
        })}
        {move || bought.get().map(|label| view! { <Bought label on_again=Callback::new(move |()| bought.set(None)) /> })}
    }
}

/// The bought label: tracking number, the PDF and the wallet after it.
#[component]
fn Bought(label: Label, on_again: Callback<()>) -> impl IntoView {
    let heading = NodeRef::<leptos::html::H2>::new();
    Effect::new(move |_| {
        if let Some(h) = heading.get() {
            let _ = h.focus();
        }
    });
    let track_href = format!(
        "/tracking?number={}",
        crate::api::encode(&label.tracking_number)
    );
    view! {
        <section class="card result" aria-labelledby="bought-title">
            <h2 id="bought-title" tabindex="-1" node_ref=heading>"Label bought"</h2>
            <dl class="facts">
                <dt>"Tracking number"</dt>
                <dd><code data-testid="tracking-number">{label.tracking_number.clone()}</code></dd>
                <dt>"Service"</dt>
                <dd>{format!("{} {}", label.carrier, label.service)}</dd>
                <dt>"Price"</dt>
                <dd><Money cents=label.rate_cents /></dd>
                <dt>"Mode"</dt>
                <dd>{if label.sandbox { "Sandbox: a test label, not mailable, nothing charged" } else { "Live: mailable, charged to the wallet" }}</dd>
                <dt>"Wallet balance now"</dt>
                <dd data-testid="balance-after"><Money cents=label.wallet_balance_after_cents /></dd>
            </dl>
            <p class="links">
                <a href=format!("{}?inline=1", label_pdf_path(&encode(&label.id))) target="_blank" rel="noopener">"Open label PDF"</a>
                <a href=label_pdf_path(&encode(&label.id)) download=format!("{}.pdf", label.id)>"Download label PDF"</a>
                <A href=format!("/labels/{}", label.id)>"Label details"</A>
                <A href=track_href>"Track this parcel"</A>
            </p>
            <button type="button" class="secondary" on:click=move |_| on_again.run(())>"Ship another parcel"</button>
        </section>
    }
}
