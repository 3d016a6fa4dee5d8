//! Every error code with its HTTP status: part 7's, the service's beyond
//! it, and the Workers' own (`RESOURCE.CATEGORY.SPECIFIC`).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

macro_rules! error_codes {
    (
        part7 { $($variant:ident = $code:literal, $status:literal;)* }
        beyond { $($xvariant:ident = $xcode:literal, $xstatus:literal;)* }
    ) => {
        /// Every error code with its HTTP status: part 7's, then the codes
        /// the simulator and the Worker add where part 7 has none. Codes this
        /// build does not know (a newer upstream) decode to `Unknown`.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            $($variant,)*
            $($xvariant,)*
            Unknown(String),
        }

        impl ErrorCode {
            const PART_7: &'static [ErrorCode] = &[$(ErrorCode::$variant,)*];
            const BEYOND: &'static [ErrorCode] = &[$(ErrorCode::$xvariant,)*];

            pub fn as_str(&self) -> &str {
                match self {
                    $(ErrorCode::$variant => $code,)*
                    $(ErrorCode::$xvariant => $xcode,)*
                    ErrorCode::Unknown(code) => code,
                }
            }

            /// The HTTP status the table gives the code; 500 for unknown codes.
            pub fn http_status(&self) -> u16 {
                match self {
                    $(ErrorCode::$variant => $status,)*
                    $(ErrorCode::$xvariant => $xstatus,)*
                    ErrorCode::Unknown(_) => 500,
                }
            }

            pub fn parse(code: &str) -> ErrorCode {
                match code {
                    $($code => ErrorCode::$variant,)*
                    $($xcode => ErrorCode::$xvariant,)*
                    other => ErrorCode::Unknown(other.to_string()),
                }
            }
        }
    };
}

error_codes! {
    part7 {
        AuthKeyMissing = "AUTH.KEY.MISSING", 401;
        AuthKeyInvalid = "AUTH.KEY.INVALID", 401;
        AuthKeyRevoked = "AUTH.KEY.REVOKED", 401;
        AuthKeyExpired = "AUTH.KEY.EXPIRED", 401;
        AuthKeyInsufficientScope = "AUTH.KEY.INSUFFICIENT_SCOPE", 403;
        AuthKeySandboxInProduction = "AUTH.KEY.SANDBOX_IN_PRODUCTION", 403;
        AuthRateLimitExceeded = "AUTH.RATE_LIMIT.EXCEEDED", 429;
        ValidationFieldRequired = "VALIDATION.FIELD.REQUIRED", 422;
        ValidationFieldInvalid = "VALIDATION.FIELD.INVALID", 422;
        RateExpired = "RATE.EXPIRED", 422;
        RateNotFound = "RATE.NOT_FOUND", 404;
        RateCarrierUnavailable = "RATE.CARRIER.UNAVAILABLE", 503;
        LabelAddressUndeliverable = "LABEL.ADDRESS.UNDELIVERABLE", 422;
        LabelWeightExceeded = "LABEL.WEIGHT.EXCEEDED", 422;
        LabelServiceUnavailable = "LABEL.SERVICE.UNAVAILABLE", 422;
        LabelVoidIneligible = "LABEL.VOID.INELIGIBLE", 422;
        LabelVoidAlreadyRequested = "LABEL.VOID.ALREADY_REQUESTED", 422;
        LabelNotFound = "LABEL.NOT_FOUND", 404;
        LabelCreationFailed = "LABEL.CREATION.FAILED", 500;
        WalletInsufficientBalance = "WALLET.INSUFFICIENT_BALANCE", 402;
        WalletPaymentFailed = "WALLET.PAYMENT.FAILED", 402;
        WalletPaymentMethodMissing = "WALLET.PAYMENT_METHOD.MISSING", 402;
        CarrierAccountInvalidCredentials = "CARRIER.ACCOUNT.INVALID_CREDENTIALS", 422;
        CarrierAccountNotFound = "CARRIER.ACCOUNT.NOT_FOUND", 404;
        CarrierErrorUnknown = "CARRIER.ERROR.UNKNOWN", 502;
        BatchSizeExceeded = "BATCH.SIZE.EXCEEDED", 422;
        BatchItemsRequired = "BATCH.ITEMS.REQUIRED", 422;
        BatchNotFound = "BATCH.NOT_FOUND", 404;
        BatchAlreadyProcessing = "BATCH.ALREADY_PROCESSING", 422;
        AddressValidationFailed = "ADDRESS.VALIDATION.FAILED", 422;
        AddressValidationAmbiguous = "ADDRESS.VALIDATION.AMBIGUOUS", 422;
        AddressValidationServiceError = "ADDRESS.VALIDATION.SERVICE_ERROR", 503;
        TrackerNotFound = "TRACKER.NOT_FOUND", 404;
    }
    beyond {
        // The service's, where part 7 has none (our choices, sim/README.md).
        RoutePathNotFound = "ROUTE.PATH.NOT_FOUND", 404;
        RouteMethodNotAllowed = "ROUTE.METHOD.NOT_ALLOWED", 405;
        ValidationBodyTooLarge = "VALIDATION.BODY.TOO_LARGE", 413;
        SimControlInvalid = "SIM.CONTROL.INVALID", 400;
        SimControlNotFound = "SIM.CONTROL.NOT_FOUND", 404;
        // The Worker's own (edge/README.md).
        EdgeRouteNotFound = "EDGE.ROUTE.NOT_FOUND", 404;
        EdgeRouteMethodNotAllowed = "EDGE.ROUTE.METHOD_NOT_ALLOWED", 405;
        EdgeConfigInvalid = "EDGE.CONFIG.INVALID", 503;
        EdgeUpstreamUnreachable = "EDGE.UPSTREAM.UNREACHABLE", 502;
        EdgeUpstreamTimeout = "EDGE.UPSTREAM.TIMEOUT", 504;
        EdgeIdempotencyInProgress = "EDGE.IDEMPOTENCY.IN_PROGRESS", 409;
        EdgeIdempotencyKeyReused = "EDGE.IDEMPOTENCY.KEY_REUSED", 422;
        EdgeIdempotencyUnavailable = "EDGE.IDEMPOTENCY.UNAVAILABLE", 503;
        EdgeIdempotencyRecordUnreadable = "EDGE.IDEMPOTENCY.RECORD_UNREADABLE", 503;
        EdgeSessionRequired = "EDGE.SESSION.REQUIRED", 401;
        EdgeSessionInvalidToken = "EDGE.SESSION.INVALID_TOKEN", 401;
        EdgeOriginRefused = "EDGE.ORIGIN.REFUSED", 403;
        EdgeRoleForbidden = "EDGE.ROLE.FORBIDDEN", 403;
        EdgeModeUnavailable = "EDGE.MODE.UNAVAILABLE", 409;
        EdgeKeyNoNextKey = "EDGE.KEY.NO_NEXT_KEY", 409;
        EdgeControlUnavailable = "EDGE.CONTROL.UNAVAILABLE", 503;
        EdgeInboxUnavailable = "EDGE.INBOX.UNAVAILABLE", 503;
        EdgeWebsocketRequired = "EDGE.WEBSOCKET.REQUIRED", 426;
        EdgeLabelPdfUnavailable = "EDGE.LABEL_PDF.UNAVAILABLE", 502;
        EdgeInternal = "EDGE.INTERNAL.ERROR", 500;
        EdgeJobNotFound = "EDGE.JOB.NOT_FOUND", 404;
        EdgeJobActionRefused = "EDGE.JOB.ACTION_REFUSED", 409;
        EdgeJobUnavailable = "EDGE.JOB.UNAVAILABLE", 503;
        EdgeJobNoLabels = "EDGE.JOB.NO_LABELS", 404;
        EdgeJobLabelPdfUnavailable = "EDGE.JOB.LABEL_PDF_UNAVAILABLE", 502;
        EdgeJobPrintUnavailable = "EDGE.JOB.PRINT_UNAVAILABLE", 503;
        EdgeSignInFailed = "EDGE.SIGN_IN.FAILED", 401;
        EdgeSignInThrottled = "EDGE.SIGN_IN.THROTTLED", 429;
        EdgePasswordWeak = "EDGE.PASSWORD.WEAK", 422;
        EdgeInviteUnknown = "EDGE.INVITE.UNKNOWN", 404;
        EdgeInviteExpired = "EDGE.INVITE.EXPIRED", 410;
        EdgeInviteUsed = "EDGE.INVITE.USED", 410;
        EdgeInviteRevoked = "EDGE.INVITE.REVOKED", 410;
        EdgeResetUnknown = "EDGE.RESET.UNKNOWN", 404;
        EdgeResetExpired = "EDGE.RESET.EXPIRED", 410;
        EdgeResetUsed = "EDGE.RESET.USED", 410;
        EdgeResetOtherOrg = "EDGE.RESET.OTHER_ORG", 409;
        EdgeResetSelf = "EDGE.RESET.SELF", 403;
        EdgeMemberNotFound = "EDGE.MEMBER.NOT_FOUND", 404;
        EdgeMemberLastAdmin = "EDGE.MEMBER.LAST_ADMIN", 409;
        EdgeOrgNotFound = "EDGE.ORG.NOT_FOUND", 404;
        EdgeOrgSetupInvalid = "EDGE.ORG.SETUP_INVALID", 403;
        EdgeOrgSignupClosed = "EDGE.ORG.SIGNUP_CLOSED", 403;
        EdgeOrgUnavailable = "EDGE.ORG.UNAVAILABLE", 503;
        EdgeOrgManagedBySettings = "EDGE.ORG.MANAGED_BY_SETTINGS", 409;
        EdgeDirectoryUnavailable = "EDGE.DIRECTORY.UNAVAILABLE", 503;
        EdgeKeyMalformed = "EDGE.KEY.MALFORMED", 422;
        EdgeKeyRefused = "EDGE.KEY.REFUSED", 422;
        EdgeKeyCheckUnavailable = "EDGE.KEY.CHECK_UNAVAILABLE", 503;
        EdgeKeyNoNext = "EDGE.KEY.NO_NEXT", 409;
        EdgeTokenNotFound = "EDGE.TOKEN.NOT_FOUND", 404;
        EdgePasskeyRefused = "EDGE.PASSKEY.REFUSED", 401;
        EdgePasskeyNotFound = "EDGE.PASSKEY.NOT_FOUND", 404;
        EdgePasskeyLimit = "EDGE.PASSKEY.LIMIT", 409;
        EdgeSavedNotFound = "EDGE.SAVED.NOT_FOUND", 404;
        EdgeSavedLimitReached = "EDGE.SAVED.LIMIT_REACHED", 409;
        EdgeEventNotFound = "EDGE.EVENT.NOT_FOUND", 404;
        EdgeEventRefused = "EDGE.EVENT.REFUSED", 409;
        WebhookSignatureMissing = "WEBHOOK.SIGNATURE.MISSING", 401;
        WebhookSignatureMalformed = "WEBHOOK.SIGNATURE.MALFORMED", 401;
        WebhookSignatureInvalid = "WEBHOOK.SIGNATURE.INVALID", 401;
        WebhookEventUnreadable = "WEBHOOK.EVENT.UNREADABLE", 400;
        WebhookBodyTooLarge = "WEBHOOK.BODY.TOO_LARGE", 413;
        WebhookSecretMissing = "WEBHOOK.SECRET.MISSING", 503;
    }
}

impl ErrorCode {
    /// The codes of part 7, in its order.
    pub fn part_7() -> &'static [ErrorCode] {
        Self::PART_7
    }

    /// The codes beyond part 7: the service's and the Worker's own.
    pub fn beyond_part_7() -> &'static [ErrorCode] {
        Self::BEYOND
    }

    /// Every known code.
    pub fn all() -> impl Iterator<Item = &'static ErrorCode> {
        Self::PART_7.iter().chain(Self::BEYOND)
    }

    /// The first segment, e.g. `LABEL` — clients branch on it (part 7).
    pub fn resource(&self) -> &str {
        self.as_str().split('.').next().unwrap_or("")
    }
}

/// Where the dashboard's origin serves the page about `code`: one static
/// page per code of the table, made at build time (`src/bin/error-pages.rs`,
/// run by `scripts/build-app`); an unknown code has the list of them all.
pub fn errors_page(code: &ErrorCode) -> String {
    match code {
        ErrorCode::Unknown(_) => ERRORS_PATH.to_string(),
        known => format!("{ERRORS_PATH}{}/", known.as_str()),
    }
}

/// The list of every code's page.
pub const ERRORS_PATH: &str = "/errors/";

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let code = String::deserialize(d)?;
        Ok(ErrorCode::parse(&code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_round_trips_and_is_dotted_upper_case() {
        assert_eq!(ErrorCode::part_7().len(), 33);
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::all() {
            assert!(seen.insert(code.as_str()), "{code} twice");
            let json = serde_json::to_string(code).unwrap();
            assert_eq!(&serde_json::from_str::<ErrorCode>(&json).unwrap(), code);
            // Part 7 has RESOURCE.CATEGORY.SPECIFIC and a few RESOURCE.SPECIFIC (RATE.EXPIRED).
            assert!(
                (2..=3).contains(&code.as_str().split('.').count()),
                "{code}"
            );
            assert!(
                code.as_str()
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b == b'.' || b == b'_'),
                "{code}"
            );
            assert!(!matches!(code, ErrorCode::Unknown(_)));
        }
    }

    #[test]
    fn statuses_follow_part_7() {
        assert_eq!(ErrorCode::AuthKeyMissing.http_status(), 401);
        assert_eq!(ErrorCode::AuthKeyInsufficientScope.http_status(), 403);
        assert_eq!(ErrorCode::AuthRateLimitExceeded.http_status(), 429);
        assert_eq!(ErrorCode::RateNotFound.http_status(), 404);
        assert_eq!(ErrorCode::RateCarrierUnavailable.http_status(), 503);
        assert_eq!(ErrorCode::LabelCreationFailed.http_status(), 500);
        assert_eq!(ErrorCode::WalletPaymentFailed.http_status(), 402);
        assert_eq!(ErrorCode::CarrierErrorUnknown.http_status(), 502);
        assert_eq!(ErrorCode::BatchAlreadyProcessing.http_status(), 422);
        assert_eq!(ErrorCode::EdgeUpstreamTimeout.http_status(), 504);
        assert_eq!(ErrorCode::WebhookSignatureInvalid.http_status(), 401);
        assert_eq!(
            ErrorCode::parse("EDGE.IDEMPOTENCY.RECORD_UNREADABLE").http_status(),
            503
        );
    }
}
