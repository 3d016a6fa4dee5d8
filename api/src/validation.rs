//! Reading a JSON request body into a contract type, naming the offending
//! field when it does not fit. The simulator and the edge both use this, so a
//! bad body gets the same 422 wherever it is caught.

use serde::de::DeserializeOwned;

use crate::code::ErrorCode;

/// Largest request body accepted: a 5,000-item batch of full addresses is about 3 MB.
pub const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// Deepest nesting of objects and arrays a body may have. The deepest v1
/// body (a batch: `items[n].to_address.name`) is 3 levels; 32 leaves room
/// for growth and stops a crafted body from exhausting the parser's stack.
pub const MAX_DEPTH: usize = 32;

/// The `field` of an error about the body as a whole (not JSON, trailing
/// data, too deep, empty).
pub const BODY_FIELD: &str = "body";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyError {
    Empty,
    /// Not one well-formed JSON value in UTF-8 (syntax, trailing data, bad bytes).
    Syntax(String),
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
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

    /// The offending field's path, or [`BODY_FIELD`] when the body as a whole is wrong.
    pub fn field(&self) -> &str {
        match self {
            BodyError::Required { field } | BodyError::Invalid { field, .. } => field,
            BodyError::Empty | BodyError::Syntax(_) | BodyError::TooDeep => BODY_FIELD,
        }
    }

    pub fn message(&self) -> String {
        match self {
            BodyError::Empty => "The request body is empty.".into(),
            BodyError::Syntax(detail) => format!("The request body is not valid JSON ({detail})."),
            BodyError::TooDeep => {
                format!("The request body nests objects or arrays deeper than {MAX_DEPTH} levels.")
            }
            BodyError::Required { field } => format!("The field {field} is required."),
            BodyError::Invalid { field, reason } => {
                format!("The field {field} is invalid: {reason}.")
            }
        }
    }

    pub fn suggestion(&self) -> String {
        match self {
            BodyError::Empty => "Send a JSON object as the request body.".into(),
            BodyError::Syntax(_) => "Send exactly one well-formed JSON object in UTF-8, with nothing after it, and Content-Type: application/json.".into(),
            BodyError::TooDeep => "Send the body in the shape the v1 interface shows.".into(),
            BodyError::Required { field } => format!("Add {field} to the request body."),
            BodyError::Invalid { field, .. } => {
                format!("Correct {field} and send the request again.")
            }
        }
    }
}

/// How deep objects and arrays nest, outside strings; stops counting past `limit`.
fn depth_exceeds(body: &[u8], limit: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in body {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The one strict reader of a JSON request body into a contract type: UTF-8,
/// exactly one JSON value (white space after it, nothing else), at most
/// [`MAX_DEPTH`] levels deep, then the type's own rules, naming the field
/// that does not fit.
pub fn parse_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, BodyError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(BodyError::Empty);
    }
    if let Err(e) = std::str::from_utf8(body) {
        return Err(BodyError::Syntax(format!(
            "the bytes at offset {} are not UTF-8",
            e.valid_up_to()
        )));
    }
    if depth_exceeds(body, MAX_DEPTH) {
        return Err(BodyError::TooDeep);
    }
    // Most bodies fit: read plainly (trailing data refused too), and read
    // again with the path tracked only to name what does not fit (the
    // tracking allocates a string per key read).
    if let Ok(value) = serde_json::from_slice::<T>(body) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(body);
    let value = serde_path_to_error::deserialize::<_, T>(&mut de).map_err(|err| {
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
            BODY_FIELD.to_string()
        } else {
            path
        };
        let reason = msg.split(" at line").next().unwrap_or(&msg).to_string();
        BodyError::Invalid { field, reason }
    })?;
    // Trailing data (`{...}garbage`, `{...}{}`) is refused: the body must be
    // read the same way by every party that reads it.
    de.end()
        .map_err(|e| BodyError::Syntax(format!("unexpected data after the JSON value: {e}")))?;
    Ok(value)
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
            (ErrorCode::ValidationFieldInvalid, "rate_id")
        );
        let e = parse_json::<RatesRequest>(br#"{"from_address": {}}"#).unwrap_err();
        assert_eq!(
            e,
            BodyError::Required {
                field: "from_address.name".into()
            }
        );
        let e = parse_json::<CreateBatchRequest>(br#"{"items": [{"rate_id": "r"}]}"#).unwrap_err();
        assert_eq!(e.field(), "items[0].from_address");
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
        assert_eq!(
            parse_json::<BuyLabelRequest>(b"  \n").unwrap_err().field(),
            "body"
        );
    }

    #[test]
    fn trailing_data_is_refused_naming_the_body() {
        for body in [
            &br#"{"rate_id":"r"}garbage"#[..],
            br#"{"rate_id":"r"}{}"#,
            br#"{"rate_id":"r"} 1"#,
            br#"{"rate_id":"r"}]"#,
        ] {
            let e = parse_json::<BuyLabelRequest>(body).unwrap_err();
            assert!(matches!(e, BodyError::Syntax(_)), "{e:?}");
            assert_eq!(
                (e.code(), e.field()),
                (ErrorCode::ValidationFieldInvalid, "body")
            );
        }
        // White space after the value is fine.
        assert!(parse_json::<BuyLabelRequest>(b"{\"rate_id\":\"r\"} \r\n").is_ok());
    }

    #[test]
    fn bad_bytes_and_deep_nesting_are_refused() {
        let e = parse_json::<BuyLabelRequest>(b"{\"rate_id\":\"r\xff\"}").unwrap_err();
        assert_eq!(e.field(), "body");
        assert!(e.message().contains("UTF-8"), "{}", e.message());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(
            parse_json::<serde_json::Value>(deep.as_bytes()),
            Err(BodyError::TooDeep)
        );
        let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse_json::<serde_json::Value>(ok.as_bytes()).is_ok());
        // Brackets inside strings do not count.
        let quoted = format!("{{\"rate_id\":\"{}\\\"\"}}", "[".repeat(100));
        assert!(parse_json::<BuyLabelRequest>(quoted.as_bytes()).is_ok());
    }
}
