//! Addresses & packages: the organization's saved ship-from addresses (one
//! the default, which Ship and Batches preselect) and its package presets
//! (which fill a parcel's size and weight). Every member sees them; admins
//! and operators change them (`api::presets`).

use crate::api::{Client, ClientError};
use crate::components::address_form::{AddressForm, blank_address, first_problem, one_line};
use crate::components::error_view::ErrorView;
use crate::components::field::{advice, advice_id, focus};
use crate::components::loader::Loader;
use crate::components::parcel_form::{ParcelDraft, ParcelForm, WeightUnit, describe_package};
use crate::state::write::Write;
use api::presets::{
    AddressInput, NAME_MAX_CHARS, PackageInput, PackageList, PackagePreset, SavedAddress,
    SavedAddressList, name_problem,
};
use api::session::Role;
use api::{ErrorCode, FieldProblem};
use leptos::prelude::*;

/// What to do about a label or a preset's name, in plain words.
pub fn name_advice(noun: &str, typed: &str) -> Option<String> {
    name_problem(typed).map(|problem| match problem {
        FieldProblem::Missing => format!("Enter a {noun}, such as “Main warehouse”"),
        FieldProblem::TooLong { .. } => {
            format!("Shorten the {noun} to at most {NAME_MAX_CHARS} characters")
        }
        FieldProblem::Invalid(reason) => format!("The {noun} {reason}"),
    })
}

/// What a refused change asks of the person.
pub fn refusal_advice(code: Option<&ErrorCode>) -> Option<&'static str> {
    match code? {
        ErrorCode::EdgeSavedNotFound => {
            Some("Someone else deleted it meanwhile: the list below is current.")
        }
        ErrorCode::EdgeSavedLimitReached => Some("Delete one that is no longer used first."),
        _ => None,
    }
}

fn blank_parcel() -> ParcelDraft {
    ParcelDraft {
        weight: String::new(),
        unit: WeightUnit::Oz,
        length: String::new(),
        width: String::new(),
        height: String::new(),
    }
}

/// A label or name input with its advice under it.
fn name_input(
    id: &'static str,
    label: &'static str,
    noun: &'static str,
    value: RwSignal<String>,
    shown: RwSignal<bool>,
) -> impl IntoView {
    let problem = move || {
        shown
            .get()
            .then(|| value.with(|v| name_advice(noun, v)))
            .flatten()
    };
    view! {
        <div class="field">
            <label for=id>{label}</label>
            <input
                id=id
                type="text"
                required
                maxlength=NAME_MAX_CHARS.to_string()
                aria-invalid=move || problem().map(|_| "true")
                aria-describedby=move || problem().map(|_| advice_id(id))
                prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))
            />
            {advice(id.to_string(), problem)}
        </div>
    }
}

fn refused(error: ClientError) -> impl IntoView {
    let next = refusal_advice(error.code());
    view! {
        <ErrorView error />
        {next.map(|n| view! { <p class="hint">{n}</p> })}
    }
}

#[component]
pub fn PresetsPage() -> impl IntoView {
    let client = Client::get();
    let editor = client
        .session
        .with_untracked(|s| s.as_ref().is_some_and(|s| s.role != Role::Viewer));
    view! {
        <h1>"Addresses & packages"</h1>
        <p class="hint">
            "Ship and Batches offer these to everyone in the organization: the default address is preselected as the sender, and a preset fills a parcel's size and weight."
        </p>
        {(!editor).then(|| view! {
            <p class="notice" data-testid="read-only">"Your role can use these but not change them: ask an admin or an operator."</p>
        })}
        <Addresses editor />
        <Packages editor />
    }
}

#[component]
fn Addresses(editor: bool) -> impl IntoView {
    let client = Client::get();
    let list = LocalResource::new(move || client.saved_addresses());
    // The entry being changed (`None`: a new one).
    let editing = RwSignal::new(None::<String>);
    let label = RwSignal::new(String::new());
    let address = RwSignal::new(blank_address());
    let default = RwSignal::new(false);
    let shown = RwSignal::new(false);
    let reset = move || {
        editing.set(None);
        label.set(String::new());
        address.set(blank_address());
        default.set(false);
        shown.set(false);
    };
    let save = Write::new(move || async move {
        let input = AddressInput {
            label: label.get_untracked(),
            address: address.get_untracked(),
            default: default.get_untracked(),
        };
        client.save_address(editing.get_untracked(), &input).await?;
        reset();
        list.refetch();
        Ok(())
    });
    // A change to one entry: make it the default, or delete it.
    let target = RwSignal::new(None::<(String, bool)>);
    let act = Write::new(move || async move {
        let Some((id, delete)) = target.get_untracked() else {
            return Ok(());
        };
        let answer = if delete {
            client.delete_address(id).await
        } else {
            client.make_default_address(id).await
        };
        list.refetch();
        answer.map(|_| ())
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        shown.set(true);
        if name_advice("label", &label.get_untracked()).is_some() {
            return focus("address-label");
        }
        match first_problem("saved", &address.get_untracked()) {
            Some(id) => focus(&id),
            None => save.submit(),
        }
    };
    let edit = move |a: SavedAddress| {
        label.set(a.label);
        address.set(a.address);
        default.set(a.default);
        editing.set(Some(a.id));
        focus("address-label");
    };
    let row = move |a: SavedAddress| {
        let (id, id2, name) = (a.id.clone(), a.id.clone(), a.label.clone());
        let is_default = a.default;
        let text = one_line(&a.address);
        let (edit_label, delete_label) = (format!("Edit {name}"), format!("Delete {name}"));
        view! {
            <tr>
                <th scope="row">{name.clone()}</th>
                <td>{text}</td>
                <td>{is_default.then(|| view! { <span class="badge badge-good">"Default"</span> })}</td>
                {editor.then(|| view! {
                    <td class="actions">
                        {(!is_default).then(|| view! {
                            <button type="button" class="secondary" aria-label=format!("Make {name} the default")
                                on:click=move |_| { target.set(Some((id.clone(), false))); act.submit(); }>"Make default"</button>
                        })}
                        <button type="button" class="secondary" aria-label=edit_label
                            on:click=move |_| edit(a.clone())>"Edit"</button>
                        <button type="button" class="secondary" aria-label=delete_label
                            on:click=move |_| { target.set(Some((id2.clone(), true))); act.submit(); }>"Delete"</button>
                    </td>
                })}
            </tr>
        }
    };
    view! {
        <section aria-labelledby="addresses-title">
            <h2 id="addresses-title">"Ship-from addresses"</h2>
            <Loader resource=list loading="Loading addresses…" let:found>
                {address_table(found, editor, row)}
            </Loader>
            {move || act.error().map(refused)}
            {editor.then(|| view! {
                <form class="preset-form" on:submit=on_submit novalidate aria-labelledby="address-form-title">
                    <h3 id="address-form-title">{move || if editing.with(Option::is_some) { "Change the address" } else { "Add an address" }}</h3>
                    {name_input("address-label", "Label", "label", label, shown)}
                    <AddressForm legend="Address" prefix="saved" address on_edit=Callback::new(|()| {}) show_problems=shown />
                    <div class="field checkbox">
                        <input id="address-default" type="checkbox" prop:checked=move || default.get()
                            on:change=move |ev| default.set(event_target_checked(&ev)) />
                        <label for="address-default">"The default sender"</label>
                    </div>
                    <button type="submit" class="primary" disabled=move || save.pending()>
                        {move || save.label("Save address", "Saving…")}
                    </button>
                    {move || editing.with(Option::is_some).then(|| view! {
                        <button type="button" class="secondary" on:click=move |_| reset()>"Cancel"</button>
                    })}
                    {move || save.error().map(refused)}
                </form>
            })}
        </section>
    }
}

fn address_table<V: IntoView>(
    found: SavedAddressList,
    editor: bool,
    row: impl Fn(SavedAddress) -> V,
) -> AnyView {
    if found.addresses.is_empty() {
        return view! { <p>"No saved addresses yet."</p> }.into_any();
    }
    view! {
        <div class="table-wrap">
            <table class="wrap-words">
                <caption class="visually-hidden">"Saved ship-from addresses"</caption>
                <thead><tr>
                    <th scope="col">"Label"</th><th scope="col">"Address"</th><th scope="col">"Default"</th>
                    {editor.then(|| view! { <th scope="col"><span class="visually-hidden">"Actions"</span></th> })}
                </tr></thead>
                <tbody>{found.addresses.into_iter().map(row).collect_view()}</tbody>
            </table>
        </div>
    }
    .into_any()
}

#[component]
fn Packages(editor: bool) -> impl IntoView {
    let client = Client::get();
    let list = LocalResource::new(move || client.packages());
    let editing = RwSignal::new(None::<String>);
    let name = RwSignal::new(String::new());
    let parcel = RwSignal::new(blank_parcel());
    let shown = RwSignal::new(false);
    let reset = move || {
        editing.set(None);
        name.set(String::new());
        parcel.set(blank_parcel());
        shown.set(false);
    };
    let save = Write::new(move || async move {
        let Some(p) = parcel.get_untracked().to_parcel() else {
            return Ok(());
        };
        let input = PackageInput {
            name: name.get_untracked(),
            parcel: p,
        };
        client.save_package(editing.get_untracked(), &input).await?;
        reset();
        list.refetch();
        Ok(())
    });
    let deleting = RwSignal::new(None::<String>);
    let delete = Write::new(move || async move {
        let Some(id) = deleting.get_untracked() else {
            return Ok(());
        };
        let answer = client.delete_package(id).await;
        list.refetch();
        answer.map(|_| ())
    });
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        shown.set(true);
        if name_advice("name", &name.get_untracked()).is_some() {
            return focus("package-name");
        }
        match parcel.with_untracked(|p| p.problems().first().map(|(f, _)| f.id())) {
            Some(id) => focus(id),
            None => save.submit(),
        }
    };
    let row = move |p: PackagePreset| {
        let id = p.id.clone();
        let text = describe_package(&p);
        let edit = p.clone();
        view! {
            <li>
                <span>{text}</span>
                {editor.then(|| view! {
                    <button type="button" class="secondary" aria-label=format!("Edit {}", p.name)
                        on:click=move |_| {
                            name.set(edit.name.clone());
                            parcel.set(ParcelDraft::from_parcel(&edit.parcel));
                            editing.set(Some(edit.id.clone()));
                            focus("package-name");
                        }>"Edit"</button>
                    <button type="button" class="secondary" aria-label=format!("Delete {}", p.name)
                        on:click=move |_| { deleting.set(Some(id.clone())); delete.submit(); }>"Delete"</button>
                })}
            </li>
        }
    };
    view! {
        <section aria-labelledby="packages-title">
            <h2 id="packages-title">"Package presets"</h2>
            <Loader resource=list loading="Loading package presets…" let:found>
                {package_list(found, row)}
            </Loader>
            {move || delete.error().map(refused)}
            {editor.then(|| view! {
                <form class="preset-form" on:submit=on_submit novalidate aria-labelledby="package-form-title">
                    <h3 id="package-form-title">{move || if editing.with(Option::is_some) { "Change the preset" } else { "Add a package preset" }}</h3>
                    {name_input("package-name", "Preset name", "name", name, shown)}
                    <ParcelForm parcel show_problems=shown />
                    <button type="submit" class="primary" disabled=move || save.pending()>
                        {move || save.label("Save preset", "Saving…")}
                    </button>
                    {move || editing.with(Option::is_some).then(|| view! {
                        <button type="button" class="secondary" on:click=move |_| reset()>"Cancel"</button>
                    })}
                    {move || save.error().map(refused)}
                </form>
            })}
        </section>
    }
}

fn package_list<V: IntoView>(found: PackageList, row: impl Fn(PackagePreset) -> V) -> AnyView {
    if found.packages.is_empty() {
        return view! { <p>"No package presets yet."</p> }.into_any();
    }
    view! { <ul class="preset-list">{found.packages.into_iter().map(row).collect_view()}</ul> }
        .into_any()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_advised_in_plain_words() {
        assert_eq!(name_advice("label", "Main warehouse"), None);
        assert_eq!(
            name_advice("label", "  ").as_deref(),
            Some("Enter a label, such as “Main warehouse”")
        );
        assert_eq!(
            name_advice("name", &"x".repeat(61)).as_deref(),
            Some("Shorten the name to at most 60 characters")
        );
        assert_eq!(
            name_advice("name", "a\u{7}").as_deref(),
            Some("The name must not contain control characters")
        );
    }

    #[test]
    fn refusals_say_what_to_do() {
        assert!(refusal_advice(Some(&ErrorCode::EdgeSavedNotFound)).is_some());
        assert!(refusal_advice(Some(&ErrorCode::EdgeSavedLimitReached)).is_some());
        assert_eq!(refusal_advice(Some(&ErrorCode::EdgeRoleForbidden)), None);
        assert_eq!(refusal_advice(None), None);
    }
}
