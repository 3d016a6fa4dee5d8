//! The account directory: who a person is, found by email. Sharded by a
//! hash of the email over [`SHARDS`] `AccountDirectory` objects, so no one
//! object carries every sign-in; the per-address sign-in counters are
//! sharded the same way by address. Touched only by sign-in, invitations,
//! new organizations and membership changes, never by a forwarded call.
//!
//! Which organizations a person belongs to is kept here too (the menu's
//! switcher lists them at sign-in), as a copy: the organization's object
//! is the authority and is asked on every request.

use api::orgs::{AccountId, OrgId, OrgSummary};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::errors::EdgeError;
use crate::objects::Object;

/// Fixed: changing it moves accounts between objects (a migration).
pub const SHARDS: u8 = 16;

pub struct Directory;

impl Object for Directory {
    const BINDING: &'static str = "DIRECTORY";
    type Request = DirectoryCall;
    fn unavailable() -> EdgeError {
        EdgeError::DirectoryUnavailable
    }
}

fn shard(kind: &str, key: &str) -> String {
    let n = Sha256::digest(key.as_bytes())[0] % SHARDS;
    format!("{kind}-{n:02}")
}

/// The object holding the account of `email` (normalized) and its counter.
pub fn email_shard(email: &str) -> String {
    shard("email", email)
}

/// The object holding the sign-in counter of a client address.
pub fn address_shard(address: &str) -> String {
    shard("address", address)
}

/// A person's account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub id: AccountId,
    pub email: String,
    pub name: String,
    /// `passwords::PasswordRecord::encode`.
    pub password: String,
    pub orgs: Vec<OrgSummary>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectoryCall {
    Find(Find),
    Register(Register),
    Join(Join),
    Leave(Leave),
    Throttled(Throttled),
    Failed(Failed),
    Cleared(Cleared),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Find {
    pub email: String,
}

/// A new account; refused (`false`) if the email has one already.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Register {
    pub account: Account,
}

/// Adds or updates one organization in the account's list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Join {
    pub email: String,
    pub org: OrgSummary,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leave {
    pub email: String,
    pub org: OrgId,
}

/// Seconds until `key` may try again, if its counter is at `limit`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throttled {
    pub key: String,
    pub limit: u32,
    pub at: u64,
}

/// Counts one failure of `key`; answers as `Throttled` after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failed {
    pub key: String,
    pub limit: u32,
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cleared {
    pub key: String,
}

crate::calls! {
    DirectoryCall for Directory:
    Find(Find) => Option<Account>,
    Register(Register) => bool,
    Join(Join) => (),
    Leave(Leave) => (),
    Throttled(Throttled) => Option<u64>,
    Failed(Failed) => Option<u64>,
    Cleared(Cleared) => (),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_spread_and_stay_put() {
        let names: std::collections::HashSet<_> = (0..200)
            .map(|i| email_shard(&format!("person{i}@example.com")))
            .collect();
        assert_eq!(names.len(), usize::from(SHARDS));
        assert_eq!(
            email_shard("ada@example.com"),
            email_shard("ada@example.com")
        );
        assert!(address_shard("203.0.113.9").starts_with("address-"));
    }
}
