//! Organizations, their people and invitations: the Worker's own endpoints
//! for a hosted deployment where each merchant is an organization. Stated
//! here once so the app and the edge cannot disagree.
//!
//! | Method and path                    | Who        | Body → answer                          |
//! |------------------------------------|------------|----------------------------------------|
//! | `POST /api/session/password`       | anyone     | `PasswordSignIn` → `SessionInfo` + cookie |
//! | `PUT /api/session/org`             | signed in  | `SwitchOrg` → `SessionInfo` + cookie   |
//! | `POST /api/orgs`                   | a setup link | `CreateOrg` → `SessionInfo` + cookie |
//! | `GET /api/org/members`             | admin      | → `MemberList`                         |
//! | `PUT /api/org/members/{id}`        | admin      | `RoleChange` → `MemberList`            |
//! | `DELETE /api/org/members/{id}`     | admin      | → `MemberList`                         |
//! | `GET /api/org/invites`             | admin      | → `InviteList`                         |
//! | `POST /api/org/invites`            | admin      | `InviteRequest` → `InviteCreated` (the token, once) |
//! | `DELETE /api/org/invites/{id}`     | admin      | → `InviteList`                         |
//! | `POST /api/invites/preview`        | anyone     | `InviteToken` → `InvitePreview`        |
//! | `POST /api/invites/accept`         | anyone     | `AcceptInvite` → `SessionInfo` + cookie |
//! | `POST /api/org/members/{id}/reset` | admin      | → `ResetCreated` (the token, once)     |
//! | `POST /api/resets/preview`         | anyone     | `ResetToken` → `ResetPreview`          |
//! | `POST /api/resets/use`             | anyone     | `UseReset` → `SessionInfo` + cookie    |
//! | `GET /api/org/audit`               | admin      | → `AuditPage` (`?before=` for older)   |
//! | `GET /api/org/keys`                | admin      | → `OrgKeyList`                         |
//! | `PUT /api/org/keys`                | admin      | `KeyChange` → `OrgKeyList`             |
//! | `GET /api/org/webhook`             | admin      | → `OrgWebhook`                         |
//! | `PUT /api/org/webhook`             | admin      | `WebhookSecretChange` → `OrgWebhook`   |
//! | `GET /api/org/widget`              | any member | → `OrgWidget`                          |
//! | `PUT /api/org/widget`              | admin      | `WidgetSettings` → `OrgWidget`         |
//! | `GET /api/org/mode-switch`         | admin      | → `ModeSwitch`                         |
//! | `PUT /api/org/mode-switch`         | admin      | `ModeSwitch` → `ModeSwitch`            |
//!
//! Refusals: `EDGE.SIGN_IN.FAILED` (401, the same for an unknown email and
//! a wrong password), `EDGE.SIGN_IN.THROTTLED` (429 with `Retry-After`),
//! `EDGE.INVITE.{UNKNOWN,EXPIRED,USED,REVOKED}`,
//! `EDGE.RESET.{UNKNOWN,EXPIRED,USED,OTHER_ORG,SELF}`, `EDGE.MEMBER.LAST_ADMIN`,
//! `EDGE.MEMBER.NOT_FOUND`, `EDGE.ORG.NOT_FOUND` (never says whether another
//! organization exists), `EDGE.ORG.SETUP_INVALID`, `EDGE.PASSWORD.WEAK`,
//! `EDGE.ORG.MANAGED_BY_SETTINGS` (409: the deployment's own organization,
//! configured by Worker secrets, has no team or audit pages),
//! `EDGE.KEY.MALFORMED`, `EDGE.KEY.REFUSED` (the service refused the key:
//! nothing saved), `EDGE.KEY.CHECK_UNAVAILABLE`, `EDGE.KEY.NO_NEXT`.

use crate::keys::KeySlot;
use crate::role::Role;
use serde::{Deserialize, Serialize};
use std::fmt;

pub const PASSWORD_SIGN_IN_PATH: &str = "/api/session/password";
pub const SWITCH_ORG_PATH: &str = "/api/session/org";
pub const CREATE_ORG_PATH: &str = "/api/orgs";
pub const MEMBERS_PATH: &str = "/api/org/members";
pub const MEMBER_PATH: &str = "/api/org/members/{id}";
pub const INVITES_PATH: &str = "/api/org/invites";
pub const INVITE_PATH: &str = "/api/org/invites/{id}";
/// The invitation's token travels in the body, never in a path that
/// request logs keep.
pub const PREVIEW_INVITE_PATH: &str = "/api/invites/preview";
pub const ACCEPT_INVITE_PATH: &str = "/api/invites/accept";
/// An admin makes member `{id}` a password reset link (no body).
pub const RESET_LINK_PATH: &str = "/api/org/members/{id}/reset";
/// A reset link's token travels in the body, as an invitation's.
pub const PREVIEW_RESET_PATH: &str = "/api/resets/preview";
pub const USE_RESET_PATH: &str = "/api/resets/use";
pub const AUDIT_PATH: &str = "/api/org/audit";
pub const ORG_KEYS_PATH: &str = "/api/org/keys";
pub const ORG_WEBHOOK_PATH: &str = "/api/org/webhook";
pub const ORG_WIDGET_PATH: &str = "/api/org/widget";
pub const ORG_MODE_SWITCH_PATH: &str = "/api/org/mode-switch";

/// The dashboard page where an organization's people are managed; the
/// setting that lets operators switch modes is there too.
pub const TEAM_PAGE: &str = "/team";

/// The dashboard page where an organization's admins enter its v1 keys
/// (the “API key” field); messages about its keys name it.
pub const KEYS_PAGE: &str = "/keys";
/// The dashboard page with an organization's webhook URL and secret (the
/// “Webhook secret” field); messages about its deliveries name it.
pub const WEBHOOK_SETTINGS_PAGE: &str = "/webhooks/settings";

/// The dashboard page an invitation link opens: `/invite#{token}` (the
/// fragment never reaches a server log or a `Referer`).
pub const INVITE_PAGE: &str = "/invite";
/// The page a password reset link opens: `/reset#{token}`.
pub const RESET_PAGE: &str = "/reset";
/// The page a setup link from `scripts/new-org` opens: `/new-org#{token}`.
pub const NEW_ORG_PAGE: &str = "/new-org";

/// Invitations last a week unless the admin chooses (1 to 30 days).
pub const INVITE_DEFAULT_DAYS: u32 = 7;
pub const INVITE_MAX_DAYS: u32 = 30;

/// A reset link lasts a day: long enough to reach the person, short
/// enough that a forgotten one is soon worthless.
pub const RESET_HOURS: u64 = 24;

/// Passwords: long enough to resist guessing at our hashing cost, short
/// enough that hashing them is bounded (NIST SP 800-63B asks for at least 8
/// and accepting at least 64; we ask for 12).
pub const PASSWORD_MIN_CHARS: usize = 12;
pub const PASSWORD_MAX_BYTES: usize = 256;

macro_rules! prefixed_id {
    ($(#[$meta:meta])* $name:ident, $prefix:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            pub const PREFIX: &'static str = $prefix;

            /// `prefix` then 1 to 40 of `[a-z0-9]`: safe in a path, a cookie
            /// field and a Durable Object name.
            pub fn parse(s: &str) -> Option<$name> {
                let rest = s.strip_prefix($prefix)?;
                let ok = (1..=40).contains(&rest.len())
                    && rest.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
                ok.then(|| $name(s.to_string()))
            }

            /// From random hex drawn by the caller.
            pub fn from_hex(hex: &str) -> Option<$name> {
                $name::parse(&format!("{}{hex}", $prefix))
            }

            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                $name::parse(&s).ok_or_else(|| {
                    serde::de::Error::custom(concat!("not a valid ", $prefix, "… id"))
                })
            }
        }
    };
}

prefixed_id!(
    /// An organization: `org_…`.
    OrgId,
    "org_"
);
prefixed_id!(
    /// A person's account, the same in every organization they belong to: `acct_…`.
    AccountId,
    "acct_"
);

impl OrgId {
    /// The organization a deployment configured the old way (`SVC_*` keys,
    /// `USERS` tokens) is: its objects keep the names they had before
    /// organizations existed, so a deployed store is not orphaned.
    pub fn deployment() -> OrgId {
        OrgId("org_deployment".to_string())
    }

    pub fn is_deployment(&self) -> bool {
        self.0 == "org_deployment"
    }
}

/// An email as accounts are keyed: trimmed and lower-cased. `None` if it is
/// not `local@domain` within 254 characters.
pub fn normalize_email(email: &str) -> Option<String> {
    let email = email.trim().to_lowercase();
    let (local, domain) = email.split_once('@')?;
    let ok = email.len() <= 254
        && !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control());
    ok.then_some(email)
}

/// Why a new password is refused (`None`: acceptable). Shown as is.
pub fn password_problem(password: &str) -> Option<String> {
    if password.chars().count() < PASSWORD_MIN_CHARS {
        return Some(format!(
            "Use at least {PASSWORD_MIN_CHARS} characters: a few unrelated words work well."
        ));
    }
    if password.len() > PASSWORD_MAX_BYTES {
        return Some(format!("Use at most {PASSWORD_MAX_BYTES} bytes."));
    }
    None
}

/// `POST /api/session/password`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PasswordSignIn {
    pub email: String,
    pub password: String,
}

/// `PUT /api/session/org`: make another of the person's organizations the session's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SwitchOrg {
    pub org: OrgId,
}

/// One organization the signed-in person belongs to (the menu's switcher).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrgSummary {
    pub id: OrgId,
    pub name: String,
    pub role: Role,
}

/// `POST /api/orgs`: a new organization and its first admin, from the
/// one-time setup link `scripts/new-org` printed, or without one where
/// the deployment opened sign-up (`Signup`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateOrg {
    /// The link's token; empty for an open sign-up.
    #[serde(default)]
    pub setup: String,
    pub org_name: String,
    /// The admin's name as colleagues see it.
    pub name: String,
    pub email: String,
    pub password: String,
}

/// `GET /api/orgs` (anyone): whether anyone may create an organization
/// without a setup link (the accounts Worker's `OPEN_SIGNUP`, off unless
/// set to `on`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signup {
    pub open: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    pub account: AccountId,
    pub name: String,
    pub email: String,
    pub role: Role,
    pub joined_at: u64,
    /// Unix seconds of the last sign-in into this organization.
    pub last_sign_in: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberList {
    pub members: Vec<Member>,
}

/// `PUT /api/org/members/{id}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoleChange {
    pub role: Role,
}

/// `POST /api/org/invites`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InviteRequest {
    pub role: Role,
    /// 1 to [`INVITE_MAX_DAYS`]; [`INVITE_DEFAULT_DAYS`] when absent.
    #[serde(default)]
    pub expires_in_days: Option<u32>,
}

crate::names! {
    /// Where an invitation is in its life.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum InviteState {
        Pending = "pending",
        Accepted = "accepted",
        Revoked = "revoked",
        Expired = "expired",
    }
}

/// An invitation as admins see it (never its token).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Invite {
    /// `inv_…`: names it for revocation; not the token.
    pub id: String,
    pub role: Role,
    pub created_by: String,
    pub created_at: u64,
    pub expires_at: u64,
    pub state: InviteState,
    /// Who accepted it.
    pub accepted_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InviteList {
    pub invites: Vec<Invite>,
}

/// `POST /api/org/invites`'s answer: the token is shown this once (only
/// its hash is stored); the link is `{origin}/invite#{token}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InviteCreated {
    pub invite: Invite,
    pub token: String,
}

/// `POST /api/invites/preview`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InviteToken {
    pub token: String,
}

/// `POST /api/invites/preview`'s answer: what accepting would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InvitePreview {
    pub org_name: String,
    pub role: Role,
    pub invited_by: String,
    pub expires_at: u64,
}

/// `POST /api/invites/accept`: with a new email, creates the account with
/// this password; with an existing one, the password must be the account's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptInvite {
    pub token: String,
    pub email: String,
    pub password: String,
    /// For a new account (defaults to the email's local part).
    #[serde(default)]
    pub name: Option<String>,
}

/// `POST /api/org/members/{id}/reset`'s answer: the token is shown this
/// once (only its hash is stored); the link is `{origin}/reset#{token}`.
/// It replaces any earlier link of the member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetCreated {
    pub member: AccountId,
    pub expires_at: u64,
    pub token: String,
}

/// `POST /api/resets/preview`'s body: a reset link's token.
pub type ResetToken = InviteToken;

/// `POST /api/resets/preview`'s answer: whose password the link resets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetPreview {
    pub org_name: String,
    pub name: String,
    pub email: String,
    pub expires_at: u64,
}

/// `POST /api/resets/use`: the new password (the rules of a new account's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UseReset {
    pub token: String,
    pub password: String,
}

crate::names! {
    /// What an audit entry records.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum AuditAction {
        OrgCreated = "org_created",
        MemberJoined = "member_joined",
        RoleChanged = "role_changed",
        MemberRemoved = "member_removed",
        InviteCreated = "invite_created",
        InviteRevoked = "invite_revoked",
        /// An admin made a member a password reset link.
        ResetLinkCreated = "reset_link_created",
        /// A member set a new password with one.
        PasswordReset = "password_reset",
        KeySet = "key_set",
        WebhookSecretSet = "webhook_secret_set",
        WidgetChanged = "widget_changed",
        BatchApproved = "batch_approved",
        LargePurchase = "large_purchase",
        TokenCreated = "token_created",
        TokenRevoked = "token_revoked",
        PasskeyAdded = "passkey_added",
        PasskeyRemoved = "passkey_removed",
        AddressSaved = "address_saved",
        PackageSaved = "package_saved",
        /// Sign-in protection (`domain::orgs::throttle`) refused an
        /// address for a member's account.
        SignInLocked = "sign_in_locked",
        /// It slowed new addresses for a member's account.
        SignInSlowed = "sign_in_slowed",
        /// A passkey lifted a lock.
        SignInUnlocked = "sign_in_unlocked",
        TrackingChanged = "tracking_changed",
        LiveModeChanged = "live_mode_changed",
        /// An admin allowed or stopped operators switching between live
        /// and sandbox.
        ModeSwitchChanged = "mode_switch_changed",
    }
}

/// One line of the append-only audit log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// Increasing within the organization.
    pub seq: u64,
    pub at: u64,
    /// Who did it (a name and email, or `setup link`).
    pub actor: String,
    pub action: AuditAction,
    /// What it was done to, in words (`Ada <ada@example.com>: operator → admin`).
    pub detail: String,
}

/// `GET /api/org/audit`: newest first; `next_before` pages on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditPage {
    pub entries: Vec<AuditEntry>,
    pub next_before: Option<u64>,
}

/// `PUT /api/org/keys`: the organization's v1 keys, entered in the app.
/// A key is saved only after a harmless read with it succeeded; its mode
/// is its prefix's. The rotation: `set` a `next` key, verify and activate
/// it (`POST /api/keys/{mode}/verify`, `…/activate`), then `promote` it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum KeyChange {
    Set {
        key: String,
        slot: KeySlot,
    },
    /// The `next` key becomes the mode's only key (the old one is forgotten).
    Promote {
        mode: crate::KeyEnv,
    },
    /// A rotation abandoned: the `next` key is forgotten.
    DiscardNext {
        mode: crate::KeyEnv,
    },
    /// Live mode turned on or off. A new organization starts with it off:
    /// until an admin turns it on, its sessions have only the sandbox key,
    /// so nothing real is bought or charged by mistake.
    Live {
        on: bool,
    },
}

/// `GET`/`PUT /api/org/mode-switch`: whether operators may switch their
/// sessions between live and sandbox (admins always may, viewers never).
/// Off in a new organization.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeSwitch {
    pub operators: bool,
}

/// One stored key as admins see it: never its value, only `svc_live_…1234`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrgKey {
    pub mode: crate::KeyEnv,
    pub slot: KeySlot,
    pub redacted: String,
    /// As the service stated them when the key was checked.
    pub scopes: Vec<crate::Scope>,
    pub set_at: u64,
    pub set_by: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrgKeyList {
    pub keys: Vec<OrgKey>,
    /// Whether live mode is on (`KeyChange::Live`).
    #[serde(default)]
    pub live: bool,
}

/// `PUT /api/org/webhook`: the secret the service signs the organization's
/// `label.created` deliveries with, as its dashboard shows it. The
/// rotation: `set` the new one as `next` (both verify), change it in the
/// service, then `promote` it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case")]
pub enum WebhookSecretChange {
    Set { secret: String, slot: KeySlot },
    Promote,
    DiscardNext,
}

/// One stored webhook secret as admins see it: never the secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookSecretInfo {
    pub slot: KeySlot,
    /// Its last four characters: `…a1b2`.
    pub redacted: String,
    pub set_at: u64,
    pub set_by: String,
}

/// `GET /api/org/webhook`: where the service must deliver, and the secrets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrgWebhook {
    /// The path to append to the dashboard's origin (`ORG_RECEIVE_PATH`).
    pub path: String,
    pub secrets: Vec<WebhookSecretInfo>,
}

/// Webhook secrets: what the service issues is at least this long.
pub const WEBHOOK_SECRET_MIN_CHARS: usize = 16;

/// `PUT /api/org/widget`: the organization's storefront widget
/// (`crate::widget`). Its public widget id is the organization's id.
/// Each change is audited with what changed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WidgetSettings {
    /// Shop origins allowed to frame the widget (`https://shop.example`;
    /// `http://` only for 127.0.0.1 or localhost); none: no shop may.
    pub origins: Vec<String>,
    /// Where the widget's parcels ship from (checked like `from_address`).
    pub ship_from: Option<crate::Address>,
    /// The share (0 to 1) of the organization's rates and address limits
    /// the widget may use.
    pub share: f64,
    /// What the shop is handed when no carrier answers in time.
    pub fallback: Option<WidgetFallback>,
}

/// The option the widget offers when no carrier answers within
/// `wait_seconds` (or the quote fails), so checkout never blocks on
/// shipping; the shop gets it marked `fallback: true` (`crate::widget`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WidgetFallback {
    /// What the shopper reads (`Standard shipping`): 1 to 60 characters.
    pub name: String,
    /// Its price in US cents, 0 to [`FALLBACK_MAX_CENTS`].
    pub price_cents: u32,
    /// How long the widget waits for carriers before offering it.
    #[serde(default = "default_fallback_wait")]
    pub wait_seconds: u32,
}

pub const FALLBACK_NAME_MAX_CHARS: usize = 60;
pub const FALLBACK_MAX_CENTS: u32 = 100_000;
/// Carriers usually answer within a few seconds; a shopper waits about this long.
pub const FALLBACK_DEFAULT_WAIT_SECONDS: u32 = 8;
pub const FALLBACK_WAIT_SECONDS: std::ops::RangeInclusive<u32> = 2..=30;
/// The widget's default share of the limits (the deployment's `WIDGET_SHARE` too).
pub const WIDGET_DEFAULT_SHARE: f64 = 0.25;
/// At most this many shop origins.
pub const WIDGET_MAX_ORIGINS: usize = 20;

fn default_fallback_wait() -> u32 {
    FALLBACK_DEFAULT_WAIT_SECONDS
}

impl Default for WidgetSettings {
    fn default() -> WidgetSettings {
        WidgetSettings {
            origins: Vec::new(),
            ship_from: None,
            share: WIDGET_DEFAULT_SHARE,
            fallback: None,
        }
    }
}

/// `GET /api/org/widget`: the settings and what the embed snippet needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OrgWidget {
    /// The public widget id the embed snippet names (`crate::widget::WIDGET_PARAM`).
    pub widget_id: OrgId,
    pub settings: WidgetSettings,
    /// Who changed them last, and when (none: never set).
    pub updated_by: Option<String>,
    pub updated_at: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_changes_are_tagged_by_action() {
        let set: KeyChange = serde_json::from_str(
            r#"{"action":"set","slot":"next","key":"svc_test_0123456789abcdef0123456789abcdef"}"#,
        )
        .unwrap();
        assert!(matches!(
            set,
            KeyChange::Set {
                slot: KeySlot::Next,
                ..
            }
        ));
        let promote: KeyChange =
            serde_json::from_str(r#"{"action":"promote","mode":"live"}"#).unwrap();
        assert_eq!(
            promote,
            KeyChange::Promote {
                mode: crate::KeyEnv::Live
            }
        );
        assert!(serde_json::from_str::<KeyChange>(r#"{"action":"delete","mode":"live"}"#).is_err());
    }

    #[test]
    fn ids_are_prefixed_and_path_safe() {
        assert!(OrgId::parse("org_0a9z").is_some());
        for bad in ["org_", "org_A1", "org_a/b", "org_a.b", "acct_1", "org_a%2f"] {
            assert!(OrgId::parse(bad).is_none(), "{bad}");
        }
        assert!(OrgId::parse(&format!("org_{}", "a".repeat(41))).is_none());
        assert!(OrgId::deployment().is_deployment());
        assert_eq!(AccountId::from_hex("00ff").unwrap().as_str(), "acct_00ff");
        let json = serde_json::to_string(&OrgId::deployment()).unwrap();
        assert_eq!(
            serde_json::from_str::<OrgId>(&json).unwrap(),
            OrgId::deployment()
        );
        assert!(serde_json::from_str::<OrgId>("\"acct_1\"").is_err());
    }

    #[test]
    fn emails_are_keyed_trimmed_and_lower_cased() {
        assert_eq!(
            normalize_email("  Ada@Example.COM ").as_deref(),
            Some("ada@example.com")
        );
        for bad in [
            "ada",
            "@example.com",
            "ada@",
            "ada@example",
            "a b@example.com",
            "ada@.com",
        ] {
            assert_eq!(normalize_email(bad), None, "{bad}");
        }
    }

    #[test]
    fn passwords_need_twelve_characters() {
        assert!(password_problem("correct horse").is_none());
        assert!(password_problem("short").unwrap().contains("12"));
        assert!(password_problem(&"x".repeat(257)).is_some());
        // Characters, not bytes: twelve accented letters are enough.
        assert!(password_problem(&"é".repeat(12)).is_none());
    }
}
