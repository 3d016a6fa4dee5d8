//! The account directory: who a person is, found by email. Sharded by a
//! hash of the email over [`SHARDS`] `AccountDirectory` objects, so no one
//! object carries every sign-in; with each account, its sign-in counts
//! (`throttle`) and the addresses that signed its person in; the
//! per-address sign-in counters are sharded the same way by address.
//! Touched only by sign-in, invitations, new organizations and membership
//! changes, never by a forwarded call.
//!
//! Which organizations a person belongs to is kept here too (the menu's
//! switcher lists them at sign-in), as a copy: the organization's object
//! is the authority and is asked on every request.

use api::orgs::{AccountId, OrgId, OrgSummary};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::AccountError;
use super::throttle;
use crate::objects::Object;

/// Fixed: changing it moves accounts between objects (a migration).
pub const SHARDS: u8 = 16;

pub struct Directory;

impl Object for Directory {
    const BINDING: &'static str = "DIRECTORY";
    type Request = DirectoryCall;
    type Error = AccountError;
    fn unavailable() -> AccountError {
        AccountError::DirectoryUnavailable
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

/// The object holding a person's passkeys (by account id: the user
/// handle a passkey sign-in hands back is the account id).
pub fn passkey_shard(account: &AccountId) -> String {
    shard("passkeys", account.as_str())
}

/// The object holding one ceremony's challenge.
pub fn challenge_shard(challenge: &str) -> String {
    shard("challenge", challenge)
}

/// One of a person's passkeys. The email finds the account at sign-in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredPasskey {
    /// `pk_…`, what the app names it by.
    pub id: String,
    /// base64url, as the browser names it.
    pub credential_id: String,
    pub account: AccountId,
    pub email: String,
    pub name: String,
    /// The P-256 SPKI, base64url.
    pub public_key: String,
    pub sign_count: u32,
    pub backup_eligible: bool,
    pub backed_up: bool,
    pub created_at: u64,
    pub last_used_at: Option<u64>,
}

impl StoredPasskey {
    pub fn view(&self) -> api::passkeys::Passkey {
        api::passkeys::Passkey {
            id: self.id.clone(),
            name: self.name.clone(),
            created_at: self.created_at,
            last_used_at: self.last_used_at,
            synced: self.backed_up,
        }
    }
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
    SetPassword(SetPassword),
    Throttled(Throttled),
    Failed(Failed),
    Gate(Gate),
    Outcome(Outcome),
    Challenge(Challenge),
    TakeChallenge(TakeChallenge),
    AddPasskey(AddPasskey),
    Passkeys(Passkeys),
    RemovePasskey(RemovePasskey),
    FindPasskey(FindPasskey),
    PasskeyUsed(PasskeyUsed),
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

/// Replaces the password record of `email`'s account, if it is still
/// `account` (`false`: no such account).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetPassword {
    pub email: String,
    pub account: AccountId,
    /// `passwords::PasswordRecord::encode`.
    pub password: String,
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

/// Before a password of `email` is checked from `address`: may it be
/// checked now (`throttle::Held::gate`)?
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gate {
    pub email: String,
    pub address: String,
    pub at: u64,
}

/// After: a wrong password (or no such account) from `address`, or the
/// person signed in from there (by password or passkey); what to audit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub email: String,
    pub address: String,
    pub signed_in: bool,
    pub at: u64,
}

/// Keeps a new challenge of `ceremony` (for `account`'s enrolment, or a
/// sign-in's: `None`) until `expires_at`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    pub challenge: String,
    pub ceremony: String,
    pub account: Option<AccountId>,
    pub expires_at: u64,
    pub at: u64,
}

/// Uses up the challenge: `true` if it was kept for this ceremony and
/// account and has not expired. Gone either way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TakeChallenge {
    pub challenge: String,
    pub ceremony: String,
    pub account: Option<AccountId>,
    pub at: u64,
}

/// Adds the passkey unless its owner has `max` or its credential is kept already.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddPasskey {
    pub passkey: StoredPasskey,
    pub max: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum PasskeyRefusal {
    Limit,
    Exists,
}

/// The account's passkeys, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Passkeys {
    pub account: AccountId,
}

/// Removes the account's passkey `id`: the one removed and those left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RemovePasskey {
    pub account: AccountId,
    pub id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FindPasskey {
    pub account: AccountId,
    pub credential_id: String,
}

/// Records a sign-in with the passkey, if its counter is still `from`
/// (two sign-ins with one counter value: only the first counts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PasskeyUsed {
    pub account: AccountId,
    pub credential_id: String,
    pub from: u32,
    pub sign_count: u32,
    pub backed_up: bool,
    pub at: u64,
}

crate::calls! {
    DirectoryCall for Directory:
    Find(Find) => Option<Account>,
    Register(Register) => bool,
    Join(Join) => (),
    Leave(Leave) => (),
    SetPassword(SetPassword) => bool,
    Throttled(Throttled) => Option<u64>,
    Failed(Failed) => Option<u64>,
    Gate(Gate) => throttle::Gated,
    Outcome(Outcome) => Vec<throttle::Event>,
    Challenge(Challenge) => (),
    TakeChallenge(TakeChallenge) => bool,
    AddPasskey(AddPasskey) => Result<Vec<StoredPasskey>, PasskeyRefusal>,
    Passkeys(Passkeys) => Vec<StoredPasskey>,
    RemovePasskey(RemovePasskey) => Option<(StoredPasskey, Vec<StoredPasskey>)>,
    FindPasskey(FindPasskey) => Option<StoredPasskey>,
    PasskeyUsed(PasskeyUsed) => bool,
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
