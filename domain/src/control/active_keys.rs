//! Which key of a mode is active during a rotation (the fingerprint stored
//! in the control store), as this isolate last read it: trusted for
//! [`ACTIVE_KEY_SECONDS`] before reading again.

use std::collections::HashMap;

use crate::per_org::PerOrg;
use api::KeyEnv;
use api::orgs::OrgId;

pub const ACTIVE_KEY_SECONDS: u64 = 10;

#[derive(Default)]
pub struct ActiveKeys {
    /// Fingerprint per mode, with when it was read.
    read: HashMap<KeyEnv, (Option<String>, u64)>,
}

impl ActiveKeys {
    /// The active key's fingerprint for `mode` if read recently.
    pub fn get(&self, mode: KeyEnv, now: u64) -> Option<Option<&str>> {
        self.read
            .get(&mode)
            .filter(|(_, at)| now < at + ACTIVE_KEY_SECONDS)
            .map(|(fp, _)| fp.as_deref())
    }

    pub fn remember(&mut self, mode: KeyEnv, fingerprint: Option<String>, now: u64) {
        self.read.insert(mode, (fingerprint, now));
    }
}

thread_local! {
    static ACTIVE: PerOrg<ActiveKeys> = PerOrg::default();
}

pub fn get(org: &OrgId, mode: KeyEnv, now: u64) -> Option<Option<String>> {
    ACTIVE.with(|a| a.with(org, |a| a.get(mode, now).map(|f| f.map(String::from))))
}

pub fn remember(org: &OrgId, mode: KeyEnv, fingerprint: Option<String>, now: u64) {
    ACTIVE.with(|a| a.with(org, |a| a.remember(mode, fingerprint, now)));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_active_key_read_is_trusted_briefly() {
        let mut a = ActiveKeys::default();
        assert_eq!(a.get(KeyEnv::Live, 1_000), None);
        a.remember(KeyEnv::Live, Some("fp".into()), 1_000);
        assert_eq!(a.get(KeyEnv::Live, 1_009), Some(Some("fp")));
        assert_eq!(a.get(KeyEnv::Live, 1_010), None);
    }
}
