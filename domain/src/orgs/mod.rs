//! Organizations: each merchant's own people, invitations, audit log and
//! objects. One `Organization` Durable Object per organization holds its
//! members (with role and last sign-in), invitations (as hashes), and its
//! append-only audit log (`accounts/src/organization.rs`); the `AccountDirectory` finds a person's
//! account by email, sharded by a hash of it (`directory`). Only sign-in,
//! invitations and membership changes touch the directory; a forwarded
//! call asks the organization's object who the caller is, nothing else,
//! and a read may use what this isolate was told moments ago
//! (`member_checks`).
//!
//! Every other object (purchase records, control, inbox, jobs) is named
//! from the organization by [`object_name`], so one organization's names
//! can never be spelled by another's.
//!
//! All of it runs in a Worker of its own, the accounts Worker (`wire`), so
//! the main Worker every request loads carries none of it but a membership
//! check. Plain decisions live here and in `passwords`, `throttle`,
//! `tokens` and `rules`; the objects and the endpoints are the accounts Worker's
//! (`accounts/`).

pub mod directory;
mod error;
pub mod keys;
pub mod member_checks;
pub mod passkeys;
pub mod passwords;
pub mod presets;
pub mod rules;
pub mod sealing;
pub mod settings;
pub mod throttle;
pub mod tokens;
pub mod via;
pub mod widget;
pub mod wire;

use api::access_tokens::AccessToken;
use api::orgs::{AccountId, AuditAction, AuditPage, Invite, InvitePreview, Member, OrgId};
use api::session::Role;
use serde::{Deserialize, Serialize};

pub use error::{AccountError, OrgError};

use crate::objects::Object;

/// Which of an organization's objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named<'a> {
    /// Its control store (signed-out sessions, active key, jobs list).
    Control,
    /// Its webhook inbox and label ledger.
    Inbox,
    /// The purchase record of one `Idempotency-Key` in one mode.
    Purchase { mode: api::KeyEnv, key: &'a str },
    /// One batch job.
    Job { id: &'a str },
}

/// The name of one of `org`'s Durable Objects. The deployment's own
/// organization keeps the names its objects had before organizations
/// existed (`control`, `live:{key}`, the job id), so a deployed store is
/// not orphaned. Every other organization's names start with its id and a
/// `/`, which no old name contains and no id can (ids are `org_[a-z0-9]+`),
/// so no two organizations' names meet, whatever an idempotency key holds.
pub fn object_name(org: &OrgId, object: Named) -> String {
    let own = match object {
        Named::Control | Named::Inbox => "control".to_string(),
        Named::Purchase { mode, key } => format!("{mode}:{key}"),
        Named::Job { id } => id.to_string(),
    };
    if org.is_deployment() {
        return own;
    }
    let kind = match object {
        Named::Control => "control",
        Named::Inbox => "inbox",
        Named::Purchase { .. } => "purchase",
        Named::Job { .. } => "job",
    };
    format!("{org}/{kind}/{own}")
}

/// The `Organization` object of one organization (named by its id).
pub struct Org;

impl Object for Org {
    const BINDING: &'static str = "ORGS";
    type Request = OrgCall;
    type Error = OrgError;
    fn unavailable() -> OrgError {
        OrgError::Unavailable
    }
}

/// Who did something, as the audit log and invitations name them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Actor {
    pub account: Option<AccountId>,
    /// `Ada <ada@example.com>`.
    pub label: String,
}

/// A person joining: their account and how colleagues see them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Joining {
    pub account: AccountId,
    pub name: String,
    pub email: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrgCall {
    Create(Create),
    Check(Check),
    SignedIn(SignedIn),
    Members(Members),
    SetRole(SetRole),
    Remove(Remove),
    CreateInvite(CreateInvite),
    Invites(Invites),
    RevokeInvite(RevokeInvite),
    PreviewInvite(PreviewInvite),
    AcceptInvite(AcceptInvite),
    CreateReset(CreateReset),
    PreviewReset(PreviewReset),
    UseReset(UseReset),
    Audit(Audit),
    Access(Access),
    Keys(Keys),
    SetKey(SetKey),
    MoveKey(MoveKey),
    Reseal(Reseal),
    SetWebhookSecret(SetWebhookSecret),
    MoveWebhookSecret(MoveWebhookSecret),
    Record(Record),
    Protected(Protected),
    CreateToken(CreateToken),
    Tokens(Tokens),
    RevokeToken(RevokeToken),
    UseToken(UseToken),
    Widget(Widget),
    SetWidget(SetWidget),
    SavedLists(SavedLists),
    ChangeSaved(ChangeSaved),
    SetLive(SetLive),
    SetModeSwitch(SetModeSwitch),
}

/// Make the organization with its first admin (refused if it exists: a
/// setup link makes one organization, once).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Create {
    pub org: OrgId,
    pub name: String,
    pub admin: Joining,
    pub at: u64,
}

/// A member as a session needs them: the organization's name, their role,
/// and who they are (for the audit log and the directory).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Membership {
    pub org_name: String,
    pub role: Role,
    pub name: String,
    pub email: String,
}

impl Membership {
    pub fn actor(&self, account: &AccountId) -> Actor {
        Actor {
            account: Some(account.clone()),
            label: format!("{} <{}>", self.name, self.email),
        }
    }
}

/// Is `account` a member, with which role? Asked on every request of an
/// organization's session: a removal or a role change counts at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    pub account: AccountId,
}

/// As `Check`, and records the sign-in time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedIn {
    pub account: AccountId,
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Members {}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetRole {
    pub actor: Actor,
    pub account: AccountId,
    pub role: Role,
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remove {
    pub actor: Actor,
    pub account: AccountId,
    pub at: u64,
}

/// A new invitation; the Worker drew the token and sends only its hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateInvite {
    pub actor: Actor,
    pub id: String,
    pub token_hash: String,
    pub role: Role,
    pub expires_at: u64,
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invites {
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevokeInvite {
    pub actor: Actor,
    pub id: String,
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewInvite {
    pub token_hash: String,
    pub at: u64,
}

/// Use the invitation (once) to make `person` a member with its role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptInvite {
    pub token_hash: String,
    pub person: Joining,
    pub at: u64,
}

/// A member's new password reset link, replacing any earlier one of
/// theirs; the Worker drew the token and sends only its hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateReset {
    pub actor: Actor,
    pub account: AccountId,
    pub token_hash: String,
    pub expires_at: u64,
    pub at: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreviewReset {
    pub token_hash: String,
    pub at: u64,
}

/// Use the reset link (once): the answer names the member whose password
/// the Worker then sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UseReset {
    pub token_hash: String,
    pub at: u64,
}

/// Whose password a usable reset link resets, as a member now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetFor {
    pub org_name: String,
    pub account: AccountId,
    pub name: String,
    pub email: String,
    pub role: Role,
    pub expires_at: u64,
}

/// A money decision the main Worker saw `account` make (`wire::Record`),
/// for the audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub account: AccountId,
    pub action: AuditAction,
    pub detail: String,
    pub at: u64,
}

/// What the sign-in protection did about a member's account
/// (`throttle::Event::audit`), for the audit log; nobody did it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protected {
    pub action: AuditAction,
    pub detail: String,
    pub at: u64,
}

/// Who the audit log names as the actor of [`Protected`] entries.
pub const PROTECTION_ACTOR: &str = "sign-in protection";

/// The audit log, newest first, before `seq`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Audit {
    pub before: Option<u64>,
}

/// A request of an organization's session: the person's role now and the
/// organization's sealed keys, in one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    pub account: AccountId,
}

/// The organization's sealed keys and webhook secrets (nothing, and no
/// storage made, for an organization that does not exist).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Keys {}

/// Turn live mode on or off (`api::orgs::KeyChange::Live`); audited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetLive {
    pub actor: Actor,
    pub on: bool,
    pub at: u64,
}

/// Allow operators to switch between live and sandbox, or stop them
/// (`api::orgs::ModeSwitch`); audited. Answers the setting now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetModeSwitch {
    pub actor: Actor,
    pub operators: bool,
    pub at: u64,
}

/// Store a checked, sealed key in its mode and slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetKey {
    pub key: keys::StoredKey,
}

/// The rotation's end: `promote` makes the mode's next key its current
/// one; otherwise the next key is discarded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveKey {
    pub actor: Actor,
    pub mode: api::KeyEnv,
    pub promote: bool,
    pub at: u64,
}

/// Store a sealed webhook secret in its slot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SetWebhookSecret {
    pub secret: keys::StoredSecret,
}

/// The webhook secret rotation's end, as `MoveKey`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveWebhookSecret {
    pub actor: Actor,
    pub promote: bool,
    pub at: u64,
}

/// The organization's widget settings (nothing, and no storage made, for
/// an organization that does not exist).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Widget {}

/// Store checked widget settings; audited with what changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SetWidget {
    pub widget: widget::StoredWidget,
}

/// A secret sealed again under the current master key (`from` is what was
/// stored: a concurrent change wins).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reseal {
    pub from: String,
    pub to: String,
}

/// A new personal access token of `actor` (a member); the Worker drew
/// the token and sends only its hash and last four characters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateToken {
    pub actor: Actor,
    pub account: AccountId,
    pub id: String,
    pub token_hash: String,
    pub name: String,
    pub last_four: String,
    pub expires_at: u64,
    pub at: u64,
}

/// The access tokens of `owner`, or everyone's (`None`: an admin asks).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tokens {
    pub owner: Option<AccountId>,
}

/// Revoke token `id` if it is `owner`'s (`None`: an admin, any member's);
/// answers the tokens `owner` sees.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RevokeToken {
    pub actor: Actor,
    pub owner: Option<AccountId>,
    pub id: String,
    pub at: u64,
}

/// Sign in with the token whose hash this is: its owner and their role
/// now, if it has not expired and they are still a member; records its
/// use and the owner's sign-in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UseToken {
    pub token_hash: String,
    pub at: u64,
}

/// The saved addresses and package presets (`presets`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedLists {}

/// A change to them by `actor`, with its audit line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChangeSaved {
    pub actor: Actor,
    // Boxed: an address is far larger than every other call.
    pub change: Box<presets::Change>,
    pub at: u64,
}

/// Why the organization's object refused a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Refusal {
    Exists,
    NoSuchMember,
    LastAdmin,
    InviteUnknown,
    InviteExpired,
    InviteUsed,
    InviteRevoked,
    ResetUnknown,
    ResetExpired,
    ResetUsed,
    /// The member's account belongs to another organization too.
    ResetOtherOrg,
    /// An admin asked for their own.
    ResetSelf,
    NoNextKey,
    TokenUnknown,
}

/// What an accepted invitation made of the person.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accepted {
    pub org_name: String,
    pub role: Role,
}

crate::calls! {
    OrgCall for Org:
    Create(Create) => Result<(), Refusal>,
    Check(Check) => Option<Membership>,
    SignedIn(SignedIn) => Option<Membership>,
    Members(Members) => Vec<Member>,
    SetRole(SetRole) => Result<Vec<Member>, Refusal>,
    Remove(Remove) => Result<Vec<Member>, Refusal>,
    CreateInvite(CreateInvite) => Invite,
    Invites(Invites) => Vec<Invite>,
    RevokeInvite(RevokeInvite) => Result<Vec<Invite>, Refusal>,
    PreviewInvite(PreviewInvite) => Result<InvitePreview, Refusal>,
    AcceptInvite(AcceptInvite) => Result<Accepted, Refusal>,
    CreateReset(CreateReset) => Result<(), Refusal>,
    PreviewReset(PreviewReset) => Result<ResetFor, Refusal>,
    UseReset(UseReset) => Result<ResetFor, Refusal>,
    Audit(Audit) => AuditPage,
    Access(Access) => Option<(Membership, keys::Sealed)>,
    Keys(Keys) => keys::Sealed,
    SetKey(SetKey) => Vec<keys::StoredKey>,
    MoveKey(MoveKey) => Result<Vec<keys::StoredKey>, Refusal>,
    Reseal(Reseal) => (),
    SetWebhookSecret(SetWebhookSecret) => Vec<keys::StoredSecret>,
    MoveWebhookSecret(MoveWebhookSecret) => Result<Vec<keys::StoredSecret>, Refusal>,
    Record(Record) => (),
    Protected(Protected) => (),
    CreateToken(CreateToken) => Option<AccessToken>,
    Tokens(Tokens) => Vec<AccessToken>,
    RevokeToken(RevokeToken) => Result<Vec<AccessToken>, Refusal>,
    UseToken(UseToken) => Option<(AccountId, Role)>,
    Widget(Widget) => Option<widget::StoredWidget>,
    SetWidget(SetWidget) => widget::StoredWidget,
    SavedLists(SavedLists) => presets::Saved,
    ChangeSaved(ChangeSaved) => Result<presets::Saved, presets::Refused>,
    SetLive(SetLive) => bool,
    SetModeSwitch(SetModeSwitch) => bool,
}

/// An audit line the object writes with a change (the log is append-only:
/// no call updates or deletes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditLine {
    pub actor: String,
    pub action: AuditAction,
    pub detail: String,
}

/// Audit pages hold this many entries.
pub const AUDIT_PAGE: u32 = 50;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deployment_keeps_its_names_and_organizations_never_meet() {
        let deployment = OrgId::deployment();
        let live = api::KeyEnv::Live;
        assert_eq!(object_name(&deployment, Named::Control), "control");
        assert_eq!(object_name(&deployment, Named::Inbox), "control");
        assert_eq!(
            object_name(
                &deployment,
                Named::Purchase {
                    mode: live,
                    key: "k1"
                }
            ),
            "live:k1"
        );
        assert_eq!(
            object_name(&deployment, Named::Job { id: "job_1" }),
            "job_1"
        );
        let a = OrgId::parse("org_a").unwrap();
        let b = OrgId::parse("org_ab").unwrap();
        // An idempotency key that spells another organization's name.
        let tricky = [
            "k1",
            "org_ab/purchase/live:k1",
            "/purchase/live:k1",
            "b/purchase/live:k1",
        ];
        let mut names = std::collections::HashSet::new();
        for org in [&deployment, &a, &b] {
            for key in tricky {
                for mode in api::KeyEnv::ALL {
                    assert!(names.insert(object_name(org, Named::Purchase { mode, key })));
                }
            }
            for object in [Named::Control, Named::Inbox, Named::Job { id: "job_1" }] {
                let name = object_name(org, object);
                // The deployment's control and inbox share one object, as before.
                if !(org.is_deployment() && object == Named::Inbox) {
                    assert!(names.insert(name), "{org} {object:?}");
                }
            }
        }
        // Every organization's name starts with its id and a slash, so the
        // owner of any name is known from the name alone.
        for name in &names {
            let owners: Vec<_> = [&a, &b]
                .into_iter()
                .filter(|org| name.starts_with(&format!("{org}/")))
                .collect();
            assert!(owners.len() <= 1, "{name}");
        }
    }
}
