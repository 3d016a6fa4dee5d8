//! Sender addresses to choose from: an organization's saved addresses
//! (`api::presets`, kept in the app), or, in the deployment's own
//! organization, the senders saved in this browser's localStorage.

use api::Address;
use api::presets::SavedAddressList;

const KEY: &str = "parcel.senders";
/// Enough for a few warehouses; the oldest is dropped beyond it.
pub const MAX_SENDERS: usize = 10;

pub fn load() -> Vec<Address> {
    super::stored::load(KEY)
}

pub fn store(senders: &[Address]) {
    super::stored::store(KEY, senders);
}

/// Adds `address` first, replacing an equal one, keeping at most [`MAX_SENDERS`].
pub fn with_added(mut senders: Vec<Address>, address: Address) -> Vec<Address> {
    senders.retain(|a| a != &address);
    senders.insert(0, address);
    senders.truncate(MAX_SENDERS);
    senders
}

/// How a saved sender is named in the picker.
pub fn describe(a: &Address) -> String {
    format!("{}, {}, {} {}", a.name, a.street1, a.city, a.state)
}

/// The picker's entries, each named and its address: the organization's
/// saved addresses when it keeps them (`org`), else this browser's.
pub fn choices(org: Option<&SavedAddressList>, local: &[Address]) -> Vec<(String, Address)> {
    match org {
        Some(list) => list
            .addresses
            .iter()
            .map(|a| {
                (
                    format!("{}: {}", a.label, describe(&a.address)),
                    a.address.clone(),
                )
            })
            .collect(),
        None => local.iter().map(|a| (describe(a), a.clone())).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(name: &str) -> Address {
        Address {
            name: name.into(),
            street1: "1 Main St".into(),
            street2: None,
            city: "Springfield".into(),
            state: "IL".into(),
            zip: "62701".into(),
            country: "US".into(),
            phone: None,
            email: None,
        }
    }

    #[test]
    fn newest_first_without_duplicates_and_bounded() {
        let mut list = vec![];
        for i in 0..12 {
            list = with_added(list, addr(&format!("n{i}")));
        }
        assert_eq!(list.len(), MAX_SENDERS);
        assert_eq!(list[0].name, "n11");
        let list = with_added(list, addr("n5"));
        assert_eq!(list[0].name, "n5");
        assert_eq!(list.iter().filter(|a| a.name == "n5").count(), 1);
        assert_eq!(describe(&addr("Ada")), "Ada, 1 Main St, Springfield IL");
    }

    #[test]
    fn an_organizations_saved_addresses_come_before_this_browsers() {
        let local = [addr("Local")];
        assert_eq!(
            choices(None, &local),
            [(
                "Local, 1 Main St, Springfield IL".to_string(),
                addr("Local")
            )]
        );
        let saved = api::presets::SavedAddress {
            id: "adr_1".into(),
            label: "Main warehouse".into(),
            address: addr("Acme"),
            default: true,
            saved_at: 0,
            saved_by: "Ada".into(),
        };
        let org = SavedAddressList {
            addresses: vec![saved],
        };
        assert_eq!(
            choices(Some(&org), &local),
            [(
                "Main warehouse: Acme, 1 Main St, Springfield IL".to_string(),
                addr("Acme")
            )]
        );
        // An organization with none offers none, not this browser's.
        let empty = SavedAddressList { addresses: vec![] };
        assert!(choices(Some(&empty), &local).is_empty());
    }
}
