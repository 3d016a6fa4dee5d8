//! Reading a JSON request body into a contract type, naming the offending
//! field when it does not fit. The simulator and the edge both use this, so a
//! bad body gets the same 422 wherever it is caught.

use serde::de::DeserializeOwned;

use crate::error::ErrorCode;

/// Largest request body accepted: a 5,000-item batch of full addresses is about 3 MB.
pub const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    Empty,
    /// Not JSON at all.
    Syntax(String),
    /// A required field is missing; dotted path such as `to_address.zip` or `items[3].rate_id`.
    Required {
        field: String,
    },
    /// A field has the wrong type or value.
    Invalid {
        field: String,
        reason: String,
    },
}

impl BodyError {
    pub fn code(&self) -> ErrorCode {
        match self {
            BodyError::Required { .. } => ErrorCode::ValidationFieldRequired,
            _ => ErrorCode::ValidationFieldInvalid,
        }
    }

    pub fn field(&self) -> Option<&str> {
        match self {
            BodyError::Required { field } | BodyError::Invalid { field, .. } => Some(field),
            BodyError::Empty | BodyError::Syntax(_) => None,
        }
    }

    pub fn message(&self) -> String {
        match self {
            BodyError::Empty => "The request body is empty.".into(),
            BodyError::Syntax(detail) => format!("The request body is not valid JSON ({detail})."),
            BodyError::Required { field } => format!("The field {field} is required."),
            BodyError::Invalid { field, reason } => {
                format!("The field {field} is invalid: {reason}.")
            }
        }
    }

    pub fn suggestion(&self) -> String {
        match self {
            BodyError::Empty => "Send a JSON object as the request body.".into(),
            BodyError::Syntax(_) => {
                "Send a well-formed JSON object with Content-Type: application/json.".into()
            }
            BodyError::Required { field } => format!("Add {field} to the request body."),
            BodyError::Invalid { field, .. } => {
                format!("Correct {field} and send the request again.")
            }
        }
    }
}

pub fn parse_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, BodyError> {
    if body.is_empty() {
        return Err(BodyError::Empty);
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    serde_path_to_error::deserialize::<_, T>(&mut de).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        let msg = inner.to_string();
        if let Some(missing) = msg
            .strip_prefix("missing field `")
            .and_then(|m| m.split('`').next())
        {
            let field = if path == "." || path.is_empty() {
                missing.to_string()
            } else {
                format!("{path}.{missing}")
            };
            return BodyError::Required { field };
        }
        if inner.is_syntax() || inner.is_eof() {
            return BodyError::Syntax(msg);
        }
        let field = if path == "." {
            "body".to_string()
        } else {
            path
        };
        let reason = msg.split(" at line").next().unwrap_or(&msg).to_string();
        BodyError::Invalid { field, reason }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuyLabelRequest, CreateBatchRequest, RatesRequest};

    #[test]
    fn names_the_field() {
        assert_eq!(
            parse_json::<BuyLabelRequest>(b"{}"),
            Err(BodyError::Required {
                field: "rate_id".into()
            })
        );
        let e = parse_json::<BuyLabelRequest>(br#"{"rate_id": 7}"#).unwrap_err();
        assert_eq!(
            (e.code(), e.field()),
            (ErrorCode::ValidationFieldInvalid, Some("rate_id"))
        );
        let e = parse_json::<RatesRequest>(br#"{"from_address": {}}"#).unwrap_err();
        assert_eq!(
            e,
            BodyError::Required {
                field: "from_address.name".into()
            }
        );
        let e = parse_json::<CreateBatchRequest>(br#"{"items": [{"rate_id": "r"}]}"#).unwrap_err();
        assert_eq!(e.field(), Some("items[0].from_address"));
    }

    #[test]
    fn empty_and_broken_bodies() {
        assert_eq!(parse_json::<BuyLabelRequest>(b""), Err(BodyError::Empty));
        assert!(matches!(
            parse_json::<BuyLabelRequest>(b"{nope"),
            Err(BodyError::Syntax(_))
        ));
        assert_eq!(
            parse_json::<BuyLabelRequest>(b"{nope").unwrap_err().code(),
            ErrorCode::ValidationFieldInvalid
        );
    }
}
