use crate::api::Client;
use crate::components::error_view::ErrorView;
use crate::components::org_switch::OrgSwitcher;
use crate::page_table::{Group, KEYS_PAGE, PAGES, no_key_yet};
use crate::state::session::{OrgSwitch, other_mode};
use crate::state::write::Write;
use api::KeyEnv;
use api::session::{Role, SessionInfo};
use leptos::prelude::*;
use leptos_router::components::A;

/// The signed-in frame: the organization, the person and the mode on every
/// page (the top bar); the menu of the pages the session may use in its
/// groups (a sidebar on a wide screen, behind the "Menu" button on a
/// phone, closed by following a link) with the organization switch, the
/// live/sandbox switch for admins and sign-out; the sandbox banner and the
/// key alert.
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
    // The phone's menu, closed again by a click on one of its links.
    let open = RwSignal::new(false);
    let mode = view! {
        <p class=if sandbox { "mode mode-sandbox" } else { "mode mode-live" } data-testid="mode">
            {if sandbox { "Sandbox mode" } else { "Live mode" }}
        </p>
    };
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
                    "Sandbox: test labels, nothing is charged."
                </p>
            }.into_any())
        }}
        {key_alert}
        <header class="topbar">
            <A href="/" attr:class="brand">"Parcel"</A>
            {mode}
            <p class="who">
                <span class="org">{format!("{} · {}", session.org.name, session.role)}</span>
                <span class="person">{session.user.clone()}</span>
            </p>
            <button type="button" class="secondary menu-button" aria-controls="menu"
                aria-expanded=move || open.get().to_string() on:click=move |_| open.update(|o| *o = !*o)>
                "Menu"
            </button>
        </header>
        <div class="frame">
            <nav id="menu" aria-label="Main" class="sidebar" class:open=move || open.get()>
                <div class="groups" on:click=move |_| open.set(false)>{menu(Client::get())}</div>
                <div class="account">
                    <OrgSwitcher current=session.org.clone() orgs=session.orgs.clone() switch=switch_org />
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
            </nav>
            <div class="content">
                {move || switch_mode.error().or_else(|| switch_org.write.error()).or_else(|| sign_out.error()).map(|error| view! {
                    <div class="shell-error"><ErrorView error /></div>
                })}
                <main id="main" tabindex="-1">{children()}</main>
            </div>
        </div>
    }
}

/// The menu's groups, each with the pages of it the session may use (a
/// group with none is left out).
fn menu(client: Client) -> impl IntoView {
    Group::ALL
        .into_iter()
        .filter_map(|group| {
            let links: Vec<_> = PAGES
                .iter()
                .filter(|page| page.menu == Some(group) && page.allowed(client))
                .map(|page| view! { <li><A href=page.path>{page.title}</A></li> })
                .collect();
            (!links.is_empty()).then(|| {
                view! {
                    <p class="nav-group" id=group.id()>{group.heading()}</p>
                    <ul aria-labelledby=group.id()>{links}</ul>
                }
            })
        })
        .collect_view()
}
