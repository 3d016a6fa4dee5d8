//! Purchases are never sent twice: `POST /labels`, `POST /batches` and
//! `POST /batches/{id}/buy` carry an `Idempotency-Key`. The first request
//! with a key runs; a repeat within 24 h gets the first answer back without
//! a second upstream call; a concurrent repeat is refused until the first
//! finishes; the same key with a different body is refused; a record that
//! cannot be read refuses the purchase (fail closed). State lives in one
//! SQLite-backed Durable Object per key (the `PurchaseRecords` class,
//! `edge/src/purchases/records.rs`); the decisions are here;
//! `edge/src/purchases.rs` runs a purchase through them.

use serde::{Deserialize, Serialize};

use crate::upstream::StoredResponse;
use sha2::{Digest, Sha256};

use crate::errors::Failure;
use crate::objects::{Ask, Object};
use api::{ApiError, ErrorCode};

pub const HEADER: &str = "Idempotency-Key";
/// How long a finished purchase is remembered.
pub const TTL_SECONDS: u64 = 24 * 60 * 60;
/// A purchase still "in progress" after this long lost its Worker; its outcome is unknown.
pub const IN_PROGRESS_TIMEOUT_SECONDS: u64 = 120;

/// Why a purchase was not sent: none of these spends money.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PurchaseError {
    /// A purchase came without its `Idempotency-Key`.
    KeyMissing,
    KeyInvalid,
    /// The same purchase (same key) is still running.
    InProgress,
    /// The key was used for a different request.
    KeyReused,
    /// The purchase records could not be reached, so a purchase is not risked.
    RecordsUnavailable,
    /// The purchase record of this `Idempotency-Key` exists but cannot be
    /// read: an earlier attempt may have bought, so nothing is sent.
    RecordUnreadable,
}

impl Failure for PurchaseError {
    fn code(&self) -> ErrorCode {
        match self {
            PurchaseError::KeyMissing => ErrorCode::ValidationFieldRequired,
            PurchaseError::KeyInvalid => ErrorCode::ValidationFieldInvalid,
            PurchaseError::InProgress => ErrorCode::EdgeIdempotencyInProgress,
            PurchaseError::KeyReused => ErrorCode::EdgeIdempotencyKeyReused,
            PurchaseError::RecordsUnavailable => ErrorCode::EdgeIdempotencyUnavailable,
            PurchaseError::RecordUnreadable => ErrorCode::EdgeIdempotencyRecordUnreadable,
        }
    }

    fn message(&self) -> String {
        match self {
            PurchaseError::KeyMissing => "A purchase needs an Idempotency-Key header.",
            PurchaseError::KeyInvalid => "The Idempotency-Key must be 1 to 255 visible ASCII characters.",
            PurchaseError::InProgress => "This purchase is still being processed; it was not sent twice.",
            PurchaseError::KeyReused => "This Idempotency-Key was already used for a different request.",
            PurchaseError::RecordsUnavailable => "The purchase was not sent: Parcel could not record it safely.",
            PurchaseError::RecordUnreadable => "The purchase was not sent: the record of earlier attempts with this Idempotency-Key could not be read, so one of them may already have bought it.",
        }
        .to_string()
    }

    fn suggestion(&self) -> String {
        match self {
            PurchaseError::KeyMissing => "Send a new random Idempotency-Key (a UUID) for each purchase, and the same one when retrying it.",
            PurchaseError::KeyInvalid => "Use a UUID as the Idempotency-Key.",
            PurchaseError::InProgress => "Retry with the same Idempotency-Key in a second to get its result.",
            PurchaseError::KeyReused => "Use a new Idempotency-Key for a new purchase.",
            PurchaseError::RecordsUnavailable => "Try again in a moment with the same Idempotency-Key.",
            PurchaseError::RecordUnreadable => "Try again in a moment with the same Idempotency-Key. If this keeps happening, check your labels and wallet before buying with a new key, so nothing is bought twice.",
        }
        .to_string()
    }

    fn retry_after(&self) -> Option<u64> {
        (*self == PurchaseError::InProgress).then_some(1)
    }

    /// The first attempt is running, or its record is out of reach: the
    /// retry must carry the same key.
    fn outcome_unknown(&self) -> Option<bool> {
        matches!(
            self,
            PurchaseError::InProgress
                | PurchaseError::RecordsUnavailable
                | PurchaseError::RecordUnreadable
        )
        .then_some(true)
    }

    fn detail(&self, error: ApiError) -> ApiError {
        match self {
            PurchaseError::KeyMissing | PurchaseError::KeyInvalid => error.with_field(HEADER),
            _ => error,
        }
    }
}

/// What the store holds for one key.
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

/// The shape records are written in now. Bump it when `Entry` changes, and
/// teach [`decode`] the shape before it, so a deploy never leaves a record
/// it cannot read behind (an unreadable record refuses its purchase).
pub const RECORD_VERSION: u32 = 2;

#[derive(Serialize, Deserialize)]
struct Record {
    v: u32,
    #[serde(flatten)]
    entry: Entry,
}

/// A stored record's text, in the current shape.
pub fn encode(entry: &Entry) -> Result<String, serde_json::Error> {
    serde_json::to_string(&Record {
        v: RECORD_VERSION,
        entry: entry.clone(),
    })
}

/// A stored record, in any shape this build knows: version 2, or version 1
/// (the first builds wrote the entry itself, without a version). `None`
/// for anything else (a newer build's shape, or damage): the caller must
/// refuse, never guess "no purchase yet".
pub fn decode(text: &str) -> Option<Entry> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    match value.get("v") {
        None => serde_json::from_value(value).ok(),
        Some(v) if v.as_u64() == Some(u64::from(RECORD_VERSION)) => {
            serde_json::from_value::<Record>(value)
                .ok()
                .map(|r| r.entry)
        }
        Some(_) => None,
    }
}

/// What the store found for a key before deciding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    Nothing,
    Entry(Entry),
    /// A record exists but could not be read or decoded.
    Unreadable,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
    /// The key's record cannot be read: an earlier attempt may have bought,
    /// so nothing is sent.
    Unreadable,
}

/// Decides what a request with `fingerprint` does, given what is stored.
/// Returns the decision and the entry to store (None = leave as is).
pub fn begin(found: &Found, fingerprint: &str, now: u64) -> (Begin, Option<Entry>) {
    let start = || {
        Some(Entry::InProgress {
            fingerprint: fingerprint.to_string(),
            started_at: now,
        })
    };
    let existing = match found {
        Found::Unreadable => return (Begin::Unreadable, None),
        Found::Nothing => None,
        Found::Entry(entry) => Some(entry),
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

/// The store's protocol: one object per `(mode, Idempotency-Key)`.
pub struct Purchases;

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PurchaseCall {
    Begin(BeginCall),
    Finish(FinishCall),
}

/// Look up the key's record and, if the purchase may go ahead, mark it in progress.
#[derive(Debug, Serialize, Deserialize)]
pub struct BeginCall {
    pub fingerprint: String,
}

/// Record the answer of a purchase that went ahead.
#[derive(Debug, Serialize, Deserialize)]
pub struct FinishCall {
    pub fingerprint: String,
    pub response: StoredResponse,
}

impl Object for Purchases {
    const BINDING: &'static str = "IDEMPOTENCY";
    type Request = PurchaseCall;
    type Error = PurchaseError;
    fn unavailable() -> PurchaseError {
        PurchaseError::RecordsUnavailable
    }
}

impl From<BeginCall> for PurchaseCall {
    fn from(c: BeginCall) -> Self {
        PurchaseCall::Begin(c)
    }
}

impl From<FinishCall> for PurchaseCall {
    fn from(c: FinishCall) -> Self {
        PurchaseCall::Finish(c)
    }
}

impl Ask<Purchases> for BeginCall {
    type Reply = Begin;
}

impl Ask<Purchases> for FinishCall {
    type Reply = ();
}

/// A key is 1 to 255 visible ASCII characters (a UUID is typical).
pub fn check_key(key: Option<&str>) -> Result<&str, PurchaseError> {
    let key = key
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .ok_or(PurchaseError::KeyMissing)?;
    if key.len() > 255 || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(PurchaseError::KeyInvalid);
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

    fn found(entry: Entry) -> Found {
        Found::Entry(entry)
    }

    #[test]
    fn first_request_proceeds_and_is_marked_in_progress() {
        let (d, e) = begin(&Found::Nothing, "fp", 10);
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
            begin(&found(done("fp", 10)), "fp", 20).0,
            Begin::Replay { .. }
        ));
        let running = Entry::InProgress {
            fingerprint: "fp".into(),
            started_at: 10,
        };
        assert_eq!(
            begin(&found(running.clone()), "fp", 11).0,
            Begin::InProgress
        );
        assert_eq!(
            begin(
                &found(running.clone()),
                "fp",
                10 + IN_PROGRESS_TIMEOUT_SECONDS
            )
            .0,
            Begin::OutcomeUnknown
        );
    }

    #[test]
    fn another_body_under_the_same_key_is_refused() {
        assert_eq!(
            begin(&found(done("fp", 10)), "other", 20).0,
            Begin::KeyReused
        );
        let running = Entry::InProgress {
            fingerprint: "fp".into(),
            started_at: 10,
        };
        assert_eq!(
            begin(&found(running.clone()), "other", 11).0,
            Begin::KeyReused
        );
    }

    #[test]
    fn remembered_for_24_hours() {
        assert!(matches!(
            begin(&found(done("fp", 0)), "fp", TTL_SECONDS - 1).0,
            Begin::Replay { .. }
        ));
        assert_eq!(
            begin(&found(done("fp", 0)), "fp", TTL_SECONDS).0,
            Begin::Proceed
        );
    }

    #[test]
    fn an_unreadable_record_refuses_and_stores_nothing() {
        assert_eq!(
            begin(&Found::Unreadable, "fp", 10),
            (Begin::Unreadable, None)
        );
    }

    #[test]
    fn records_of_both_shapes_are_read_and_others_are_not() {
        let entry = done("fp", 10);
        let now = encode(&entry).unwrap();
        assert!(now.contains("\"v\":2"), "{now}");
        assert_eq!(decode(&now), Some(entry));
        // Version 1, as the first builds wrote it (no version field).
        let v1 = r#"{"state":"done","fingerprint":"fp","finished_at":10,"response":{"status":201,"headers":[["content-type","application/json"]],"body":"{}"}}"#;
        assert_eq!(
            decode(v1),
            Some(Entry::Done {
                fingerprint: "fp".into(),
                finished_at: 10,
                response: StoredResponse {
                    status: 201,
                    headers: vec![("content-type".into(), "application/json".into())],
                    body: "{}".into(),
                },
            })
        );
        let v1_running = r#"{"state":"in_progress","fingerprint":"fp","started_at":3}"#;
        assert!(matches!(
            decode(v1_running),
            Some(Entry::InProgress { started_at: 3, .. })
        ));
        for bad in [
            "",
            "garbage",
            r#"{"v":3,"state":"done"}"#,
            r#"{"v":2,"state":"lost"}"#,
            r#"{"state":"done"}"#,
        ] {
            assert_eq!(decode(bad), None, "{bad}");
        }
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
        assert_eq!(check_key(None), Err(PurchaseError::KeyMissing));
        assert_eq!(check_key(Some("a b")), Err(PurchaseError::KeyInvalid));
        assert_eq!(
            check_key(Some(&"k".repeat(256))),
            Err(PurchaseError::KeyInvalid)
        );
    }
}
