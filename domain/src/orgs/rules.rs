//! The organization object's rules, apart from its storage: an
//! organization always keeps an admin, an invitation is used once,
//! before it expires, unless revoked, and a password reset link is made
//! only for an account no other organization shares, used once, within a
//! day.

use api::orgs::{AccountId, InviteState, OrgId};
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

/// A password reset link's stored facts. A newer link of the same member
/// replaces the row, so an older one is unknown, never usable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResetFacts {
    pub expires_at: u64,
    pub used: bool,
}

impl ResetFacts {
    /// Whether it can be used now, and why not (used wins over expired:
    /// the person may have set their password with it).
    pub fn usable(&self, now: u64) -> Result<(), Refusal> {
        if self.used {
            Err(Refusal::ResetUsed)
        } else if now >= self.expires_at {
            Err(Refusal::ResetExpired)
        } else {
            Ok(())
        }
    }
}

/// Whether the reset link found by its token's hash can be used now.
/// The object keeps one link per member (a newer replaces the older), so
/// a replaced link finds nothing: unknown, never usable.
pub fn reset_usable(found: Option<ResetFacts>, now: u64) -> Result<(), Refusal> {
    found.ok_or(Refusal::ResetUnknown)?.usable(now)
}

/// When a reset link made at `now` expires.
pub fn reset_expires_at(now: u64) -> u64 {
    now + api::orgs::RESET_HOURS * 3_600
}

/// Whether `admin` of `org` may give `member` a password reset link
/// (asked again when it is used, with the organizations the account
/// belongs to then: `admin` is `None`). The password is the account's,
/// not the organization's: an account that any other organization shares
/// is not one admin's to take over. Nor is the admin's own: a session
/// alone never sets a lasting way in (as a passkey asks the password).
pub fn may_reset(
    org: &OrgId,
    admin: Option<&AccountId>,
    member: &AccountId,
    member_orgs: &[OrgId],
) -> Result<(), Refusal> {
    if admin == Some(member) {
        return Err(Refusal::ResetSelf);
    }
    if member_orgs.iter().any(|o| o != org) {
        return Err(Refusal::ResetOtherOrg);
    }
    Ok(())
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
    fn a_reset_link_works_once_within_its_day() {
        let made = reset_expires_at(1_000);
        assert_eq!(made, 1_000 + 24 * 3_600);
        let fresh = ResetFacts {
            expires_at: made,
            used: false,
        };
        assert_eq!(fresh.usable(1_000), Ok(()));
        assert_eq!(fresh.usable(made - 1), Ok(()));
        assert_eq!(fresh.usable(made), Err(Refusal::ResetExpired));
        let used = ResetFacts {
            used: true,
            ..fresh
        };
        assert_eq!(used.usable(1_001), Err(Refusal::ResetUsed));
        assert_eq!(used.usable(made + 1), Err(Refusal::ResetUsed));
    }

    #[test]
    fn a_newer_reset_link_replaces_the_older() {
        // What the object keeps: one link per member, by the token's hash.
        let mut kept = std::collections::HashMap::new();
        let mut make = |account: &str, hash: &str, at: u64| {
            let facts = ResetFacts {
                expires_at: reset_expires_at(at),
                used: false,
            };
            kept.insert(account.to_string(), (hash.to_string(), facts));
            kept.clone()
        };
        make("acct_ada", "h1", 0);
        let kept = make("acct_ada", "h2", 10);
        let find = |hash: &str| kept.values().find(|(h, _)| h == hash).map(|(_, f)| *f);
        assert_eq!(reset_usable(find("h1"), 20), Err(Refusal::ResetUnknown));
        assert_eq!(reset_usable(find("h2"), 20), Ok(()));
        assert_eq!(reset_usable(None, 20), Err(Refusal::ResetUnknown));
    }

    #[test]
    fn a_reset_link_is_only_for_an_account_of_this_organization_alone() {
        let org = OrgId::parse("org_a").unwrap();
        let other = OrgId::parse("org_b").unwrap();
        let admin = AccountId::parse("acct_admin").unwrap();
        let ada = AccountId::parse("acct_ada").unwrap();
        let here = [org.clone()];
        assert_eq!(may_reset(&org, Some(&admin), &ada, &here), Ok(()));
        // The directory's copy may not list this one yet: another one still refuses.
        assert_eq!(may_reset(&org, Some(&admin), &ada, &[]), Ok(()));
        let both = [org.clone(), other.clone()];
        assert_eq!(
            may_reset(&org, Some(&admin), &ada, &both),
            Err(Refusal::ResetOtherOrg)
        );
        assert_eq!(
            may_reset(&org, Some(&admin), &ada, &[other]),
            Err(Refusal::ResetOtherOrg)
        );
        assert_eq!(
            may_reset(&org, Some(&admin), &admin, &here),
            Err(Refusal::ResetSelf)
        );
        // At its use: the account joined another organization since.
        assert_eq!(may_reset(&org, None, &ada, &here), Ok(()));
        assert_eq!(
            may_reset(&org, None, &ada, &both),
            Err(Refusal::ResetOtherOrg)
        );
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
