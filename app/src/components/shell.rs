use crate::api::Client;
use crate::components::error_view::ErrorView;
use crate::components::org_switch::OrgSwitcher;
use crate::page_table::{KEYS_PAGE, PAGES, no_key_yet};
use crate::state::session::{OrgSwitch, other_mode};
use crate::state::write::Write;
use api::KeyEnv;
use api::session::{Role, SessionInfo};
use leptos::prelude::*;
use leptos_router::components::A;

/// The signed-in frame: the menu of the pages the session may use, the
/// organization (and the switch to the person's others), who is signed
/// in, the live/sandbox switch for admins, the sandbox banner and the key
/// alert.
#[component]
pub fn Shell(
    session: SessionInfo,
    /// Switches the session's mode (admins, both keys configured).
    switch_mode: Write,
    switch_org: OrgSwitch,
    sign_out: Write,
    children: Children,
) -> impl IntoView {
    let sandbox = session.mode == KeyEnv::Sandbox;
    let other = other_mode(session.mode);
    let switch_label = if sandbox {
        "Switch to live"
    } else {
        "Switch to sandbox"
    };
    let can_switch = session.can_switch_mode && session.modes.contains(&other);
    let key_alert = session.key_problem.clone().map(|code| {
        let text = if session.can_rotate_keys {
            let page = if session.org.id.is_deployment() { "API status" } else { "API keys" };
            format!("The API key was refused by the service ({code}). Rotate the key on the {page} page.")
        } else {
            format!("The API key was refused by the service ({code}). Ask an admin to rotate it.")
        };
        view! { <p class="banner banner-danger" role="alert">{text}</p> }
    });
    let client = Client::get();
    let links = PAGES
        .iter()
        .filter(|page| page.in_menu && page.allowed(client))
        .map(|page| view! { <A href=page.path>{page.title}</A> })
        .collect_view();
    view! {
        <a class="skip-link" href="#main">"Skip to content"</a>
        {if session.modes.is_empty() {
            // Its admins enter the keys; the deployment's are Worker secrets.
            let to_keys = session.role == Role::Admin && !session.org.id.is_deployment();
            let next = no_key_yet(&session);
            Some(view! {
                <p class="banner banner-sandbox" role="status">
                    "No API key yet: this organization cannot ship until its keys are entered. "
                    {if to_keys {
                        view! { <A href=KEYS_PAGE>"Enter the API keys"</A> }.into_any()
                    } else {
                        next.into_any()
                    }}
                </p>
            }.into_any())
        } else {
            sandbox.then(|| view! {
                <p class="banner banner-sandbox" role="status">
                    "Sandbox mode: labels are not mailable and nothing is charged."
                </p>
            }.into_any())
        }}
        {key_alert}
        <header class="topbar">
            <A href="/" attr:class="brand">"Parcel"</A>
            <nav aria-label="Main">{links}</nav>
            <div class="who">
                <OrgSwitcher current=session.org.clone() role=session.role orgs=session.orgs.clone() switch=switch_org />
                <span>{session.user.clone()}</span>
                {can_switch.then(|| view! {
                    <button type="button" class="secondary" disabled=move || switch_mode.pending()
                        on:click=move |_| switch_mode.submit()>
                        {move || switch_mode.label(switch_label, "Switching…")}
                    </button>
                })}
                <button type="button" class="secondary" disabled=move || sign_out.pending()
                    on:click=move |_| sign_out.submit()>
                    {move || sign_out.label("Sign out", "Signing out…")}
                </button>
            </div>
        </header>
        {move || switch_mode.error().or_else(|| switch_org.write.error()).or_else(|| sign_out.error()).map(|error| view! {
            <div class="shell-error"><ErrorView error /></div>
        })}
        <main id="main" tabindex="-1">{children()}</main>
    }
}
