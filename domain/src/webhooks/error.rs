//! Why a webhook delivery was not acknowledged.

use api::ErrorCode;
use api::inbox::RejectReason;

use crate::errors::{Failure, Managed};

/// `managed`: where the organization's webhook secret is set, which the
/// suggestion names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WebhookError {
    /// A delivery refused (recorded in the inbox as rejected).
    Refused(RejectReason, Managed),
    /// No webhook secret is set, so no delivery can be verified.
    SecretMissing(Managed),
    /// The webhook inbox did not answer; an event is not acknowledged, so
    /// the service retries it.
    InboxUnavailable,
}

impl Failure for WebhookError {
    fn code(&self) -> ErrorCode {
        match self {
            WebhookError::Refused(reason, _) => match reason {
                RejectReason::MissingSignature => ErrorCode::WebhookSignatureMissing,
                RejectReason::MalformedSignature => ErrorCode::WebhookSignatureMalformed,
                RejectReason::WrongSignature => ErrorCode::WebhookSignatureInvalid,
                RejectReason::UnreadableEvent => ErrorCode::WebhookEventUnreadable,
                RejectReason::TooLarge => ErrorCode::WebhookBodyTooLarge,
            },
            WebhookError::SecretMissing(_) => ErrorCode::WebhookSecretMissing,
            WebhookError::InboxUnavailable => ErrorCode::EdgeInboxUnavailable,
        }
    }

    fn message(&self) -> String {
        match self {
            WebhookError::Refused(reason, _) => format!("Webhook refused: {}.", reason.describe()),
            WebhookError::SecretMissing(Managed::BySettings) => {
                "This Worker has no webhook secret, so it cannot verify deliveries.".to_string()
            }
            WebhookError::SecretMissing(Managed::InApp) => {
                "This organization has no webhook secret, so it cannot verify deliveries."
                    .to_string()
            }
            WebhookError::InboxUnavailable => {
                "The webhook inbox could not be reached; nothing was stored.".to_string()
            }
        }
    }

    fn suggestion(&self) -> String {
        match self {
            WebhookError::Refused(RejectReason::TooLarge, _) => {
                format!("Send at most {} bytes.", api::inbox::MAX_BODY_BYTES)
            }
            WebhookError::Refused(RejectReason::UnreadableEvent, _) => {
                "Send a label.created event with its label as data.".to_string()
            }
            WebhookError::Refused(_, Managed::BySettings) => "Sign the raw body with the webhook secret: svc-signature: sha256=<hex HMAC-SHA256>. If the secret was changed, set it as WEBHOOK_SECRET (or WEBHOOK_SECRET_NEXT during a rotation).".to_string(),
            WebhookError::Refused(_, Managed::InApp) => format!("Sign the raw body with the webhook secret: svc-signature: sha256=<hex HMAC-SHA256>. If the secret was changed, an admin enters the new one in the “Webhook secret” field of the Webhook settings page ({}).", api::orgs::WEBHOOK_SETTINGS_PAGE),
            WebhookError::SecretMissing(Managed::BySettings) => "Set the service's webhook secret with `wrangler secret put WEBHOOK_SECRET`; the service retries the delivery later.".to_string(),
            WebhookError::SecretMissing(Managed::InApp) => format!("An admin enters the service's webhook secret in the “Webhook secret” field of the Webhook settings page ({}); the service retries the delivery later.", api::orgs::WEBHOOK_SETTINGS_PAGE),
            WebhookError::InboxUnavailable => {
                "Try again in a moment (the service retries deliveries by itself).".to_string()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_organization_is_sent_to_its_page_the_deployment_to_its_settings() {
        let wrong = RejectReason::WrongSignature;
        for e in [
            WebhookError::SecretMissing(Managed::InApp),
            WebhookError::Refused(wrong, Managed::InApp),
        ] {
            let said = format!("{} {}", e.message(), e.suggestion());
            assert!(
                said.contains("Webhook settings page (/webhooks/settings)"),
                "{said}"
            );
            assert!(!said.contains("WEBHOOK_SECRET"), "{said}");
        }
        for e in [
            WebhookError::SecretMissing(Managed::BySettings),
            WebhookError::Refused(wrong, Managed::BySettings),
        ] {
            assert!(e.suggestion().contains("WEBHOOK_SECRET"), "{e:?}");
        }
    }
}
