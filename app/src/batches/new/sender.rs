//! Step 4, the sender: one address for every row, typed or chosen from
//! the organization's saved addresses (in the deployment's own
//! organization, this browser's senders).

use crate::components::address_form::AddressForm;
use crate::state::saved::Saved;
use crate::state::senders;
use api::Address;
use leptos::prelude::*;

#[component]
pub fn SenderStep(
    sender: RwSignal<Address>,
    /// The organization's saved addresses (the default preselected).
    org: Saved,
    /// Whether the sender's problems are shown (from the plan's first try on).
    sender_shown: RwSignal<bool>,
) -> impl IntoView {
    let local = if org.kept {
        Vec::new()
    } else {
        senders::load()
    };
    if let Some(first) = local.first() {
        sender.set(first.clone());
    }
    let choices = Memo::new(move |_| {
        org.addresses
            .with(|list| senders::choices(list.as_ref(), &local))
    });
    view! {
        <section class="card wide" aria-labelledby="sender-title">
            <h2 id="sender-title">"4. Sender"</h2>
            {move || (!choices.with(Vec::is_empty)).then(|| view! {
                <div class="field">
                    <label for="batch-sender">{if org.kept { "Saved addresses" } else { "Saved senders" }}</label>
                    <select id="batch-sender"
                        on:change=move |ev| {
                            if let Ok(n) = event_target_value(&ev).parse::<usize>()
                                && let Some((_, a)) = choices.with_untracked(|c| c.get(n).cloned())
                            {
                                sender.set(a);
                            }
                        }>
                        <option value="">"Typed below"</option>
                        {move || choices.get().into_iter().enumerate().map(|(n, (name, a))| view! {
                            <option value=n.to_string() prop:selected=move || sender.with(|s| s == &a)>{name}</option>
                        }).collect_view()}
                    </select>
                </div>
            })}
            <AddressForm legend="Ship from (every row)" prefix="sender" address=sender
                on_edit=Callback::new(|()| {}) show_problems=sender_shown />
        </section>
    }
}
