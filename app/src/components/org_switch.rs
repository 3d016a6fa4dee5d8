use crate::state::session::OrgSwitch;
use api::orgs::{OrgId, OrgSummary};
use leptos::prelude::*;

/// With more than one organization, a labelled select of the person's
/// organizations and a "Switch" button (the shell names the current one):
/// choosing does nothing until the button (a select that acted on every
/// arrow key would switch through each organization on the way).
#[component]
pub fn OrgSwitcher(current: OrgSummary, orgs: Vec<OrgSummary>, switch: OrgSwitch) -> impl IntoView {
    (orgs.len() > 1).then(|| {
        let chosen = RwSignal::new(current.id.clone());
        let options = orgs
            .into_iter()
            .map(|o| {
                let selected = o.id == current.id;
                view! { <option value=o.id.to_string() selected=selected>{format!("{} · {}", o.name, o.role)}</option> }
            })
            .collect_view();
        let submit = move |ev: leptos::ev::SubmitEvent| {
            ev.prevent_default();
            let to = chosen.get_untracked();
            if to != current.id {
                switch.to(to);
            }
        };
        view! {
            <form class="org-switch" on:submit=submit>
                <label for="org">"Organization"</label>
                <select id="org" on:change=move |ev| {
                    if let Some(id) = OrgId::parse(&event_target_value(&ev)) {
                        chosen.set(id);
                    }
                }>{options}</select>
                <button type="submit" class="secondary small" disabled=move || switch.write.pending()>
                    {move || switch.write.label("Switch", "Switching…")}
                </button>
            </form>
        }
    })
}
