use crate::components::error_view::ErrorView;
use api::session::SessionInfo;
use api::{KeyEnv, Scope};
use leptos::prelude::*;
use leptos_router::components::A;

/// The signed-in frame: navigation, who is signed in, the live/sandbox
/// switch for admins, the sandbox banner and the key alert.
#[component]
pub fn Shell(
    session: SessionInfo,
    /// Switches the session's mode (admins, both keys configured).
    on_mode: Callback<KeyEnv>,
    on_sign_out: Callback<()>,
    /// The last mode switch or sign-out failure, if any.
    #[prop(into)]
    failure: Signal<Option<crate::api::ClientError>>,
    children: Children,
) -> impl IntoView {
    let sandbox = session.mode == KeyEnv::Sandbox;
    let other = if sandbox {
        KeyEnv::Live
    } else {
        KeyEnv::Sandbox
    };
    let switch_label = if sandbox {
        "Switch to live"
    } else {
        "Switch to sandbox"
    };
    let can_switch = session.can_switch_mode && session.modes.contains(&other);
    let key_alert = session.key_problem.clone().map(|code| {
        let text = if session.can_rotate_keys {
            format!("The API key was refused by the service ({code}). Rotate the key on the API status page.")
        } else {
            format!("The API key was refused by the service ({code}). Ask an admin to rotate it.")
        };
        view! { <p class="banner banner-danger" role="alert">{text}</p> }
    });
    let has = |scope: Scope| session.scopes.contains(&scope);
    let links = [
        ("/ship", "Ship", has(Scope::RatesRead)),
        ("/labels", "Labels", has(Scope::LabelsRead)),
        ("/tracking", "Tracking", has(Scope::TrackingRead)),
        (
            "/carriers",
            "Carrier accounts",
            has(Scope::CarrierAccountsRead),
        ),
        ("/wallet", "Wallet", has(Scope::WalletRead)),
        ("/webhooks", "Webhooks", has(Scope::LabelsRead)),
        ("/status", "API status", true),
    ]
    .into_iter()
    .filter(|(_, _, shown)| *shown)
    .map(|(href, text, _)| view! { <A href=href>{text}</A> })
    .collect_view();
    view! {
        <a class="skip-link" href="#main">"Skip to content"</a>
        {sandbox.then(|| view! {
            <p class="banner banner-sandbox" role="status">
                "Sandbox mode: labels are not mailable and nothing is charged."
            </p>
        })}
        {key_alert}
        <header class="topbar">
            <A href="/" attr:class="brand">"Parcel"</A>
            <nav aria-label="Main">{links}</nav>
            <div class="who">
                <span>{session.user.clone()} " · " {session.role.as_str()}</span>
                {can_switch.then(|| view! {
                    <button type="button" class="secondary" on:click=move |_| on_mode.run(other)>
                        {switch_label}
                    </button>
                })}
                <button type="button" class="secondary" on:click=move |_| on_sign_out.run(())>
                    "Sign out"
                </button>
            </div>
        </header>
        {move || failure.get().map(|error| view! { <div class="shell-error"><ErrorView error /></div> })}
        <main id="main" tabindex="-1">{children()}</main>
    }
}
