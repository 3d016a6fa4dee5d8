//! The `label.created` webhook (part 6): event body, signature, deliveries.

use serde::{Deserialize, Serialize};

use crate::labels::Label;
use crate::signing::{hmac_matches, hmac_sha256};

pub const SIGNATURE_HEADER: &str = "svc-signature";
pub const EVENT_LABEL_CREATED: &str = "label.created";
/// Part 6: five attempts in all. Entry `n` is the wait before attempt `n + 1`,
/// counted from the previous attempt (our reading of "attempt 2 after 5
/// minutes, attempt 3 after 30 minutes, ..."): immediate, +5 min, +30 min,
/// +2 h, +24 h. Delivery stops at the first 2xx.
pub const RETRY_SCHEDULE_SECONDS: [u64; 5] = [0, 300, 1800, 7200, 86400];
/// Our choice: the answer a receiver has to give within this many seconds.
pub const DELIVERY_TIMEOUT_SECONDS: u64 = 5;

/// Our choice: an attempt succeeds when the receiver answers any 2xx.
pub fn is_success_status(status: u16) -> bool {
    (200..300).contains(&status)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookEvent {
    pub event: String,
    pub data: Label,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureError {
    Missing,
    /// Not `sha256=` followed by 64 lowercase hexadecimal characters.
    Malformed,
    Mismatch,
}

impl std::fmt::Display for SignatureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SignatureError::Missing => "the svc-signature header is missing",
            SignatureError::Malformed => {
                "the svc-signature header is not sha256=<64 lowercase hex>"
            }
            SignatureError::Mismatch => "the svc-signature does not match the body",
        })
    }
}

impl std::error::Error for SignatureError {}

/// The `svc-signature` value for `body`: `sha256=` + lowercase hex HMAC-SHA256.
pub fn sign(secret: &[u8], body: &[u8]) -> String {
    format!("sha256={}", hex::encode(hmac_sha256(secret, body)))
}

/// Checks a `svc-signature` header against the raw body, in constant time.
pub fn verify(secret: &[u8], body: &[u8], header: Option<&str>) -> Result<(), SignatureError> {
    let header = header.ok_or(SignatureError::Missing)?.trim();
    let hex_sig = header
        .strip_prefix("sha256=")
        .ok_or(SignatureError::Malformed)?;
    if hex_sig.len() != 64
        || !hex_sig
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Err(SignatureError::Malformed);
    }
    let given = hex::decode(hex_sig).map_err(|_| SignatureError::Malformed)?;
    if hmac_matches(secret, body, &given) {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

crate::names! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum DeliveryStatus {
        /// Due now or later; not attempted yet.
        Pending = "pending",
        Succeeded = "succeeded",
        /// This attempt failed; a later attempt may follow (see `next_attempt_at`).
        Failed = "failed",
    }
}

/// One delivery attempt, as listed by `GET /v1/webhooks/deliveries` (fields are our choice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebhookDelivery {
    pub id: String,
    pub event: String,
    pub label_id: String,
    pub url: String,
    /// 1 to 5.
    pub attempt: u32,
    pub status: DeliveryStatus,
    #[serde(default)]
    pub response_status: Option<u16>,
    #[serde(default)]
    pub error: Option<String>,
    /// Unix seconds; `None` while pending.
    #[serde(default)]
    pub attempted_at: Option<u64>,
    /// When the next attempt is due, if this one failed and attempts remain.
    #[serde(default)]
    pub next_attempt_at: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryList {
    /// Newest first.
    pub deliveries: Vec<WebhookDelivery>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vector() {
        // HMAC-SHA256("key", "The quick brown fox jumps over the lazy dog"), RFC 4231-style vector.
        let sig = sign(b"key", b"The quick brown fox jumps over the lazy dog");
        assert_eq!(
            sig,
            "sha256=f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8"
        );
    }

    #[test]
    fn only_2xx_is_a_success_and_the_schedule_is_part_6() {
        assert!(is_success_status(200) && is_success_status(204) && is_success_status(299));
        assert!(!is_success_status(301) && !is_success_status(404) && !is_success_status(500));
        assert_eq!(
            RETRY_SCHEDULE_SECONDS.iter().sum::<u64>(),
            5 * 60 + 30 * 60 + 2 * 3600 + 24 * 3600
        );
    }

    #[test]
    fn verifies_and_rejects() {
        let body = br#"{"event":"label.created"}"#;
        let sig = sign(b"whsec", body);
        assert_eq!(verify(b"whsec", body, Some(&sig)), Ok(()));
        assert_eq!(
            verify(b"other", body, Some(&sig)),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(b"whsec", b"{}", Some(&sig)),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(verify(b"whsec", body, None), Err(SignatureError::Missing));
        assert_eq!(
            verify(b"whsec", body, Some("sha1=abc")),
            Err(SignatureError::Malformed)
        );
        assert_eq!(
            verify(
                b"whsec",
                body,
                Some(&sig.to_uppercase().replace("SHA256", "sha256"))
            ),
            Err(SignatureError::Malformed)
        );
        assert_eq!(
            verify(b"whsec", body, Some(&sig[..70])),
            Err(SignatureError::Malformed)
        );
    }
}
