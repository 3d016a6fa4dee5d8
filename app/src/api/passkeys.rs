//! Passkeys (`api::passkeys`) on the one typed client, and the browser's
//! WebAuthn calls. The Worker's options and the browser's credential
//! travel as WebAuthn's JSON forms: the browser reads the options
//! (`PublicKeyCredential.parse*OptionsFromJSON`) and writes the credential
//! (`toJSON()`), so the dashboard never touches an ArrayBuffer. Plain
//! bindings, not web-sys's typed ones: about 4 KB less in the first load.

use super::{Client, ClientError, encode};
use api::passkeys::{
    AddPasskey, CREATE_OPTIONS_PATH, CreateOptionsRequest, PASSKEY_PATH, PASSKEYS_PATH,
    PasskeyList, Registration, SIGN_IN_OPTIONS_PATH, SIGN_IN_PATH,
};
use api::session::SessionInfo;
use gloo_net::http::{Request, Response};
use leptos::prelude::*;
use wasm_bindgen::{JsCast, JsValue, prelude::wasm_bindgen};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = PublicKeyCredential, js_name = parseRequestOptionsFromJSON, catch)]
    fn parse_request_options(json: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = PublicKeyCredential, js_name = parseCreationOptionsFromJSON, catch)]
    fn parse_creation_options(json: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["navigator", "credentials"], js_name = get, catch)]
    async fn credentials_get(options: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(js_namespace = ["navigator", "credentials"], js_name = create, catch)]
    async fn credentials_create(options: &JsValue) -> Result<JsValue, JsValue>;
    type Credential;
    #[wasm_bindgen(method, js_name = toJSON)]
    fn to_json(this: &Credential) -> JsValue;
}

/// What the person is told when the browser's part fails, by the
/// DOMException's name (a `TypeError` where WebAuthn is missing).
pub fn browser_problem(name: &str, adding: bool) -> &'static str {
    match name {
        "NotAllowedError" | "AbortError" if adding => {
            "No passkey was made: the request was cancelled or timed out."
        }
        "NotAllowedError" | "AbortError" => {
            "No passkey was used: the request was cancelled or timed out, or this device has no passkey for this site."
        }
        "InvalidStateError" => "This device already holds one of your passkeys for this site.",
        "SecurityError" => "This browser refused passkeys for this address.",
        "TypeError" | "ReferenceError" => "This browser does not support passkeys.",
        _ => "This browser could not use a passkey.",
    }
}

/// Runs the browser's ceremony on the Worker's `options` (JSON): the
/// credential's `toJSON()`, as JSON.
async fn ceremony(options: &str, adding: bool) -> Result<String, ClientError> {
    let failed = move |e: JsValue| {
        let name = js_sys::Reflect::get(&e, &"name".into())
            .ok()
            .and_then(|n| n.as_string())
            .unwrap_or_default();
        ClientError::Passkey(browser_problem(&name, adding))
    };
    let unreadable = |_| ClientError::Decode("passkey options".into());
    let json = js_sys::JSON::parse(options).map_err(unreadable)?;
    let public_key = if adding {
        parse_creation_options(&json)
    } else {
        parse_request_options(&json)
    }
    .map_err(failed)?;
    let request = js_sys::Object::new();
    js_sys::Reflect::set(&request, &"publicKey".into(), &public_key).map_err(failed)?;
    let credential = if adding {
        credentials_create(&request).await
    } else {
        credentials_get(&request).await
    }
    .map_err(failed)?;
    let json = credential.unchecked_into::<Credential>().to_json();
    js_sys::JSON::stringify(&json)
        .map(String::from)
        .map_err(unreadable)
}

impl Client {
    /// An answer as text (the options go to the browser as they came).
    async fn text_of(self, resp: Response) -> Result<String, ClientError> {
        if !resp.ok() {
            return Err(self.error(resp).await);
        }
        resp.text().await.map_err(ClientError::network)
    }

    /// Signs in with one of the passkeys the browser holds for this site.
    pub async fn sign_in_passkey(self) -> Result<(), ClientError> {
        let resp = Request::post(SIGN_IN_OPTIONS_PATH)
            .send()
            .await
            .map_err(ClientError::network)?;
        let credential = ceremony(&self.text_of(resp).await?, false).await?;
        let resp = Request::post(SIGN_IN_PATH)
            .header("content-type", "application/json")
            .body(credential)
            .map_err(unsent)?
            .send()
            .await
            .map_err(ClientError::network)?;
        let info: SessionInfo = self.decode(resp).await?;
        self.session.set(Some(info));
        Ok(())
    }

    pub async fn passkeys(self) -> Result<PasskeyList, ClientError> {
        self.send(Request::get(PASSKEYS_PATH)).await
    }

    /// Makes a passkey on this device (after the password again) and adds it.
    pub async fn add_passkey(
        self,
        name: String,
        password: String,
    ) -> Result<PasskeyList, ClientError> {
        let resp = Request::post(CREATE_OPTIONS_PATH)
            .json(&CreateOptionsRequest { password })
            .map_err(unsent)?
            .send()
            .await
            .map_err(ClientError::network)?;
        let credential = ceremony(&self.text_of(resp).await?, true).await?;
        let credential: Registration =
            serde_json::from_str(&credential).map_err(|e| ClientError::Decode(e.to_string()))?;
        self.send_json(
            Request::post(PASSKEYS_PATH),
            &AddPasskey { name, credential },
        )
        .await
    }

    pub async fn remove_passkey(self, id: String) -> Result<PasskeyList, ClientError> {
        self.send(Request::delete(&PASSKEY_PATH.replace("{id}", &encode(&id))))
            .await
    }
}

fn unsent(e: gloo_net::Error) -> ClientError {
    ClientError::Decode(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_prompt_says_so_and_adding_says_nothing_was_made() {
        assert!(browser_problem("NotAllowedError", false).contains("cancelled"));
        assert!(browser_problem("NotAllowedError", true).starts_with("No passkey was made"));
        assert!(browser_problem("TypeError", false).contains("does not support"));
        assert!(browser_problem("Whatever", true).contains("could not"));
    }
}
