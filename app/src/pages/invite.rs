//! `/invite#{token}`: what an invitation offers, then joining its
//! organization with a new account or an existing one. Open to anyone.

use crate::api::{Client, ClientError};
use crate::components::dates::When;
use crate::components::error_view::refused;
use crate::components::field::{advice, advice_id, focus};
use crate::components::loader::busy;
use crate::components::password::PasswordInput;
use crate::state::write::Write;
use api::ErrorCode;
use api::orgs::{AcceptInvite, InvitePreview, normalize_email, password_problem};
use api::session::Role;
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_navigate};

/// The token a link carries in its fragment (`#token`), which browsers
/// never send to a server.
pub fn fragment_token(hash: &str) -> Option<String> {
    let token = hash.trim_start_matches('#').trim();
    (!token.is_empty()).then(|| token.to_string())
}

/// Why a typed email cannot be an account's (`None`: it can).
pub fn email_problem(email: &str) -> Option<String> {
    normalize_email(email)
        .is_none()
        .then(|| "Enter your email address, like ada@example.com.".to_string())
}

/// What a role may do, for the person choosing or accepting it.
pub fn role_words(role: Role) -> &'static str {
    match role {
        Role::Admin => {
            "Admins do everything: ship, manage the team and invitations, keys and settings."
        }
        Role::Operator => {
            "Operators ship: they buy and void labels, run batches and track parcels."
        }
        Role::Viewer => "Viewers see labels, batches, tracking and the wallet, and change nothing.",
    }
}

/// What a refused invitation (or a refused join) asks of the person.
pub fn invite_refusal(code: Option<&ErrorCode>) -> Option<&'static str> {
    match code? {
        ErrorCode::EdgeInviteUnknown => Some(
            "Check that you opened the whole link; if you did, ask the admin who invited you for a new one.",
        ),
        ErrorCode::EdgeInviteExpired => Some("Ask the admin who invited you for a new link."),
        ErrorCode::EdgeInviteUsed => Some(
            "Each link works once. If it was you, sign in; otherwise ask the admin who invited you for a new link.",
        ),
        ErrorCode::EdgeInviteRevoked => {
            Some("Ask the admin who invited you for a new link if you should still join.")
        }
        ErrorCode::EdgeSignInFailed => Some(
            "This email already has a Parcel account, and that is not its password: choose \"I already have an account\" and enter the password you sign in with.",
        ),
        _ => None,
    }
}

/// A link's preview refused (an invitation's, a password reset's): why,
/// what to do next, "Try again" after a network failure, and "Sign in" when
/// the link was used, perhaps by this person (a full load, as from the login
/// page's sign-up link: no routes are mounted signed out).
pub fn refused_link<T: 'static>(
    error: ClientError,
    next: Option<&'static str>,
    used: bool,
    preview: LocalResource<T>,
) -> AnyView {
    let retry = matches!(error, ClientError::Network(_)).then(|| {
        view! { <button type="button" class="secondary" on:click=move |_| preview.refetch()>"Try again"</button> }
    });
    view! {
        {refused(error, next)}
        {retry}
        {used.then(|| view! { <p><a href="/" rel="external">"Sign in"</a></p> })}
    }
    .into_any()
}

#[component]
pub fn InvitePage() -> impl IntoView {
    let location = use_location();
    let token = Memo::new(move |_| location.hash.with(|h| fragment_token(h)));
    view! {
        <h1>"Accept an invitation"</h1>
        {move || match token.get() {
            None => view! {
                <p class="notice notice-warn">
                    "This page opens from an invitation link, which ends in #… after /invite. Open the whole link you were sent, or ask the admin who invited you to send it again."
                </p>
            }.into_any(),
            Some(token) => view! { <Invitation token /> }.into_any(),
        }}
    }
}

#[component]
fn Invitation(token: String) -> impl IntoView {
    let client = Client::get();
    let asked = token.clone();
    let preview = LocalResource::new(move || client.invite_preview(asked.clone()));
    move || match preview.get() {
        None => busy("Reading the invitation…"),
        Some(Err(error)) => {
            let next = invite_refusal(error.code());
            let used = error.code() == Some(&ErrorCode::EdgeInviteUsed);
            refused_link(error, next, used, preview)
        }
        Some(Ok(offer)) => view! { <JoinForm token=token.clone() offer /> }.into_any(),
    }
}

#[component]
fn JoinForm(token: String, offer: InvitePreview) -> impl IntoView {
    let client = Client::get();
    let navigate = use_navigate();
    let existing = RwSignal::new(false);
    let name = RwSignal::new(String::new());
    let email = RwSignal::new(String::new());
    let password = RwSignal::new(String::new());
    // Problems show from the first submit on, then follow the typing.
    let checked = RwSignal::new(false);
    let email_advice = Signal::derive(move || {
        checked
            .get()
            .then(|| email.with(|e| email_problem(e)))
            .flatten()
    });
    let new_password_problem = Signal::derive(move || {
        (checked.get() && !existing.get())
            .then(|| password.with(|p| password_problem(p)))
            .flatten()
    });
    let join = Write::new(move || {
        let (token, navigate) = (token.clone(), navigate.clone());
        async move {
            let typed_name = name.get_untracked().trim().to_string();
            let request = AcceptInvite {
                token,
                email: email.get_untracked().trim().to_string(),
                password: password.get_untracked(),
                name: (!existing.get_untracked() && !typed_name.is_empty()).then_some(typed_name),
            };
            client.accept_invite(request).await?;
            navigate("/", Default::default());
            Ok(())
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        checked.set(true);
        if email_advice.get_untracked().is_some() {
            focus("email");
        } else if new_password_problem.get_untracked().is_some() {
            focus("password");
        } else {
            join.submit();
        }
    };
    let choice = move |value: bool, text: &'static str| {
        view! {
            <label class="check">
                <input type="radio" name="account" prop:checked=move || existing.get() == value
                    on:change=move |_| { join.clear(); existing.set(value) } />
                {text}
            </label>
        }
    };
    let org = offer.org_name.clone();
    view! {
        <section class="card wide" aria-labelledby="offer">
            <p id="offer" class="lead">
                "Join " <strong>{offer.org_name.clone()}</strong> " as " <strong>{offer.role.as_str()}</strong>
                ", invited by " {offer.invited_by.clone()} "."
            </p>
            <p class="hint">{role_words(offer.role)} " The link works once and expires " <When unix=offer.expires_at /> "."</p>
        </section>
        <form class="account-form" on:submit=submit novalidate>
            <fieldset>
                <legend>"Your Parcel account"</legend>
                {choice(false, "I am new to Parcel")}
                {choice(true, "I already have an account")}
            </fieldset>
            {move || (!existing.get()).then(|| view! {
                <label for="name">"Your name (optional)"</label>
                <input id="name" name="name" autocomplete="name" aria-describedby="name-hint"
                    prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) />
                <p class="hint" id="name-hint">"How your colleagues see you; the first part of your email if empty."</p>
            })}
            <label for="email">"Email"</label>
            <input id="email" name="email" type="email" autocomplete="username" required
                aria-invalid=move || email_advice.get().map(|_| "true")
                aria-describedby=move || email_advice.get().map(|_| advice_id("email"))
                prop:value=move || email.get() on:input=move |ev| email.set(event_target_value(&ev)) />
            {advice("email".to_string(), move || email_advice.get())}
            {move || if existing.get() {
                view! { <PasswordInput id="password" label="Password" value=password autocomplete="current-password" /> }.into_any()
            } else {
                view! {
                    <PasswordInput id="password" label="Choose a password" value=password autocomplete="new-password"
                        hint="At least 12 characters: a few unrelated words work well." problem=new_password_problem />
                }.into_any()
            }}
            <button type="submit" disabled=move || join.pending()>
                {move || if join.pending() { "Joining…".to_string() } else { format!("Join {org}") }}
            </button>
        </form>
        {move || join.error().map(|error| {
            let next = invite_refusal(error.code());
            refused(error, next)
        })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_the_whole_fragment() {
        assert_eq!(fragment_token("#abc_DEF-1").as_deref(), Some("abc_DEF-1"));
        assert_eq!(fragment_token("abc").as_deref(), Some("abc"));
        assert_eq!(fragment_token("#"), None);
        assert_eq!(fragment_token(""), None);
        assert_eq!(fragment_token("# "), None);
    }

    #[test]
    fn every_refusal_of_a_link_says_what_to_do() {
        for code in [
            ErrorCode::EdgeInviteUnknown,
            ErrorCode::EdgeInviteExpired,
            ErrorCode::EdgeInviteUsed,
            ErrorCode::EdgeInviteRevoked,
        ] {
            assert!(
                invite_refusal(Some(&code))
                    .is_some_and(|t| t.contains("new link") || t.contains("new one")),
                "{code}"
            );
        }
        assert!(
            invite_refusal(Some(&ErrorCode::EdgeSignInFailed))
                .unwrap()
                .contains("already have an account")
        );
        // Its own message and the countdown say it all.
        assert_eq!(invite_refusal(Some(&ErrorCode::EdgePasswordWeak)), None);
        assert_eq!(invite_refusal(Some(&ErrorCode::EdgeSignInThrottled)), None);
        assert_eq!(invite_refusal(None), None);
    }
}
