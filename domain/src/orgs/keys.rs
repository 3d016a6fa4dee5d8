//! An organization's v1 keys, entered by its admin in the app: checked
//! with harmless calls before they are stored (sealed, `sealing`), and
//! what those calls say about the key's scopes.

use api::error::ErrorEnvelope;
use api::session::KeySlot;
use api::{ErrorCode, KeyEnv, Scope};
use serde::{Deserialize, Serialize};

/// One stored key: the ciphertext, and what may be shown of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredKey {
    pub mode: KeyEnv,
    pub slot: KeySlot,
    /// `sealing`'s `{kid}.{iv}.{ciphertext}`, never the key.
    pub sealed: String,
    pub redacted: String,
    pub scopes: Vec<Scope>,
    pub set_at: u64,
    pub set_by: String,
}

impl StoredKey {
    pub fn view(&self) -> api::orgs::OrgKey {
        api::orgs::OrgKey {
            mode: self.mode,
            slot: self.slot,
            redacted: self.redacted.clone(),
            scopes: self.scopes.clone(),
            set_at: self.set_at,
            set_by: self.set_by.clone(),
        }
    }
}

/// The organization's webhook secret in one slot: sealed, and its last four.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredSecret {
    pub slot: KeySlot,
    pub sealed: String,
    pub redacted: String,
    pub set_at: u64,
    pub set_by: String,
}

impl StoredSecret {
    pub fn view(&self) -> api::orgs::WebhookSecretInfo {
        api::orgs::WebhookSecretInfo {
            slot: self.slot,
            redacted: self.redacted.clone(),
            set_at: self.set_at,
            set_by: self.set_by.clone(),
        }
    }
}

/// Everything an organization keeps sealed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    pub keys: Vec<StoredKey>,
    pub webhook: Vec<StoredSecret>,
    /// Whether an admin turned live mode on: until then the organization's
    /// requests get its sandbox key only (`usable`).
    #[serde(default)]
    pub live: bool,
    /// Not sealed, but read with the keys on every request: whether
    /// operators may switch between live and sandbox (`ModeSwitch`).
    #[serde(default)]
    pub operators_switch_mode: bool,
}

impl Sealed {
    /// The keys requests may use: the live one only once live mode is on.
    pub fn usable(self) -> Sealed {
        let live = self.live;
        Sealed {
            keys: self
                .keys
                .into_iter()
                .filter(|k| live || k.mode != api::KeyEnv::Live)
                .collect(),
            ..self
        }
    }
}

/// A webhook secret as entered: what is wrong with it, if anything (it
/// travels in a line of text to the main Worker, so no control characters).
pub fn webhook_secret_problem(secret: &str) -> Option<String> {
    let n = secret.chars().count();
    if !(api::orgs::WEBHOOK_SECRET_MIN_CHARS..=256).contains(&n) {
        return Some(format!(
            "a webhook secret is {} to 256 characters, as the service's dashboard shows it",
            api::orgs::WEBHOOK_SECRET_MIN_CHARS
        ));
    }
    secret
        .chars()
        .any(|c| c.is_control() || c.is_whitespace())
        .then(|| "a webhook secret has no spaces or control characters".to_string())
}

/// `…a1b2`: all that is ever shown of a webhook secret.
pub fn redact_secret(secret: &str) -> String {
    let tail: String = secret
        .chars()
        .rev()
        .take(4)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("…{tail}")
}

/// A call that proves one scope without changing anything: a read of an
/// id that does not exist, or a write with an empty body the service
/// refuses as invalid. The service checks the key and its scope first.
pub struct Probe {
    pub method: &'static str,
    /// As the main Worker's v1 routes spell it (`/api/v1/…`).
    pub path: &'static str,
    pub body: Option<&'static str>,
}

const fn probe(method: &'static str, path: &'static str, body: Option<&'static str>) -> Probe {
    Probe { method, path, body }
}

/// One per scope. The first that a scope refuses ends the check: its
/// `AUTH.KEY.INSUFFICIENT_SCOPE` answer lists all of the key's scopes.
pub const PROBES: [Probe; 9] = [
    probe("GET", "/api/v1/wallet", None),
    probe("GET", "/api/v1/carrier-accounts", None),
    probe("GET", "/api/v1/labels/lbl_parcelkeycheck", None),
    probe("GET", "/api/v1/trackers/trk_parcelkeycheck", None),
    probe("GET", "/api/v1/batches/bat_parcelkeycheck", None),
    probe("POST", "/api/v1/addresses/validate", Some("{}")),
    probe("POST", "/api/v1/rates", Some("{}")),
    probe("POST", "/api/v1/labels", Some("{}")),
    probe("POST", "/api/v1/batches", Some("{}")),
];

/// What one probe's answer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The key passed this scope: ask the next probe.
    Passed,
    /// The key's scopes, as the service listed them.
    Scopes(Vec<Scope>),
    /// The service refused the key itself (unknown, revoked, expired, or
    /// a sandbox key where a live one is needed): nothing is stored.
    Refused { code: ErrorCode, message: String },
    /// No verdict (limits, an outage): nothing is stored; try again.
    Unknown(String),
}

pub fn judge(status: u16, body: &str) -> Verdict {
    let error = serde_json::from_str::<ErrorEnvelope>(body)
        .ok()
        .map(|e| e.error);
    match (status, error) {
        (403, Some(e)) if e.code == ErrorCode::AuthKeyInsufficientScope => Verdict::Scopes(
            e.key_scopes
                .unwrap_or_default()
                .iter()
                .filter_map(|s| s.parse().ok())
                .collect(),
        ),
        (401 | 403, Some(e)) => Verdict::Refused {
            code: e.code,
            message: e.message,
        },
        (401 | 403, None) => Verdict::Refused {
            code: ErrorCode::AuthKeyInvalid,
            message: format!("The service answered {status}."),
        },
        (429, _) => Verdict::Unknown("the service is limiting this key's calls".into()),
        (500.., _) => Verdict::Unknown(format!("the service answered {status}")),
        _ => Verdict::Passed,
    }
}

/// The rotation's steps on stored secrets of one kind (a mode's keys, the
/// webhook secrets).
pub mod rotation {
    use super::*;

    /// `set`: the new secret takes `slot`, given the slots already stored;
    /// a `next` one without a current one becomes current (there is nothing
    /// to rotate from).
    pub fn slot_for(stored: impl IntoIterator<Item = KeySlot>, slot: KeySlot) -> KeySlot {
        let has_current = stored.into_iter().any(|s| s == KeySlot::Current);
        if has_current { slot } else { KeySlot::Current }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn envelope(code: &str, extra: &str) -> String {
        format!(
            r#"{{"error":{{"code":"{code}","message":"m","suggestion":"s","docs_url":"d","request_id":"r"{extra}}}}}"#
        )
    }

    #[test]
    fn probes_cover_every_scope_once() {
        let mut scopes: Vec<Scope> = PROBES
            .iter()
            .map(|p| {
                let v1 = p.path.strip_prefix("/api").unwrap();
                api::endpoints::match_route(p.method, v1)
                    .unwrap()
                    .endpoint
                    .scope
            })
            .collect();
        scopes.sort_by_key(|s| s.as_str());
        let mut all = Scope::ALL.to_vec();
        all.sort_by_key(|s| s.as_str());
        assert_eq!(scopes, all);
        // Reads of ids that do not exist, or writes the service must refuse as invalid.
        for p in &PROBES {
            assert!(p.method == "GET" || p.body == Some("{}"), "{}", p.path);
        }
    }

    #[test]
    fn answers_become_verdicts() {
        assert_eq!(judge(200, "{}"), Verdict::Passed);
        assert_eq!(
            judge(404, &envelope("LABEL.NOT_FOUND", "")),
            Verdict::Passed
        );
        assert_eq!(
            judge(422, &envelope("VALIDATION.FIELD.REQUIRED", "")),
            Verdict::Passed
        );
        assert_eq!(
            judge(
                403,
                &envelope(
                    "AUTH.KEY.INSUFFICIENT_SCOPE",
                    r#","required_scope":"wallet:read","key_scopes":["rates:read","labels:read"]"#
                )
            ),
            Verdict::Scopes(vec![Scope::RatesRead, Scope::LabelsRead])
        );
        assert!(matches!(
            judge(401, &envelope("AUTH.KEY.REVOKED", "")),
            Verdict::Refused {
                code: ErrorCode::AuthKeyRevoked,
                ..
            }
        ));
        assert!(matches!(judge(401, "nope"), Verdict::Refused { .. }));
        assert!(matches!(judge(429, ""), Verdict::Unknown(_)));
        assert!(matches!(judge(503, ""), Verdict::Unknown(_)));
    }

    #[test]
    fn webhook_secrets_are_checked_and_shown_by_their_last_four() {
        assert_eq!(webhook_secret_problem("whsec_0123456789abcdef"), None);
        assert!(webhook_secret_problem("short").is_some());
        assert!(webhook_secret_problem("whsec_0123456789\tabcdef").is_some());
        assert!(webhook_secret_problem(&"x".repeat(257)).is_some());
        assert_eq!(redact_secret("whsec_0123456789abcdef"), "…cdef");
    }

    #[test]
    fn a_next_key_without_a_current_one_becomes_current() {
        let key = |mode, slot| StoredKey {
            mode,
            slot,
            sealed: "k1.a.b".into(),
            redacted: "svc_live_…0000".into(),
            scopes: vec![],
            set_at: 0,
            set_by: "Ada".into(),
        };
        let stored = [key(KeyEnv::Live, KeySlot::Current)];
        let slots = |mode| {
            stored
                .iter()
                .filter(move |k| k.mode == mode)
                .map(|k| k.slot)
        };
        assert_eq!(
            rotation::slot_for(slots(KeyEnv::Live), KeySlot::Next),
            KeySlot::Next
        );
        assert_eq!(
            rotation::slot_for(slots(KeyEnv::Sandbox), KeySlot::Next),
            KeySlot::Current
        );
    }
}
