//! A row's irreversible action asked in place: its button becomes the
//! question, "Yes, …" (focused, so Enter answers) and "Cancel". The page
//! keeps which row is asking, so only one asks at a time.

use crate::components::field::focus;
use leptos::prelude::*;

#[component]
pub fn ConfirmInline(
    /// Unique in the page: names the question and the "Yes" button.
    id: String,
    /// Whether this row is the one asking.
    #[prop(into)]
    asking: Signal<bool>,
    /// The button's verb: "Remove", "Revoke".
    verb: &'static str,
    /// The row's name, read after the verb by screen readers.
    name: String,
    /// The question, in full.
    question: String,
    /// "Yes, remove" and, while it is on its way, "Removing…".
    yes: (&'static str, &'static str),
    /// The answer is on its way: both buttons wait.
    #[prop(into)]
    pending: Signal<bool>,
    #[prop(into)] on_ask: Callback<()>,
    #[prop(into)] on_yes: Callback<()>,
    #[prop(into)] on_cancel: Callback<()>,
) -> impl IntoView {
    let yes_id = id.clone();
    let question_id = format!("{id}-q");
    let ask = move |_| {
        on_ask.run(());
        let yes_id = yes_id.clone();
        request_animation_frame(move || focus(&yes_id));
    };
    move || {
        if asking.get() {
            view! {
                <div class="confirm-inline" role="group" aria-labelledby=question_id.clone()>
                    <p id=question_id.clone()>{question.clone()}</p>
                    <button type="button" class="danger small" id=id.clone() disabled=move || pending.get()
                        on:click=move |_| on_yes.run(())>
                        {move || if pending.get() { yes.1 } else { yes.0 }}
                    </button>
                    " "
                    <button type="button" class="secondary small" disabled=move || pending.get()
                        on:click=move |_| on_cancel.run(())>"Cancel"</button>
                </div>
            }
            .into_any()
        } else {
            view! {
                <button type="button" class="secondary small" on:click=ask.clone()>
                    {verb} <span class="visually-hidden">{format!(" {name}")}</span>
                </button>
            }
            .into_any()
        }
    }
}
