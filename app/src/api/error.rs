use api::{ApiError, ErrorCode};
use std::fmt;

/// Every way a call can fail, as the one error view needs to tell them apart.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientError {
    /// The Worker or upstream answered with a v1 error envelope.
    Api { status: u16, error: Box<ApiError> },
    /// The request never got an answer (offline, DNS, connection reset).
    Network(String),
    /// An answer came back that is not what the contract says.
    Decode(String),
    /// The browser's passkey prompt failed or was cancelled (what to tell the person).
    Passkey(&'static str),
}

impl ClientError {
    pub(crate) fn network(err: gloo_net::Error) -> Self {
        ClientError::Network(err.to_string())
    }

    /// The v1 envelope of an answered call (`None` for network and decode failures).
    pub fn api(&self) -> Option<&ApiError> {
        match self {
            ClientError::Api { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The error code of an answered call (`None` for network and decode failures).
    pub fn code(&self) -> Option<&ErrorCode> {
        self.api().map(|e| &e.code)
    }

    /// Whether the Worker refused the value of the form's field `field`
    /// (shown at that field rather than under the form).
    pub fn is_about(&self, field: &str) -> bool {
        self.api()
            .is_some_and(|e| e.field.as_deref() == Some(field))
    }

    /// Seconds to wait before retrying a 429, from `Retry-After`.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            ClientError::Api { status: 429, error } => Some(error.retry_after_seconds.unwrap_or(1)),
            _ => None,
        }
    }

    /// The Worker says the session is missing or has ended: sign in again.
    pub fn is_sign_in_required(&self) -> bool {
        self.code() == Some(&ErrorCode::EdgeSessionRequired)
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Api { error, .. } => write!(f, "{}", error.message),
            ClientError::Network(_) => write!(f, "No answer: the request did not reach Parcel."),
            ClientError::Decode(_) => {
                write!(f, "Parcel sent an answer this page does not understand.")
            }
            ClientError::Passkey(problem) => f.write_str(problem),
        }
    }
}

impl std::error::Error for ClientError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_of_a_field_say_which() {
        let refusal = |code: ErrorCode, field: Option<&str>| {
            let mut error = ApiError::new(code, "m", "s", "r".to_string());
            error.field = field.map(str::to_string);
            ClientError::Api {
                status: 422,
                error: Box::new(error),
            }
        };
        assert!(refusal(ErrorCode::EdgeKeyRefused, Some("key")).is_about("key"));
        assert!(!refusal(ErrorCode::EdgeKeyRefused, Some("key")).is_about("secret"));
        assert!(refusal(ErrorCode::ValidationFieldInvalid, Some("secret")).is_about("secret"));
        assert!(!refusal(ErrorCode::EdgeKeyCheckUnavailable, None).is_about("key"));
        assert!(!ClientError::Network("reset".into()).is_about("key"));
    }
}
