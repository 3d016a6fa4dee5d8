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

/// The DOMException's name (a `TypeError` where WebAuthn is missing).
fn error_name(e: &JsValue) -> String {
    js_sys::Reflect::get(e, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .unwrap_or_default()
}

/// What the person is told when the browser's sign-in prompt fails.
pub fn sign_in_problem(name: &str) -> &'static str {
    match name {
        "NotAllowedError" | "AbortError" => {
            "No passkey was used: the prompt was cancelled or timed out, or this device has no passkey for this site."
        }
        _ => "This browser could not use a passkey here.",
    }
}

/// What the person is told when making a passkey fails (the Passkeys page's chunk).
pub fn adding_problem(name: &str) -> &'static str {
    match name {
        "NotAllowedError" | "AbortError" => {
            "No passkey was made: the prompt was cancelled or timed out."
        }
        "InvalidStateError" => "This device already holds one of your passkeys for this site.",
        _ => "This browser could not make a passkey here.",
    }
}

/// The Worker's options (JSON) as the browser takes them: `{publicKey: …}`,
/// read by `parse`, WebAuthn's reader for the ceremony.
fn options_of(
    json: &str,
    parse: fn(&JsValue) -> Result<JsValue, JsValue>,
) -> Result<JsValue, JsValue> {
    let public_key = parse(&js_sys::JSON::parse(json)?)?;
    let options = js_sys::Object::new();
    js_sys::Reflect::set(&options, &"publicKey".into(), &public_key)?;
    Ok(options.into())
}

/// The credential's `toJSON()`, as JSON.
fn json_of(credential: JsValue) -> Result<String, JsValue> {
    let json = credential.unchecked_into::<Credential>().to_json();
    js_sys::JSON::stringify(&json).map(String::from)
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
        let failed = |e: JsValue| ClientError::Passkey(sign_in_problem(&error_name(&e)));
        let resp = Request::post(SIGN_IN_OPTIONS_PATH)
            .send()
            .await
            .map_err(ClientError::network)?;
        let options =
            options_of(&self.text_of(resp).await?, parse_request_options).map_err(failed)?;
        let credential = credentials_get(&options)
            .await
            .and_then(json_of)
            .map_err(failed)?;
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
        let failed = |e: JsValue| ClientError::Passkey(adding_problem(&error_name(&e)));
        let options =
            options_of(&self.text_of(resp).await?, parse_creation_options).map_err(failed)?;
        let credential = credentials_create(&options)
            .await
            .and_then(json_of)
            .map_err(failed)?;
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
        assert!(sign_in_problem("NotAllowedError").contains("cancelled"));
        assert!(adding_problem("NotAllowedError").starts_with("No passkey was made"));
        assert!(adding_problem("InvalidStateError").contains("already holds"));
        assert!(sign_in_problem("TypeError").contains("could not"));
    }
}
