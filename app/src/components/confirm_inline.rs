//! A row's irreversible action asked in place: its button becomes the
//! question, "Yes, …" (focused, so Enter answers) and "Cancel". The page
//! keeps which row is asking, so only one asks at a time, and owns the
//! write that "Yes" starts.

use crate::components::field::focus;
use crate::state::write::Write;
use leptos::prelude::*;

#[component]
pub fn ConfirmInline<K>(
    /// Unique in the page: names the question and the "Yes" button.
    id: String,
    /// This row, as `asking` holds it.
    row: K,
    /// Which row is asking, if any; the page's write reads it.
    asking: RwSignal<Option<K>>,
    /// The page's write for the asking row.
    write: Write,
    /// The button's verb: "Remove", "Revoke".
    verb: &'static str,
    /// The row's name, read after the verb by screen readers.
    name: String,
    /// The question, in full.
    question: String,
    /// "Yes, remove" and, while it is on its way, "Removing…".
    yes: (&'static str, &'static str),
) -> impl IntoView
where
    K: Clone + PartialEq + Send + Sync + 'static,
{
    let this = row.clone();
    let is_asking = move || asking.with(|a| a.as_ref() == Some(&this));
    let yes_id = id.clone();
    let question_id = format!("{id}-q");
    let ask = move |_| {
        write.clear();
        asking.set(Some(row.clone()));
        let yes_id = yes_id.clone();
        request_animation_frame(move || focus(&yes_id));
    };
    move || {
        if is_asking() {
            view! {
                <div class="confirm-inline" role="group" aria-labelledby=question_id.clone()>
                    <p id=question_id.clone()>{question.clone()}</p>
                    <button type="button" class="danger small" id=id.clone() disabled=move || write.pending()
                        on:click=move |_| write.submit()>
                        {move || write.label(yes.0, yes.1)}
                    </button>
                    " "
                    <button type="button" class="secondary small" disabled=move || write.pending()
                        on:click=move |_| asking.set(None)>"Cancel"</button>
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
