//! The one typed client for the Worker's `/api`. `Copy`, provided once by
//! context; one async fn per endpoint. Non-2xx answers become
//! `ClientError::Api` with the v1 envelope decoded (and `Retry-After` copied
//! into it); an ended session sends the user back to the login page.

mod access_tokens;
mod error;
mod insights;
pub mod live;
mod orgs;
mod passkeys;
mod presets;
mod shipments;

pub use error::ClientError;
pub use insights::export_href;
pub use presets::keeps_presets;

use api::inbox::{INBOX_PATH, Inbox, VERIFY_PATH, VerifyRequest, VerifyResult};
use api::session::{
    KEYS_PATH, KeyVerification, KeysStatus, LIMITS_PATH, LimitsSnapshot, MODE_PATH, ModeRequest,
    SESSION_PATH, SessionInfo, SignInRequest,
};
use api::{
    Address, AddressValidation, BuyLabelRequest, CarrierAccountList, CreateTrackerRequest,
    DeliveryList, ErrorEnvelope, KeyEnv, Label, LabelDetails, RatesRequest, RatesResponse, Scope,
    Tracker, VoidResponse, Wallet,
};
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
    /// In the storefront widget: the shop's origin framing it, sent as
    /// `api::widget::ORIGIN_HEADER` so the Worker answers as the widget.
    framed_by: Option<&'static str>,
    /// And its widget id (an organization's), as `api::widget::WIDGET_ID_HEADER`.
    widget_id: Option<&'static str>,
}

/// Percent-encodes one path segment or query value (ids are
/// `[A-Za-z0-9_-]`, but a typed search may hold anything).
pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl Client {
    pub fn provide() -> Client {
        Self::provide_framed(None, None)
    }

    /// The storefront widget's client (see `framed_by`, `widget_id`).
    pub fn provide_framed(framed_by: Option<String>, widget_id: Option<String>) -> Client {
        // Once per page load: the widget's settings for its lifetime.
        let leak = |s: String| &*Box::leak(s.into_boxed_str());
        let client = Client {
            session: RwSignal::new(None),
            framed_by: framed_by.map(leak),
            widget_id: widget_id.map(leak),
        };
        provide_context(client);
        client
    }

    /// `POST` to a v1 endpoint the widget may call, tagged when framed.
    fn widget_post(self, path: &str) -> RequestBuilder {
        let builder = Request::post(&format!("{BASE}{path}"));
        let builder = match self.framed_by {
            Some(origin) => builder.header(api::widget::ORIGIN_HEADER, origin),
            None => builder,
        };
        match self.widget_id {
            Some(id) => builder.header(api::widget::WIDGET_ID_HEADER, id),
            None => builder,
        }
    }

    pub fn get() -> Client {
        expect_context::<Client>()
    }

    /// Whether the signed-in user may use `scope` (the UI hides what they may not).
    pub fn can(self, scope: Scope) -> bool {
        self.session
            .with(|s| s.as_ref().is_some_and(|s| s.scopes.contains(&scope)))
    }

    /// The session's mode. A new session (a mode switch, a key activated)
    /// builds the pages anew, so they fetch again with it.
    pub fn mode(self) -> Option<KeyEnv> {
        self.session.with(|s| s.as_ref().map(|s| s.mode))
    }

    // --- The Worker's own endpoints (api::session, api::inbox) ---

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

    pub async fn limits(self) -> Result<LimitsSnapshot, ClientError> {
        self.send(Request::get(LIMITS_PATH)).await
    }

    pub async fn keys(self) -> Result<KeysStatus, ClientError> {
        self.send(Request::get(KEYS_PATH)).await
    }

    pub async fn verify_key(self, mode: KeyEnv) -> Result<KeyVerification, ClientError> {
        self.send(Request::post(&format!(
            "{KEYS_PATH}/{}/verify",
            mode.as_str()
        )))
        .await
    }

    /// Activates the mode's next key. The Worker verifies it first: a key
    /// the service refuses stays inactive, and the Worker's 409 carries
    /// that verification (`Ok(Err)`), not an error envelope.
    pub async fn activate_key(
        self,
        mode: KeyEnv,
    ) -> Result<Result<KeysStatus, KeyVerification>, ClientError> {
        let resp = Request::post(&format!("{KEYS_PATH}/{}/activate", mode.as_str()))
            .send()
            .await
            .map_err(ClientError::network)?;
        if resp.status() == 409 {
            let text = resp.text().await.map_err(ClientError::network)?;
            return match serde_json::from_str::<KeyVerification>(&text) {
                Ok(refused) => Ok(Err(refused)),
                Err(_) => Err(error_from_text(409, &text, None)),
            };
        }
        self.decode(resp).await.map(Ok)
    }

    // --- v1, forwarded by the Worker ---

    pub async fn wallet(self) -> Result<Wallet, ClientError> {
        self.send(Request::get(&format!("{BASE}/wallet"))).await
    }

    /// The Worker's webhook inbox; `state` is `accepted`, `rejected` or empty for both.
    pub async fn inbox(self, q: String, state: String) -> Result<Inbox, ClientError> {
        let url = format!("{INBOX_PATH}?q={}&state={}", encode(&q), encode(&state));
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

    pub async fn validate_address(
        self,
        address: Address,
    ) -> Result<AddressValidation, ClientError> {
        self.send_json(self.widget_post("/addresses/validate"), &address)
            .await
    }

    /// `POST /v1/rates`. A 503 `RATE.CARRIER.UNAVAILABLE` still carries the
    /// other carriers' rates: it comes back as `Ok` with `error` set.
    pub async fn rates(self, request: &RatesRequest) -> Result<RatesResponse, ClientError> {
        self.rates_with_age(request).await.map(|(rates, _)| rates)
    }

    /// `rates` with the answer's `Age` in seconds (set when the Worker
    /// answers a widget quote from its cache; 0 otherwise).
    pub async fn rates_with_age(
        self,
        request: &RatesRequest,
    ) -> Result<(RatesResponse, u64), ClientError> {
        let resp = self
            .widget_post("/rates")
            .json(request)
            .map_err(|e| ClientError::Decode(e.to_string()))?
            .send()
            .await
            .map_err(ClientError::network)?;
        let age = resp
            .headers()
            .get("Age")
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
        if resp.status() == 503 {
            let text = resp.text().await.map_err(ClientError::network)?;
            if let Ok(partial) = serde_json::from_str::<RatesResponse>(&text)
                && partial.error.is_some()
            {
                return Ok((partial, age));
            }
            return Err(error_from_text(503, &text, None));
        }
        Ok((self.decode(resp).await?, age))
    }

    /// `POST /v1/labels` with the purchase intent's `Idempotency-Key` and
    /// the merchant's reference, if any (`api::labels::REFERENCE_HEADER`:
    /// the Worker records it in the ledger; the service never sees it).
    pub async fn buy_label(
        self,
        rate_id: String,
        idempotency_key: String,
        reference: Option<String>,
    ) -> Result<Label, ClientError> {
        let builder =
            Request::post(&format!("{BASE}/labels")).header("Idempotency-Key", &idempotency_key);
        let builder = match reference {
            Some(r) => builder.header(api::labels::REFERENCE_HEADER, &encode(&r)),
            None => builder,
        };
        self.send_json(builder, &BuyLabelRequest { rate_id }).await
    }

    pub async fn label(self, id: String) -> Result<LabelDetails, ClientError> {
        self.send(Request::get(&format!("{BASE}/labels/{}", encode(&id))))
            .await
    }

    pub async fn void_label(self, id: String) -> Result<VoidResponse, ClientError> {
        self.send(Request::delete(&format!("{BASE}/labels/{}", encode(&id))))
            .await
    }

    pub async fn create_tracker(
        self,
        request: CreateTrackerRequest,
    ) -> Result<Tracker, ClientError> {
        self.send_json(Request::post(&format!("{BASE}/trackers")), &request)
            .await
    }

    pub async fn tracker(self, id: String) -> Result<Tracker, ClientError> {
        self.send(Request::get(&format!("{BASE}/trackers/{}", encode(&id))))
            .await
    }

    pub async fn carrier_accounts(self) -> Result<CarrierAccountList, ClientError> {
        self.send(Request::get(&format!("{BASE}/carrier-accounts")))
            .await
    }

    // --- plumbing ---

    pub(crate) async fn send_json<B: Serialize, T: DeserializeOwned>(
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

    pub(crate) async fn send<T: DeserializeOwned>(
        self,
        builder: RequestBuilder,
    ) -> Result<T, ClientError> {
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
        let retry_after = resp
            .headers()
            .get("Retry-After")
            .and_then(|v| v.trim().parse::<u64>().ok());
        let text = match resp.text().await {
            Ok(text) => text,
            Err(e) => return ClientError::network(e),
        };
        let error = error_from_text(status, &text, retry_after);
        if error.is_sign_in_required() {
            self.session.set(None);
        }
        error
    }
}

/// A non-2xx body as a `ClientError`; `Retry-After` fills
/// `retry_after_seconds` when the body does not carry it.
fn error_from_text(status: u16, text: &str, retry_after: Option<u64>) -> ClientError {
    match serde_json::from_str::<ErrorEnvelope>(text) {
        Ok(envelope) => {
            let mut error = envelope.error;
            if error.retry_after_seconds.is_none() {
                error.retry_after_seconds = retry_after;
            }
            ClientError::Api {
                status,
                error: Box::new(error),
            }
        }
        Err(_) => ClientError::Decode(format!("HTTP {status} without a v1 error body")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_query_values() {
        assert_eq!(encode("lbl_1-a"), "lbl_1-a");
        assert_eq!(encode("a b/c?&"), "a%20b%2Fc%3F%26");
    }

    #[test]
    fn retry_after_reaches_the_error() {
        let body = r#"{"error":{"code":"AUTH.RATE_LIMIT.EXCEEDED","message":"m","suggestion":"s","docs_url":"d","request_id":"r"}}"#;
        let ClientError::Api { status, error } = error_from_text(429, body, Some(7)) else {
            panic!()
        };
        assert_eq!((status, error.retry_after_seconds), (429, Some(7)));
        assert!(matches!(
            error_from_text(502, "<html>", None),
            ClientError::Decode(_)
        ));
    }

    #[test]
    fn only_an_ended_session_sends_the_user_to_sign_in() {
        let answer = |code: &str| {
            let body = format!(
                r#"{{"error":{{"code":"{code}","message":"m","suggestion":"s","docs_url":"d","request_id":"r"}}}}"#
            );
            error_from_text(401, &body, None)
        };
        let ended = answer("EDGE.SESSION.REQUIRED");
        assert_eq!(ended.code(), Some(&api::ErrorCode::EdgeSessionRequired));
        assert!(ended.is_sign_in_required());
        // A wrong token on the login page is an error to show, not a sign-out.
        assert!(!answer("EDGE.SESSION.INVALID_TOKEN").is_sign_in_required());
        assert!(!ClientError::Network("reset".into()).is_sign_in_required());
    }
}
