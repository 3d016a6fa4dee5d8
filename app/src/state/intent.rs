//! One `Idempotency-Key` per purchase intent: a new intent (another rate, or
//! a purchase that was answered) gets a fresh key; retrying the same intent
//! after an unknown outcome reuses it, so the Worker replays instead of
//! buying twice.

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

/// Whether an intent stays open after this failure: the outcome is unknown
/// (no answer, a timeout, the upstream unreachable) so the retry must reuse
/// the key. A refusal closes the intent: nothing was bought.
pub fn stays_open(error: &crate::api::ClientError) -> bool {
    use crate::api::ClientError;
    match error {
        ClientError::Network(_) | ClientError::Decode(_) => true,
        ClientError::Api { error, .. } => {
            let code = error.code.as_str();
            code.starts_with("EDGE.UPSTREAM.")
                || (code.starts_with("EDGE.IDEMPOTENCY.") && code != "EDGE.IDEMPOTENCY.KEY_REUSED")
        }
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
    use crate::api::ClientError;

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
        let refusal = |status, code: &str| ClientError::Api {
            status,
            error: Box::new(api::ApiError::new(
                api::ErrorCode::parse(code),
                "m",
                "s",
                "r",
            )),
        };
        assert!(stays_open(&refusal(504, "EDGE.UPSTREAM.TIMEOUT")));
        assert!(!stays_open(&refusal(422, "RATE.EXPIRED")));
        assert!(!stays_open(&refusal(402, "WALLET.INSUFFICIENT_BALANCE")));
        assert!(!stays_open(&refusal(500, "LABEL.CREATION.FAILED")));
        assert!(stays_open(&refusal(409, "EDGE.IDEMPOTENCY.IN_PROGRESS")));
    }
}
