//! The one typed client for the Worker's `/api/v1`. `Copy`, provided once by
//! context; one async fn per endpoint. Non-2xx answers become
//! `ClientError::Api` with the v1 envelope decoded.

mod error;

pub use error::ClientError;

use api::{ErrorEnvelope, Wallet};
use gloo_net::http::{Request, Response};
use leptos::prelude::*;
use serde::de::DeserializeOwned;

/// Path prefix under which the Worker forwards the v1 endpoints.
const BASE: &str = "/api/v1";

#[derive(Clone, Copy, Debug, Default)]
pub struct Client;

impl Client {
    pub fn provide() {
        provide_context(Client);
    }

    pub fn get() -> Client {
        use_context::<Client>().unwrap_or_default()
    }

    pub async fn wallet(self) -> Result<Wallet, ClientError> {
        let resp = Request::get(&format!("{BASE}/wallet"))
            .send()
            .await
            .map_err(ClientError::network)?;
        decode(resp).await
    }
}

async fn decode<T: DeserializeOwned>(resp: Response) -> Result<T, ClientError> {
    let status = resp.status();
    let text = resp.text().await.map_err(ClientError::network)?;
    if resp.ok() {
        serde_json::from_str(&text).map_err(|e| ClientError::Decode(e.to_string()))
    } else {
        match serde_json::from_str::<ErrorEnvelope>(&text) {
            Ok(envelope) => Err(ClientError::Api {
                status,
                error: Box::new(envelope.error),
            }),
            Err(_) => Err(ClientError::Decode(format!(
                "HTTP {status} without a v1 error body"
            ))),
        }
    }
}
