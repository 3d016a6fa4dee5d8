//! Membership checks this isolate made (`wire::Checked`: the person's role
//! and the organization's keys), so that an ordinary read does not wait on
//! the accounts Worker. The rule, in one place:
//!
//! - a read (`GET`/`HEAD`, or a v1 call whose scope only reads, such as a
//!   quote) may use a check at most [`MEMBER_CHECK_SECONDS`] old;
//! - anything else (a purchase, a void, a job's approval, a settings change)
//!   asks the organization's object now, so a removed or demoted person
//!   never spends or changes anything on an old answer;
//! - a change this isolate forwarded to the accounts Worker (a role, a
//!   removal, a key) drops its organization's checks at once, so in this
//!   isolate it counts from the next request; in others, from the next
//!   write, or from the next read within [`MEMBER_CHECK_SECONDS`] (as a
//!   sign-out does within `control::session_checks::SESSION_CHECK_SECONDS`).
//!
//! Only members are remembered: a refusal is asked again. Bounded: the
//! oldest check goes first. A short list, not a map: a map's code costs the
//! main Worker more wasm than scanning a thousand entries costs a request.

use api::Scope;
use api::orgs::{AccountId, OrgId};

pub const MEMBER_CHECK_SECONDS: u64 = 10;
const MAX_CHECKS: usize = 1_000;

/// Whether a request may use a remembered check: only reads. `v1_scope`
/// is the scope of the v1 endpoint a forwarded call reaches.
pub fn may_reuse(method: &str, v1_scope: Option<Scope>) -> bool {
    method.eq_ignore_ascii_case("GET")
        || method.eq_ignore_ascii_case("HEAD")
        || v1_scope.is_some_and(Scope::is_read)
}

pub struct MemberChecks<T> {
    /// Oldest first: (organization, account, when, what it said).
    checks: Vec<(OrgId, AccountId, u64, T)>,
}

impl<T> Default for MemberChecks<T> {
    fn default() -> Self {
        MemberChecks { checks: Vec::new() }
    }
}

impl<T: Clone> MemberChecks<T> {
    /// A check of `account` in `org` made less than [`MEMBER_CHECK_SECONDS`] ago.
    pub fn seen(&self, org: &OrgId, account: &AccountId, now: u64) -> Option<T> {
        self.checks
            .iter()
            .find(|(o, a, _, _)| o == org && a == account)
            .filter(|(_, _, at, _)| now < at.saturating_add(MEMBER_CHECK_SECONDS))
            .map(|(_, _, _, checked)| checked.clone())
    }

    pub fn remember(&mut self, org: &OrgId, account: &AccountId, checked: T, now: u64) {
        self.checks.retain(|(o, a, _, _)| o != org || a != account);
        if self.checks.len() >= MAX_CHECKS {
            self.checks.remove(0);
        }
        self.checks
            .push((org.clone(), account.clone(), now, checked));
    }

    /// Drops every check of `org` (one of its settings changed here).
    pub fn forget(&mut self, org: &OrgId) {
        self.checks.retain(|(o, _, _, _)| o != org);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(org: &str, account: &str) -> (OrgId, AccountId) {
        (
            OrgId::parse(org).expect("org id"),
            AccountId::parse(account).expect("account id"),
        )
    }

    #[test]
    fn only_reads_reuse_a_check() {
        assert!(may_reuse("GET", None) && may_reuse("head", None));
        assert!(may_reuse("POST", Some(Scope::RatesRead)), "a quote reads");
        for write in ["POST", "PUT", "PATCH", "DELETE"] {
            assert!(!may_reuse(write, None), "{write}");
            for scope in [Scope::LabelsWrite, Scope::BatchesWrite] {
                assert!(!may_reuse(write, Some(scope)), "{write} {scope}");
            }
        }
    }

    #[test]
    fn a_check_lasts_its_seconds_and_never_crosses_organizations() {
        let (acme, ada) = ids("org_acme", "acct_ada");
        let (beta, _) = ids("org_beta", "acct_ada");
        let mut checks = MemberChecks::default();
        checks.remember(&acme, &ada, "operator", 1_000);
        assert_eq!(
            checks.seen(&acme, &ada, 1_000 + MEMBER_CHECK_SECONDS - 1),
            Some("operator")
        );
        assert_eq!(checks.seen(&acme, &ada, 1_000 + MEMBER_CHECK_SECONDS), None);
        assert_eq!(checks.seen(&beta, &ada, 1_001), None);
    }

    #[test]
    fn a_newer_check_replaces_the_older_and_the_oldest_goes_first() {
        let (acme, ada) = ids("org_acme", "acct_ada");
        let mut checks = MemberChecks::default();
        checks.remember(&acme, &ada, "operator", 1_000);
        checks.remember(&acme, &ada, "viewer", 1_001);
        assert_eq!(checks.seen(&acme, &ada, 1_002), Some("viewer"));
        for n in 0..MAX_CHECKS {
            let (org, account) = ids("org_other", &format!("acct_{n}"));
            checks.remember(&org, &account, "admin", 1_002);
        }
        assert_eq!(checks.checks.len(), MAX_CHECKS);
        assert_eq!(
            checks.seen(&acme, &ada, 1_003),
            None,
            "the oldest went first"
        );
    }

    #[test]
    fn a_change_in_an_organization_drops_its_checks_only() {
        let (acme, ada) = ids("org_acme", "acct_ada");
        let (beta, bob) = ids("org_beta", "acct_bob");
        let mut checks = MemberChecks::default();
        checks.remember(&acme, &ada, 1, 1_000);
        checks.remember(&beta, &bob, 2, 1_000);
        checks.forget(&acme);
        assert_eq!(checks.seen(&acme, &ada, 1_001), None);
        assert_eq!(checks.seen(&beta, &bob, 1_001), Some(2));
    }
}
