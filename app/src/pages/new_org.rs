//! `/new-org#{token}`: a new organization and its first admin, from the
//! one-time setup link `scripts/new-org` prints; `/new-org` alone where the
//! deployment opened sign-up (`OPEN_SIGNUP`). Open to anyone.

use super::invite::{email_problem, fragment_token};
use crate::api::Client;
use crate::components::error_view::refused;
use crate::components::field::{advice, advice_id, focus};
use crate::components::loader::{busy, failed};
use crate::components::password::PasswordInput;
use crate::state::write::Write;
use api::ErrorCode;
use api::orgs::{CreateOrg, password_problem};
use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_navigate};

/// What a refused setup asks of the person.
pub fn setup_refusal(code: Option<&ErrorCode>) -> Option<&'static str> {
    match code? {
        ErrorCode::EdgeOrgSetupInvalid => Some(
            "This setup link has expired or was already used: each works once. Whoever runs Parcel makes a new one with scripts/new-org.",
        ),
        ErrorCode::EdgeOrgSignupClosed => Some(
            "This deployment makes organizations only from setup links: ask whoever runs Parcel for one (scripts/new-org).",
        ),
        ErrorCode::EdgeSignInFailed => Some(
            "This email already has a Parcel account, and that is not its password: enter the password you sign in with, or use another email.",
        ),
        _ => None,
    }
}

/// The first field without an acceptable value, with what to do about it.
fn problem(field: &str, org: &str, name: &str, email: &str, password: &str) -> Option<String> {
    match field {
        "org-name" if org.trim().is_empty() => {
            Some("Name the organization, as your team knows it.".into())
        }
        "name" if name.trim().is_empty() => {
            Some("Enter your name, as colleagues will see it.".into())
        }
        "email" => email_problem(email),
        "password" => password_problem(password),
        _ => None,
    }
}

const FIELDS: [&str; 4] = ["org-name", "name", "email", "password"];

#[component]
pub fn NewOrgPage() -> impl IntoView {
    let location = use_location();
    let token = Memo::new(move |_| location.hash.with(|h| fragment_token(h)));
    view! {
        <h1>"Create your organization"</h1>
        {move || match token.get() {
            None => view! { <OpenSignup /> }.into_any(),
            Some(setup) => view! { <SetupForm setup /> }.into_any(),
        }}
    }
}

/// Without a link: the form where sign-up is open, else where links come from.
#[component]
fn OpenSignup() -> impl IntoView {
    let client = Client::get();
    let signup = LocalResource::new(move || client.signup());
    let retry = Callback::new(move |()| signup.refetch());
    move || {
        match signup.get() {
        None => busy("Loading…"),
        Some(Err(error)) => failed(error, retry),
        Some(Ok(s)) if s.open => view! { <SetupForm setup=String::new() /> }.into_any(),
        Some(Ok(_)) => view! {
            <p class="notice notice-warn">
                "This page opens from a setup link, which ends in #… after /new-org. Whoever runs Parcel makes one with scripts/new-org."
            </p>
        }
        .into_any(),
    }
    }
}

#[component]
fn SetupForm(setup: String) -> impl IntoView {
    let client = Client::get();
    let navigate = use_navigate();
    let values = FIELDS.map(|_| RwSignal::new(String::new()));
    let [org, name, email, password] = values;
    let checked = RwSignal::new(false);
    let problem_of = move |field: &'static str| {
        Signal::derive(move || {
            if !checked.get() {
                return None;
            }
            let [o, n, e, p] = values.map(|v| v.get());
            problem(field, &o, &n, &e, &p)
        })
    };
    let create = Write::new(move || {
        let (setup, navigate) = (setup.clone(), navigate.clone());
        async move {
            let request = CreateOrg {
                setup,
                org_name: org.get_untracked().trim().to_string(),
                name: name.get_untracked().trim().to_string(),
                email: email.get_untracked().trim().to_string(),
                password: password.get_untracked(),
            };
            client.create_org(request).await?;
            navigate("/", Default::default());
            Ok(())
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        checked.set(true);
        let [o, n, e, p] = values.map(|v| v.get_untracked());
        match FIELDS
            .into_iter()
            .find(|f| problem(f, &o, &n, &e, &p).is_some())
        {
            Some(first) => focus(first),
            None => create.submit(),
        }
    };
    let text_field = move |id: &'static str,
                           label: &'static str,
                           value: RwSignal<String>,
                           kind: &'static str,
                           autocomplete: &'static str| {
        let problem = problem_of(id);
        view! {
            <label for=id>{label}</label>
            <input id=id name=id type=kind autocomplete=autocomplete required
                aria-invalid=move || problem.get().map(|_| "true")
                aria-describedby=move || problem.get().map(|_| advice_id(id))
                prop:value=move || value.get() on:input=move |ev| value.set(event_target_value(&ev)) />
            {advice(id.to_string(), move || problem.get())}
        }
    };
    view! {
        <p>"This link makes a new organization on Parcel with you as its first admin. It works once."</p>
        <form class="account-form" on:submit=submit novalidate>
            {text_field("org-name", "Organization name", org, "text", "organization")}
            {text_field("name", "Your name", name, "text", "name")}
            {text_field("email", "Email", email, "email", "username")}
            <PasswordInput id="password" label="Choose a password" value=password autocomplete="new-password"
                hint="At least 12 characters: a few unrelated words work well." problem=problem_of("password") />
            <button type="submit" disabled=move || create.pending()>
                {move || create.label("Create organization", "Creating…")}
            </button>
        </form>
        {move || create.error().map(|error| {
            let next = setup_refusal(error.code());
            refused(error, next)
        })}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_field_says_what_it_needs_in_the_form_order() {
        let first = |o: &str, n: &str, e: &str, p: &str| {
            FIELDS
                .into_iter()
                .find(|f| problem(f, o, n, e, p).is_some())
        };
        let good = ("Acme", "Ada", "ada@example.com", "correct horse battery");
        assert_eq!(first(good.0, good.1, good.2, good.3), None);
        assert_eq!(first(" ", good.1, good.2, good.3), Some("org-name"));
        assert_eq!(first(good.0, "", "nope", good.3), Some("name"));
        assert_eq!(first(good.0, good.1, "nope", good.3), Some("email"));
        assert_eq!(first(good.0, good.1, good.2, "short"), Some("password"));
    }

    #[test]
    fn a_spent_link_says_how_to_get_another() {
        assert!(
            setup_refusal(Some(&ErrorCode::EdgeOrgSetupInvalid))
                .unwrap()
                .contains("scripts/new-org")
        );
        assert_eq!(setup_refusal(Some(&ErrorCode::EdgePasswordWeak)), None);
    }
}
