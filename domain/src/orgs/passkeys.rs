//! Passkeys (`api::passkeys`): the checks of WebAuthn Level 3 §7.1
//! (registering) and §7.2 (signing in) that need no cryptography, in plain
//! Rust. The accounts Worker adds the two things this cannot do: take the
//! challenge from the directory (single use, unexpired, of this ceremony)
//! and check the ES256 signature with WebCrypto (`crypto::es256_verify`),
//! over [`Assertion::signed`].
//!
//! Attestation is `"none"`: at registration nothing is signed, so the
//! public key is what the browser reports (`getPublicKey()`, an SPKI); the
//! first sign-in proves the key. The SPKI is checked to be the same point
//! as the COSE key in the authenticator data, so the two cannot disagree.

use api::passkeys::{Authentication, ES256, Registration};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::tokens::from_base64url;

/// Authenticator data flags (§6.1).
pub const UP: u8 = 0x01;
pub const UV: u8 = 0x04;
pub const BE: u8 = 0x08;
pub const BS: u8 = 0x10;
pub const AT: u8 = 0x40;

/// A credential id longer than this is refused (§7.1 step 23).
pub const MAX_CREDENTIAL_ID: usize = 1023;

/// The DER prefix of a P-256 public key's SubjectPublicKeyInfo, before
/// the uncompressed point `04 ‖ x ‖ y`.
const P256_SPKI_PREFIX: [u8; 26] = [
    0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01, 0x06, 0x08, 0x2a,
    0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00,
];
pub const P256_SPKI_LEN: usize = 91;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ceremony {
    Create,
    Get,
}

impl Ceremony {
    pub fn as_str(self) -> &'static str {
        match self {
            Ceremony::Create => "create",
            Ceremony::Get => "get",
        }
    }

    fn client_type(self) -> &'static str {
        match self {
            Ceremony::Create => "webauthn.create",
            Ceremony::Get => "webauthn.get",
        }
    }
}

/// Why a ceremony was refused: logged by the Worker, never told to the
/// client of a sign-in (every refusal is the same `EDGE.PASSKEY.REFUSED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// A field is missing or not what WebAuthn writes (which one).
    Malformed(&'static str),
    /// `clientDataJSON.type` is the other ceremony's.
    Type,
    /// Not a challenge the directory issued for this ceremony, or used, or expired.
    Challenge,
    Origin,
    CrossOrigin,
    /// The authenticator data is for another relying party.
    RpId,
    UserNotPresent,
    UserNotVerified,
    /// Backed up (BS) but not backup-eligible (BE).
    BackupState,
    /// Not ES256, or not a P-256 key, or one that differs from the authenticator data's.
    Key,
    UnknownCredential,
    Signature,
    /// The signature counter did not go up: a cloned authenticator, or a replay.
    SignCount,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = match self {
            Refused::Malformed(what) => return write!(f, "malformed {what}"),
            Refused::Type => "the client data is of the other ceremony",
            Refused::Challenge => "the challenge is unknown, used, expired or of another ceremony",
            Refused::Origin => "the origin is not one of PASSKEY_ORIGINS",
            Refused::CrossOrigin => "the ceremony ran in a cross-origin frame",
            Refused::RpId => "the authenticator data is for another RP ID",
            Refused::UserNotPresent => "user presence (UP) is not set",
            Refused::UserNotVerified => "user verification (UV) is not set",
            Refused::BackupState => "backed up (BS) without backup eligibility (BE)",
            Refused::Key => {
                "the public key is not an ES256 P-256 key matching the authenticator data"
            }
            Refused::UnknownCredential => "no such credential for that user handle",
            Refused::Signature => "the signature does not verify",
            Refused::SignCount => "the signature counter did not increase",
        };
        f.write_str(text)
    }
}

/// The settings of the accounts Worker that turn passkeys on.
pub const RP_ID_SETTING: &str = "PASSKEY_RP_ID";
pub const ORIGINS_SETTING: &str = "PASSKEY_ORIGINS";

/// The relying party: its ID and the origins its pages are served from.
/// Both are settings (`PASSKEY_RP_ID`, `PASSKEY_ORIGINS`), never taken
/// from a request, whose Host a proxy or an attacker may choose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelyingParty {
    pub id: String,
    pub origins: Vec<String>,
}

impl RelyingParty {
    /// From the settings: `None` when `PASSKEY_RP_ID` is unset (passkeys
    /// off); `Err` names the setting and what is wrong with it.
    pub fn from_settings(
        rp_id: Option<&str>,
        origins: Option<&str>,
    ) -> Result<Option<RelyingParty>, (&'static str, String)> {
        let Some(id) = rp_id.map(str::trim).filter(|id| !id.is_empty()) else {
            return Ok(None);
        };
        let host_like = id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.');
        if !host_like || id.starts_with('.') || id.ends_with('.') {
            let problem = "it must be a lowercase domain such as example.com";
            return Err((RP_ID_SETTING, problem.into()));
        }
        let origins: Vec<String> = origins
            .unwrap_or_default()
            .split(',')
            .map(|o| o.trim().trim_end_matches('/').to_string())
            .filter(|o| !o.is_empty())
            .collect();
        let wrong = |problem: String| Err((ORIGINS_SETTING, problem));
        if origins.is_empty() {
            return wrong(
                "it must list the dashboard's origins, e.g. https://app.example.com".into(),
            );
        }
        for origin in &origins {
            let scheme = origin
                .strip_prefix("https://")
                .or_else(|| origin.strip_prefix("http://").filter(|_| id == "localhost"));
            let Some(host) = scheme else {
                return wrong(format!(
                    "{origin} must be https:// (http:// only for localhost)"
                ));
            };
            let host = match host.rsplit_once(':') {
                Some((h, port)) if port.bytes().all(|b| b.is_ascii_digit()) => h,
                _ => host,
            };
            if host != id && !host.ends_with(&format!(".{id}")) {
                return wrong(format!("{origin} is not on {id} or a subdomain of it"));
            }
        }
        Ok(Some(RelyingParty {
            id: id.to_string(),
            origins,
        }))
    }

    fn id_hash(&self) -> [u8; 32] {
        Sha256::digest(self.id.as_bytes()).into()
    }
}

fn decode(field: &'static str, text: &str) -> Result<Vec<u8>, Refused> {
    from_base64url(text).ok_or(Refused::Malformed(field))
}

/// Checks `clientDataJSON` (§7.1 steps 7–10, §7.2 steps 11–14 but the
/// challenge's own lookup); answers the challenge it carries.
pub fn check_client_data(
    json: &[u8],
    ceremony: Ceremony,
    rp: &RelyingParty,
) -> Result<String, Refused> {
    #[derive(Deserialize)]
    struct ClientData {
        #[serde(rename = "type")]
        kind: String,
        challenge: String,
        origin: String,
        #[serde(rename = "crossOrigin", default)]
        cross_origin: Option<bool>,
    }
    let data: ClientData =
        serde_json::from_slice(json).map_err(|_| Refused::Malformed("clientDataJSON"))?;
    if data.kind != ceremony.client_type() {
        return Err(Refused::Type);
    }
    if !rp.origins.contains(&data.origin) {
        return Err(Refused::Origin);
    }
    if data.cross_origin == Some(true) {
        return Err(Refused::CrossOrigin);
    }
    Ok(data.challenge)
}

/// Authenticator data (§6.1): `rpIdHash(32) ‖ flags(1) ‖ signCount(4)`,
/// then with AT `aaguid(16) ‖ idLength(2) ‖ credentialId ‖ COSE key`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthData<'a> {
    pub flags: u8,
    pub sign_count: u32,
    /// The credential id and what follows it (the COSE key, then any extensions).
    pub attested: Option<(&'a [u8], &'a [u8])>,
}

impl AuthData<'_> {
    pub fn backup_eligible(&self) -> bool {
        self.flags & BE != 0
    }

    pub fn backed_up(&self) -> bool {
        self.flags & BS != 0
    }
}

/// Reads `bytes` and checks what every ceremony needs (§7.1 steps 13–17,
/// §7.2 steps 15–18): this relying party, the user present and verified,
/// and BS only with BE.
pub fn check_auth_data<'a>(bytes: &'a [u8], rp: &RelyingParty) -> Result<AuthData<'a>, Refused> {
    let malformed = Refused::Malformed("authenticatorData");
    let (rp_hash, rest) = bytes.split_at_checked(32).ok_or(malformed)?;
    let (&[flags, c0, c1, c2, c3], rest) = rest.split_first_chunk::<5>().ok_or(malformed)?;
    if rp_hash != rp.id_hash() {
        return Err(Refused::RpId);
    }
    if flags & UP == 0 {
        return Err(Refused::UserNotPresent);
    }
    if flags & UV == 0 {
        return Err(Refused::UserNotVerified);
    }
    if flags & BS != 0 && flags & BE == 0 {
        return Err(Refused::BackupState);
    }
    let attested = if flags & AT != 0 {
        let (_aaguid, rest) = rest.split_at_checked(16).ok_or(malformed)?;
        let (&[h, l], rest) = rest.split_first_chunk::<2>().ok_or(malformed)?;
        let (id, key) = rest
            .split_at_checked(usize::from(u16::from_be_bytes([h, l])))
            .ok_or(malformed)?;
        Some((id, key))
    } else {
        None
    };
    Ok(AuthData {
        flags,
        sign_count: u32::from_be_bytes([c0, c1, c2, c3]),
        attested,
    })
}

/// A registration that checked out, but for its challenge (the caller
/// takes it from the directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewCredential {
    pub challenge: String,
    /// base64url, as the browser names it.
    pub credential_id: String,
    /// The 91-byte SPKI.
    pub public_key: Vec<u8>,
    pub sign_count: u32,
    pub backup_eligible: bool,
    pub backed_up: bool,
}

/// §7.1 for attestation `"none"`, from `toJSON()`'s fields.
pub fn check_registration(reg: &Registration, rp: &RelyingParty) -> Result<NewCredential, Refused> {
    let client_data = decode("clientDataJSON", &reg.response.client_data_json)?;
    let challenge = check_client_data(&client_data, Ceremony::Create, rp)?;
    let auth_data = decode("authenticatorData", &reg.response.authenticator_data)?;
    let auth = check_auth_data(&auth_data, rp)?;
    let (id, cose) = auth
        .attested
        .ok_or(Refused::Malformed("attested credential"))?;
    let raw_id = decode("rawId", &reg.raw_id)?;
    if reg.kind != "public-key" || id != raw_id.as_slice() || reg.id != reg.raw_id {
        return Err(Refused::Malformed("credential id"));
    }
    if id.is_empty() || id.len() > MAX_CREDENTIAL_ID {
        return Err(Refused::Malformed("credential id"));
    }
    if reg.response.public_key_algorithm != ES256 {
        return Err(Refused::Key);
    }
    let spki = decode(
        "publicKey",
        reg.response.public_key.as_deref().ok_or(Refused::Key)?,
    )?;
    let (x, y) = p256_point(&spki).ok_or(Refused::Key)?;
    if !cose_has(cose, -2, x) || !cose_has(cose, -3, y) {
        return Err(Refused::Key);
    }
    Ok(NewCredential {
        challenge,
        credential_id: reg.raw_id.clone(),
        public_key: spki,
        sign_count: auth.sign_count,
        backup_eligible: auth.backup_eligible(),
        backed_up: auth.backed_up(),
    })
}

/// The `x` and `y` of a P-256 SPKI.
fn p256_point(spki: &[u8]) -> Option<(&[u8], &[u8])> {
    let point = spki
        .strip_prefix(&P256_SPKI_PREFIX)?
        .strip_prefix(&[0x04])?;
    point
        .split_at_checked(32)
        .filter(|_| spki.len() == P256_SPKI_LEN)
}

/// Whether the COSE key holds `label` (a negative integer, -1 to -24)
/// mapped to the 32-byte string `value`: CBOR `label ‖ 0x58 0x20 ‖ value`.
fn cose_has(cose: &[u8], label: i8, value: &[u8]) -> bool {
    let mut wanted = vec![0x20 | (-1 - label) as u8, 0x58, 0x20];
    wanted.extend_from_slice(value);
    cose.windows(wanted.len()).any(|w| w == wanted)
}

/// A sign-in that checked out so far: the caller takes the challenge,
/// finds the credential by user handle and id, and checks the signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assertion {
    pub challenge: String,
    pub credential_id: String,
    pub user_handle: Vec<u8>,
    pub sign_count: u32,
    pub backed_up: bool,
    /// `authenticatorData ‖ SHA-256(clientDataJSON)`: what was signed.
    pub signed: Vec<u8>,
    /// The signature as WebCrypto takes it: `r ‖ s`.
    pub signature: [u8; 64],
}

/// §7.2 but the challenge, the credential's lookup and the signature.
pub fn check_assertion(auth: &Authentication, rp: &RelyingParty) -> Result<Assertion, Refused> {
    if auth.kind != "public-key" || auth.id != auth.raw_id {
        return Err(Refused::Malformed("credential id"));
    }
    let client_data = decode("clientDataJSON", &auth.response.client_data_json)?;
    let challenge = check_client_data(&client_data, Ceremony::Get, rp)?;
    let auth_data = decode("authenticatorData", &auth.response.authenticator_data)?;
    let data = check_auth_data(&auth_data, rp)?;
    let handle = auth
        .response
        .user_handle
        .as_deref()
        .ok_or(Refused::UnknownCredential)?;
    let user_handle = decode("userHandle", handle)?;
    decode("rawId", &auth.raw_id)?;
    let der = decode("signature", &auth.response.signature)?;
    let signature = der_to_raw(&der).ok_or(Refused::Malformed("signature"))?;
    let mut signed = auth_data.clone();
    signed.extend_from_slice(&Sha256::digest(&client_data));
    Ok(Assertion {
        challenge,
        credential_id: auth.raw_id.clone(),
        user_handle,
        sign_count: data.sign_count,
        backed_up: data.backed_up(),
        signed,
        signature,
    })
}

/// §7.2 step 22: with a counter on either side it must go up; two zeros
/// are an authenticator without one (synced passkeys often are).
pub fn sign_count_ok(stored: u32, new: u32) -> bool {
    (stored == 0 && new == 0) || new > stored
}

/// An ECDSA signature from ASN.1 DER (`SEQUENCE { INTEGER r, INTEGER s }`,
/// what authenticators send) to the fixed `r ‖ s` WebCrypto verifies
/// (it answers `false` for DER).
pub fn der_to_raw(der: &[u8]) -> Option<[u8; 64]> {
    let (&[0x30, len], body) = der.split_first_chunk::<2>()? else {
        return None;
    };
    if usize::from(len) != body.len() {
        return None;
    }
    let mut raw = [0u8; 64];
    let mut rest = body;
    for half in raw.chunks_mut(32) {
        let (&[0x02, n], after) = rest.split_first_chunk::<2>()? else {
            return None;
        };
        let (int, after) = after.split_at_checked(usize::from(n))?;
        // A leading zero keeps a high bit from reading as a sign; no more than that.
        let int = match int {
            [0, rest @ ..] if rest.first().is_some_and(|b| b & 0x80 != 0) => rest,
            [0, _, ..] => return None,
            [first, ..] if first & 0x80 == 0 => int,
            _ => return None,
        };
        if int.len() > 32 {
            return None;
        }
        half.get_mut(32 - int.len()..)?.copy_from_slice(int);
        rest = after;
    }
    rest.is_empty().then_some(raw)
}

#[cfg(test)]
mod tests {
    use super::super::tokens::base64url;
    use super::*;
    use api::passkeys::{AssertionResponse, AttestationResponse};

    fn rp() -> RelyingParty {
        RelyingParty::from_settings(Some("localhost"), Some("http://localhost:8787"))
            .unwrap()
            .unwrap()
    }

    fn client_data(kind: &str, origin: &str, extra: &str) -> Vec<u8> {
        format!(r#"{{"type":"{kind}","challenge":"Y2hhbGxlbmdl","origin":"{origin}"{extra}}}"#)
            .into_bytes()
    }

    /// Authenticator data as §6.1 lays it out, from its parts.
    fn auth_data(rp_id: &str, flags: u8, count: u32, attested: Option<(&[u8], &[u8])>) -> Vec<u8> {
        let mut bytes = Sha256::digest(rp_id.as_bytes()).to_vec();
        bytes.push(flags);
        bytes.extend_from_slice(&count.to_be_bytes());
        if let Some((id, cose)) = attested {
            bytes.extend_from_slice(&[7; 16]);
            bytes.extend_from_slice(&(id.len() as u16).to_be_bytes());
            bytes.extend_from_slice(id);
            bytes.extend_from_slice(cose);
        }
        bytes
    }

    /// A COSE EC2 key (kty 2, alg -7, crv 1, x, y) as authenticators write it.
    fn cose(x: &[u8; 32], y: &[u8; 32]) -> Vec<u8> {
        let mut key = vec![0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x58, 0x20];
        key.extend_from_slice(x);
        key.extend_from_slice(&[0x22, 0x58, 0x20]);
        key.extend_from_slice(y);
        key
    }

    fn spki(x: &[u8; 32], y: &[u8; 32]) -> Vec<u8> {
        let mut key = P256_SPKI_PREFIX.to_vec();
        key.push(0x04);
        key.extend_from_slice(x);
        key.extend_from_slice(y);
        key
    }

    fn registration(client: &[u8], data: &[u8], id: &[u8], key: &[u8]) -> Registration {
        Registration {
            id: base64url(id),
            raw_id: base64url(id),
            kind: "public-key".into(),
            response: AttestationResponse {
                client_data_json: base64url(client),
                authenticator_data: base64url(data),
                public_key: Some(base64url(key)),
                public_key_algorithm: ES256,
                transports: vec!["internal".into()],
            },
        }
    }

    #[test]
    fn the_relying_party_is_settings_and_only_https_but_for_localhost() {
        let rp = rp();
        assert_eq!(rp.origins, ["http://localhost:8787"]);
        assert_eq!(
            RelyingParty::from_settings(None, Some("https://a.example")),
            Ok(None)
        );
        let ok = RelyingParty::from_settings(
            Some("example.com"),
            Some("https://example.com, https://app.example.com/"),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            ok.origins,
            ["https://example.com", "https://app.example.com"]
        );
        for (id, origins) in [
            ("example.com", "http://example.com"),
            ("example.com", "https://example.org"),
            ("example.com", "https://notexample.com"),
            ("example.com", ""),
            ("Example.com", "https://example.com"),
            ("127.0.0.1:8787", "http://127.0.0.1:8787"),
        ] {
            assert!(
                RelyingParty::from_settings(Some(id), Some(origins)).is_err(),
                "{id} {origins}"
            );
        }
    }

    #[test]
    fn client_data_must_be_this_ceremony_from_our_origin() {
        let rp = rp();
        let ok = client_data(
            "webauthn.get",
            "http://localhost:8787",
            r#","crossOrigin":false"#,
        );
        assert_eq!(
            check_client_data(&ok, Ceremony::Get, &rp).as_deref(),
            Ok("Y2hhbGxlbmdl")
        );
        assert_eq!(
            check_client_data(&ok, Ceremony::Create, &rp),
            Err(Refused::Type)
        );
        let other = client_data("webauthn.get", "http://localhost:9999", "");
        assert_eq!(
            check_client_data(&other, Ceremony::Get, &rp),
            Err(Refused::Origin)
        );
        let evil = client_data("webauthn.get", "https://evil.example", "");
        assert_eq!(
            check_client_data(&evil, Ceremony::Get, &rp),
            Err(Refused::Origin)
        );
        let framed = client_data(
            "webauthn.get",
            "http://localhost:8787",
            r#","crossOrigin":true"#,
        );
        assert_eq!(
            check_client_data(&framed, Ceremony::Get, &rp),
            Err(Refused::CrossOrigin)
        );
        assert_eq!(
            check_client_data(b"{}", Ceremony::Get, &rp),
            Err(Refused::Malformed("clientDataJSON"))
        );
    }

    #[test]
    fn authenticator_data_is_for_us_with_the_user_present_and_verified() {
        let rp = rp();
        let ok = auth_data("localhost", UP | UV | BE | BS, 7, None);
        let data = check_auth_data(&ok, &rp).unwrap();
        assert_eq!(
            (data.sign_count, data.backed_up(), data.attested),
            (7, true, None)
        );
        let refused = |bytes: &[u8]| check_auth_data(bytes, &rp).unwrap_err();
        assert_eq!(
            refused(&auth_data("example.com", UP | UV, 1, None)),
            Refused::RpId
        );
        assert_eq!(
            refused(&auth_data("localhost", UV, 1, None)),
            Refused::UserNotPresent
        );
        assert_eq!(
            refused(&auth_data("localhost", UP, 1, None)),
            Refused::UserNotVerified
        );
        assert_eq!(
            refused(&auth_data("localhost", UP | UV | BS, 1, None)),
            Refused::BackupState
        );
        assert_eq!(refused(&ok[..36]), Refused::Malformed("authenticatorData"));
        // AT with a credential id longer than what follows.
        let mut cut = auth_data("localhost", UP | UV | AT, 1, Some((&[1; 16], &[])));
        cut.truncate(cut.len() - 1);
        assert_eq!(refused(&cut), Refused::Malformed("authenticatorData"));
    }

    #[test]
    fn a_registration_gives_its_key_when_every_part_agrees() {
        let rp = rp();
        let (x, y) = ([1u8; 32], [2u8; 32]);
        let id = [9u8; 32];
        let client = client_data("webauthn.create", "http://localhost:8787", "");
        let data = auth_data(
            "localhost",
            UP | UV | AT | BE,
            0,
            Some((&id, &cose(&x, &y))),
        );
        let new =
            check_registration(&registration(&client, &data, &id, &spki(&x, &y)), &rp).unwrap();
        assert_eq!(new.challenge, "Y2hhbGxlbmdl");
        assert_eq!(new.credential_id, base64url(&id));
        assert_eq!(new.public_key.len(), P256_SPKI_LEN);
        assert!(new.backup_eligible && !new.backed_up);

        // A key that is not the authenticator data's, another id, another algorithm.
        let other = spki(&x, &[3; 32]);
        assert_eq!(
            check_registration(&registration(&client, &data, &id, &other), &rp),
            Err(Refused::Key)
        );
        let mut wrong_id = registration(&client, &data, &id, &spki(&x, &y));
        wrong_id.raw_id = base64url(&[8; 32]);
        wrong_id.id = wrong_id.raw_id.clone();
        assert_eq!(
            check_registration(&wrong_id, &rp),
            Err(Refused::Malformed("credential id"))
        );
        let mut rsa = registration(&client, &data, &id, &spki(&x, &y));
        rsa.response.public_key_algorithm = -257;
        assert_eq!(check_registration(&rsa, &rp), Err(Refused::Key));
        // Without AT there is no credential to add; a sign-in's data is not a registration's.
        let plain = auth_data("localhost", UP | UV, 0, None);
        assert_eq!(
            check_registration(&registration(&client, &plain, &id, &spki(&x, &y)), &rp),
            Err(Refused::Malformed("attested credential"))
        );
        let get = client_data("webauthn.get", "http://localhost:8787", "");
        assert_eq!(
            check_registration(&registration(&get, &data, &id, &spki(&x, &y)), &rp),
            Err(Refused::Type)
        );
    }

    #[test]
    fn an_assertion_names_what_was_signed() {
        let rp = rp();
        let client = client_data("webauthn.get", "http://localhost:8787", "");
        let data = auth_data("localhost", UP | UV, 5, None);
        let der = [
            &[0x30, 0x45, 0x02, 0x21, 0x00][..],
            &[0x80; 32],
            &[0x02, 0x20],
            &[0x11; 32],
        ]
        .concat();
        let auth = Authentication {
            id: base64url(&[4; 16]),
            raw_id: base64url(&[4; 16]),
            kind: "public-key".into(),
            response: AssertionResponse {
                client_data_json: base64url(&client),
                authenticator_data: base64url(&data),
                signature: base64url(&der),
                user_handle: Some(base64url(b"acct_00ff")),
            },
        };
        let a = check_assertion(&auth, &rp).unwrap();
        assert_eq!(a.user_handle, b"acct_00ff");
        assert_eq!(a.sign_count, 5);
        assert_eq!(
            a.signed,
            [data.clone(), Sha256::digest(&client).to_vec()].concat()
        );
        assert_eq!(a.signature[..32], [0x80; 32]);
        assert_eq!(a.signature[32..], [0x11; 32]);
        // No user handle: a non-discoverable credential, which we never make.
        let mut anonymous = auth.clone();
        anonymous.response.user_handle = None;
        assert_eq!(
            check_assertion(&anonymous, &rp),
            Err(Refused::UnknownCredential)
        );
        // UV cleared (what `setResponseOverrideBits {isBadUV}` sends, validly signed).
        let mut bad_uv = auth.clone();
        bad_uv.response.authenticator_data = base64url(&auth_data("localhost", UP, 6, None));
        assert_eq!(check_assertion(&bad_uv, &rp), Err(Refused::UserNotVerified));
    }

    #[test]
    fn the_counter_only_goes_up_unless_there_is_none() {
        assert!(sign_count_ok(0, 0));
        assert!(sign_count_ok(0, 1));
        assert!(sign_count_ok(4, 5));
        assert!(!sign_count_ok(5, 5));
        assert!(!sign_count_ok(5, 4));
        assert!(!sign_count_ok(5, 0));
    }

    #[test]
    fn der_signatures_become_fixed_width() {
        // Short integers are left-padded; a sign byte is dropped.
        let der = [0x30, 0x08, 0x02, 0x02, 0x00, 0x90, 0x02, 0x02, 0x01, 0x02];
        let raw = der_to_raw(&der).unwrap();
        assert_eq!(raw[31], 0x90);
        assert_eq!(raw[30], 0);
        assert_eq!(raw[62..], [0x01, 0x02]);
        for bad in [
            &[0x30, 0x09, 0x02, 0x02, 0x00, 0x90, 0x02, 0x02, 0x01, 0x02][..],
            &[0x31, 0x08, 0x02, 0x02, 0x00, 0x90, 0x02, 0x02, 0x01, 0x02],
            // A negative integer, and a needless leading zero.
            &[0x30, 0x07, 0x02, 0x01, 0x90, 0x02, 0x02, 0x01, 0x02],
            &[0x30, 0x08, 0x02, 0x02, 0x00, 0x10, 0x02, 0x02, 0x01, 0x02],
            &[],
        ] {
            assert_eq!(der_to_raw(bad), None, "{bad:?}");
        }
        let long = [
            &[0x30, 0x26, 0x02, 0x21][..],
            &[0x7f; 33],
            &[0x02, 0x01, 0x01],
        ]
        .concat();
        assert_eq!(der_to_raw(&long), None);
    }
}
