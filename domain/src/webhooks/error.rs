//! Why a webhook delivery was not acknowledged.

use api::ErrorCode;
use api::inbox::RejectReason;

use crate::errors::Failure;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookError {
    /// A delivery refused (recorded in the inbox as rejected).
    Refused(RejectReason),
    /// No webhook secret is set, so no delivery can be verified.
    SecretMissing,
    /// The webhook inbox did not answer; an event is not acknowledged, so
    /// the service retries it.
    InboxUnavailable,
}

impl Failure for WebhookError {
    fn code(&self) -> ErrorCode {
        match self {
            WebhookError::Refused(reason) => match reason {
                RejectReason::MissingSignature => ErrorCode::WebhookSignatureMissing,
                RejectReason::MalformedSignature => ErrorCode::WebhookSignatureMalformed,
                RejectReason::WrongSignature => ErrorCode::WebhookSignatureInvalid,
                RejectReason::UnreadableEvent => ErrorCode::WebhookEventUnreadable,
                RejectReason::TooLarge => ErrorCode::WebhookBodyTooLarge,
            },
            WebhookError::SecretMissing => ErrorCode::WebhookSecretMissing,
            WebhookError::InboxUnavailable => ErrorCode::EdgeInboxUnavailable,
        }
    }

    fn message(&self) -> String {
        match self {
            WebhookError::Refused(reason) => format!("Webhook refused: {}.", reason.describe()),
            WebhookError::SecretMissing => {
                "This Worker has no webhook secret, so it cannot verify deliveries.".to_string()
            }
            WebhookError::InboxUnavailable => {
                "The webhook inbox could not be reached; nothing was stored.".to_string()
            }
        }
    }

    fn suggestion(&self) -> String {
        match self {
            WebhookError::Refused(RejectReason::TooLarge) => {
                format!("Send at most {} bytes.", api::inbox::MAX_BODY_BYTES)
            }
            WebhookError::Refused(RejectReason::UnreadableEvent) => {
                "Send a label.created event with its label as data.".to_string()
            }
            WebhookError::Refused(_) => "Sign the raw body with the webhook secret: svc-signature: sha256=<hex HMAC-SHA256>. If the secret was changed, set it as WEBHOOK_SECRET (or WEBHOOK_SECRET_NEXT during a rotation).".to_string(),
            WebhookError::SecretMissing => "Set the service's webhook secret with `wrangler secret put WEBHOOK_SECRET`; the service retries the delivery later.".to_string(),
            WebhookError::InboxUnavailable => {
                "Try again in a moment (the service retries deliveries by itself).".to_string()
            }
        }
    }
}
