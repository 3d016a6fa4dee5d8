//! The Worker's own webhook inbox and label ledger (not part of v1): what the
//! edge received at its webhook endpoint, what it refused, and every label it
//! knows of, bought through the dashboard or announced by a `label.created`
//! event. The app reads these; the Worker serves them from one SQLite-backed
//! Durable Object.

use serde::{Deserialize, Serialize};

use crate::labels::Label;

/// The URL path a merchant configures as the webhook URL in the service's
/// dashboard: `https://<worker host>/hooks/v1/label-created`.
pub const RECEIVE_PATH: &str = "/hooks/v1/label-created";
/// An organization's own webhook URL: `…/hooks/v1/label-created/{org id}`.
/// A delivery to it is verified only with that organization's secret and
/// lands only in its inbox.
pub const ORG_RECEIVE_PATH: &str = "/hooks/v1/label-created/{id}";
/// `GET`: [`Inbox`]; `?q=` filters by label id, tracking number or carrier,
/// `?state=accepted|rejected`.
pub const INBOX_PATH: &str = "/api/webhooks/inbox";
/// `GET` with `Upgrade: websocket`: one [`LiveMessage`] per text frame, as
/// events are accepted or refused.
pub const LIVE_PATH: &str = "/api/webhooks/live";
/// `POST` [`VerifyRequest`] → [`VerifyResult`]: checks a pasted delivery
/// against the configured secrets, in the Worker.
pub const VERIFY_PATH: &str = "/api/webhooks/verify";

/// `GET`: the label's PDF through the Worker, which adds the key where the
/// service wants it (`labels:read`, "downloading PDFs") and serves it from
/// the dashboard's own origin, as a download; `?inline=1` to view it
/// instead. See [`label_pdf_path`].
pub const LABEL_PDF_PATH: &str = "/api/labels/{id}/pdf";

/// The Worker's PDF path of label `id` (ids are `[A-Za-z0-9_-]`).
pub fn label_pdf_path(id: &str) -> String {
    LABEL_PDF_PATH.replace("{id}", id)
}

/// Largest webhook body the endpoint reads (a Label is well under 2 KiB).
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// Retention: accepted events and ledger rows older than this are dropped...
pub const RETAIN_SECONDS: u64 = 90 * 24 * 3600;
/// ...and beyond this many rows the oldest go first.
pub const RETAIN_LABELS: u32 = 100_000;
/// Refused attempts are kept for a shorter time and in a smaller number: a
/// flood of forgeries must not push out real events.
pub const RETAIN_REJECTED_SECONDS: u64 = 7 * 24 * 3600;
pub const RETAIN_REJECTED: u32 = 1_000;
/// The bytes of a refused body kept for display (never parsed or trusted).
pub const EXCERPT_BYTES: usize = 512;
/// Lists return at most this many rows, newest first.
pub const PAGE_ROWS: u32 = 200;

crate::names! {
    /// Which configured secret verified a delivery.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum SecretSlot {
        /// `WEBHOOK_SECRET`.
        Current = "current",
        /// `WEBHOOK_SECRET_NEXT`, set beside the current one during rotation.
        Next = "next",
    }
}

/// How the Worker came to know a label.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Receipt {
    /// Unix seconds of the first accepted delivery.
    pub first_received_at: u64,
    pub last_received_at: u64,
    /// Accepted deliveries of this event: retries and replays count here.
    pub deliveries: u32,
    pub verified_with: SecretSlot,
}

/// One label of the ledger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    pub label: Label,
    /// Unix seconds the Worker first saw the label (purchase or event).
    pub seen_at: u64,
    /// The dashboard user who bought it through the Worker, if one did.
    #[serde(default)]
    pub bought_by: Option<String>,
    /// The `label.created` event, once one arrived.
    #[serde(default)]
    pub event: Option<Receipt>,
}

crate::names! {
    /// Why a delivery was refused.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum RejectReason {
        MissingSignature = "missing_signature",
        MalformedSignature = "malformed_signature",
        WrongSignature = "wrong_signature",
        /// Signed correctly but not a `label.created` event with a label.
        UnreadableEvent = "unreadable_event",
        TooLarge = "too_large",
    }
}

impl RejectReason {
    pub fn describe(self) -> &'static str {
        match self {
            RejectReason::MissingSignature => "no svc-signature header",
            RejectReason::MalformedSignature => "svc-signature is not sha256=<64 lowercase hex>",
            RejectReason::WrongSignature => "signature does not match the body with any secret",
            RejectReason::UnreadableEvent => "signed, but not a label.created event",
            RejectReason::TooLarge => "body larger than the endpoint accepts",
        }
    }
}

impl From<crate::webhooks::SignatureError> for RejectReason {
    fn from(e: crate::webhooks::SignatureError) -> Self {
        use crate::webhooks::SignatureError::*;
        match e {
            Missing => RejectReason::MissingSignature,
            Malformed => RejectReason::MalformedSignature,
            Mismatch => RejectReason::WrongSignature,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejected {
    pub id: u64,
    pub received_at: u64,
    pub reason: RejectReason,
    /// `CF-Connecting-IP` as the Worker saw it.
    pub source_ip: String,
    /// The first [`EXCERPT_BYTES`] of the body, lossily decoded: display only.
    pub excerpt: String,
    pub body_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inbox {
    /// Labels with an accepted event, newest event first.
    pub accepted: Vec<LedgerEntry>,
    /// Newest first.
    pub rejected: Vec<Rejected>,
    /// Whether a secret is configured at all (without one every delivery is refused).
    pub receiving: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum LiveMessage {
    Accepted { entry: LedgerEntry },
    Rejected { rejected: Rejected },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyRequest {
    pub body: String,
    pub signature: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyResult {
    /// `None` when it verifies.
    #[serde(default)]
    pub reason: Option<RejectReason>,
    #[serde(default)]
    pub verified_with: Option<SecretSlot>,
    /// The label id when the body is a readable `label.created` event.
    #[serde(default)]
    pub label_id: Option<String>,
}
