//! An organization's saved ship-from addresses (one the default) and
//! package presets, offered by Ship, Batches and the widget's settings so
//! nobody retypes the warehouse address. Kept by the organization's object;
//! every change is in its audit log.
//!
//! | Method and path                          | Who                | Body → answer                |
//! |------------------------------------------|--------------------|------------------------------|
//! | `GET /api/org/addresses`                 | members            | → `SavedAddressList`         |
//! | `POST /api/org/addresses`                | admins, operators  | `AddressInput` → `SavedAddressList` (201) |
//! | `PUT /api/org/addresses/{id}`            | admins, operators  | `AddressInput` → `SavedAddressList` |
//! | `DELETE /api/org/addresses/{id}`         | admins, operators  | → `SavedAddressList`         |
//! | `PUT /api/org/addresses/{id}/default`    | admins, operators  | → `SavedAddressList`         |
//! | `GET /api/org/packages`                  | members            | → `PackageList`              |
//! | `POST /api/org/packages`                 | admins, operators  | `PackageInput` → `PackageList` (201) |
//! | `PUT /api/org/packages/{id}`             | admins, operators  | `PackageInput` → `PackageList` |
//! | `DELETE /api/org/packages/{id}`          | admins, operators  | → `PackageList`              |
//!
//! Lists are in the order things were saved (a new one is last). Refusals:
//! `VALIDATION.FIELD.*` naming the field (`address.zip`, `parcel.weight_oz`,
//! `label`), `EDGE.ROLE.FORBIDDEN` for viewers' writes,
//! `EDGE.SAVED.NOT_FOUND` (404) for an id this organization does not have
//! (the same for another organization's: it never says which),
//! `EDGE.SAVED.LIMIT_REACHED` (409) past [`MAX_SAVED`], and
//! `EDGE.ORG.MANAGED_BY_SETTINGS` (409) in the deployment's own
//! organization, which is configured by Worker settings (the widget's
//! ship-from address is `WIDGET_SHIP_FROM`): the app offers nothing saved there.

use serde::{Deserialize, Serialize};

use crate::address::{Address, FieldProblem};
use crate::parcel::Parcel;
use crate::validation::BodyError;

pub const ADDRESSES_PATH: &str = "/api/org/addresses";
pub const ADDRESS_PATH: &str = "/api/org/addresses/{id}";
pub const DEFAULT_ADDRESS_PATH: &str = "/api/org/addresses/{id}/default";
pub const PACKAGES_PATH: &str = "/api/org/packages";
pub const PACKAGE_PATH: &str = "/api/org/packages/{id}";

/// Addresses, and presets, an organization keeps at most (a list anyone
/// can choose from at a glance; ShipStation's ship-from list is of this order).
pub const MAX_SAVED: usize = 50;
/// A saved address's label or a preset's name, in characters.
pub const NAME_MAX_CHARS: usize = 60;

/// Ids: `adr_…` and `pkg_…`, drawn by the Worker.
pub const ADDRESS_ID_PREFIX: &str = "adr_";
pub const PACKAGE_ID_PREFIX: &str = "pkg_";

/// `POST` and `PUT /api/org/addresses…`: an address saved under a label
/// ("Main warehouse"). `default`: make it the default (the first saved
/// one is the default anyway).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddressInput {
    pub label: String,
    pub address: Address,
    #[serde(default)]
    pub default: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedAddress {
    pub id: String,
    pub label: String,
    pub address: Address,
    pub default: bool,
    pub saved_at: u64,
    /// Who saved or last changed it (`Ada <ada@example.com>`).
    pub saved_by: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedAddressList {
    pub addresses: Vec<SavedAddress>,
}

impl SavedAddressList {
    /// The one to preselect: the default (there is one whenever the list
    /// is not empty).
    pub fn default_address(&self) -> Option<&SavedAddress> {
        self.addresses
            .iter()
            .find(|a| a.default)
            .or(self.addresses.first())
    }

    /// The saved address equal to `address`, if it is one (so a form
    /// filled from it reads as "saved", and "save this address" is offered
    /// only for a new one).
    pub fn find(&self, address: &Address) -> Option<&SavedAddress> {
        self.addresses.iter().find(|a| &a.address == address)
    }
}

/// `POST` and `PUT /api/org/packages…`: a package preset ("Small box")
/// with its size and weight as the v1 parcel states them (inches, ounces).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackageInput {
    pub name: String,
    pub parcel: Parcel,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackagePreset {
    pub id: String,
    pub name: String,
    pub parcel: Parcel,
    pub saved_at: u64,
    pub saved_by: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PackageList {
    pub packages: Vec<PackagePreset>,
}

/// A label or a name: 1 to [`NAME_MAX_CHARS`] characters once trimmed, no
/// control characters (audit lines and menus show it as is).
pub fn name_problem(name: &str) -> Option<FieldProblem> {
    let name = name.trim();
    if name.is_empty() {
        Some(FieldProblem::Missing)
    } else if let Some(long) = FieldProblem::length(name, NAME_MAX_CHARS) {
        Some(long)
    } else if name.chars().any(char::is_control) {
        Some(FieldProblem::Invalid("must not contain control characters"))
    } else {
        None
    }
}

fn check_name(field: &str, name: &str) -> Result<(), BodyError> {
    match name_problem(name) {
        Some(problem) => Err(problem.to_body_error(field.to_string())),
        None => Ok(()),
    }
}

impl AddressInput {
    /// The first problem as the v1 validation error (`label`, `address.zip`).
    pub fn check(&self) -> Result<(), BodyError> {
        check_name("label", &self.label)?;
        self.address.check("address")
    }
}

impl PackageInput {
    /// The first problem as the v1 validation error (`name`, `parcel.height`).
    pub fn check(&self) -> Result<(), BodyError> {
        check_name("name", &self.name)?;
        self.parcel.check("parcel")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(zip: &str) -> Address {
        Address {
            name: "Acme Warehouse".into(),
            street1: "1 Dock Rd".into(),
            street2: None,
            city: "Springfield".into(),
            state: "IL".into(),
            zip: zip.into(),
            country: "US".into(),
            phone: None,
            email: None,
        }
    }

    fn saved(id: &str, zip: &str, default: bool) -> SavedAddress {
        SavedAddress {
            id: id.into(),
            label: id.into(),
            address: address(zip),
            default,
            saved_at: 0,
            saved_by: "Ada".into(),
        }
    }

    #[test]
    fn the_default_is_preselected_else_the_first() {
        let list = SavedAddressList {
            addresses: vec![
                saved("adr_1", "62701", false),
                saved("adr_2", "62702", true),
            ],
        };
        assert_eq!(list.default_address().unwrap().id, "adr_2");
        let none_flagged = SavedAddressList {
            addresses: vec![saved("adr_1", "62701", false)],
        };
        assert_eq!(none_flagged.default_address().unwrap().id, "adr_1");
        assert!(
            SavedAddressList { addresses: vec![] }
                .default_address()
                .is_none()
        );
        assert_eq!(list.find(&address("62702")).unwrap().id, "adr_2");
        assert!(list.find(&address("99999")).is_none());
    }

    #[test]
    fn inputs_name_the_field_at_fault() {
        let good = AddressInput {
            label: " Main warehouse ".into(),
            address: address("62701"),
            default: false,
        };
        assert_eq!(good.check(), Ok(()));
        let unlabeled = AddressInput {
            label: "  ".into(),
            ..good.clone()
        };
        assert_eq!(unlabeled.check().unwrap_err().field(), "label");
        let long = AddressInput {
            label: "x".repeat(61),
            ..good.clone()
        };
        assert_eq!(
            long.check().unwrap_err(),
            BodyError::Invalid {
                field: "label".into(),
                reason: "must be at most 60 characters".into()
            }
        );
        let mut bad = good.clone();
        bad.address.country = "XX".into();
        assert_eq!(bad.check().unwrap_err().field(), "address.country");
        let parcel = Parcel {
            weight_oz: 16.0,
            length: 10.0,
            width: 8.0,
            height: 4.0,
        };
        let package = PackageInput {
            name: "Small box".into(),
            parcel,
        };
        assert_eq!(package.check(), Ok(()));
        let heavy = PackageInput {
            parcel: Parcel {
                weight_oz: 0.0,
                ..parcel
            },
            ..package.clone()
        };
        assert_eq!(heavy.check().unwrap_err().field(), "parcel.weight_oz");
        let control = PackageInput {
            name: "a\u{7}b".into(),
            ..package
        };
        assert_eq!(control.check().unwrap_err().field(), "name");
    }
}
