//! Organizations' refusals: `OrgError`, which the main Worker answers too,
//! and `AccountError`, the accounts Worker's own (the main Worker passes
//! them on as made, so its build leaves their messages out).

use api::{ApiError, ErrorCode};

use super::Refusal;
use crate::errors::Failure;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrgError {
    /// Not a member of that organization, or no such organization: the
    /// same answer, so it never tells whether another organization exists.
    NotFound,
    /// The organization's object did not answer.
    Unavailable,
    /// The deployment's own organization: its people and keys are Worker
    /// secrets, not managed in the app.
    ManagedBySettings,
}

impl Failure for OrgError {
    fn code(&self) -> ErrorCode {
        match self {
            OrgError::NotFound => ErrorCode::EdgeOrgNotFound,
            OrgError::Unavailable => ErrorCode::EdgeOrgUnavailable,
            OrgError::ManagedBySettings => ErrorCode::EdgeOrgManagedBySettings,
        }
    }
    fn message(&self) -> String {
        match self {
            OrgError::NotFound => "You are not a member of that organization.",
            OrgError::Unavailable => "The organization's records could not be reached; nothing was changed.",
            OrgError::ManagedBySettings => "This deployment's own organization is configured by Worker secrets (USERS and the SVC_* keys), not in the app.",
        }
        .to_string()
    }
    fn suggestion(&self) -> String {
        match self {
            OrgError::NotFound => "Choose one of your organizations from the menu, or ask its admin for an invitation.",
            OrgError::Unavailable => "Try again in a moment.",
            OrgError::ManagedBySettings => "Change its people with scripts/new-user and `wrangler secret put USERS`, or move it into an organization (README, Organizations).",
        }
        .to_string()
    }
}

/// The accounts Worker's refusals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AccountError {
    /// The same answer for an unknown email and a wrong password.
    SignInFailed,
    /// Too many failed sign-ins for this email or from this address.
    SignInThrottled {
        retry_after: u64,
    },
    PasswordWeak(String),
    InviteUnknown,
    InviteExpired,
    InviteUsed,
    InviteRevoked,
    ResetUnknown,
    ResetExpired,
    ResetUsed,
    /// The member's account belongs to another organization too: its
    /// password is not one organization's to reset.
    ResetOtherOrg,
    /// An admin's own reset link (a session alone sets no lasting way in).
    ResetSelf,
    MemberNotFound,
    LastAdmin,
    /// A setup link that is forged or expired, or (`used`) already made its organization.
    SetupInvalid {
        used: bool,
    },
    /// No setup link, and this deployment's sign-up is not open.
    SignupClosed,
    /// This client address made the most organizations an open sign-up allows for now.
    SignupThrottled {
        retry_after: u64,
    },
    /// The account directory did not answer.
    DirectoryUnavailable,
    /// What was entered is not a v1 key (the problem, in words).
    KeyMalformed(String),
    /// The service refused the key (`code`, its message): nothing stored.
    KeyRefused {
        redacted: String,
        code: ErrorCode,
        message: String,
    },
    /// The key could not be checked (why): nothing stored.
    KeyCheckUnavailable(String),
    /// Promote or discard with no rotation under way.
    KeyNoNext,
    /// No such access token that the caller may see.
    TokenNotFound,
    /// Every failed passkey sign-in, whatever failed (logged apart).
    PasskeyRefused,
    /// None of the person's passkeys has that id.
    PasskeyNotFound,
    /// The person has `api::passkeys::MAX_PASSKEYS` already.
    PasskeyLimit,
    /// A viewer's write (saved addresses and presets: admins and operators).
    ViewerReadOnly {
        action: &'static str,
    },
    /// No saved address or preset (`what`) with that id in the caller's
    /// organization (another organization's reads the same).
    SavedNotFound {
        what: &'static str,
    },
    /// The organization keeps `api::presets::MAX_SAVED` of these already.
    SavedLimit {
        what: &'static str,
    },
}

impl From<Refusal> for AccountError {
    fn from(r: Refusal) -> AccountError {
        match r {
            Refusal::Exists => AccountError::SetupInvalid { used: true },
            Refusal::NoSuchMember => AccountError::MemberNotFound,
            Refusal::LastAdmin => AccountError::LastAdmin,
            Refusal::InviteUnknown => AccountError::InviteUnknown,
            Refusal::InviteExpired => AccountError::InviteExpired,
            Refusal::InviteUsed => AccountError::InviteUsed,
            Refusal::InviteRevoked => AccountError::InviteRevoked,
            Refusal::ResetUnknown => AccountError::ResetUnknown,
            Refusal::ResetExpired => AccountError::ResetExpired,
            Refusal::ResetUsed => AccountError::ResetUsed,
            Refusal::ResetOtherOrg => AccountError::ResetOtherOrg,
            Refusal::ResetSelf => AccountError::ResetSelf,
            Refusal::NoNextKey => AccountError::KeyNoNext,
            Refusal::TokenUnknown => AccountError::TokenNotFound,
        }
    }
}

const NEW_INVITATION: &str = "Ask an admin of the organization for a new invitation.";
const NEW_RESET_LINK: &str = "Ask an admin of your organization for a new reset link.";

impl Failure for AccountError {
    fn code(&self) -> ErrorCode {
        match self {
            AccountError::SignInFailed => ErrorCode::EdgeSignInFailed,
            AccountError::SignInThrottled { .. } => ErrorCode::EdgeSignInThrottled,
            AccountError::PasswordWeak(_) => ErrorCode::EdgePasswordWeak,
            AccountError::InviteUnknown => ErrorCode::EdgeInviteUnknown,
            AccountError::InviteExpired => ErrorCode::EdgeInviteExpired,
            AccountError::InviteUsed => ErrorCode::EdgeInviteUsed,
            AccountError::InviteRevoked => ErrorCode::EdgeInviteRevoked,
            AccountError::ResetUnknown => ErrorCode::EdgeResetUnknown,
            AccountError::ResetExpired => ErrorCode::EdgeResetExpired,
            AccountError::ResetUsed => ErrorCode::EdgeResetUsed,
            AccountError::ResetOtherOrg => ErrorCode::EdgeResetOtherOrg,
            AccountError::ResetSelf => ErrorCode::EdgeResetSelf,
            AccountError::MemberNotFound => ErrorCode::EdgeMemberNotFound,
            AccountError::LastAdmin => ErrorCode::EdgeMemberLastAdmin,
            AccountError::SetupInvalid { .. } => ErrorCode::EdgeOrgSetupInvalid,
            AccountError::SignupClosed => ErrorCode::EdgeOrgSignupClosed,
            AccountError::SignupThrottled { .. } => ErrorCode::EdgeSignInThrottled,
            AccountError::DirectoryUnavailable => ErrorCode::EdgeDirectoryUnavailable,
            AccountError::KeyMalformed(_) => ErrorCode::EdgeKeyMalformed,
            AccountError::KeyRefused { .. } => ErrorCode::EdgeKeyRefused,
            AccountError::KeyCheckUnavailable(_) => ErrorCode::EdgeKeyCheckUnavailable,
            AccountError::KeyNoNext => ErrorCode::EdgeKeyNoNext,
            AccountError::TokenNotFound => ErrorCode::EdgeTokenNotFound,
            AccountError::PasskeyRefused => ErrorCode::EdgePasskeyRefused,
            AccountError::PasskeyNotFound => ErrorCode::EdgePasskeyNotFound,
            AccountError::PasskeyLimit => ErrorCode::EdgePasskeyLimit,
            AccountError::ViewerReadOnly { .. } => ErrorCode::EdgeRoleForbidden,
            AccountError::SavedNotFound { .. } => ErrorCode::EdgeSavedNotFound,
            AccountError::SavedLimit { .. } => ErrorCode::EdgeSavedLimitReached,
        }
    }

    fn message(&self) -> String {
        match self {
            AccountError::SignInFailed => {
                "That email and password do not match an account.".to_string()
            }
            AccountError::SignInThrottled { .. } => {
                "Too many failed sign-ins: signing in is paused for this account or this network."
                    .to_string()
            }
            AccountError::PasswordWeak(_) => "That password is too weak.".to_string(),
            AccountError::InviteUnknown => "This invitation link is not known.".to_string(),
            AccountError::InviteExpired => "This invitation has expired.".to_string(),
            AccountError::InviteUsed => "This invitation was already used.".to_string(),
            AccountError::InviteRevoked => "This invitation was withdrawn by an admin.".to_string(),
            AccountError::ResetUnknown => "This password reset link is not known: it is incomplete, or a newer one replaced it.".to_string(),
            AccountError::ResetExpired => format!("This password reset link has expired (each lasts {} hours).", api::orgs::RESET_HOURS),
            AccountError::ResetUsed => "This password reset link was already used: each works once.".to_string(),
            AccountError::ResetOtherOrg => "This account belongs to another organization too, so no one organization's admin may reset its password.".to_string(),
            AccountError::ResetSelf => "You cannot make a password reset link for yourself.".to_string(),
            AccountError::MemberNotFound => {
                "That person is not a member of this organization.".to_string()
            }
            AccountError::LastAdmin => {
                "An organization needs at least one admin: this is its last one.".to_string()
            }
            AccountError::SetupInvalid { used: true } => {
                "This setup link was already used: its organization exists.".to_string()
            }
            AccountError::SetupInvalid { used: false } => {
                "This setup link is not valid (expired, incomplete or for another deployment)."
                    .to_string()
            }
            AccountError::SignupClosed => {
                "This deployment makes organizations only from setup links.".to_string()
            }
            AccountError::SignupThrottled { .. } => {
                "Too many new organizations from this network for now.".to_string()
            }
            AccountError::DirectoryUnavailable => {
                "The account directory could not be reached; nothing was changed.".to_string()
            }
            AccountError::KeyMalformed(problem) => format!("That is not a v1 API key: {problem}."),
            AccountError::KeyRefused {
                redacted,
                code,
                message,
            } => {
                format!("The service refused {redacted} ({code}: {message}); it was not saved.")
            }
            AccountError::KeyCheckUnavailable(why) => {
                format!("The key could not be checked ({why}); it was not saved.")
            }
            AccountError::KeyNoNext => {
                "There is no next key in that mode: no rotation is under way.".to_string()
            }
            AccountError::TokenNotFound => {
                "There is no such access token among those you can see.".to_string()
            }
            AccountError::PasskeyRefused => "That passkey did not sign you in.".to_string(),
            AccountError::PasskeyNotFound => "You have no passkey with that id.".to_string(),
            AccountError::PasskeyLimit => format!(
                "You have {} passkeys, the most one person may have.",
                api::passkeys::MAX_PASSKEYS
            ),
            AccountError::ViewerReadOnly { action } => format!("Viewers cannot {action}."),
            AccountError::SavedNotFound { what } => {
                format!("This organization has no saved {what} with that id.")
            }
            AccountError::SavedLimit { what } => format!(
                "This organization keeps {} saved {what}s already, the most it can.",
                api::presets::MAX_SAVED
            ),
        }
    }

    fn suggestion(&self) -> String {
        match self {
            AccountError::SignInFailed => "Check both and try again; after 3 failed tries each next one waits longer (a passkey is never held up). An admin can invite you again if you have no account yet.".to_string(),
            AccountError::SignInThrottled { retry_after } | AccountError::SignupThrottled { retry_after } => {
                format!("Try again in {}.", in_words(*retry_after))
            }
            AccountError::PasswordWeak(problem) => problem.clone(),
            AccountError::InviteUnknown => "Copy the whole link from the message you were sent, or ask an admin for a new invitation.".to_string(),
            AccountError::InviteExpired | AccountError::InviteRevoked => NEW_INVITATION.to_string(),
            AccountError::InviteUsed => "Sign in with the account that accepted it, or ask an admin for a new invitation.".to_string(),
            AccountError::ResetUnknown => "Copy the whole link you were given; if it still fails, ask an admin of your organization for a new reset link.".to_string(),
            AccountError::ResetExpired => NEW_RESET_LINK.to_string(),
            AccountError::ResetUsed => "If you set your password with it, sign in with that password; otherwise ask an admin of your organization for a new reset link.".to_string(),
            AccountError::ResetOtherOrg => "Have the person sign in with a passkey if they added one. Otherwise they leave the other organization first (an admin there removes them), and then an admin here can make the link.".to_string(),
            AccountError::ResetSelf => "Ask another admin to make one for you; while signed in, add a passkey on the Passkeys page so a forgotten password never locks you out.".to_string(),
            AccountError::MemberNotFound => "Reload the team page: they may have been removed already.".to_string(),
            AccountError::LastAdmin => "Make another member an admin first.".to_string(),
            AccountError::SetupInvalid { used: true } => "Sign in to that organization, or run scripts/new-org for a new link.".to_string(),
            AccountError::SetupInvalid { used: false } => "Run scripts/new-org again for a new link (they last 24 hours).".to_string(),
            AccountError::SignupClosed => "Ask whoever runs Parcel for a link (they make one with scripts/new-org).".to_string(),
            AccountError::DirectoryUnavailable => "Try again in a moment.".to_string(),
            AccountError::KeyMalformed(_) => "Paste the whole key from the service's dashboard: svc_live_ or svc_test_ and 32 hexadecimal characters.".to_string(),
            AccountError::KeyRefused { .. } => "Check that the key is not revoked or expired, or create a new one in the service's dashboard.".to_string(),
            AccountError::KeyCheckUnavailable(_) => "Try again in a minute.".to_string(),
            AccountError::KeyNoNext => "Add a next key first, verify and activate it, then make it the only one.".to_string(),
            AccountError::TokenNotFound => "Reload the access tokens page: it may have been revoked already.".to_string(),
            AccountError::PasskeyRefused => "Try again, or sign in with your email and password. A passkey removed from your account, or saved for another site, cannot sign in: add it again on the Passkeys page.".to_string(),
            AccountError::PasskeyNotFound => "Reload the Passkeys page: it may have been removed already.".to_string(),
            AccountError::PasskeyLimit => "Remove one you no longer use on the Passkeys page, then add the new one.".to_string(),
            AccountError::ViewerReadOnly { .. } => "Ask an admin for the operator role.".to_string(),
            AccountError::SavedNotFound { .. } => "Reload the list: it may have been deleted.".to_string(),
            AccountError::SavedLimit { what } => format!("Delete a {what} no longer used, then save this one."),
        }
    }

    fn retry_after(&self) -> Option<u64> {
        match self {
            AccountError::SignInThrottled { retry_after }
            | AccountError::SignupThrottled { retry_after } => Some(*retry_after),
            _ => None,
        }
    }

    fn detail(&self, error: ApiError) -> ApiError {
        match self {
            AccountError::KeyMalformed(_) | AccountError::KeyRefused { .. } => {
                error.with_field("key")
            }
            AccountError::SignInThrottled { retry_after }
            | AccountError::SignupThrottled { retry_after } => ApiError {
                retry_after_seconds: Some(*retry_after),
                ..error
            },
            _ => error,
        }
    }
}

/// A wait in words: seconds up to two minutes, then minutes (rounded up).
fn in_words(seconds: u64) -> String {
    match seconds {
        1 => "1 second".to_string(),
        s if s < 120 => format!("{s} seconds"),
        s => format!("{} minutes", s.div_ceil(60)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wait_is_said_in_seconds_while_short() {
        let wait = |retry_after| AccountError::SignInThrottled { retry_after }.suggestion();
        assert_eq!(wait(1), "Try again in 1 second.");
        assert_eq!(wait(5), "Try again in 5 seconds.");
        assert_eq!(wait(119), "Try again in 119 seconds.");
        assert_eq!(wait(900), "Try again in 15 minutes.");
    }
}
