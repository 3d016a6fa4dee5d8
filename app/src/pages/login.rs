use super::chunks::Load;
use crate::api::{Client, ClientError};
use crate::components::error_view::ErrorView;
use crate::components::field::focus;
use crate::state::stored;
use crate::state::write::Write;
use api::orgs::PasswordSignIn;
use leptos::prelude::*;
use std::future::Future;
use std::pin::Pin;

/// A passkey sign-in: the browser's prompt and the Worker's check.
pub type PasskeySignIn = fn(Client) -> Pin<Box<dyn Future<Output = Result<(), ClientError>>>>;

/// The login page's chunk, as the bin (`main.rs`) declares it: the passkey
/// sign-in, fetched on its button's first click.
#[derive(Clone, Copy)]
pub struct LoginChunks {
    pub passkey_sign_in: Load<PasskeySignIn>,
}

/// Whether this browser last signed in with an access token: the page
/// opens on that form again.
const TOKEN_LAST: &str = "parcel.sign-in.token";

/// Sign-in with email and password, or with an access token (scripts, a
/// deployment whose people are configured as tokens). Either goes to the
/// Worker once; the browser keeps only the HttpOnly session cookie. A
/// throttled sign-in (`EDGE.SIGN_IN.THROTTLED`) counts down in the error
/// view. One form whose other way is hidden, not rebuilt: the page is in
/// every first load. A passkey signs in without either (discoverable
/// credentials: the browser offers the passkeys it holds for the site).
#[component]
pub fn LoginPage() -> impl IntoView {
    let client = Client::get();
    let by_token = RwSignal::new(stored::load::<bool>(TOKEN_LAST));
    let email = RwSignal::new(String::new());
    let password = RwSignal::new(String::new());
    let token = RwSignal::new(String::new());
    let sign_in = Write::new(move || async move {
        // Read before the call: a session replaces this page.
        let with_token = by_token.get_untracked();
        let signed_in = if with_token {
            let typed = token.get_untracked().trim().to_string();
            client.sign_in(typed).await.map(drop)
        } else {
            let request = PasswordSignIn {
                email: email.get_untracked().trim().to_string(),
                password: password.get_untracked(),
            };
            client.sign_in_password(request).await
        };
        if signed_in.is_ok() {
            stored::store(TOKEN_LAST, &with_token);
        }
        signed_in
    });
    // Its code is a chunk: most sign-ins never use it.
    let passkey = expect_context::<LoginChunks>().passkey_sign_in;
    let with_passkey = Write::new(move || async move {
        let sign_in = passkey()
            .await
            .map_err(|e| ClientError::Network(e.to_string()))?;
        let signed_in = sign_in(client).await;
        if signed_in.is_ok() {
            stored::store(TOKEN_LAST, &false);
        }
        signed_in
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let filled = if by_token.get_untracked() {
            !token.get_untracked().trim().is_empty()
        } else {
            !email.get_untracked().trim().is_empty() && !password.get_untracked().is_empty()
        };
        if filled {
            with_passkey.clear();
            sign_in.submit();
        }
    };
    let other_way = move |_| {
        sign_in.clear();
        with_passkey.clear();
        by_token.update(|t| *t = !*t);
        let first = if by_token.get_untracked() {
            "token"
        } else {
            "email"
        };
        // Once the other way is shown: a hidden input takes no focus.
        request_animation_frame(move || focus(first));
    };
    let input =
        move |ev: leptos::ev::Event, value: RwSignal<String>| value.set(event_target_value(&ev));
    // "Create an organization" only where anyone may (elsewhere the link
    // would end at "ask for a setup link"). A signal set once, not a
    // resource: this page is in every first load.
    let open_signup = RwSignal::new(false);
    leptos::task::spawn_local(async move {
        if let Ok(signup) = client.signup().await {
            open_signup.try_set(signup.open);
        }
    });
    view! {
        <section class="login card" aria-labelledby="login-title">
            <h1 id="login-title">"Sign in to Parcel"</h1>
            <form on:submit=submit>
                <div hidden=move || by_token.get()>
                    <label for="email">"Email"</label>
                    <input id="email" name="email" type="email" autocomplete="username"
                        required=move || !by_token.get()
                        prop:value=move || email.get() on:input=move |ev| input(ev, email) />
                    <label for="password">"Password"</label>
                    <input id="password" name="password" type="password" autocomplete="current-password"
                        required=move || !by_token.get()
                        prop:value=move || password.get() on:input=move |ev| input(ev, password) />
                </div>
                <div hidden=move || !by_token.get()>
                    <label for="token">"Access token"</label>
                    <input id="token" name="token" type="password" autocomplete="off" aria-describedby="token-hint"
                        required=move || by_token.get()
                        prop:value=move || token.get() on:input=move |ev| input(ev, token) />
                    <p class="hint" id="token-hint">"For scripts: your own starts with parcel_pat_ (made on the Access tokens page), one an administrator gave you with pt_."</p>
                </div>
                <button type="submit" disabled=move || sign_in.pending()>
                    {move || sign_in.label("Sign in", "Signing in…")}
                </button>
            </form>
            <p hidden=move || by_token.get()>
                <button type="button" class="secondary" disabled=move || with_passkey.pending()
                    on:click=move |_| { sign_in.clear(); with_passkey.submit() }>
                    {move || with_passkey.label("Sign in with a passkey", "Waiting for your passkey…")}
                </button>
            </p>
            // No e-mail is sent: the way back is an admin's reset link.
            <details class="forgot">
                <summary>"Forgot password?"</summary>
                <p>"No e-mail is sent: ask an admin of your organization for a password reset link (Team page). A passkey still signs you in."</p>
            </details>
            <p>
                <button type="button" class="link" on:click=other_way>
                    {move || if by_token.get() { "Use email and password" } else { "Use an access token" }}
                </button>
            </p>
            {move || sign_in.error().or_else(|| with_passkey.error()).map(|error| view! { <ErrorView error /> })}
            // rel=external, a full load: signed out, no routes are mounted
            // to finish a router navigation, and the address would stay `/`.
            <p hidden=move || !open_signup.get()>"New to Parcel? " <a href="/new-org" rel="external">"Create an organization"</a></p>
        </section>
    }
}
