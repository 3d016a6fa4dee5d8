use leptos::prelude::*;

/// The id of the advice under the input `input`; the input names it in
/// `aria-describedby` while it has a problem.
pub fn advice_id(input: &str) -> String {
    format!("{input}-problem")
}

/// A field's problem, in plain words, right under its input. (A plain
/// closure, not a `Memo`: the storefront widget's form pays for no memo type.)
pub fn advice(
    input: String,
    problem: impl Fn() -> Option<String> + Send + 'static,
) -> impl IntoView {
    move || problem().map(|text| view! { <p class="field-problem" id=advice_id(&input)>{text}</p> })
}

/// Moves focus to the element `id` (the first field with a problem).
pub fn focus(id: &str) {
    use wasm_bindgen::JsCast;
    if let Some(el) = document()
        .get_element_by_id(id)
        .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = el.focus();
    }
}
