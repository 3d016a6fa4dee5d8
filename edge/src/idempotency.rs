//! Money safety: `POST /labels`, `POST /batches` and `POST /batches/{id}/buy`
//! carry an `Idempotency-Key`. The first request with a key runs; a repeat
//! within 24 h gets the first answer back without a second upstream call; a
//! concurrent repeat is refused until the first finishes; the same key with a
//! different body is refused. State lives in one SQLite-backed Durable Object
//! per key (see `glue`); the decisions are here.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::errors::EdgeError;

pub const HEADER: &str = "Idempotency-Key";
/// How long a finished purchase is remembered.
pub const TTL_SECONDS: u64 = 24 * 60 * 60;
/// A purchase still "in progress" after this long lost its Worker; its outcome is unknown.
pub const IN_PROGRESS_TIMEOUT_SECONDS: u64 = 120;

/// What the ledger holds for one key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Entry {
    InProgress {
        fingerprint: String,
        started_at: u64,
    },
    Done {
        fingerprint: String,
        finished_at: u64,
        response: StoredResponse,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
pub enum Begin {
    /// Go ahead; the entry is now in progress.
    Proceed,
    /// Answer with the first response again.
    Replay {
        response: StoredResponse,
    },
    InProgress,
    KeyReused,
    /// The first attempt lost its Worker mid-purchase.
    OutcomeUnknown,
}

/// Decides what a request with `fingerprint` does, given the stored entry.
/// Returns the decision and the entry to store (None = leave as is).
pub fn begin(existing: Option<&Entry>, fingerprint: &str, now: u64) -> (Begin, Option<Entry>) {
    let start = || {
        Some(Entry::InProgress {
            fingerprint: fingerprint.to_string(),
            started_at: now,
        })
    };
    match existing {
        None => (Begin::Proceed, start()),
        Some(Entry::Done { finished_at, .. }) if now >= finished_at + TTL_SECONDS => {
            (Begin::Proceed, start())
        }
        Some(Entry::Done { fingerprint: f, .. } | Entry::InProgress { fingerprint: f, .. })
            if f != fingerprint =>
        {
            (Begin::KeyReused, None)
        }
        Some(Entry::Done { response, .. }) => (
            Begin::Replay {
                response: response.clone(),
            },
            None,
        ),
        Some(Entry::InProgress { started_at, .. })
            if now >= started_at + IN_PROGRESS_TIMEOUT_SECONDS =>
        {
            (Begin::OutcomeUnknown, None)
        }
        Some(Entry::InProgress { .. }) => (Begin::InProgress, None),
    }
}

/// After the upstream answered: a 4xx means nothing happened (the v1
/// contract charges nothing on a refusal), so the key is released for a
/// corrected retry; anything else is remembered and replayed.
pub fn finish(fingerprint: &str, response: StoredResponse, now: u64) -> Option<Entry> {
    if (400..500).contains(&response.status) {
        None
    } else {
        Some(Entry::Done {
            fingerprint: fingerprint.to_string(),
            finished_at: now,
            response,
        })
    }
}

/// Same key, same endpoint, same body ⇒ same fingerprint.
pub fn fingerprint(method: &str, path: &str, body: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(method.as_bytes());
    h.update(b" ");
    h.update(path.as_bytes());
    h.update(b"\n");
    h.update(body);
    hex::encode(h.finalize())
}

/// A key is 1 to 255 visible ASCII characters (a UUID is typical).
pub fn check_key(key: Option<&str>) -> Result<&str, EdgeError> {
    let key = key
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .ok_or(EdgeError::IdempotencyKeyMissing)?;
    if key.len() > 255 || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(EdgeError::IdempotencyKeyInvalid);
    }
    Ok(key)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(fp: &str, at: u64) -> Entry {
        Entry::Done {
            fingerprint: fp.into(),
            finished_at: at,
            response: StoredResponse {
                status: 201,
                headers: vec![],
                body: "{}".into(),
            },
        }
    }

    #[test]
    fn first_request_proceeds_and_is_marked_in_progress() {
        let (d, e) = begin(None, "fp", 10);
        assert_eq!(d, Begin::Proceed);
        assert_eq!(
            e,
            Some(Entry::InProgress {
                fingerprint: "fp".into(),
                started_at: 10
            })
        );
    }

    #[test]
    fn a_repeat_replays_and_a_concurrent_repeat_waits() {
        assert!(matches!(
            begin(Some(&done("fp", 10)), "fp", 20).0,
            Begin::Replay { .. }
        ));
        let running = Entry::InProgress {
            fingerprint: "fp".into(),
            started_at: 10,
        };
        assert_eq!(begin(Some(&running), "fp", 11).0, Begin::InProgress);
        assert_eq!(
            begin(Some(&running), "fp", 10 + IN_PROGRESS_TIMEOUT_SECONDS).0,
            Begin::OutcomeUnknown
        );
    }

    #[test]
    fn another_body_under_the_same_key_is_refused() {
        assert_eq!(
            begin(Some(&done("fp", 10)), "other", 20).0,
            Begin::KeyReused
        );
        let running = Entry::InProgress {
            fingerprint: "fp".into(),
            started_at: 10,
        };
        assert_eq!(begin(Some(&running), "other", 11).0, Begin::KeyReused);
    }

    #[test]
    fn remembered_for_24_hours() {
        assert!(matches!(
            begin(Some(&done("fp", 0)), "fp", TTL_SECONDS - 1).0,
            Begin::Replay { .. }
        ));
        assert_eq!(
            begin(Some(&done("fp", 0)), "fp", TTL_SECONDS).0,
            Begin::Proceed
        );
    }

    #[test]
    fn refusals_release_the_key_and_everything_else_is_kept() {
        let resp = |status| StoredResponse {
            status,
            headers: vec![],
            body: String::new(),
        };
        assert_eq!(finish("fp", resp(402), 1), None);
        assert_eq!(finish("fp", resp(429), 1), None);
        assert!(finish("fp", resp(201), 1).is_some());
        assert!(finish("fp", resp(500), 1).is_some());
        assert!(finish("fp", resp(502), 1).is_some());
    }

    #[test]
    fn fingerprints_and_keys() {
        assert_eq!(
            fingerprint("POST", "/v1/labels", b"{}"),
            fingerprint("POST", "/v1/labels", b"{}")
        );
        assert_ne!(
            fingerprint("POST", "/v1/labels", b"{}"),
            fingerprint("POST", "/v1/batches", b"{}")
        );
        assert_eq!(check_key(Some(" 3f2c-11 ")), Ok("3f2c-11"));
        assert_eq!(check_key(None), Err(EdgeError::IdempotencyKeyMissing));
        assert_eq!(
            check_key(Some("a b")),
            Err(EdgeError::IdempotencyKeyInvalid)
        );
        assert_eq!(
            check_key(Some(&"k".repeat(256))),
            Err(EdgeError::IdempotencyKeyInvalid)
        );
    }
}
