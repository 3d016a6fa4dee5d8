//! What the credential pages share (access tokens, passkeys, API keys, the
//! webhook secret): the list of credentials (`CredentialTable`), the form
//! that creates or enters one (`CredentialForm` around a `NameInput` or a
//! `SecretInput`), and revoking: one row of a list, asked in place
//! (`Revoke`), or a rotation's end, which revokes the old key or secret or
//! gives up the new one (`RotationEnd`). Every write is a `Write`; a page
//! reads its list with the loader.

use crate::api::ClientError;
use crate::components::confirm_inline::ConfirmInline;
use crate::components::dates::When;
use crate::components::error_view::{ErrorView, refused};
use crate::components::field::{advice, advice_id, focus};
use crate::components::service::with_dashboard;
use crate::state::write::Write;
use api::ErrorCode;
use api::session::KeySlot;
use leptos::prelude::*;
use std::future::Future;

/// What a refusal asks of the person, by its code (`None`: the error says it).
pub type Refusal = fn(Option<&ErrorCode>) -> Option<&'static str>;

/// The table of a page's credentials: its caption (for screen readers),
/// the columns' headers and, for rows with a button, the action column's
/// (read by screen readers only); one row per credential (`children`).
#[component]
pub fn CredentialTable(
    #[prop(into)] caption: String,
    columns: Vec<&'static str>,
    #[prop(optional)] action: Option<&'static str>,
    children: Children,
) -> impl IntoView {
    view! {
        <div class="table-wrap">
            <table class="wrap-words">
                <caption class="visually-hidden">{caption}</caption>
                <thead><tr>
                    {columns.into_iter().map(|c| view! { <th scope="col">{c}</th> }).collect_view()}
                    {action.map(|a| view! { <th scope="col"><span class="visually-hidden">{a}</span></th> })}
                </tr></thead>
                <tbody>{children()}</tbody>
            </table>
        </div>
    }
}

/// When a credential was last used, or that it never was.
pub fn last_used(unix: Option<u64>) -> AnyView {
    match unix {
        Some(unix) => view! { <When unix /> }.into_any(),
        None => view! { <span class="empty">"Never"</span> }.into_any(),
    }
}

/// A key's or a secret's slot, as its table names it.
pub fn slot_name(slot: KeySlot) -> &'static str {
    match slot {
        KeySlot::Current => "current",
        KeySlot::Next => "next (new)",
    }
}

/// What submitting a credential form does.
pub enum Submit {
    /// Everything typed is whole: the write starts.
    Send,
    /// A field has a problem: focus moves to it (by its id).
    Fix(&'static str),
    /// What the form depends on is not read yet.
    Wait,
}

/// The form that creates or enters a credential: its fields (`children`),
/// the submit button, which waits while `write` runs (and, with `ready`,
/// until the form can be sent), and under the form the write's refusal,
/// unless it names the field `at_field` (the `SecretInput` shows that one).
#[component]
pub fn CredentialForm(
    class: &'static str,
    write: Write,
    /// Set by the first submit: from then on the fields show their problems.
    tried: RwSignal<bool>,
    check: impl Fn() -> Submit + 'static,
    /// The button's text, and while the write runs.
    button: (&'static str, &'static str),
    #[prop(optional, into)] ready: Option<Signal<bool>>,
    #[prop(optional)] at_field: Option<&'static str>,
    children: Children,
) -> impl IntoView {
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        tried.set(true);
        match check() {
            Submit::Send => write.submit(),
            Submit::Fix(id) => focus(id),
            Submit::Wait => {}
        }
    };
    let waiting = move || write.pending() || ready.is_some_and(|r| !r.get());
    view! {
        <form class=class on:submit=submit novalidate>
            {children()}
            <button type="submit" disabled=waiting>{move || write.label(button.0, button.1)}</button>
        </form>
        {move || {
            write
                .error()
                .filter(|e| at_field.is_none_or(|f| !e.is_about(f)))
                .map(|error| view! { <ErrorView error /> })
        }}
    }
}

/// A new credential's name (a token's, a passkey's), its problem under it.
#[component]
pub fn NameInput(
    id: &'static str,
    max_chars: usize,
    name: RwSignal<String>,
    problem: impl Fn() -> Option<String> + Copy + Send + Sync + 'static,
) -> impl IntoView {
    view! {
        <div class="field">
            <label for=id>"Name"</label>
            <input id=id type="text" autocomplete="off" maxlength=max_chars.to_string()
                aria-invalid=move || problem().map(|_| "true")
                aria-describedby=move || problem().map(|_| advice_id(id))
                prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) />
            {advice(id.to_string(), problem)}
        </div>
    }
}

/// The one place a secret is typed (an API key, the webhook secret):
/// masked, never remembered, never sent to a spell checker. Under it its
/// hint (`{dashboard}` in it: `service::DASHBOARD`), the typed secret's problem, what saving it would do (`effect`,
/// shown with the test id `effect_id`), and the Worker's refusal of the
/// secret itself (a refusal of `save` naming `field`), which typing clears.
#[component]
pub fn SecretInput(
    id: &'static str,
    label: &'static str,
    hint: &'static str,
    typed: RwSignal<String>,
    problem: impl Fn() -> Option<String> + Copy + Send + Sync + 'static,
    effect: impl Fn() -> Option<String> + Send + Sync + 'static,
    effect_id: &'static str,
    save: Write,
    field: &'static str,
) -> impl IntoView {
    let field_error = move || save.error().filter(|e| e.is_about(field));
    view! {
        <label for=id>{label}</label>
        <input id=id name=id type="password" autocomplete="off" spellcheck="false" autocapitalize="off"
            aria-invalid=move || (problem().is_some() || field_error().is_some()).then_some("true")
            aria-describedby=move || if field_error().is_some() {
                format!("{id}-error")
            } else if problem().is_some() {
                advice_id(id)
            } else {
                format!("{id}-hint")
            }
            prop:value=move || typed.get()
            on:input=move |ev| { save.clear(); typed.set(event_target_value(&ev)) } />
        <p class="hint" id=format!("{id}-hint")>{with_dashboard(hint)}</p>
        {advice(id.to_string(), problem)}
        {move || effect().map(|text| view! { <p class="key-effect" data-testid=effect_id>{text}</p> })}
        {move || field_error().map(|error| view! {
            <div id=format!("{id}-error")><ErrorView error /></div>
        })}
    }
}

/// Revoking one credential of a list (a token, a passkey), asked in place
/// (`ConfirmInline`): which row asks, and the write that revokes it. The
/// Worker answers with the list as it now stands; refused, the list is
/// read again (it may have changed elsewhere).
#[derive(Clone, Copy)]
pub struct Revoke {
    asking: RwSignal<Option<String>>,
    write: Write,
}

impl Revoke {
    pub fn new<T, F, Fut>(list: LocalResource<Result<T, ClientError>>, revoke: F) -> Revoke
    where
        T: 'static,
        F: Fn(String) -> Fut + Copy + 'static,
        Fut: Future<Output = Result<T, ClientError>> + 'static,
    {
        let asking = RwSignal::new(None::<String>);
        let write = Write::new(move || async move {
            let Some(id) = asking.get_untracked() else {
                return Ok(());
            };
            let answer = revoke(id).await;
            asking.set(None);
            match answer {
                Ok(now) => {
                    list.set(Some(Ok(now)));
                    Ok(())
                }
                Err(error) => {
                    list.refetch();
                    Err(error)
                }
            }
        });
        Revoke { asking, write }
    }

    /// The row's button (`verb` and the credential's `name`), which asks
    /// `question` in its place; its id is the verb's and the row's `id`.
    pub fn button(
        self,
        id: String,
        verb: &'static str,
        name: String,
        question: String,
        yes: (&'static str, &'static str),
    ) -> impl IntoView {
        view! {
            <ConfirmInline id=format!("{}-{id}", verb.to_lowercase()) row=id asking=self.asking
                write=self.write verb name question yes />
        }
    }

    /// The last refusal, with what to do next.
    pub fn refusal(self, next: Refusal) -> impl IntoView {
        refusal(self.write, next)
    }
}

/// A rotation's end (API keys, the webhook secret): the new one kept,
/// which revokes the old one, or given up. One write for both buttons;
/// `keep` says which was pressed.
#[derive(Clone, Copy)]
pub struct RotationEnd {
    keep: RwSignal<bool>,
    write: Write,
}

impl RotationEnd {
    /// `end(keep)` sends the change.
    pub fn new<F, Fut>(end: F) -> RotationEnd
    where
        F: Fn(bool) -> Fut + 'static,
        Fut: Future<Output = Result<(), ClientError>> + 'static,
    {
        let keep = RwSignal::new(true);
        let write = Write::new(move || end(keep.get_untracked()));
        RotationEnd { keep, write }
    }

    fn end(self, keep: bool) {
        self.keep.set(keep);
        self.write.submit();
    }

    /// "Make … the only key": "Saving…" while it runs.
    pub fn keep_button(self, label: String) -> impl IntoView {
        let write = self.write;
        view! {
            <button type="button" disabled=move || write.pending() on:click=move |_| self.end(true)>
                {move || if write.pending() && self.keep.get() { "Saving…".to_string() } else { label.clone() }}
            </button>
        }
    }

    /// "Discard the new key …", "Go back to …".
    pub fn give_up_button(self, label: String) -> impl IntoView {
        let write = self.write;
        view! {
            <button type="button" class="secondary" disabled=move || write.pending()
                on:click=move |_| self.end(false)>{label}</button>
        }
    }

    /// The last refusal, with what to do next.
    pub fn refusal(self, next: Refusal) -> impl IntoView {
        refusal(self.write, next)
    }
}

/// A rotation's steps (`title`), the one to take now (`at`) marked and
/// those before it done.
pub fn rotation_steps(title: String, steps: &'static [&'static str], at: usize) -> impl IntoView {
    view! {
        <h3 class="steps-title">{title}</h3>
        <ol class="steps">
            {steps.iter().enumerate().map(|(i, step)| view! {
                <li aria-current=(i == at).then_some("step") class:done=i < at>{with_dashboard(step)}</li>
            }).collect_view()}
        </ol>
    }
}

fn refusal(write: Write, next: Refusal) -> impl IntoView {
    move || {
        write.error().map(|error| {
            let next = next(error.code());
            refused(error, next)
        })
    }
}
