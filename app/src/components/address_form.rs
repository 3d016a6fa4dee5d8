use crate::components::field::{advice, advice_id};
use api::{Address, FieldProblem};
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

#[derive(Clone, Copy)]
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
pub fn advice_text(a: &Address, field: &str, problem: FieldProblem) -> String {
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
        ("country", FieldProblem::Invalid(_)) => {
            "Enter the country's two-letter code, such as US".into()
        }
        ("state", FieldProblem::Invalid(_)) if a.country.trim().eq_ignore_ascii_case("CA") => {
            "Enter the province's two-letter code, such as ON".into()
        }
        ("state", FieldProblem::Invalid(_)) => {
            "Enter the state's two-letter code, such as CA".into()
        }
        (_, FieldProblem::Invalid(reason)) => format!("The {noun} {reason}"),
    }
}

/// Every problem of the address, each as the field's JSON name and the
/// advice shown under it, in the form's order.
pub fn problems(a: &Address) -> Vec<(&'static str, String)> {
    a.problems()
        .into_iter()
        .map(|(field, problem)| (field, advice_text(a, field, problem)))
        .collect()
}

/// The id of the form's first field with a problem, to move focus there.
pub fn first_problem(prefix: &str, a: &Address) -> Option<String> {
    a.problems()
        .first()
        .map(|(field, _)| format!("{prefix}-{field}"))
}

/// A full postal address as one fieldset. Pure: it edits `address` and
/// reports edits through `on_edit`. Once `show_problems` is set, every
/// field's problem shows under it (and follows the typing); asking the
/// validation service is the page's business.
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
    /// Only where a parcel goes, without the name and second line (the
    /// storefront widget's quote).
    #[prop(optional)]
    destination_only: bool,
    #[prop(optional)] show_problems: Option<RwSignal<bool>>,
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
        .filter(|(_, key, ..)| !destination_only || !matches!(*key, "name" | "street2"))
        .map(|(field, key, autocomplete, required)| {
            let id = format!("{prefix}-{key}");
            let problem = move || {
                show_problems
                    .is_some_and(|shown| shown.get())
                    .then(|| address.with(|a| problems(a).into_iter().find(|(f, _)| *f == key)))
                    .flatten()
                    .map(|(_, advice)| advice)
            };
            let described_by = advice_id(&id);
            view! {
                <div class=format!("field field-{key}")>
                    <label for=id.clone()>{label(key)}</label>
                    <input
                        id=id.clone()
                        name=key
                        type="text"
                        autocomplete=autocomplete
                        required=required
                        aria-invalid=move || problem().map(|_| "true")
                        aria-describedby=move || problem().map(|_| described_by.clone())
                        prop:value=move || address.with(|a| field.get(a))
                        on:input=move |ev| {
                            let v = event_target_value(&ev);
                            address.update(|a| field.set(a, v));
                            on_edit.run(());
                        }
                    />
                    {advice(id, problem)}
                </div>
            }
        })
        .collect_view();
    view! {
        <fieldset class="address-form">
            <legend>{legend}</legend>
            {children.map(|c| c())}
            <div class="address-grid">{inputs}</div>
        </fieldset>
    }
}

/// One line for showing an address back to the user.
pub fn one_line(a: &Address) -> String {
    let mut s = format!("{}, {}", a.name, a.street1);
    if let Some(l2) = &a.street2 {
        s.push_str(", ");
        s.push_str(l2);
    }
    s.push_str(&format!(
        ", {}, {} {}, {}",
        a.city, a.state, a.zip, a.country
    ));
    s
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
                (
                    "country",
                    "Enter the country's two-letter code, such as US".into()
                ),
            ]
        );
        assert_eq!(first_problem("to", &a).as_deref(), Some("to-name"));
        a.country = "US".into();
        a.name = "Ada".into();
        assert!(problems(&a).contains(&(
            "state",
            "Enter the state's two-letter code, such as CA".into()
        )));
        assert_eq!(first_problem("to", &a).as_deref(), Some("to-street1"));
        a.state = "ZZ".into();
        assert!(problems(&a).contains(&(
            "state",
            "Enter the state's two-letter code, such as CA".into()
        )));
        a.country = "CA".into();
        a.state = "Ontario".into();
        a.street2 = Some("x".repeat(101));
        let all = problems(&a);
        assert!(all.contains(&(
            "state",
            "Enter the province's two-letter code, such as ON".into()
        )));
        assert!(all.contains(&(
            "street2",
            "Shorten the second address line to at most 100 characters".into()
        )));
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
}
