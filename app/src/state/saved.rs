//! The organization's saved addresses and package presets as a page
//! offers them (Ship, a new batch): fetched once when the page opens, if
//! the session's organization keeps them in the app (`api::presets`).

use crate::api::{Client, keeps_presets};
use api::Address;
use api::presets::{PackagePreset, SavedAddressList};
use leptos::prelude::*;
use leptos::task::spawn_local;

#[derive(Clone, Copy)]
pub struct Saved {
    /// Whether the organization keeps them (else this browser's senders serve).
    pub kept: bool,
    /// `None` until read (or where not kept).
    pub addresses: RwSignal<Option<SavedAddressList>>,
    pub packages: RwSignal<Vec<PackagePreset>>,
}

impl Saved {
    /// Reads them, and makes the default address `sender`'s value unless
    /// one was typed meanwhile (it stays editable).
    pub fn fetch(client: Client, sender: RwSignal<Address>, blank: Address) -> Saved {
        let kept = client
            .session
            .with_untracked(|s| s.as_ref().is_some_and(keeps_presets));
        let saved = Saved {
            kept,
            addresses: RwSignal::new(None),
            packages: RwSignal::new(Vec::new()),
        };
        if kept {
            // The page may be gone when the answers come (another page
            // opened meanwhile): its signals are then left alone.
            spawn_local(async move {
                if let Ok(list) = client.saved_addresses().await {
                    if let Some(d) = list.default_address()
                        && sender.try_with_untracked(|a| a == &blank) == Some(true)
                    {
                        sender.try_set(d.address.clone());
                    }
                    saved.addresses.try_set(Some(list));
                }
                if let Ok(list) = client.packages().await {
                    saved.packages.try_set(list.packages);
                }
            });
        }
        saved
    }
}
