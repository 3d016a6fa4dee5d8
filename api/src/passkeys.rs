//! Passkeys (WebAuthn): a second way into a person's account. A person,
//! not an organization, owns them: one signs in to whichever of their
//! organizations a password sign-in would choose. Stated here once so the
//! app and the edge cannot disagree.
//!
//! | Method and path                       | Who        | Body → answer                                  |
//! |---------------------------------------|------------|------------------------------------------------|
//! | `POST /api/session/passkey/options`   | anyone     | → [`RequestOptions`] (a fresh challenge)        |
//! | `POST /api/session/passkey`           | anyone     | [`Authentication`] → `SessionInfo` + cookie     |
//! | `GET /api/account/passkeys`           | a member   | → [`PasskeyList`] (the person's own)            |
//! | `POST /api/account/passkeys/options`  | a member   | [`CreateOptionsRequest`] → [`CreationOptions`]  |
//! | `POST /api/account/passkeys`          | a member   | [`AddPasskey`] → [`PasskeyList`] (201)          |
//! | `DELETE /api/account/passkeys/{id}`   | its owner  | → [`PasskeyList`]                               |
//!
//! The options and credentials travel in WebAuthn Level 3's JSON forms
//! (base64url strings): the browser reads the options with
//! `PublicKeyCredential.parse{Creation,Request}OptionsFromJSON` and writes
//! the credential with `toJSON()`, so neither side handles CBOR. Only
//! ES256 keys, `userVerification: "required"`, discoverable credentials
//! and attestation `"none"`.
//!
//! Adding a passkey asks for the person's password again, in the options
//! request (throttled like a sign-in): a session's age would not do,
//! because switching organizations starts a new session, and a stolen
//! session cookie must not be enough to plant a lasting way in.
//!
//! Refusals: every failed passkey sign-in (an unknown or removed
//! credential, a bad signature, user verification missing, another
//! origin or site, a used or expired challenge, a counter that went back)
//! is the same `EDGE.PASSKEY.REFUSED` (401); the Worker logs which. They
//! count against the client address's passkey sign-ins
//! (`EDGE.SIGN_IN.THROTTLED`, 429 with `Retry-After`); wrong passwords
//! never hold a passkey up. Adding one past
//! [`MAX_PASSKEYS`] is `EDGE.PASSKEY.LIMIT` (409); a credential that does
//! not check out is `VALIDATION.FIELD.INVALID` on `credential`; removing
//! one that is not the person's is `EDGE.PASSKEY.NOT_FOUND` (404). A
//! deployment without `PASSKEY_RP_ID` answers `EDGE.CONFIG.INVALID` (503).

use serde::{Deserialize, Serialize};

pub const SIGN_IN_OPTIONS_PATH: &str = "/api/session/passkey/options";
pub const SIGN_IN_PATH: &str = "/api/session/passkey";
pub const PASSKEYS_PATH: &str = "/api/account/passkeys";
pub const CREATE_OPTIONS_PATH: &str = "/api/account/passkeys/options";
pub const PASSKEY_PATH: &str = "/api/account/passkeys/{id}";

/// Passkeys one person may have.
pub const MAX_PASSKEYS: usize = 10;
/// A passkey's name ("work laptop").
pub const NAME_MAX_CHARS: usize = 100;
/// How long a challenge may be answered; the browser's own prompt gives up sooner.
pub const CHALLENGE_SECONDS: u64 = 300;
/// The browser's `timeout`, in milliseconds.
pub const PROMPT_MS: u32 = 120_000;
/// COSE's ES256 (ECDSA with P-256 and SHA-256).
pub const ES256: i64 = -7;

/// `POST /api/account/passkeys/options`: the person's password again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateOptionsRequest {
    pub password: String,
}

/// A credential as the options name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Descriptor {
    #[serde(rename = "type")]
    pub kind: String,
    /// base64url.
    pub id: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelyingParty {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    /// base64url of the user handle (the account id: no email, no name).
    pub id: String,
    pub name: String,
    pub display_name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyParameter {
    #[serde(rename = "type")]
    pub kind: String,
    pub alg: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthenticatorSelection {
    pub resident_key: String,
    pub require_resident_key: bool,
    pub user_verification: String,
}

/// `PublicKeyCredentialCreationOptionsJSON`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreationOptions {
    pub rp: RelyingParty,
    pub user: User,
    pub challenge: String,
    pub pub_key_cred_params: Vec<KeyParameter>,
    pub timeout: u32,
    /// The person's passkeys already added: an authenticator holding one says so.
    pub exclude_credentials: Vec<Descriptor>,
    pub authenticator_selection: AuthenticatorSelection,
    pub attestation: String,
}

/// `PublicKeyCredentialRequestOptionsJSON`: no credentials listed, so the
/// browser offers the passkeys it holds for the site (discoverable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RequestOptions {
    pub challenge: String,
    pub rp_id: String,
    pub timeout: u32,
    pub user_verification: String,
    pub allow_credentials: Vec<Descriptor>,
}

/// `AuthenticatorAttestationResponseJSON` (what `toJSON()` gives).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttestationResponse {
    #[serde(rename = "clientDataJSON")]
    pub client_data_json: String,
    pub authenticator_data: String,
    /// DER SubjectPublicKeyInfo, base64url.
    #[serde(default)]
    pub public_key: Option<String>,
    pub public_key_algorithm: i64,
    #[serde(default)]
    pub transports: Vec<String>,
}

/// `RegistrationResponseJSON`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Registration {
    pub id: String,
    pub raw_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub response: AttestationResponse,
}

/// `AuthenticatorAssertionResponseJSON`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssertionResponse {
    #[serde(rename = "clientDataJSON")]
    pub client_data_json: String,
    pub authenticator_data: String,
    /// ASN.1 DER ECDSA signature, base64url.
    pub signature: String,
    #[serde(default)]
    pub user_handle: Option<String>,
}

/// `AuthenticationResponseJSON`: the body of `POST /api/session/passkey`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authentication {
    pub id: String,
    pub raw_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub response: AssertionResponse,
}

/// `POST /api/account/passkeys`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddPasskey {
    pub name: String,
    pub credential: Registration,
}

/// One passkey as its owner sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Passkey {
    /// `pk_…`: names it for removal; not the credential id.
    pub id: String,
    pub name: String,
    pub created_at: u64,
    pub last_used_at: Option<u64>,
    /// Backed up by its provider (synced to the person's other devices).
    pub synced: bool,
}

/// Oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PasskeyList {
    pub passkeys: Vec<Passkey>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_read_as_browsers_write_them() {
        // The field names of `toJSON()` (WebAuthn L3 §5.1), extra fields ignored.
        let json = r#"{"id":"AQI","rawId":"AQI","type":"public-key","authenticatorAttachment":"platform",
            "clientExtensionResults":{},"response":{"clientDataJSON":"e30","authenticatorData":"AA",
            "signature":"MEU","userHandle":"YQ"}}"#;
        let a: Authentication = serde_json::from_str(json).unwrap();
        assert_eq!(a.response.user_handle.as_deref(), Some("YQ"));
        let json = r#"{"id":"AQI","rawId":"AQI","type":"public-key","response":{"clientDataJSON":"e30",
            "attestationObject":"oA","authenticatorData":"AA","publicKey":"MFk","publicKeyAlgorithm":-7,
            "transports":["internal"]}}"#;
        let r: Registration = serde_json::from_str(json).unwrap();
        assert_eq!(r.response.public_key_algorithm, ES256);
        let options = RequestOptions {
            challenge: "c".into(),
            rp_id: "example.com".into(),
            timeout: PROMPT_MS,
            user_verification: "required".into(),
            allow_credentials: vec![],
        };
        let text = serde_json::to_string(&options).unwrap();
        assert!(text.contains(r#""rpId":"example.com""#), "{text}");
        assert!(text.contains(r#""userVerification":"required""#), "{text}");
    }
}
