//! What the shopper reads when a quote goes wrong: plain sentences, never
//! codes. The shop gets the code and the service's message in its `error`
//! event instead.

use super::shop::ErrorDetail;
use crate::api::ClientError;
use crate::components::address_form::label;
use api::ErrorCode;

/// A failed quote as the shopper sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Trouble {
    pub sentence: String,
    /// Retried by itself after this many seconds (a limit was reached).
    pub retry_after: Option<u64>,
}

pub fn trouble(error: &ClientError) -> Trouble {
    let sentence = |s: &str| Trouble {
        sentence: s.to_string(),
        retry_after: None,
    };
    let (status, code, field) = match error {
        ClientError::Network(_) => {
            return sentence(
                "The shipping options could not be loaded. Check your connection and try again.",
            );
        }
        ClientError::Decode(_) | ClientError::Passkey(_) => {
            return sentence("Something went wrong while getting prices. Please try again.");
        }
        ClientError::Api { status, error } => (*status, &error.code, error.field.as_deref()),
    };
    if let Some(seconds) = error.retry_after() {
        return Trouble {
            sentence: "Lots of shoppers are checking shipping prices right now.".to_string(),
            retry_after: Some(seconds),
        };
    }
    if matches!(
        code,
        ErrorCode::ValidationFieldRequired | ErrorCode::ValidationFieldInvalid
    ) {
        return match field.and_then(|f| f.strip_prefix("to_address.")) {
            Some(part) => {
                let name = label(part);
                // "ZIP" stays in capitals; "Street address" reads in lower case mid-sentence.
                let name = if name.starts_with("ZIP") {
                    name.to_string()
                } else {
                    name.to_lowercase()
                };
                Trouble {
                    sentence: format!(
                        "The carriers could not use this {name}. Check it and try again."
                    ),
                    retry_after: None,
                }
            }
            // The shop's parcel or ship-from: nothing the shopper can fix.
            None => sentence("Shipping prices are not available for this item right now."),
        };
    }
    if *code == ErrorCode::EdgeConfigInvalid || matches!(status, 401 | 403) {
        return sentence("Shipping prices are not available on this page right now.");
    }
    if status >= 500 {
        return sentence("The carriers are not answering right now. Please try again in a minute.");
    }
    sentence("Shipping prices are not available right now. Please try again.")
}

/// Whether the shop's fallback stands in for this failed quote: the
/// service or the network failed, not the shopper's address (they can fix
/// that) and not a limit (the widget asks again by itself).
pub fn fallback_instead(error: &ClientError) -> bool {
    match error {
        ClientError::Network(_) | ClientError::Decode(_) => true,
        ClientError::Api { status, .. } => *status >= 500,
        ClientError::Passkey(_) => false,
    }
}

/// For the shop: the code and the service's own words.
pub fn error_detail(error: &ClientError) -> ErrorDetail {
    match error {
        ClientError::Api { error, .. } => ErrorDetail {
            code: error.code.as_str().to_string(),
            message: error.message.clone(),
            field: error.field.clone(),
            request_id: Some(error.request_id.clone()),
        },
        ClientError::Network(detail) => ErrorDetail {
            code: "WIDGET.NETWORK.UNREACHABLE".into(),
            message: format!("The widget could not reach its server: {detail}"),
            field: None,
            request_id: None,
        },
        ClientError::Decode(detail) => ErrorDetail {
            code: "WIDGET.ANSWER.UNREADABLE".into(),
            message: format!("The widget could not read its server's answer: {detail}"),
            field: None,
            request_id: None,
        },
        // The widget signs nobody in; the dashboard's sign-in alone meets this.
        ClientError::Passkey(problem) => ErrorDetail {
            code: "WIDGET.PASSKEY.UNUSED".into(),
            message: problem.to_string(),
            field: None,
            request_id: None,
        },
    }
}

/// The quiet note when some carriers did not answer.
pub fn unavailable_note(carriers: &[String]) -> Option<String> {
    let (last, rest) = carriers.split_last()?;
    let (names, their) = if rest.is_empty() {
        (last.clone(), "its")
    } else {
        (format!("{} and {last}", rest.join(", ")), "their")
    };
    let are = if rest.is_empty() { "is" } else { "are" };
    Some(format!(
        "{names} {are} not answering right now, so {their} options are missing."
    ))
}

/// Why a quote has no options at all.
pub fn no_options(unavailable: &[String]) -> String {
    if unavailable.is_empty() {
        "No carrier can ship this order to that address. Check the address, or contact the shop."
            .to_string()
    } else {
        "No carrier is answering right now. Please try again in a minute.".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api::{ApiError, ErrorCode};

    fn api(status: u16, code: &str, field: Option<&str>) -> ClientError {
        let mut error = ApiError::new(ErrorCode::parse(code), "m", "s", "req_1");
        error.field = field.map(str::to_string);
        error.retry_after_seconds = Some(7);
        ClientError::Api {
            status,
            error: Box::new(error),
        }
    }

    #[test]
    fn shoppers_read_sentences_not_codes() {
        let cases = [
            (
                api(429, "AUTH.RATE_LIMIT.EXCEEDED", None),
                "Lots of shoppers",
            ),
            (
                api(422, "VALIDATION.FIELD.INVALID", Some("to_address.zip")),
                "could not use this ZIP code",
            ),
            (
                api(422, "VALIDATION.FIELD.INVALID", Some("parcel.weight_oz")),
                "not available for this item",
            ),
            (
                api(403, "EDGE.ORIGIN.REFUSED", None),
                "not available on this page",
            ),
            (
                api(503, "EDGE.CONFIG.INVALID", None),
                "not available on this page",
            ),
            (
                api(504, "EDGE.UPSTREAM.TIMEOUT", None),
                "not answering right now",
            ),
            (ClientError::Network("reset".into()), "could not be loaded"),
            (ClientError::Decode("html".into()), "went wrong"),
        ];
        for (error, words) in cases {
            let t = trouble(&error);
            assert!(t.sentence.contains(words), "{error:?}: {}", t.sentence);
            // No code, no status, no field path.
            for part in [error.code().map_or("-", |c| c.as_str()), "HTTP", "_"] {
                assert!(!t.sentence.contains(part), "{}", t.sentence);
            }
        }
        assert_eq!(
            trouble(&api(429, "AUTH.RATE_LIMIT.EXCEEDED", None)).retry_after,
            Some(7)
        );
        assert_eq!(
            trouble(&api(504, "EDGE.UPSTREAM.TIMEOUT", None)).retry_after,
            None
        );
    }

    #[test]
    fn the_fallback_stands_in_only_when_the_service_fails() {
        assert!(fallback_instead(&ClientError::Network("offline".into())));
        assert!(fallback_instead(&api(
            503,
            "RATE.CARRIER.UNAVAILABLE",
            None
        )));
        assert!(fallback_instead(&api(504, "EDGE.UPSTREAM.TIMEOUT", None)));
        assert!(!fallback_instead(&api(
            422,
            "VALIDATION.FIELD.INVALID",
            Some("to_address.zip")
        )));
        assert!(!fallback_instead(&api(
            429,
            "AUTH.RATE_LIMIT.EXCEEDED",
            None
        )));
    }

    #[test]
    fn the_shop_gets_the_code() {
        let d = error_detail(&api(422, "VALIDATION.FIELD.INVALID", Some("parcel.height")));
        assert_eq!(
            (d.code.as_str(), d.field.as_deref(), d.request_id.as_deref()),
            (
                "VALIDATION.FIELD.INVALID",
                Some("parcel.height"),
                Some("req_1")
            )
        );
        assert_eq!(
            error_detail(&ClientError::Network("x".into())).code,
            "WIDGET.NETWORK.UNREACHABLE"
        );
    }

    #[test]
    fn missing_carriers_are_named_quietly() {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(unavailable_note(&[]), None);
        assert_eq!(
            unavailable_note(&names(&["Harbor Parcel"])).unwrap(),
            "Harbor Parcel is not answering right now, so its options are missing."
        );
        assert_eq!(
            unavailable_note(&names(&["Atlas Freight", "Comet Express", "Harbor Parcel"])).unwrap(),
            "Atlas Freight, Comet Express and Harbor Parcel are not answering right now, so their options are missing."
        );
        assert!(no_options(&names(&["Atlas Freight"])).contains("No carrier is answering"));
        assert!(no_options(&[]).contains("No carrier can ship"));
    }
}
