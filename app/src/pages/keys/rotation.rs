//! Where each mode's keys stand, and what a key typed now would do: plain
//! Rust, tested natively. The organization's list (`GET /api/org/keys`)
//! says which slots hold a key; the Worker's status (`GET /api/keys`) says
//! whether the next one has been activated, so it makes the calls.

use crate::components::service::DASHBOARD;
use crate::pages::status::mode_name;
use api::orgs::{OrgKey, OrgKeyList};
use api::session::{KeySlot, KeysStatus};
use api::{ApiKey, ErrorCode, KeyEnv};

/// Where a mode's keys are in their life; one transition per step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// No key: a key entered becomes the mode's key.
    Empty,
    /// One key makes the calls: a key entered starts a rotation.
    Steady,
    /// A new key waits in the next slot: verify and activate it, or discard it.
    NextWaiting,
    /// The new key makes the calls: make it the only key, or go back.
    NextInUse,
}

/// A rotation's steps in order (`Stage::step` says which is next;
/// `{dashboard}`: `service::DASHBOARD`).
pub const STEPS: [&str; 3] = [
    "Enter the new key below",
    "Verify and activate it: the calls move to it",
    "Make it the only key, then revoke the old one in {dashboard}",
];

impl Stage {
    fn of(keys: &[OrgKey], next_activated: bool) -> Stage {
        let has = |slot| keys.iter().any(|k| k.slot == slot);
        match (has(KeySlot::Current), has(KeySlot::Next)) {
            (false, _) => Stage::Empty,
            (true, false) => Stage::Steady,
            (true, true) if next_activated => Stage::NextInUse,
            (true, true) => Stage::NextWaiting,
        }
    }

    /// The index in `STEPS` of the step to take now (`None`: no rotation,
    /// the mode has no key to rotate).
    pub fn step(self) -> Option<usize> {
        match self {
            Stage::Empty => None,
            Stage::Steady => Some(0),
            Stage::NextWaiting => Some(1),
            Stage::NextInUse => Some(2),
        }
    }

    /// The slot a key of this mode entered now takes, or why none may be
    /// entered: a new key in use is not replaced by a third.
    pub fn slot_for_new_key(self, mode: KeyEnv) -> Result<KeySlot, String> {
        match self {
            Stage::Empty => Ok(KeySlot::Current),
            Stage::Steady | Stage::NextWaiting => Ok(KeySlot::Next),
            Stage::NextInUse => Err(format!(
                "The new {} key makes the calls now: make it the only key, or go back to the old one, before entering another.",
                mode.as_str()
            )),
        }
    }
}

/// One mode's keys as the page shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeState {
    pub mode: KeyEnv,
    /// The current key, then the next one, each with whether it makes the calls.
    pub keys: Vec<(OrgKey, bool)>,
    pub stage: Stage,
    /// `AUTH.KEY.REVOKED` or `.EXPIRED`, seen on the key in use.
    pub problem: Option<ErrorCode>,
}

/// Every mode, with or without keys, from the two answers.
pub fn modes(list: &OrgKeyList, status: &KeysStatus) -> Vec<ModeState> {
    KeyEnv::ALL
        .into_iter()
        .map(|mode| {
            let seen = status.modes.iter().find(|m| m.mode == mode);
            // The Worker's rule: the next key makes the calls once activated,
            // else the current one does.
            let next_activated =
                seen.is_some_and(|m| m.keys.iter().any(|k| k.slot == KeySlot::Next && k.active));
            let keys: Vec<OrgKey> = [KeySlot::Current, KeySlot::Next]
                .into_iter()
                .filter_map(|slot| list.keys.iter().find(|k| k.mode == mode && k.slot == slot))
                .cloned()
                .collect();
            let stage = Stage::of(&keys, next_activated);
            let keys = keys
                .into_iter()
                .map(|k| {
                    let in_use = (k.slot == KeySlot::Next) == next_activated;
                    (k, in_use)
                })
                .collect();
            ModeState {
                mode,
                keys,
                stage,
                problem: seen.and_then(|m| m.problem.clone()),
            }
        })
        .collect()
}

/// What saving a typed key would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub mode: KeyEnv,
    pub slot: KeySlot,
    pub stage: Stage,
    /// `svc_live_…1234`: all of it the page ever shows.
    pub redacted: String,
}

impl Entry {
    /// What `typed` is and what saving it would do given the modes as
    /// read (its mode is its prefix's), or why it cannot be saved.
    pub fn of(typed: &str, modes: &[ModeState]) -> Result<Entry, String> {
        let typed = typed.trim();
        if typed.is_empty() {
            return Err(format!("Paste the key from {DASHBOARD}."));
        }
        let key = ApiKey::parse(typed).map_err(|e| format!("That is not an API key: {e}."))?;
        let mode = key.env();
        // `modes` has every mode; one it lacked would have no key.
        let stage = modes
            .iter()
            .find(|m| m.mode == mode)
            .map_or(Stage::Empty, |m| m.stage);
        Ok(Entry {
            mode,
            slot: stage.slot_for_new_key(mode)?,
            stage,
            redacted: key.redacted(),
        })
    }

    /// The sentence under the field once the key is whole.
    pub fn effect(&self) -> String {
        let mode = mode_name(self.mode).to_lowercase();
        let what = match self.stage {
            Stage::Empty => format!("saving makes it the organization's {mode} key"),
            Stage::NextWaiting => {
                format!("saving replaces the new {mode} key that waits to be activated")
            }
            // (A new key in use takes no other: `of` refused it.)
            Stage::Steady | Stage::NextInUse => format!(
                "saving starts a rotation: it waits as the new {mode} key until you activate it"
            ),
        };
        format!("{}: a {mode} key; {what}.", self.redacted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::Scope;
    use api::session::{KeyInfo, ModeKeys};

    const LIVE: &str = "svc_live_0123456789abcdef0123456789abcdef";
    const TEST: &str = "svc_test_fedcba9876543210fedcba9876543210";

    fn key(mode: KeyEnv, slot: KeySlot, last4: &str) -> OrgKey {
        OrgKey {
            mode,
            slot,
            redacted: format!("{}…{last4}", mode.prefix()),
            scopes: vec![Scope::RatesRead],
            set_at: 1,
            set_by: "Ada".into(),
        }
    }

    /// The Worker's status: each listed slot, the next one active if `next_active`.
    fn status(keys: &[OrgKey], next_active: bool) -> KeysStatus {
        let modes = KeyEnv::ALL
            .into_iter()
            .filter(|m| keys.iter().any(|k| k.mode == *m))
            .map(|mode| ModeKeys {
                mode,
                keys: keys
                    .iter()
                    .filter(|k| k.mode == mode)
                    .map(|k| KeyInfo {
                        slot: k.slot,
                        redacted: k.redacted.clone(),
                        active: (k.slot == KeySlot::Next) == next_active,
                    })
                    .collect(),
                scopes: vec![],
                problem: None,
            })
            .collect();
        KeysStatus { modes }
    }

    fn stage(keys: &[OrgKey], next_active: bool, mode: KeyEnv) -> ModeState {
        let list = OrgKeyList {
            live: false,
            keys: keys.to_vec(),
        };
        modes(&list, &status(keys, next_active))
            .into_iter()
            .find(|m| m.mode == mode)
            .unwrap()
    }

    #[test]
    fn a_rotation_goes_step_by_step() {
        use KeyEnv::Sandbox;
        let current = key(Sandbox, KeySlot::Current, "aaaa");
        let next = key(Sandbox, KeySlot::Next, "bbbb");
        let cases = [
            (vec![], false, Stage::Empty, None),
            (vec![current.clone()], false, Stage::Steady, Some(0)),
            (
                vec![next.clone(), current.clone()],
                false,
                Stage::NextWaiting,
                Some(1),
            ),
            (
                vec![current.clone(), next.clone()],
                true,
                Stage::NextInUse,
                Some(2),
            ),
        ];
        for (keys, next_active, want, step) in cases {
            let state = stage(&keys, next_active, Sandbox);
            assert_eq!((state.stage, state.stage.step()), (want, step), "{keys:?}");
            // Current first; exactly one key makes the calls once there is one.
            assert_eq!(
                state.keys.iter().map(|(k, _)| k.slot).collect::<Vec<_>>(),
                [KeySlot::Current, KeySlot::Next][..keys.len()].to_vec()
            );
            let in_use: Vec<_> = state.keys.iter().filter(|(_, u)| *u).collect();
            assert_eq!(in_use.len(), usize::from(!keys.is_empty()));
        }
        // The other mode has nothing yet.
        assert_eq!(stage(&[current], false, KeyEnv::Live).stage, Stage::Empty);
    }

    #[test]
    fn the_slot_of_a_new_key_follows_the_stage() {
        assert_eq!(
            Stage::Empty.slot_for_new_key(KeyEnv::Live),
            Ok(KeySlot::Current)
        );
        assert_eq!(
            Stage::Steady.slot_for_new_key(KeyEnv::Live),
            Ok(KeySlot::Next)
        );
        assert_eq!(
            Stage::NextWaiting.slot_for_new_key(KeyEnv::Live),
            Ok(KeySlot::Next)
        );
        assert!(
            Stage::NextInUse
                .slot_for_new_key(KeyEnv::Live)
                .unwrap_err()
                .contains("make it the only key")
        );
    }

    #[test]
    fn a_typed_key_says_its_mode_and_shows_only_its_last_four() {
        // A live key in use; no sandbox key.
        let live_keys = [key(KeyEnv::Live, KeySlot::Current, "aaaa")];
        let stages = &modes(
            &OrgKeyList {
                live: false,
                keys: live_keys.to_vec(),
            },
            &status(&live_keys, false),
        );
        let live = Entry::of(&format!("  {LIVE} "), stages).unwrap();
        assert_eq!((live.mode, live.slot), (KeyEnv::Live, KeySlot::Next));
        let sandbox = Entry::of(TEST, stages).unwrap();
        assert_eq!(
            (sandbox.mode, sandbox.slot),
            (KeyEnv::Sandbox, KeySlot::Current)
        );
        assert_eq!(
            sandbox.effect(),
            "svc_test_…3210: a sandbox key; saving makes it the organization's sandbox key."
        );
        assert!(live.effect().contains("starts a rotation"));
        for entry in [&live, &sandbox] {
            assert!(!entry.effect().contains(&LIVE[9..20]));
            assert!(!entry.effect().contains(&TEST[9..20]));
        }
        assert!(Entry::of("", stages).unwrap_err().starts_with("Paste"));
        assert!(
            Entry::of("svc_prod_0123", stages)
                .unwrap_err()
                .contains("svc_live_ or svc_test_")
        );
        assert!(
            Entry::of("svc_live_0123", stages)
                .unwrap_err()
                .contains("32 hexadecimal")
        );
        let rotating = [
            key(KeyEnv::Live, KeySlot::Current, "aaaa"),
            key(KeyEnv::Live, KeySlot::Next, "bbbb"),
        ];
        let busy = &modes(
            &OrgKeyList {
                live: false,
                keys: rotating.to_vec(),
            },
            &status(&rotating, true),
        );
        assert!(Entry::of(LIVE, busy).unwrap_err().contains("new live key"));
        assert_eq!(Entry::of(TEST, busy).map(|e| e.slot), Ok(KeySlot::Current));
    }
}
