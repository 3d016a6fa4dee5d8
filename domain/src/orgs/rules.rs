//! The organization object's rules, apart from its storage: an
//! organization always keeps an admin, and an invitation is used once,
//! before it expires, unless revoked.

use api::orgs::InviteState;
use api::session::Role;

use super::Refusal;

/// Whether `account` may take `new_role` (`None`: leave), given every
/// member's role: refused when it would leave no admin.
pub fn may_change<'a>(
    members: impl IntoIterator<Item = (&'a str, Role)>,
    account: &str,
    new_role: Option<Role>,
) -> Result<(), Refusal> {
    let mut found = None;
    let mut other_admins = 0;
    for (id, role) in members {
        if id == account {
            found = Some(role);
        } else if role == Role::Admin {
            other_admins += 1;
        }
    }
    let current = found.ok_or(Refusal::NoSuchMember)?;
    let stays_admin = new_role == Some(Role::Admin);
    if current == Role::Admin && !stays_admin && other_admins == 0 {
        return Err(Refusal::LastAdmin);
    }
    Ok(())
}

/// An invitation's stored facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InviteFacts {
    pub expires_at: u64,
    pub accepted: bool,
    pub revoked: bool,
}

impl InviteFacts {
    pub fn state(&self, now: u64) -> InviteState {
        if self.accepted {
            InviteState::Accepted
        } else if self.revoked {
            InviteState::Revoked
        } else if now >= self.expires_at {
            InviteState::Expired
        } else {
            InviteState::Pending
        }
    }

    /// Whether it can be accepted now, and why not.
    pub fn usable(&self, now: u64) -> Result<(), Refusal> {
        match self.state(now) {
            InviteState::Pending => Ok(()),
            InviteState::Accepted => Err(Refusal::InviteUsed),
            InviteState::Revoked => Err(Refusal::InviteRevoked),
            InviteState::Expired => Err(Refusal::InviteExpired),
        }
    }
}

/// Days until an invitation expires: the admin's choice within 1 to 30, else 7.
pub fn invite_days(asked: Option<u32>) -> Result<u32, String> {
    match asked {
        None => Ok(api::orgs::INVITE_DEFAULT_DAYS),
        Some(d) if (1..=api::orgs::INVITE_MAX_DAYS).contains(&d) => Ok(d),
        Some(_) => Err(format!(
            "an invitation lasts 1 to {} days",
            api::orgs::INVITE_MAX_DAYS
        )),
    }
}

/// Days until an access token expires: its owner's choice within 1 to
/// `MAX_DAYS`, else `DEFAULT_DAYS` (none lasts for ever: `api::access_tokens`).
pub fn token_days(asked: Option<u32>) -> Result<u32, String> {
    use api::access_tokens::{DEFAULT_DAYS, MAX_DAYS};
    match asked {
        None => Ok(DEFAULT_DAYS),
        Some(d) if (1..=MAX_DAYS).contains(&d) => Ok(d),
        Some(_) => Err(format!("an access token lasts 1 to {MAX_DAYS} days")),
    }
}

/// The role an access token signs in with at `now`: its owner's role now,
/// if they are still a member (`owner`) and the token has not expired.
pub fn token_role(expires_at: u64, owner: Option<Role>, now: u64) -> Option<Role> {
    owner.filter(|_| now < expires_at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Role::*;

    #[test]
    fn a_token_signs_in_as_its_owner_now_until_it_expires() {
        assert_eq!(token_role(2_000, Some(Operator), 1_999), Some(Operator));
        // A demotion applies to the owner's tokens at once.
        assert_eq!(token_role(2_000, Some(Viewer), 1_999), Some(Viewer));
        assert_eq!(token_role(2_000, Some(Admin), 2_000), None);
        // Removed from the organization: nothing.
        assert_eq!(token_role(2_000, None, 1), None);
        assert_eq!(token_days(None), Ok(30));
        assert_eq!(token_days(Some(365)), Ok(365));
        for never in [Some(0), Some(366), Some(u32::MAX)] {
            assert!(token_days(never).is_err(), "{never:?}");
        }
    }

    #[test]
    fn the_last_admin_can_neither_leave_nor_be_demoted() {
        let one = [("a", Admin), ("o", Operator)];
        assert_eq!(may_change(one, "a", None), Err(Refusal::LastAdmin));
        assert_eq!(may_change(one, "a", Some(Viewer)), Err(Refusal::LastAdmin));
        assert_eq!(may_change(one, "a", Some(Admin)), Ok(()));
        assert_eq!(may_change(one, "o", None), Ok(()));
        assert_eq!(may_change(one, "x", None), Err(Refusal::NoSuchMember));
        let two = [("a", Admin), ("b", Admin)];
        assert_eq!(may_change(two, "a", None), Ok(()));
        assert_eq!(may_change(two, "b", Some(Operator)), Ok(()));
    }

    #[test]
    fn each_refusal_of_an_invitation_has_its_reason() {
        let fresh = InviteFacts {
            expires_at: 100,
            accepted: false,
            revoked: false,
        };
        assert_eq!(fresh.usable(99), Ok(()));
        assert_eq!(fresh.usable(100), Err(Refusal::InviteExpired));
        let used = InviteFacts {
            accepted: true,
            ..fresh
        };
        assert_eq!(used.usable(1), Err(Refusal::InviteUsed));
        // Used wins over expired: the person already joined.
        assert_eq!(used.usable(500), Err(Refusal::InviteUsed));
        let revoked = InviteFacts {
            revoked: true,
            ..fresh
        };
        assert_eq!(revoked.usable(1), Err(Refusal::InviteRevoked));
        assert_eq!(revoked.usable(500), Err(Refusal::InviteRevoked));
        assert_eq!(invite_days(None), Ok(7));
        assert_eq!(invite_days(Some(30)), Ok(30));
        assert!(invite_days(Some(0)).is_err() && invite_days(Some(31)).is_err());
    }
}
