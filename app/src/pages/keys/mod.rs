//! API keys (an organization's admins): each mode's keys, never more of
//! one than its last four characters; a form to enter a key (its mode is
//! its prefix's, and the Worker checks it with harmless calls before it
//! saves it); and a mode's rotation: a new key in the next slot, verified
//! and activated by the API status page's `ActivateNext`, then made the
//! only key, or given up.

pub mod rotation;

use super::status::{ActivateNext, mode_name};
use crate::api::{Client, ClientError};
use crate::components::credentials::{
    CredentialForm, CredentialTable, RotationEnd, SecretInput, Submit, rotation_steps, slot_name,
};
use crate::components::dates::When;
use crate::components::error_view::ErrorView;
use crate::components::loader::{busy, failed};
use crate::components::service::{DASHBOARD, ServiceDashboard, dashboard_words, with_dashboard};
use crate::components::status_badge::{StatusBadge, Tone};
use crate::page_table::{WEBHOOK_SETTINGS_PAGE, WIDGET_SETTINGS_PAGE};
use crate::state::session::reread;
use crate::state::write::Write;
use api::orgs::{KeyChange, OrgKey};
use api::session::KeySlot;
use api::{ErrorCode, Scope};
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_router::components::A;
use rotation::{Entry, ModeState, STEPS, Stage};

/// The input's id; what is said under it is named after it.
const INPUT: &str = "org-key";
/// The field the Worker names when it refuses the typed key itself (shown
/// at the field rather than under the form).
const FIELD: &str = "key";

/// A key's scopes in a few words: all of them, or each.
pub fn scope_words(scopes: &[Scope]) -> String {
    if Scope::ALL.iter().all(|s| scopes.contains(s)) {
        return format!("all {} scopes", Scope::ALL.len());
    }
    if scopes.is_empty() {
        return "none stated".into();
    }
    scopes
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the refusal of a rotation's end asks of the admin.
fn move_refusal(code: Option<&ErrorCode>) -> Option<&'static str> {
    (code? == &ErrorCode::EdgeKeyNoNext)
        .then_some("The rotation has already ended (another admin, or another tab): the keys below are current.")
}

/// Each mode's keys as last read: `None` until the first answer. A signal
/// and not a `LocalResource` with the `Loader`: each resource type and
/// each `Loader` of a new type cost this chunk kilobytes of wasm.
#[derive(Clone, Copy)]
struct Keys {
    client: Client,
    state: RwSignal<Option<Result<Vec<ModeState>, ClientError>>>,
    /// Whether live mode is on, as last read.
    live: RwSignal<Option<bool>>,
}

impl Keys {
    /// Reads the list and the Worker's status again; the last answer stays
    /// shown until the new one is in.
    fn read(self) {
        spawn_local(async move {
            let client = self.client;
            let read = async {
                let list = client.org_keys().await?;
                self.live.set(Some(list.live));
                Ok(rotation::modes(&list, &client.keys().await?))
            };
            self.state.set(Some(read.await));
        });
    }
}

#[component]
pub fn KeysPage() -> impl IntoView {
    let keys = Keys {
        client: Client::get(),
        state: RwSignal::new(None),
        live: RwSignal::new(None),
    };
    keys.read();
    let retry = Callback::new(move |()| keys.read());
    view! {
        <h1>"API keys"</h1>
        <p class="lead">"The organization's API keys, one for live and one for sandbox, from " <ServiceDashboard/> "."</p>
        <p class="hint">"They are kept encrypted. Once a key is saved, only its last four characters are shown, here and everywhere else."</p>
        <p class="hint">"The organization's webhook URL and secret are in the " <A href=WEBHOOK_SETTINGS_PAGE>"webhook settings"</A> "; the shop origins, ship-from and fallback of its storefront widget in the " <A href=WIDGET_SETTINGS_PAGE>"storefront widget settings"</A> "."</p>
        {move || keys.live.get().map(|on| live_mode(on, keys))}
        <section aria-labelledby="enter-key-title">
            <h2 id="enter-key-title">"Enter a key"</h2>
            {key_form(keys)}
        </section>
        // One list of views whatever the state: the busy line, the error, or the cards.
        {move || match keys.state.get() {
            None => vec![busy("Loading keys…")],
            Some(Err(error)) => vec![failed(error, retry)],
            Some(Ok(modes)) => modes.into_iter().map(|m| mode_card(m, keys)).collect(),
        }}
    }
}

/// Live mode, off for a new organization until an admin turns it on: until
/// then its sessions have only the sandbox key.
fn live_mode(on: bool, keys: Keys) -> impl IntoView {
    let client = keys.client;
    let turn = Write::new(move || async move {
        client.change_org_key(&KeyChange::Live { on: !on }).await?;
        keys.read();
        // The session learns the mode it may switch to.
        reread(client).await;
        Ok(())
    });
    let has_live_key = move || {
        keys.state.with(|s| {
            matches!(s, Some(Ok(modes)) if modes.iter().any(|m| m.mode == api::KeyEnv::Live && !m.keys.is_empty()))
        })
    };
    let (state, button, busy) = if on {
        (
            "Live mode is on: labels can be real and charged.",
            "Turn live mode off",
            "Turning live mode off…",
        )
    } else {
        (
            "Live mode is off: the organization works in sandbox until an admin turns it on.",
            "Turn live mode on",
            "Turning live mode on…",
        )
    };
    view! {
        <section class="card wide" aria-labelledby="live-title">
            <h2 id="live-title">"Live mode"</h2>
            <p data-testid="live-state">{state}</p>
            {move || if on || has_live_key() {
                view! {
                    <button type="button" disabled=move || turn.pending() on:click=move |_| turn.submit()>
                        {move || turn.label(button, busy)}
                    </button>
                }.into_any()
            } else {
                view! { <p class="hint">"Enter a live key first."</p> }.into_any()
            }}
            {move || turn.error().map(|error| view! { <ErrorView error /> })}
        </section>
    }
}

/// The one place a key is typed. Its mode comes from its prefix; the slot
/// from where that mode's keys stand. Saved, it is cleared at once.
fn key_form(keys: Keys) -> impl IntoView {
    let client = keys.client;
    let typed = RwSignal::new(String::new());
    let tried = RwSignal::new(false);
    // What saving would do (`None` until the keys are read).
    let entry = move || {
        keys.state.with(|s| match s {
            Some(Ok(modes)) => Some(typed.with(|t| Entry::of(t, modes))),
            _ => None,
        })
    };
    let problem = move || match entry() {
        Some(Err(problem)) if tried.get() => Some(dashboard_words(&problem)),
        _ => None,
    };
    let save = Write::new(move || async move {
        let Some(Ok(entry)) = untrack(entry) else {
            return Ok(());
        };
        let change = KeyChange::Set {
            key: typed.get_untracked().trim().to_string(),
            slot: entry.slot,
        };
        client.change_org_key(&change).await?;
        // Saved: the key leaves the page; its redacted form is in the list.
        typed.set(String::new());
        tried.set(false);
        keys.read();
        // The session learns the mode (the banner, the menu, the switch).
        reread(client).await;
        Ok(())
    });
    let check = move || match entry() {
        Some(Ok(_)) => Submit::Send,
        Some(Err(_)) => Submit::Fix(INPUT),
        None => Submit::Wait,
    };
    let effect = move || entry().and_then(Result::ok).map(|entry| entry.effect());
    view! {
        <CredentialForm class="account-form" write=save tried check
            button=("Check and save the key", "Checking the key with the service…")
            ready=Signal::derive(move || entry().is_some()) at_field=FIELD>
            <SecretInput id=INPUT label="API key"
                hint="Its prefix says its mode: svc_live_ for live, svc_test_ for sandbox. Before saving it, the dashboard checks it with a few harmless calls (nothing is bought) and records its scopes."
                typed problem effect effect_id="key-effect" save field=FIELD />
        </CredentialForm>
    }
}

/// One mode: its keys, and the rotation's step to take now.
fn mode_card(state: ModeState, keys: Keys) -> AnyView {
    let client = keys.client;
    let ModeState {
        mode,
        keys: list,
        stage,
        problem,
    } = state;
    let name = mode_name(mode);
    let lower = name.to_lowercase();
    // The rotation's end: the new key kept, or given up.
    let end = RotationEnd::new(move |keep| async move {
        let change = if keep {
            KeyChange::Promote { mode }
        } else {
            KeyChange::DiscardNext { mode }
        };
        let answer = client.change_org_key(&change).await;
        // Changed or refused, the keys are read again: a refusal says it moved on.
        keys.read();
        answer?;
        // The key in use may have changed, and with it the session's scopes.
        reread(client).await;
        Ok(())
    });
    let redacted = |slot| {
        list.iter()
            .find(|(k, _)| k.slot == slot)
            .map(|(k, _)| k.redacted.clone())
            .unwrap_or_default()
    };
    let (old, next) = (redacted(KeySlot::Current), redacted(KeySlot::Next));
    let title_id = format!("keys-{}", mode.as_str());
    let steps = stage
        .step()
        .map(|at| rotation_steps(format!("Rotating the {lower} key"), &STEPS, at));
    let in_use = stage == Stage::NextInUse;
    // Given up: a waiting key is discarded; one in use hands the calls back.
    let give_up = match stage {
        Stage::NextWaiting => Some(format!("Discard the new key {next}")),
        Stage::NextInUse => Some(format!("Go back to {old}")),
        Stage::Empty | Stage::Steady => None,
    };
    let keep = format!("Make {next} the only {lower} key");
    view! {
        <section class="card wide" aria-labelledby=title_id.clone()>
            <h2 id=title_id.clone()>{format!("{name} keys")}</h2>
            {problem.map(|p| view! {
                <p class="notice notice-warn" role="alert">{format!("The service refused the {lower} key in use ({p}). Rotate it: enter a new key above.")}</p>
            })}
            {list.is_empty().then(|| view! { <p class="empty">{format!("No {lower} key yet. Enter one above.")}</p> })}
            {(!list.is_empty()).then(|| key_table(&lower, list))}
            {steps}
            {(stage == Stage::NextWaiting).then(|| view! {
                <ActivateNext mode on_changed=Callback::new(move |()| keys.read()) />
            })}
            {in_use.then(|| view! {
                <p class="hint">{with_dashboard(&format!(
                    "Every {lower} call uses the new key. Making it the only key forgets {old} here; revoke that key in {DASHBOARD} afterwards."
                ))}</p>
            })}
            {give_up.map(|give_up| view! {
                <div class="dialog-actions">
                    {in_use.then(|| end.keep_button(keep))}
                    {end.give_up_button(give_up)}
                </div>
            })}
            {end.refusal(move_refusal)}
        </section>
    }
    .into_any()
}

fn key_table(mode: &str, keys: Vec<(OrgKey, bool)>) -> impl IntoView {
    view! {
        <CredentialTable caption=format!("The organization's {mode} keys")
            columns=vec!["Key", "Slot", "Calls", "Scopes", "Set by", "Set"]>
            {keys.into_iter().map(|(key, in_use)| view! {
                <tr data-slot=key.slot.as_str()>
                    <td data-label="Key"><code>{key.redacted}</code></td>
                    <td data-label="Slot">{slot_name(key.slot)}</td>
                    <td data-label="Calls">
                        <StatusBadge text=if in_use { "In use" } else { "Not in use" }
                            tone=if in_use { Tone::Good } else { Tone::Neutral } />
                    </td>
                    <td data-label="Scopes">{scope_words(&key.scopes)}</td>
                    <td data-label="Set by">{key.set_by}</td>
                    <td data-label="Set"><When unix=key.set_at /></td>
                </tr>
            }).collect_view()}
        </CredentialTable>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_in_a_few_words() {
        assert_eq!(scope_words(&Scope::ALL), "all 9 scopes");
        assert_eq!(
            scope_words(&[Scope::RatesRead, Scope::AddressesRead]),
            "rates:read, addresses:read"
        );
        assert_eq!(scope_words(&[]), "none stated");
        assert!(move_refusal(Some(&ErrorCode::EdgeKeyNoNext)).is_some());
        assert_eq!(move_refusal(Some(&ErrorCode::EdgeRoleForbidden)), None);
    }
}
