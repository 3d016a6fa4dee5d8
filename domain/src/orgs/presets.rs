//! Saved addresses and package presets (`api::presets`): the rules the
//! organization's object applies to a change, as plain Rust. At most one
//! address is the default; the first saved one is, and deleting the
//! default makes the oldest remaining one the default, so a list that is
//! not empty always has one to preselect. Each change yields its audit line.

use api::orgs::AuditAction;
use api::presets::{AddressInput, MAX_SAVED, PackageInput, PackagePreset, SavedAddress};
use serde::{Deserialize, Serialize};

use super::AuditLine;

/// What an organization keeps, in the order saved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Saved {
    pub addresses: Vec<SavedAddress>,
    pub packages: Vec<PackagePreset>,
}

/// One change; the ids of new entries are drawn by the Worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    SaveAddress { id: String, input: AddressInput },
    UpdateAddress { id: String, input: AddressInput },
    DeleteAddress { id: String },
    DefaultAddress { id: String },
    SavePackage { id: String, input: PackageInput },
    UpdatePackage { id: String, input: PackageInput },
    DeletePackage { id: String },
}

/// Why a change was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Refused {
    /// No entry with that id here (another organization's reads the same).
    NotFound,
    /// [`MAX_SAVED`] already.
    Full,
}

fn describe(a: &SavedAddress) -> String {
    let x = &a.address;
    format!(
        "{} \"{}\" ({}, {}, {} {} {})",
        a.id, a.label, x.street1, x.city, x.state, x.zip, x.country
    )
}

fn describe_package(p: &PackagePreset) -> String {
    let x = &p.parcel;
    format!(
        "{} \"{}\" ({} × {} × {} in, {} oz)",
        p.id, p.name, x.length, x.width, x.height, x.weight_oz
    )
}

fn position<'a>(mut ids: impl Iterator<Item = &'a String>, id: &str) -> Result<usize, Refused> {
    ids.position(|x| x == id).ok_or(Refused::NotFound)
}

fn make_default(addresses: &mut [SavedAddress], id: &str) {
    for a in addresses {
        a.default = a.id == id;
    }
}

/// Applies `change` by `actor` at `at`; the audit line to write with it.
pub fn apply(
    saved: &mut Saved,
    change: Change,
    actor: &str,
    at: u64,
) -> Result<AuditLine, Refused> {
    let line = |action, detail: String| AuditLine {
        actor: actor.to_string(),
        action,
        detail,
    };
    Ok(match change {
        Change::SaveAddress { id, input } => {
            if saved.addresses.len() >= MAX_SAVED {
                return Err(Refused::Full);
            }
            let default = input.default || saved.addresses.is_empty();
            saved.addresses.push(SavedAddress {
                id: id.clone(),
                label: input.label.trim().to_string(),
                address: input.address,
                default: false,
                saved_at: at,
                saved_by: actor.to_string(),
            });
            if default {
                make_default(&mut saved.addresses, &id);
            }
            let entry = saved.addresses.last().ok_or(Refused::NotFound)?;
            let suffix = if default { ", the default" } else { "" };
            line(
                AuditAction::AddressSaved,
                format!("saved address {}{suffix}", describe(entry)),
            )
        }
        Change::UpdateAddress { id, input } => {
            let entry = saved
                .addresses
                .iter_mut()
                .find(|a| a.id == id)
                .ok_or(Refused::NotFound)?;
            let before = describe(entry);
            entry.label = input.label.trim().to_string();
            entry.address = input.address;
            entry.saved_at = at;
            entry.saved_by = actor.to_string();
            let after = describe(entry);
            // `default: false` leaves the default where it is: another is
            // made the default, this one is not "unmade".
            if input.default {
                make_default(&mut saved.addresses, &id);
            }
            line(
                AuditAction::AddressSaved,
                format!("changed address {before} → {after}"),
            )
        }
        Change::DeleteAddress { id } => {
            let i = position(saved.addresses.iter().map(|a| &a.id), &id)?;
            let removed = saved.addresses.remove(i);
            let mut detail = format!("deleted address {}", describe(&removed));
            if removed.default
                && let Some(next) = saved.addresses.first_mut()
            {
                next.default = true;
                detail.push_str(&format!(
                    "; {} \"{}\" is the default now",
                    next.id, next.label
                ));
            }
            line(AuditAction::AddressSaved, detail)
        }
        Change::DefaultAddress { id } => {
            let entry = saved
                .addresses
                .iter()
                .find(|a| a.id == id)
                .ok_or(Refused::NotFound)?;
            let detail = format!("made {} the default address", describe(entry));
            make_default(&mut saved.addresses, &id);
            line(AuditAction::AddressSaved, detail)
        }
        Change::SavePackage { id, input } => {
            if saved.packages.len() >= MAX_SAVED {
                return Err(Refused::Full);
            }
            let preset = PackagePreset {
                id,
                name: input.name.trim().to_string(),
                parcel: input.parcel,
                saved_at: at,
                saved_by: actor.to_string(),
            };
            let detail = format!("saved package preset {}", describe_package(&preset));
            saved.packages.push(preset);
            line(AuditAction::PackageSaved, detail)
        }
        Change::UpdatePackage { id, input } => {
            let entry = saved
                .packages
                .iter_mut()
                .find(|p| p.id == id)
                .ok_or(Refused::NotFound)?;
            let before = describe_package(entry);
            entry.name = input.name.trim().to_string();
            entry.parcel = input.parcel;
            entry.saved_at = at;
            entry.saved_by = actor.to_string();
            line(
                AuditAction::PackageSaved,
                format!(
                    "changed package preset {before} → {}",
                    describe_package(entry)
                ),
            )
        }
        Change::DeletePackage { id } => {
            let i = position(saved.packages.iter().map(|p| &p.id), &id)?;
            let removed = saved.packages.remove(i);
            line(
                AuditAction::PackageSaved,
                format!("deleted package preset {}", describe_package(&removed)),
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::{Address, Parcel};

    fn input(label: &str, zip: &str, default: bool) -> AddressInput {
        AddressInput {
            label: label.into(),
            address: Address {
                name: "Acme".into(),
                street1: "1 Dock Rd".into(),
                street2: None,
                city: "Springfield".into(),
                state: "IL".into(),
                zip: zip.into(),
                country: "US".into(),
                phone: None,
                email: None,
            },
            default,
        }
    }

    fn defaults(saved: &Saved) -> Vec<&str> {
        saved
            .addresses
            .iter()
            .filter(|a| a.default)
            .map(|a| a.id.as_str())
            .collect()
    }

    fn save(saved: &mut Saved, id: &str, default: bool) -> AuditLine {
        let change = Change::SaveAddress {
            id: id.into(),
            input: input(&format!(" {id} "), "62701", default),
        };
        apply(saved, change, "Ada <ada@example.com>", 7).unwrap()
    }

    #[test]
    fn one_default_at_most_and_always_one_while_any_is_saved() {
        let mut saved = Saved::default();
        let first = save(&mut saved, "adr_1", false);
        assert_eq!(
            defaults(&saved),
            ["adr_1"],
            "the first saved is the default"
        );
        assert_eq!(first.action, AuditAction::AddressSaved);
        assert_eq!(first.actor, "Ada <ada@example.com>");
        assert!(
            first
                .detail
                .contains("adr_1 \"adr_1\" (1 Dock Rd, Springfield, IL 62701 US), the default")
        );
        save(&mut saved, "adr_2", false);
        assert_eq!(defaults(&saved), ["adr_1"]);
        save(&mut saved, "adr_3", true);
        assert_eq!(
            defaults(&saved),
            ["adr_3"],
            "a new default replaces the old"
        );
        let made = apply(
            &mut saved,
            Change::DefaultAddress { id: "adr_2".into() },
            "Bo",
            8,
        )
        .unwrap();
        assert_eq!(defaults(&saved), ["adr_2"]);
        assert!(made.detail.starts_with("made adr_2"));
        // An update without `default` leaves the default where it is.
        let update = Change::UpdateAddress {
            id: "adr_2".into(),
            input: input("Dock 2", "62702", false),
        };
        let changed = apply(&mut saved, update, "Bo", 9).unwrap();
        assert_eq!(defaults(&saved), ["adr_2"]);
        assert!(
            changed.detail.contains("62701 US) → adr_2 \"Dock 2\""),
            "{}",
            changed.detail
        );
        assert_eq!(
            (
                saved.addresses[1].saved_by.as_str(),
                saved.addresses[1].saved_at
            ),
            ("Bo", 9)
        );
        // Deleting the default hands it to the oldest remaining one.
        let deleted = apply(
            &mut saved,
            Change::DeleteAddress { id: "adr_2".into() },
            "Bo",
            10,
        )
        .unwrap();
        assert_eq!(defaults(&saved), ["adr_1"]);
        assert!(
            deleted
                .detail
                .ends_with("adr_1 \"adr_1\" is the default now")
        );
        for id in ["adr_1", "adr_3"] {
            apply(
                &mut saved,
                Change::DeleteAddress { id: id.into() },
                "Bo",
                11,
            )
            .unwrap();
        }
        assert!(saved.addresses.is_empty());
    }

    #[test]
    fn unknown_ids_and_full_lists_are_refused_and_change_nothing() {
        let mut saved = Saved::default();
        save(&mut saved, "adr_1", false);
        let before = saved.clone();
        for change in [
            Change::DeleteAddress { id: "adr_9".into() },
            Change::DefaultAddress { id: "adr_9".into() },
            Change::UpdateAddress {
                id: "adr_9".into(),
                input: input("x", "1", true),
            },
            Change::DeletePackage { id: "pkg_9".into() },
            // An address id is not a package's.
            Change::DeletePackage { id: "adr_1".into() },
        ] {
            assert_eq!(apply(&mut saved, change, "Bo", 1), Err(Refused::NotFound));
        }
        assert_eq!(saved, before);
        for n in 2..=MAX_SAVED {
            save(&mut saved, &format!("adr_{n}"), false);
        }
        let full = saved.clone();
        let more = Change::SaveAddress {
            id: "adr_x".into(),
            input: input("x", "1", true),
        };
        assert_eq!(apply(&mut saved, more, "Bo", 1), Err(Refused::Full));
        assert_eq!(saved, full);
    }

    #[test]
    fn package_presets_are_saved_changed_and_deleted() {
        let mut saved = Saved::default();
        let parcel = Parcel {
            weight_oz: 12.0,
            length: 10.0,
            width: 8.0,
            height: 4.0,
        };
        let saving = Change::SavePackage {
            id: "pkg_1".into(),
            input: PackageInput {
                name: " Small box ".into(),
                parcel,
            },
        };
        let line = apply(&mut saved, saving, "Ada", 1).unwrap();
        assert_eq!(line.action, AuditAction::PackageSaved);
        assert_eq!(
            line.detail,
            "saved package preset pkg_1 \"Small box\" (10 × 8 × 4 in, 12 oz)"
        );
        let update = Change::UpdatePackage {
            id: "pkg_1".into(),
            input: PackageInput {
                name: "Small box".into(),
                parcel: Parcel {
                    weight_oz: 14.5,
                    ..parcel
                },
            },
        };
        apply(&mut saved, update, "Bo", 2).unwrap();
        assert_eq!(saved.packages[0].parcel.weight_oz, 14.5);
        let line = apply(
            &mut saved,
            Change::DeletePackage { id: "pkg_1".into() },
            "Bo",
            3,
        )
        .unwrap();
        assert!(line.detail.starts_with("deleted package preset pkg_1"));
        assert!(saved.packages.is_empty());
    }
}
