use crate::components::field::{advice, advice_id};
use api::{Address, FieldProblem, places};
use leptos::prelude::*;

/// An empty address in the given country.
pub fn blank_address() -> Address {
    Address {
        name: String::new(),
        street1: String::new(),
        street2: None,
        city: String::new(),
        state: String::new(),
        zip: String::new(),
        country: "US".into(),
        phone: None,
        email: None,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Field {
    Name,
    Street1,
    Street2,
    City,
    State,
    Zip,
    Country,
}

impl Field {
    const ALL: [Field; 7] = [
        Field::Name,
        Field::Street1,
        Field::Street2,
        Field::City,
        Field::State,
        Field::Zip,
        Field::Country,
    ];

    fn get(self, a: &Address) -> String {
        match self {
            Field::Name => a.name.clone(),
            Field::Street1 => a.street1.clone(),
            Field::Street2 => a.street2.clone().unwrap_or_default(),
            Field::City => a.city.clone(),
            Field::State => a.state.clone(),
            Field::Zip => a.zip.clone(),
            Field::Country => a.country.clone(),
        }
    }

    fn set(self, a: &mut Address, v: String) {
        match self {
            Field::Name => a.name = v,
            Field::Street1 => a.street1 = v,
            Field::Street2 => a.street2 = (!v.trim().is_empty()).then_some(v),
            Field::City => a.city = v,
            Field::State => a.state = v,
            Field::Zip => a.zip = v,
            Field::Country => a.country = v,
        }
    }
}

/// The form's label of an address field (`api::Address` JSON name).
pub fn label(name: &str) -> &'static str {
    match name {
        "name" => "Name",
        "street1" => "Street address",
        "street2" => "Address line 2 (optional)",
        "city" => "City",
        "state" => "State",
        "zip" => "ZIP code",
        _ => "Country",
    }
}

/// The first required field left empty, by its label.
pub fn missing_field(a: &Address) -> Option<&'static str> {
    a.first_blank_field().map(label)
}

/// What to do about one field's problem, in plain words.
pub fn advice_text(field: &str, problem: FieldProblem) -> String {
    let noun = match field {
        "name" => "name",
        "street1" => "street address",
        "street2" => "second address line",
        "city" => "city",
        "state" => "state",
        "zip" => "ZIP code",
        "phone" => "phone number",
        "email" => "email",
        _ => "country",
    };
    match (field, problem) {
        (_, FieldProblem::Missing) => format!("Enter the {noun}"),
        (_, FieldProblem::TooLong { max }) => {
            format!("Shorten the {noun} to at most {max} characters")
        }
        (_, FieldProblem::Invalid(reason)) => format!("The {noun} {reason}"),
    }
}

/// Every problem of the address, each as the field's JSON name and the
/// advice shown under it, in the form's order: the country, and the state
/// where `api::places` lists them, are chosen from lists.
pub fn problems(a: &Address) -> Vec<(&'static str, String)> {
    let province = a.country.trim().eq_ignore_ascii_case("CA");
    let listed = places::is_region(&a.country, "").is_some();
    a.problems()
        .into_iter()
        .map(|(field, problem)| {
            let advice = match field {
                "country" => "Choose the country".into(),
                "state" if listed && province => "Choose the province".into(),
                "state" if listed => "Choose the state".into(),
                _ => advice_text(field, problem),
            };
            (field, advice)
        })
        .collect()
}

/// The id of the form's first field with a problem, to move focus there.
pub fn first_problem(prefix: &str, a: &Address) -> Option<String> {
    a.problems()
        .first()
        .map(|(field, _)| format!("{prefix}-{field}"))
}

/// One field of a form, with what every way of entering it carries.
#[derive(Clone)]
struct Input {
    field: Field,
    id: String,
    key: &'static str,
    autocomplete: &'static str,
    required: bool,
    address: RwSignal<Address>,
    on_edit: Callback<()>,
    show_problems: Option<RwSignal<bool>>,
}

impl Input {
    /// The advice under the field once problems are shown (a closure, not
    /// a memo: the storefront widget's form pays for no memo type).
    fn problem(&self) -> impl Fn() -> Option<String> + Send + Sync + Copy + use<> {
        let (show, address, key) = (self.show_problems, self.address, self.key);
        move || {
            show.is_some_and(|shown| shown.get())
                .then(|| address.with(|a| problems(a).into_iter().find(|(f, _)| *f == key)))
                .flatten()
                .map(|(_, advice)| advice)
        }
    }

    /// A typed or chosen value: into the address, then `on_edit`.
    fn edit(&self) -> impl Fn(String) + Copy + use<> {
        let (field, address, on_edit) = (self.field, self.address, self.on_edit);
        move |v: String| {
            address.update(|a| {
                // A state the new country does not have is cleared.
                if field == Field::Country && places::is_region(&v, &a.state) == Some(false) {
                    a.state.clear();
                }
                field.set(a, v)
            });
            on_edit.run(());
        }
    }
}

/// The field as a text box.
fn typed(i: &Input) -> AnyView {
    let (field, address, edit, problem) = (i.field, i.address, i.edit(), i.problem());
    let described_by = advice_id(&i.id);
    view! {
        <input
            id=i.id.clone()
            name=i.key
            type="text"
            autocomplete=i.autocomplete
            required=i.required
            aria-invalid=move || problem().map(|_| "true")
            aria-describedby=move || problem().map(|_| described_by.clone())
            prop:value=move || address.with(|a| field.get(a))
            on:input=move |ev| edit(event_target_value(&ev))
        />
    }
    .into_any()
}

/// The field as a list of `(code, name)`: names shown, codes kept. A value
/// the list lacks (an address saved before, "USA") stays, shown as it is,
/// until another is chosen; `empty` is the choice shown while none is.
fn chosen(
    i: &Input,
    list: Vec<(&'static str, &'static str)>,
    empty: Option<&'static str>,
) -> AnyView {
    let (field, address, edit, problem) = (i.field, i.address, i.edit(), i.problem());
    let described_by = advice_id(&i.id);
    let current = Memo::new(move |_| address.with(|a| field.get(a).trim().to_string()));
    let known: Vec<&str> = list.iter().map(|(code, _)| *code).collect();
    let unknown = move || {
        current.with(|c| {
            (!c.is_empty() && !known.iter().any(|k| k.eq_ignore_ascii_case(c))).then(|| c.clone())
        })
    };
    let options = list
        .into_iter()
        .map(|(code, name)| {
            let selected = move || current.with(|c| c.eq_ignore_ascii_case(code));
            view! { <option value=code prop:selected=selected>{name}</option> }
        })
        .collect_view();
    view! {
        <select
            id=i.id.clone()
            name=i.key
            autocomplete=i.autocomplete
            required=i.required
            aria-invalid=move || problem().map(|_| "true")
            aria-describedby=move || problem().map(|_| described_by.clone())
            on:change=move |ev| edit(event_target_value(&ev))
        >
            {empty.map(|text| view! {
                <option value="" prop:selected=move || current.with(String::is_empty)>{text}</option>
            })}
            {move || unknown().map(|value| view! { <option value=value.clone() selected>{value.clone()}</option> })}
            {options}
        </select>
    }
    .into_any()
}

/// The field as the dashboard's forms enter it: the country from a list
/// (the United States first), the state from a list where `api::places`
/// has the country's, the rest typed.
fn listed(i: &Input) -> AnyView {
    match i.field {
        Field::Country => {
            let mut list = places::countries();
            if let Some(at) = list.iter().position(|(code, _)| *code == "US") {
                let us = list.remove(at);
                list.insert(0, us);
            }
            chosen(i, list, None)
        }
        Field::State => {
            let i = i.clone();
            let address = i.address;
            let country =
                Memo::new(move |_| address.with(|a| a.country.trim().to_ascii_uppercase()));
            (move || match places::regions(&country.get()) {
                Some(list) if country.with(|c| c == "CA") => {
                    chosen(&i, list, Some("Choose a province…"))
                }
                Some(list) => chosen(&i, list, Some("Choose a state…")),
                None => typed(&i),
            })
            .into_any()
        }
        _ => typed(i),
    }
}

/// The fields of `address` that `keep` keeps, as one fieldset, each
/// entered by `input`.
struct Fieldset {
    legend: &'static str,
    prefix: &'static str,
    address: RwSignal<Address>,
    on_edit: Callback<()>,
    show_problems: Option<RwSignal<bool>>,
}

impl Fieldset {
    fn view(
        self,
        children: Option<Children>,
        keep: impl Fn(&str) -> bool,
        input: impl Fn(&Input) -> AnyView,
    ) -> impl IntoView {
        let fields: [(Field, &str, &str, bool); 7] = [
            (Field::Name, "name", "name", true),
            (Field::Street1, "street1", "address-line1", true),
            (Field::Street2, "street2", "address-line2", false),
            (Field::City, "city", "address-level2", true),
            (Field::State, "state", "address-level1", true),
            (Field::Zip, "zip", "postal-code", true),
            (Field::Country, "country", "country", true),
        ];
        let inputs = fields
            .into_iter()
            .filter(|(_, key, ..)| keep(key))
            .map(|(field, key, autocomplete, required)| {
                let i = Input {
                    field,
                    id: format!("{}-{key}", self.prefix),
                    key,
                    autocomplete,
                    required,
                    address: self.address,
                    on_edit: self.on_edit,
                    show_problems: self.show_problems,
                };
                let (control, problem) = (input(&i), i.problem());
                view! {
                    <div class=format!("field field-{key}")>
                        <label for=i.id.clone()>{label(key)}</label>
                        {control}
                        {advice(i.id, problem)}
                    </div>
                }
            })
            .collect_view();
        view! {
            <fieldset class="address-form">
                <legend>{self.legend}</legend>
                {children.map(|c| c())}
                <div class="address-grid">{inputs}</div>
            </fieldset>
        }
    }
}

/// A full postal address as one fieldset, the country (and in the US and
/// Canada the state) chosen from `api::places`' lists. Pure: it edits
/// `address` and reports edits through `on_edit`. Once `show_problems` is
/// set, every field's problem shows under it (and follows the typing);
/// asking the validation service is the page's business.
#[component]
pub fn AddressForm(
    /// The fieldset's legend, also its accessible name ("From", "To").
    legend: &'static str,
    /// Prefix of the inputs' ids.
    prefix: &'static str,
    address: RwSignal<Address>,
    on_edit: Callback<()>,
    /// Extra controls above the fields (the saved-sender picker).
    #[prop(optional)]
    children: Option<Children>,
    #[prop(optional)] show_problems: Option<RwSignal<bool>>,
) -> impl IntoView {
    let form = Fieldset {
        legend,
        prefix,
        address,
        on_edit,
        show_problems,
    };
    form.view(children, |_| true, listed)
}

/// Only where a parcel goes, every field typed, without the name and second
/// line: the storefront widget's quote (its shoppers do not load the
/// country names; the shop usually hands over the destination).
#[component]
pub fn DestinationForm(
    legend: &'static str,
    prefix: &'static str,
    address: RwSignal<Address>,
    on_edit: Callback<()>,
) -> impl IntoView {
    let form = Fieldset {
        legend,
        prefix,
        address,
        on_edit,
        show_problems: None,
    };
    form.view(None, |key| !matches!(key, "name" | "street2"), typed)
}

/// Whether the service's form of an address differs from what was typed
/// in more than the spaces around a field (capitals, ZIP+4, a corrected
/// street): it is then offered beside the typed one, never put in its place.
pub fn differs(typed: &Address, service: &Address) -> bool {
    Field::ALL
        .into_iter()
        .any(|f| f.get(typed).trim() != f.get(service).trim())
}

/// The postal part of an address as written, a line each: name, street
/// (and its second line when given), city, state and ZIP code, country.
fn postal_lines(a: &Address) -> Vec<String> {
    let mut lines = vec![a.name.clone(), a.street1.clone()];
    lines.extend(a.street2.clone().filter(|s| !s.trim().is_empty()));
    lines.push(format!("{}, {} {}", a.city, a.state, a.zip));
    lines.push(a.country.clone());
    lines
}

/// One line for showing an address back to the user.
pub fn one_line(a: &Address) -> String {
    postal_lines(a).join(", ")
}

/// An address as written, a line each: its postal lines, then the phone
/// and email when given.
pub fn address_lines(a: &Address) -> Vec<String> {
    let mut lines = postal_lines(a);
    lines.extend(
        [&a.phone, &a.email]
            .into_iter()
            .flatten()
            .filter(|s| !s.trim().is_empty())
            .cloned(),
    );
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_in_plain_words_and_the_first_to_focus() {
        let mut a = blank_address();
        a.state = "Illinois".into();
        a.country = "USA".into();
        assert_eq!(
            problems(&a),
            [
                ("name", "Enter the name".to_string()),
                ("street1", "Enter the street address".into()),
                ("city", "Enter the city".into()),
                ("zip", "Enter the ZIP code".into()),
                ("country", "Choose the country".into()),
            ]
        );
        assert_eq!(first_problem("to", &a).as_deref(), Some("to-name"));
        a.country = "US".into();
        a.name = "Ada".into();
        assert!(problems(&a).contains(&("state", "Choose the state".into())));
        assert_eq!(first_problem("to", &a).as_deref(), Some("to-street1"));
        a.state = String::new();
        assert!(problems(&a).contains(&("state", "Choose the state".into())));
        a.country = "CA".into();
        a.state = "Ontario".into();
        a.street2 = Some("x".repeat(101));
        let all = problems(&a);
        assert!(all.contains(&("state", "Choose the province".into())));
        assert!(all.contains(&(
            "street2",
            "Shorten the second address line to at most 100 characters".into()
        )));
        // Elsewhere the state is typed, and free.
        a.country = "GB".into();
        a.state = String::new();
        assert!(problems(&a).contains(&("state", "Enter the state".into())));
    }

    #[test]
    fn the_service_form_is_offered_only_when_it_differs() {
        let mut typed = blank_address();
        typed.name = "Ada".into();
        typed.street1 = "12 Elm Street ".into();
        typed.city = "Brooklyn".into();
        typed.state = "NY".into();
        typed.zip = "11201".into();
        let mut same = typed.clone();
        same.street1 = "12 Elm Street".into();
        assert!(!differs(&typed, &same));
        let mut service = same.clone();
        service.street1 = "12 ELM ST".into();
        service.zip = "11201-1234".into();
        assert!(differs(&typed, &service));
    }

    #[test]
    fn names_the_first_missing_field() {
        let mut a = blank_address();
        assert_eq!(missing_field(&a), Some("Name"));
        a.name = "Ada".into();
        a.street1 = "1 Main".into();
        a.city = "X".into();
        a.state = "IL".into();
        assert_eq!(missing_field(&a), Some("ZIP code"));
        a.zip = "62701".into();
        assert_eq!(missing_field(&a), None);
        assert_eq!(one_line(&a), "Ada, 1 Main, X, IL 62701, US");
    }

    #[test]
    fn an_address_reads_a_line_each_as_written() {
        let mut a = Address {
            name: "Acme Inc".into(),
            street1: "500 Market Street".into(),
            street2: None,
            city: "San Francisco".into(),
            state: "CA".into(),
            zip: "94105".into(),
            country: "US".into(),
            phone: None,
            email: None,
        };
        assert_eq!(
            address_lines(&a),
            [
                "Acme Inc",
                "500 Market Street",
                "San Francisco, CA 94105",
                "US"
            ]
        );
        a.street2 = Some("Floor 3".into());
        a.phone = Some("415 555 0100".into());
        a.email = Some(" ".into());
        assert_eq!(
            address_lines(&a),
            [
                "Acme Inc",
                "500 Market Street",
                "Floor 3",
                "San Francisco, CA 94105",
                "US",
                "415 555 0100"
            ]
        );
    }
}
