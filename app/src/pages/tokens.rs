//! Access tokens (every member of an organization): personal access
//! tokens for scripts, made with a name and an expiry and shown once, the
//! list with their last use, and revoking one after a confirmation. Admins
//! see and revoke every member's.

use crate::api::{Client, ClientError};
use crate::components::credentials::{
    CredentialForm, CredentialTable, NameInput, Revoke, Submit, last_used,
};
use crate::components::dates::When;
use crate::components::field::focus;
use crate::components::loader::Loader;
use crate::components::status_badge::{StatusBadge, Tone};
use crate::state::write::Write;
use api::ErrorCode;
use api::access_tokens::{
    AccessToken, DEFAULT_DAYS, MAX_DAYS, NAME_MAX_CHARS, TokenCreated, TokenList, TokenRequest,
};
use api::session::Role;
use leptos::prelude::*;

/// The expiries offered, in days (the default among them).
pub const EXPIRY_CHOICES: [u32; 4] = [7, DEFAULT_DAYS, 90, MAX_DAYS];

/// A token's name as typed: what is wrong with it, if anything.
pub fn name_problem(typed: &str) -> Option<String> {
    let n = typed.trim().chars().count();
    (n == 0 || n > NAME_MAX_CHARS).then(|| {
        format!("Name the token after what uses it (1 to {NAME_MAX_CHARS} characters), e.g. nightly export.")
    })
}

/// What a refused revocation asks of the person.
pub fn revoke_refusal(code: Option<&ErrorCode>) -> Option<&'static str> {
    (code? == &ErrorCode::EdgeTokenNotFound)
        .then_some("This token was already revoked, or its owner left. The list below is current.")
}

fn now_s() -> u64 {
    (js_sys::Date::now() / 1000.0) as u64
}

#[component]
pub fn TokensPage() -> impl IntoView {
    let client = Client::get();
    let tokens = LocalResource::new(move || client.access_tokens());
    let (admin, org) = client.session.with_untracked(|s| {
        let admin = s.as_ref().is_some_and(|s| s.role == Role::Admin);
        (
            admin,
            s.as_ref().map(|s| s.org.name.clone()).unwrap_or_default(),
        )
    });
    view! {
        <h1>"Access tokens"</h1>
        <p>
            "A script signs in with one of your personal access tokens as you, with the role you have when it signs in, by sending "
            <code>"{\"token\": \"…\"}"</code> " to " <code>"POST /api/session"</code>
            ". Every token expires; revoke the ones you no longer use."
        </p>
        <p class="hint">{format!("Tokens made here sign in to {org} only: their sessions cannot switch to your other organizations.")}</p>
        {admin.then(|| view! {
            <p class="hint">"As an admin you see every member's tokens and can revoke any of them."</p>
        })}
        <section aria-labelledby="new-token-title">
            <h2 id="new-token-title">"New token"</h2>
            <NewToken tokens />
        </section>
        <section aria-labelledby="tokens-title">
            <h2 id="tokens-title">{if admin { "All tokens" } else { "Your tokens" }}</h2>
            <Tokens tokens admin />
        </section>
    }
}

#[component]
fn NewToken(tokens: LocalResource<Result<TokenList, ClientError>>) -> impl IntoView {
    let client = Client::get();
    let name = RwSignal::new(String::new());
    let days = RwSignal::new(DEFAULT_DAYS);
    let checked = RwSignal::new(false);
    let problem = move || {
        checked
            .get()
            .then(|| name.with(|n| name_problem(n)))
            .flatten()
    };
    let created = RwSignal::new(None::<TokenCreated>);
    let create = Write::new(move || async move {
        created.set(None);
        let request = TokenRequest {
            name: name.get_untracked().trim().to_string(),
            expires_in_days: Some(days.get_untracked()),
        };
        created.set(Some(client.create_access_token(request).await?));
        name.set(String::new());
        checked.set(false);
        tokens.refetch();
        request_animation_frame(|| focus("copy-token"));
        Ok(())
    });
    let check = move || {
        if problem().is_some() {
            Submit::Fix("token-name")
        } else {
            Submit::Send
        }
    };
    view! {
        <CredentialForm class="inline-form" write=create tried=checked check button=("Create token", "Creating…")>
            <NameInput id="token-name" max_chars=NAME_MAX_CHARS name problem />
            <div class="field">
                <label for="token-days">"Expires after"</label>
                <select id="token-days" on:change=move |ev| {
                    if let Ok(d) = event_target_value(&ev).parse() { days.set(d) }
                }>
                    {EXPIRY_CHOICES.iter().map(|d| view! {
                        <option value=d.to_string() selected=*d == DEFAULT_DAYS>{format!("{d} days")}</option>
                    }).collect_view()}
                </select>
            </div>
        </CredentialForm>
        {move || created.get().map(|c| {
            let copied = RwSignal::new(false);
            let to_copy = c.token.clone();
            view! {
                <section class="card wide invite-link" aria-labelledby="token-title">
                    <h3 id="token-title">{format!("Your new token “{}”", c.info.name)}</h3>
                    <p><strong>"Copy it now: you won't see it again."</strong>
                        " Only a fingerprint of it is kept, so nobody can show it to you later. It works until "
                        <When unix=c.info.expires_at /> " unless you revoke it."</p>
                    <label for="new-token">"Token"</label>
                    <input id="new-token" class="copyable" readonly prop:value=c.token.clone()
                        on:focus=move |ev| { event_target::<web_sys::HtmlInputElement>(&ev).select() } />
                    <div class="dialog-actions">
                        <button type="button" id="copy-token" on:click=move |_| {
                            let _ = window().navigator().clipboard().write_text(&to_copy);
                            copied.set(true);
                        }>{move || if copied.get() { "Copied" } else { "Copy token" }}</button>
                        <button type="button" class="secondary" on:click=move |_| created.set(None)>"Done"</button>
                    </div>
                </section>
            }
        })}
    }
}

#[component]
fn Tokens(tokens: LocalResource<Result<TokenList, ClientError>>, admin: bool) -> impl IntoView {
    let client = Client::get();
    let revoke = Revoke::new(tokens, move |id| client.revoke_access_token(id));
    view! {
        <Loader resource=tokens loading="Loading tokens…" let:list>
            {if list.tokens.is_empty() {
                view! { <p class="empty">"No access tokens yet."</p> }.into_any()
            } else {
                let now = now_s();
                let mut columns = vec!["Name"];
                if admin {
                    columns.push("Owner");
                }
                columns.extend(["Token", "Created", "Expires", "Last used"]);
                view! {
                    <CredentialTable caption="Access tokens, with their expiry and last use" columns action="Revoke">
                        {list.tokens.into_iter().map(|t| view! {
                            <TokenRow token=t admin now revoke />
                        }).collect_view()}
                    </CredentialTable>
                }.into_any()
            }}
        </Loader>
        {revoke.refusal(revoke_refusal)}
    }
}

#[component]
fn TokenRow(token: AccessToken, admin: bool, now: u64, revoke: Revoke) -> impl IntoView {
    let expired = token.is_expired(now);
    let AccessToken {
        id,
        name,
        owner,
        created_at,
        expires_at,
        last_used_at,
        last_four,
        ..
    } = token;
    let question = format!("Revoke “{name}”? Scripts using it can no longer sign in.");
    view! {
        <tr data-token=id.clone()>
            <td data-label="Name">{name.clone()}</td>
            {admin.then(|| view! { <td data-label="Owner">{owner}</td> })}
            <td data-label="Token"><code>{format!("…{last_four}")}</code></td>
            <td data-label="Created"><When unix=created_at /></td>
            <td data-label="Expires">
                {expired.then(|| view! { <StatusBadge text="Expired" tone=Tone::Neutral /> " " })}
                <When unix=expires_at />
            </td>
            <td data-label="Last used">{last_used(last_used_at)}</td>
            <td class="action">{revoke.button(id.clone(), "Revoke", name, question, ("Yes, revoke", "Revoking…"))}</td>
        </tr>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_needs_a_name_of_up_to_a_hundred_characters() {
        assert_eq!(name_problem("nightly export"), None);
        assert_eq!(name_problem(&"x".repeat(100)), None);
        for bad in ["", "   ", &"x".repeat(101)] {
            assert!(name_problem(bad).unwrap().contains("1 to 100"), "{bad:?}");
        }
    }

    #[test]
    fn every_expiry_offered_is_one_the_worker_accepts() {
        assert!(EXPIRY_CHOICES.contains(&DEFAULT_DAYS));
        assert!(EXPIRY_CHOICES.iter().all(|d| (1..=MAX_DAYS).contains(d)));
        assert!(revoke_refusal(Some(&ErrorCode::EdgeTokenNotFound)).is_some());
        assert_eq!(revoke_refusal(Some(&ErrorCode::EdgeRoleForbidden)), None);
    }
}
