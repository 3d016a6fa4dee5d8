//! `/reset#{token}`: a password reset link an admin made (no e-mail is
//! sent): whose password it sets, then the new password, and the person
//! is signed in. Open to anyone; the link works once, for a day.

use super::invite::{fragment_token, refused_link};
use crate::api::Client;
use crate::components::dates::When;
use crate::components::error_view::refused;
use crate::components::field::focus;
use crate::components::loader::busy;
use crate::components::password::PasswordInput;
use crate::state::write::Write;
use api::ErrorCode;
use api::orgs::{ResetPreview, UseReset, password_problem};
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_navigate};

/// What a refused reset link asks of the person.
pub fn reset_refusal(code: Option<&ErrorCode>) -> Option<&'static str> {
    match code? {
        ErrorCode::EdgeResetUnknown | ErrorCode::EdgeResetExpired | ErrorCode::EdgeResetUsed => {
            Some("Ask the admin who gave you this link for a new one.")
        }
        _ => None,
    }
}

#[component]
pub fn ResetPage() -> impl IntoView {
    let location = use_location();
    let token = Memo::new(move |_| location.hash.with(|h| fragment_token(h)));
    view! {
        <h1>"Set a new password"</h1>
        {move || match token.get() {
            None => view! {
                <p class="notice notice-warn">
                    "This page opens from a password reset link, which ends in #… after /reset. Open the whole link an admin of your organization gave you, or ask them for a new one."
                </p>
            }.into_any(),
            Some(token) => view! { <Reset token /> }.into_any(),
        }}
    }
}

#[component]
fn Reset(token: String) -> impl IntoView {
    let client = Client::get();
    let asked = token.clone();
    let preview = LocalResource::new(move || client.reset_preview(asked.clone()));
    move || match preview.get() {
        None => busy("Reading the link…"),
        Some(Err(error)) => {
            let next = reset_refusal(error.code());
            let used = error.code() == Some(&ErrorCode::EdgeResetUsed);
            refused_link(error, next, used, preview)
        }
        Some(Ok(found)) => view! { <NewPassword token=token.clone() found /> }.into_any(),
    }
}

#[component]
fn NewPassword(token: String, found: ResetPreview) -> impl IntoView {
    let client = Client::get();
    let navigate = use_navigate();
    let password = RwSignal::new(String::new());
    // Problems show from the first submit on, then follow the typing.
    let checked = RwSignal::new(false);
    let problem = Signal::derive(move || {
        checked
            .get()
            .then(|| password.with(|p| password_problem(p)))
            .flatten()
    });
    let set = Write::new(move || {
        let (token, navigate) = (token.clone(), navigate.clone());
        async move {
            let request = UseReset {
                token,
                password: password.get_untracked(),
            };
            client.use_reset(request).await?;
            navigate("/", Default::default());
            Ok(())
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        checked.set(true);
        if problem.get_untracked().is_some() {
            focus("password");
        } else {
            set.submit();
        }
    };
    view! {
        <section class="card wide" aria-labelledby="whose">
            <p id="whose" class="lead">
                "A new password for " <strong>{found.name.clone()}</strong> " (" {found.email.clone()} ") in "
                <strong>{found.org_name.clone()}</strong> "."
            </p>
            <p class="hint">"The link works once and expires " <When unix=found.expires_at />
                ". The password is your account's: it signs you in to every organization you belong to."</p>
        </section>
        <form class="account-form" on:submit=submit novalidate>
            // For password managers: the account the new password is for.
            <input type="email" name="email" autocomplete="username" hidden readonly prop:value=found.email.clone() />
            <PasswordInput id="password" label="New password" value=password autocomplete="new-password"
                hint="At least 12 characters: a few unrelated words work well." problem />
            <button type="submit" disabled=move || set.pending()>
                {move || set.label("Set password and sign in", "Setting…")}
            </button>
        </form>
        {move || set.error().map(|error| {
            let next = reset_refusal(error.code());
            refused(error, next)
        })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_of_a_reset_link_asks_for_a_new_one() {
        for code in [
            ErrorCode::EdgeResetUnknown,
            ErrorCode::EdgeResetExpired,
            ErrorCode::EdgeResetUsed,
        ] {
            assert!(
                reset_refusal(Some(&code)).is_some_and(|t| t.contains("new one")),
                "{code}"
            );
        }
        // Its own message says it all.
        assert_eq!(reset_refusal(Some(&ErrorCode::EdgePasswordWeak)), None);
        assert_eq!(reset_refusal(None), None);
    }
}
