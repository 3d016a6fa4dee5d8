use crate::components::field::focus;
use crate::state::session::OrgSwitch;
use api::orgs::OrgSummary;
use api::session::Role;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

const TOGGLE: &str = "org-switch";

/// The session's organization and the person's role in it. With more than
/// one organization, a disclosure menu of the others: a button opens the
/// list, choosing one switches, Escape or leaving the menu closes it.
#[component]
pub fn OrgSwitcher(
    current: OrgSummary,
    /// The session's role in `current`.
    role: Role,
    orgs: Vec<OrgSummary>,
    switch: OrgSwitch,
) -> impl IntoView {
    let here = format!("{} · {role}", current.name);
    let others: Vec<OrgSummary> = orgs.into_iter().filter(|o| o.id != current.id).collect();
    if others.is_empty() {
        return view! {
            <span class="org"><span class="visually-hidden">"Organization: "</span>{here}</span>
        }
        .into_any();
    }
    let open = RwSignal::new(false);
    let close = move || {
        open.set(false);
        focus(TOGGLE);
    };
    let items = others
        .into_iter()
        .map(|o| {
            let name = format!("{} · {}", o.name, o.role);
            let id = o.id.clone();
            let busy = move || switch.pending_to().as_ref() == Some(&o.id);
            view! {
                <li>
                    <button type="button" class="secondary" disabled=move || switch.write.pending()
                        on:click=move |_| switch.to(id.clone())>
                        {move || if busy() { format!("Switching to {name}…") } else { name.clone() }}
                    </button>
                </li>
            }
        })
        .collect_view();
    view! {
        <div
            class="org-switch"
            on:keydown=move |ev| {
                if ev.key() == "Escape" && open.get_untracked() {
                    close();
                }
            }
            on:focusout=move |ev| {
                // Closes once focus has left the menu, not when it moves inside it.
                let inside = ev
                    .related_target()
                    .and_then(|t| t.dyn_into::<web_sys::Node>().ok())
                    .zip(ev.current_target().and_then(|t| t.dyn_into::<web_sys::Node>().ok()))
                    .is_some_and(|(to, menu)| menu.contains(Some(&to)));
                if !inside {
                    open.set(false);
                }
            }
        >
            <button
                type="button"
                id=TOGGLE
                class="secondary"
                aria-expanded=move || open.get().to_string()
                aria-controls="org-menu"
                on:click=move |_| open.update(|o| *o = !*o)
            >
                <span class="visually-hidden">"Organization: "</span>
                {here}
                <span aria-hidden="true">" ▾"</span>
            </button>
            <ul id="org-menu" class="org-menu" aria-label="Switch to" hidden=move || !open.get()>
                {items}
            </ul>
        </div>
    }
    .into_any()
}
