//! Which purchases an organization's audit log records.

use crate::errors::SettingError;
use crate::settings::{Lookup, bounded};

pub const AUDIT_PURCHASE_CENTS: &str = "AUDIT_PURCHASE_CENTS";

/// A live label of $100 or more is written to its organization's audit log.
pub const DEFAULT_AUDIT_PURCHASE_CENTS: u64 = 10_000;

#[derive(Clone, Copy)]
pub struct Settings {
    /// A live label bought at this price or more is an audit entry of its
    /// organization (`wire::Record::large_purchase`).
    pub audit_purchase_cents: i64,
}

impl Settings {
    pub fn from_lookup(get: Lookup) -> Result<Settings, SettingError> {
        Ok(Settings {
            audit_purchase_cents: bounded(
                get(AUDIT_PURCHASE_CENTS),
                AUDIT_PURCHASE_CENTS,
                DEFAULT_AUDIT_PURCHASE_CENTS,
                0..=100_000_000,
                "a whole number of cents from 0 (every live label) to 100000000",
            )? as i64,
        })
    }
}
