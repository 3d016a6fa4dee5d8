//! The one typed client for the Worker's `/api`. `Copy`, provided once by
//! context; one async fn per endpoint. Non-2xx answers become
//! `ClientError::Api` with the v1 envelope decoded; an ended session sends
//! the user back to the login page.

mod error;
pub mod live;

pub use error::ClientError;

use api::inbox::{INBOX_PATH, Inbox, VERIFY_PATH, VerifyRequest, VerifyResult};
use api::session::{MODE_PATH, ModeRequest, SESSION_PATH, SessionInfo, SignInRequest};
use api::{DeliveryList, ErrorEnvelope, KeyEnv, Wallet};
use gloo_net::http::{Request, RequestBuilder, Response};
use leptos::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Path prefix under which the Worker forwards the v1 endpoints.
const BASE: &str = "/api/v1";

#[derive(Clone, Copy, Debug)]
pub struct Client {
    /// The signed-in user; `None` shows the login page.
    pub session: RwSignal<Option<SessionInfo>>,
}

impl Client {
    pub fn provide() -> Client {
        let client = Client {
            session: RwSignal::new(None),
        };
        provide_context(client);
        client
    }

    pub fn get() -> Client {
        expect_context::<Client>()
    }

    pub async fn session(self) -> Result<SessionInfo, ClientError> {
        self.send(Request::get(SESSION_PATH)).await
    }

    pub async fn sign_in(self, token: String) -> Result<SessionInfo, ClientError> {
        let info: SessionInfo = self
            .send_json(Request::post(SESSION_PATH), &SignInRequest { token })
            .await?;
        self.session.set(Some(info.clone()));
        Ok(info)
    }

    pub async fn sign_out(self) -> Result<(), ClientError> {
        let resp = Request::delete(SESSION_PATH)
            .send()
            .await
            .map_err(ClientError::network)?;
        if !resp.ok() {
            return Err(self.error(resp).await);
        }
        self.session.set(None);
        Ok(())
    }

    pub async fn set_mode(self, mode: KeyEnv) -> Result<SessionInfo, ClientError> {
        let info: SessionInfo = self
            .send_json(Request::put(MODE_PATH), &ModeRequest { mode })
            .await?;
        self.session.set(Some(info.clone()));
        Ok(info)
    }

    pub async fn wallet(self) -> Result<Wallet, ClientError> {
        self.send(Request::get(&format!("{BASE}/wallet"))).await
    }

    /// The Worker's webhook inbox; `state` is `accepted`, `rejected` or empty for both.
    pub async fn inbox(self, q: String, state: String) -> Result<Inbox, ClientError> {
        let url = format!(
            "{INBOX_PATH}?q={}&state={}",
            js_sys::encode_uri_component(&q),
            js_sys::encode_uri_component(&state)
        );
        self.send(Request::get(&url)).await
    }

    /// The service's own log of its delivery attempts.
    pub async fn webhook_deliveries(self) -> Result<DeliveryList, ClientError> {
        self.send(Request::get(&format!("{BASE}/webhooks/deliveries")))
            .await
    }

    /// Checks a pasted delivery against the Worker's secrets (they stay there).
    pub async fn verify_webhook(self, request: VerifyRequest) -> Result<VerifyResult, ClientError> {
        self.send_json(Request::post(VERIFY_PATH), &request).await
    }

    async fn send_json<B: Serialize, T: DeserializeOwned>(
        self,
        builder: RequestBuilder,
        body: &B,
    ) -> Result<T, ClientError> {
        let request = builder
            .json(body)
            .map_err(|e| ClientError::Decode(e.to_string()))?;
        let resp = request.send().await.map_err(ClientError::network)?;
        self.decode(resp).await
    }

    async fn send<T: DeserializeOwned>(self, builder: RequestBuilder) -> Result<T, ClientError> {
        let resp = builder.send().await.map_err(ClientError::network)?;
        self.decode(resp).await
    }

    async fn decode<T: DeserializeOwned>(self, resp: Response) -> Result<T, ClientError> {
        if !resp.ok() {
            return Err(self.error(resp).await);
        }
        let text = resp.text().await.map_err(ClientError::network)?;
        serde_json::from_str(&text).map_err(|e| ClientError::Decode(e.to_string()))
    }

    async fn error(self, resp: Response) -> ClientError {
        let status = resp.status();
        let text = match resp.text().await {
            Ok(text) => text,
            Err(e) => return ClientError::network(e),
        };
        let error = match serde_json::from_str::<ErrorEnvelope>(&text) {
            Ok(envelope) => ClientError::Api {
                status,
                error: Box::new(envelope.error),
            },
            Err(_) => ClientError::Decode(format!("HTTP {status} without a v1 error body")),
        };
        if error.is_sign_in_required() {
            self.session.set(None);
        }
        error
    }
}
