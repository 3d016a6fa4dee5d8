use crate::components::field::{advice, advice_id};
use leptos::prelude::*;

/// A password input with "Show password" (there is no reset by email: a
/// new password typed wrong needs an admin's reset link), an optional hint, and its problem
/// under it once `problem` has one.
#[component]
pub fn PasswordInput(
    id: &'static str,
    label: &'static str,
    value: RwSignal<String>,
    /// `current-password` to sign in, `new-password` to choose one.
    autocomplete: &'static str,
    #[prop(optional)] hint: Option<&'static str>,
    #[prop(optional, into)] problem: Option<Signal<Option<String>>>,
) -> impl IntoView {
    let shown = RwSignal::new(false);
    let problem = move || problem.and_then(|p| p.get());
    let hint_id = format!("{id}-hint");
    let described_by = {
        let hint_id = hint_id.clone();
        move || match (problem(), hint) {
            (Some(_), _) => Some(advice_id(id)),
            (None, Some(_)) => Some(hint_id.clone()),
            (None, None) => None,
        }
    };
    view! {
        <label for=id>{label}</label>
        <input
            id=id
            name=id
            type=move || if shown.get() { "text" } else { "password" }
            autocomplete=autocomplete
            required
            spellcheck="false"
            aria-invalid=move || problem().map(|_| "true")
            aria-describedby=described_by
            prop:value=move || value.get()
            on:input=move |ev| value.set(event_target_value(&ev))
        />
        {hint.map(|text| view! { <p class="hint" id=hint_id.clone()>{text}</p> })}
        {advice(id.to_string(), problem)}
        <label class="check">
            <input type="checkbox" prop:checked=move || shown.get()
                on:change=move |ev| shown.set(event_target_checked(&ev)) />
            "Show password"
        </label>
    }
}
