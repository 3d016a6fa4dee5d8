//! Passkeys (every member of an organization made in the app): a person's
//! own ways to sign in without a password. Adding one asks for the
//! password again, then the browser's prompt; the list shows when each was
//! added and last used; removing one asks first. They are the person's,
//! not the organization's: each signs in to every organization they are in.

use crate::api::{Client, ClientError};
use crate::components::credentials::{
    CredentialForm, CredentialTable, NameInput, Revoke, Submit, last_used,
};
use crate::components::dates::When;
use crate::components::loader::Loader;
use crate::state::write::Write;
use api::ErrorCode;
use api::passkeys::{MAX_PASSKEYS, NAME_MAX_CHARS, Passkey, PasskeyList};
use leptos::prelude::*;

/// A passkey's name as typed: what is wrong with it, if anything.
pub fn name_problem(typed: &str) -> Option<String> {
    let n = typed.trim().chars().count();
    (n == 0 || n > NAME_MAX_CHARS).then(|| {
        format!("Name the passkey after the device or manager that keeps it (1 to {NAME_MAX_CHARS} characters), e.g. work laptop.")
    })
}

/// What a refused removal asks of the person.
pub fn remove_refusal(code: Option<&ErrorCode>) -> Option<&'static str> {
    (code? == &ErrorCode::EdgePasskeyNotFound)
        .then_some("This passkey was already removed. The list below is current.")
}

#[component]
pub fn PasskeysPage() -> impl IntoView {
    let client = Client::get();
    let passkeys = LocalResource::new(move || client.passkeys());
    view! {
        <h1>"Passkeys"</h1>
        <p>
            "A passkey signs you in with this device's screen lock (fingerprint, face or PIN) instead of your password, and cannot be phished. "
            "Your passkeys are yours, not this organization's: each signs you in to every organization you belong to. "
            {format!("You can have up to {MAX_PASSKEYS}.")}
        </p>
        <section aria-labelledby="new-passkey-title">
            <h2 id="new-passkey-title">"Add a passkey"</h2>
            <NewPasskey passkeys />
        </section>
        <section aria-labelledby="passkeys-title">
            <h2 id="passkeys-title">"Your passkeys"</h2>
            <Passkeys passkeys />
        </section>
    }
}

#[component]
fn NewPasskey(passkeys: LocalResource<Result<PasskeyList, ClientError>>) -> impl IntoView {
    let client = Client::get();
    let name = RwSignal::new(String::new());
    let password = RwSignal::new(String::new());
    let checked = RwSignal::new(false);
    let problem = move || {
        checked
            .get()
            .then(|| name.with(|n| name_problem(n)))
            .flatten()
    };
    let add = Write::new(move || async move {
        let typed = name.get_untracked().trim().to_string();
        let list = client.add_passkey(typed, password.get_untracked()).await?;
        passkeys.set(Some(Ok(list)));
        name.set(String::new());
        password.set(String::new());
        checked.set(false);
        Ok(())
    });
    let check = move || {
        if problem().is_some() {
            Submit::Fix("passkey-name")
        } else if password.with_untracked(String::is_empty) {
            Submit::Fix("passkey-password")
        } else {
            Submit::Send
        }
    };
    view! {
        <CredentialForm class="inline-form" write=add tried=checked check
            button=("Add passkey", "Waiting for your device…")>
            <NameInput id="passkey-name" max_chars=NAME_MAX_CHARS name problem />
            <div class="field">
                <label for="passkey-password">"Your password"</label>
                <input id="passkey-password" type="password" autocomplete="current-password" required
                    aria-describedby="passkey-password-hint"
                    prop:value=move || password.get() on:input=move |ev| password.set(event_target_value(&ev)) />
                <p class="hint" id="passkey-password-hint">"Asked again so that a session left open cannot add a way in."</p>
            </div>
        </CredentialForm>
    }
}

#[component]
fn Passkeys(passkeys: LocalResource<Result<PasskeyList, ClientError>>) -> impl IntoView {
    let client = Client::get();
    let remove = Revoke::new(passkeys, move |id| client.remove_passkey(id));
    view! {
        <Loader resource=passkeys loading="Loading passkeys…" let:list>
            {if list.passkeys.is_empty() {
                view! { <p class="empty">"No passkeys yet. Add one above to sign in without your password."</p> }.into_any()
            } else {
                view! {
                    <CredentialTable caption="Your passkeys, with when each was added and last used"
                        columns=vec!["Name", "Added", "Last used", "Synced"] action="Remove">
                        {list.passkeys.into_iter().map(|passkey| view! {
                            <PasskeyRow passkey remove />
                        }).collect_view()}
                    </CredentialTable>
                }.into_any()
            }}
        </Loader>
        {remove.refusal(remove_refusal)}
    }
}

#[component]
fn PasskeyRow(passkey: Passkey, remove: Revoke) -> impl IntoView {
    let Passkey {
        id,
        name,
        created_at,
        last_used_at,
        synced,
    } = passkey;
    let question = format!("Remove “{name}”? It can no longer sign you in.");
    view! {
        <tr data-passkey=id.clone()>
            <td data-label="Name">{name.clone()}</td>
            <td data-label="Added"><When unix=created_at /></td>
            <td data-label="Last used">{last_used(last_used_at)}</td>
            <td data-label="Synced">{if synced { "Yes" } else { "This device only" }}</td>
            <td class="action">{remove.button(id.clone(), "Remove", name, question, ("Yes, remove", "Removing…"))}</td>
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passkey_needs_a_name_of_up_to_a_hundred_characters() {
        assert_eq!(name_problem("work laptop"), None);
        assert_eq!(name_problem(&"x".repeat(100)), None);
        for bad in ["", "   ", &"x".repeat(101)] {
            assert!(name_problem(bad).unwrap().contains("1 to 100"), "{bad:?}");
        }
        assert!(remove_refusal(Some(&ErrorCode::EdgePasskeyNotFound)).is_some());
        assert_eq!(remove_refusal(Some(&ErrorCode::EdgeTokenNotFound)), None);
    }
}
