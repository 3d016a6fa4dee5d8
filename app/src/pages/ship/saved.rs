//! The organization's saved addresses and package presets on the Ship
//! page (`api::presets`), a chunk of its own: the picker, "Save this
//! address", and the presets handed to the parcel form. Fetched when the
//! page opens; the default address becomes the sender unless one was typed,
//! and its country the recipient's until the recipient is touched (most
//! parcels stay in the sender's country; with none saved it stays the US).

use super::SavedSender;
use crate::api::Client;
use crate::components::address_form::blank_address;
use crate::components::parcel_form::describe_package;
use crate::state::saved::Saved;
use crate::state::senders;
use crate::state::write::Write;
use api::presets::AddressInput;
use api::session::Role;
use leptos::prelude::*;

pub fn view(p: SavedSender) -> AnyView {
    let client = Client::get();
    let org = Saved::fetch(client, p.from, blank_address());
    let addresses = org.addresses;
    Effect::new(move |_| {
        let usual = addresses.with(|l| {
            l.as_ref()
                .and_then(|l| l.default_address())
                .map(|d| d.address.country.clone())
        });
        if let Some(country) = usual
            && p.to.with_untracked(|a| a == &blank_address())
        {
            p.to.update(|a| a.country = country);
        }
    });
    Effect::new(move |_| {
        let named = org.packages.with(|list| {
            list.iter()
                .map(|x| (describe_package(x), x.parcel))
                .collect()
        });
        p.packages.set(named);
    });
    let may_save = client
        .session
        .with_untracked(|s| s.as_ref().is_some_and(|s| s.role != Role::Viewer));
    let choices = move || addresses.with(|org| senders::choices(org.as_ref(), &[]));
    let save = Write::new(move || async move {
        let Some(address) = p.to_save.run(()) else {
            return Ok(());
        };
        if let Some(same) = addresses.with_untracked(|l| {
            l.as_ref()
                .and_then(|l| l.find(&address).map(|s| s.label.clone()))
        }) {
            p.note.set(Some(format!("Saved already, as “{same}”.")));
            return Ok(());
        }
        let input = AddressInput {
            label: address.name.clone(),
            address,
            default: false,
        };
        // The answer in the note beside the button (the page's error view is the rates').
        let note = match client.save_address(None, &input).await {
            Ok(list) => {
                addresses.set(Some(list));
                format!("Saved as “{}” for the organization.", input.label)
            }
            Err(e) => format!("Not saved: {e}"),
        };
        p.note.set(Some(note));
        Ok(())
    });
    let on_save = move |_| {
        if may_save {
            save.submit();
        } else {
            p.note.set(Some(
                "Your role cannot save addresses: ask an admin or an operator.".into(),
            ));
        }
    };
    view! {
        <div class="sender-tools">
            // Built again when the list changes (it arrives after the page):
            // the sender then in the form is the one chosen.
            {move || {
                let list = choices();
                let current = p.from.get_untracked();
                (!list.is_empty()).then(|| view! {
                    <div class="field">
                        <label for="saved-sender">"Saved addresses"</label>
                        <select
                            id="saved-sender"
                            on:change=move |ev| {
                                if let Ok(i) = event_target_value(&ev).parse::<usize>()
                                    && let Some((_, a)) = untrack(choices).get(i).cloned()
                                {
                                    p.pick.run(a);
                                }
                            }
                        >
                            <option value="">"Choose a saved sender…"</option>
                            {list.into_iter().enumerate().map(|(i, (name, a))| view! {
                                <option value=i.to_string() selected=a == current>{name}</option>
                            }).collect_view()}
                        </select>
                    </div>
                })
            }}
            <button type="button" class="secondary" on:click=on_save disabled=move || save.pending()>
                "Save this address"
            </button>
            <span class="hint" role="status">{move || p.note.get()}</span>
        </div>
    }
    .into_any()
}
