//! Organizations' widget settings, kept per isolate for
//! `api::widget::SETTINGS_CACHE_SECONDS`: a shopper's page and its quotes
//! need them on every call, and a change reaches shoppers within that
//! time. An unknown or closed widget id is kept too (as `None`), so
//! repeated calls naming one do not each reach the accounts Worker.
//! Bounded: past its size it forgets what is stale, then the oldest. A
//! list, not a map: it is small, and a map of its own would cost every
//! isolate of the main Worker kilobytes of wasm.

use api::orgs::OrgId;
use api::widget::SETTINGS_CACHE_SECONDS;

const MAX_ORGS: usize = 64;

pub struct Recent<T> {
    /// (organization, read at, value), oldest first.
    entries: Vec<(OrgId, u64, T)>,
}

impl<T> Default for Recent<T> {
    fn default() -> Self {
        Recent {
            entries: Vec::new(),
        }
    }
}

impl<T: Clone> Recent<T> {
    /// What was read for `org` less than `SETTINGS_CACHE_SECONDS` ago.
    pub fn get(&self, org: &OrgId, now: u64) -> Option<T> {
        self.entries
            .iter()
            .find(|(o, at, _)| o == org && now < at + SETTINGS_CACHE_SECONDS)
            .map(|(_, _, value)| value.clone())
    }

    pub fn put(&mut self, org: OrgId, value: T, now: u64) {
        self.entries
            .retain(|(o, at, _)| *o != org && now < at + SETTINGS_CACHE_SECONDS);
        if self.entries.len() >= MAX_ORGS {
            self.entries.remove(0);
        }
        self.entries.push((org, now, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn org(n: usize) -> OrgId {
        OrgId::parse(&format!("org_{n}")).unwrap()
    }

    #[test]
    fn settings_are_kept_briefly_per_organization_and_bounded() {
        let mut r = Recent::default();
        r.put(org(1), Some(1), 1_000);
        r.put(org(2), None, 1_000);
        assert_eq!(r.get(&org(1), 1_029), Some(Some(1)));
        assert_eq!(
            r.get(&org(2), 1_029),
            Some(None),
            "an unknown id is kept too"
        );
        assert_eq!(r.get(&org(1), 1_030), None, "then read again");
        assert_eq!(r.get(&org(3), 1_000), None);
        r.put(org(1), Some(2), 1_030);
        assert_eq!(r.get(&org(1), 1_030), Some(Some(2)), "read anew");
        for n in 10..10 + MAX_ORGS {
            r.put(org(n), Some(n), 1_040);
        }
        assert_eq!(r.entries.len(), MAX_ORGS);
        assert_eq!(r.get(&org(1), 1_040), None, "the oldest went first");
        assert_eq!(
            r.get(&org(10 + MAX_ORGS - 1), 1_040),
            Some(Some(10 + MAX_ORGS - 1))
        );
    }
}
