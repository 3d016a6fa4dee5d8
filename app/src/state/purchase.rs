//! One `Idempotency-Key` per purchase intent: a new intent (another rate, or
//! a purchase that was answered) gets a fresh key; retrying the same intent
//! after an unknown outcome reuses it, so the Worker replays instead of
//! buying twice.

use crate::api::ClientError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intent {
    pub rate_id: String,
    pub key: String,
}

/// The key for buying `rate_id`, given the last intent that is still open
/// (not answered with a label or a definite refusal).
pub fn key_for(open: Option<&Intent>, rate_id: &str, fresh: impl FnOnce() -> String) -> Intent {
    match open {
        Some(intent) if intent.rate_id == rate_id => intent.clone(),
        _ => Intent {
            rate_id: rate_id.to_string(),
            key: fresh(),
        },
    }
}

/// Whether an intent stays open after this failure, so the retry reuses
/// its key: no answer reached the browser, or the Worker says an earlier
/// attempt may have spent money (`outcome_unknown`). Any other refusal
/// closes the intent: nothing was bought.
pub fn stays_open(error: &ClientError) -> bool {
    match error {
        ClientError::Network(_) | ClientError::Decode(_) => true,
        ClientError::Api { error, .. } => error.outcome_unknown == Some(true),
        ClientError::Passkey(_) => false,
    }
}

/// A random UUID from the browser's CSPRNG.
pub fn fresh_key() -> String {
    web_sys::window()
        .and_then(|w| w.crypto().ok())
        .map(|c| c.random_uuid())
        .unwrap_or_else(|| format!("intent-{}", js_sys::Math::random().to_bits()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::{ApiError, ErrorCode};

    #[test]
    fn same_rate_same_key_other_rate_new_key() {
        let first = key_for(None, "rate_1", || "k1".into());
        assert_eq!(first.key, "k1");
        assert_eq!(key_for(Some(&first), "rate_1", || "k2".into()).key, "k1");
        assert_eq!(key_for(Some(&first), "rate_2", || "k2".into()).key, "k2");
    }

    #[test]
    fn unknown_outcomes_keep_the_intent_open() {
        assert!(stays_open(&ClientError::Network("reset".into())));
        assert!(stays_open(&ClientError::Decode("cut off".into())));
        let refusal = |code: ErrorCode, outcome_unknown| ClientError::Api {
            status: code.http_status(),
            error: Box::new(ApiError {
                outcome_unknown,
                ..ApiError::new(code, "m", "s", "r")
            }),
        };
        assert!(stays_open(&refusal(
            ErrorCode::EdgeUpstreamTimeout,
            Some(true)
        )));
        assert!(stays_open(&refusal(
            ErrorCode::EdgeIdempotencyInProgress,
            Some(true)
        )));
        // The Worker knows nothing was spent: a new intent may take a new key.
        assert!(!stays_open(&refusal(
            ErrorCode::EdgeUpstreamUnreachable,
            Some(false)
        )));
        assert!(!stays_open(&refusal(
            ErrorCode::EdgeIdempotencyKeyReused,
            None
        )));
        assert!(!stays_open(&refusal(ErrorCode::RateExpired, None)));
        assert!(!stays_open(&refusal(
            ErrorCode::WalletInsufficientBalance,
            None
        )));
        assert!(!stays_open(&refusal(ErrorCode::LabelCreationFailed, None)));
    }
}
