//! `JsonBody<T>`: the one way every handler (v1 and `/__sim`) reads a JSON
//! body. At most `MAX_BODY_BYTES` (the router's `DefaultBodyLimit`), then
//! `api::validation::parse_json` (one UTF-8 JSON value, nothing after it, at
//! most 32 levels deep, naming the offending field). axum's own `Json`
//! rejects in plain text and accepts less strictly; every refusal here is a
//! `SimError`, so it reaches the client in the v1 envelope.

use api::ErrorCode;
use api::validation::{BodyError, MAX_BODY_BYTES, parse_json};
use axum::body::Bytes;
use axum::extract::{FromRequest, OptionalFromRequest, Request};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::errors::SimError;

#[derive(Debug, Clone)]
pub struct JsonBody<T>(pub T);

/// The body's bytes, or the envelope error for a body too large or cut off.
async fn read<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, SimError> {
    Bytes::from_request(req, state).await.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            SimError::new(
                ErrorCode::ValidationBodyTooLarge,
                format!("The request body is larger than {MAX_BODY_BYTES} bytes."),
                "Send at most 5,000 batch items per request.",
            )
            .field(api::validation::BODY_FIELD)
        } else {
            BodyError::Syntax("the body could not be read to its end".into()).into()
        }
    })
}

impl<T, S> FromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = SimError;

    async fn from_request(req: Request, state: &S) -> Result<Self, SimError> {
        let bytes = read(req, state).await?;
        Ok(JsonBody(parse_json(&bytes)?))
    }
}

/// `Option<JsonBody<T>>`: `None` for an empty body (white space counts as
/// empty), for endpoints whose body is optional; anything else is read as
/// strictly as a required body.
impl<T, S> OptionalFromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = SimError;

    async fn from_request(req: Request, state: &S) -> Result<Option<Self>, SimError> {
        let bytes = read(req, state).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        Ok(Some(JsonBody(parse_json(&bytes)?)))
    }
}
