//! The two links that let someone in without a session: the setup link
//! `scripts/new-org` prints (makes one organization, once) and an
//! invitation link (joins one organization, once).
//!
//! A setup token is `{nonce}.{expires_at}.{mac}`: 16 hex of randomness, a
//! Unix time, and HMAC-SHA256 of `parcel new-org v1.{nonce}.{expires_at}`
//! under `SESSION_SECRET`, so the script needs no call to the Worker. The
//! new organization's id is `org_{nonce}`: making it twice is refused by
//! its object, which is what makes the link single-use.
//!
//! An invitation token is the organization's 16-hex suffix followed by 256
//! random bits in base64url (59 characters, one path segment): the Worker
//! finds the organization from the token and its object finds the
//! invitation by the token's SHA-256. Only that hash is stored.
//!
//! A password reset token is the same with [`RESET_PREFIX`] in front, so
//! an invitation pasted as a reset link (or the reverse) is plainly not one.
//!
//! A personal access token is the same with `api::access_tokens::PREFIX`
//! in front (70 characters), so a secret scanner can spot one and the
//! Worker finds its organization without asking the directory.

use api::orgs::OrgId;
use api::signing::{hmac_matches, hmac_sha256};
use sha2::{Digest, Sha256};

const SETUP_CONTEXT: &str = "parcel new-org v1";
/// The random part of an organization's id: `org_` and this many hex digits.
pub const ORG_NONCE_HEX: usize = 16;
pub const INVITE_SECRET_BYTES: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupProblem {
    Malformed,
    Expired,
}

/// The organization a setup token makes, if its MAC and expiry hold.
pub fn check_setup(token: &str, secret: &[u8], now: u64) -> Result<OrgId, SetupProblem> {
    let mut parts = token.trim().split('.');
    let (Some(nonce), Some(expires_at), Some(mac), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(SetupProblem::Malformed);
    };
    let mac = hex::decode(mac).map_err(|_| SetupProblem::Malformed)?;
    let message = format!("{SETUP_CONTEXT}.{nonce}.{expires_at}");
    if !hmac_matches(secret, message.as_bytes(), &mac) {
        return Err(SetupProblem::Malformed);
    }
    let org = org_of_nonce(nonce).ok_or(SetupProblem::Malformed)?;
    let expires_at: u64 = expires_at.parse().map_err(|_| SetupProblem::Malformed)?;
    if now >= expires_at {
        return Err(SetupProblem::Expired);
    }
    Ok(org)
}

/// A setup token (what `scripts/new-org` computes; here for tests and the bench).
pub fn setup_token(nonce: &str, expires_at: u64, secret: &[u8]) -> String {
    let message = format!("{SETUP_CONTEXT}.{nonce}.{expires_at}");
    let mac = hex::encode(hmac_sha256(secret, message.as_bytes()));
    format!("{nonce}.{expires_at}.{mac}")
}

/// The organization a nonce of [`ORG_NONCE_HEX`] lowercase hex digits names.
pub fn org_of_nonce(nonce: &str) -> Option<OrgId> {
    let hex = nonce.len() == ORG_NONCE_HEX
        && nonce
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    hex.then(|| OrgId::parse(&format!("{}{nonce}", OrgId::PREFIX)))
        .flatten()
}

/// An invitation token for `org` from 32 random bytes.
pub fn invite_token(org: &OrgId, secret: &[u8; INVITE_SECRET_BYTES]) -> Option<String> {
    let nonce = org.as_str().strip_prefix(OrgId::PREFIX)?;
    org_of_nonce(nonce)?;
    Some(format!("{nonce}{}", base64url(secret)))
}

/// The organization a token of an invitation's shape (nonce, then the
/// secret in base64url) names; `None` for anything of another shape.
fn org_of_token(token: &str) -> Option<OrgId> {
    let nonce = token.get(..ORG_NONCE_HEX)?;
    let secret = token.get(ORG_NONCE_HEX..)?;
    let ok = secret.len() == 43
        && secret
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then(|| org_of_nonce(nonce)).flatten()
}

/// The organization an invitation token names and the hash its object
/// keeps; `None` for anything that is not one.
pub fn read_invite(token: &str) -> Option<(OrgId, String)> {
    Some((org_of_token(token)?, token_hash(token)))
}

/// What starts a password reset token.
pub const RESET_PREFIX: &str = "reset_";

/// A password reset token for `org` from 32 random bytes.
pub fn reset_token(org: &OrgId, secret: &[u8; INVITE_SECRET_BYTES]) -> Option<String> {
    Some(format!("{RESET_PREFIX}{}", invite_token(org, secret)?))
}

/// The organization a reset token names and the hash its object keeps;
/// `None` for anything that is not one.
pub fn read_reset(token: &str) -> Option<(OrgId, String)> {
    let org = org_of_token(token.strip_prefix(RESET_PREFIX)?)?;
    Some((org, token_hash(token)))
}

/// A personal access token for `org` from 32 random bytes.
pub fn access_token(org: &OrgId, secret: &[u8; INVITE_SECRET_BYTES]) -> Option<String> {
    Some(format!(
        "{}{}",
        api::access_tokens::PREFIX,
        invite_token(org, secret)?
    ))
}

/// The organization a personal access token names and the hash its object
/// keeps; `None` for anything that is not one.
pub fn read_access_token(token: &str) -> Option<(OrgId, String)> {
    let org = org_of_token(token.strip_prefix(api::access_tokens::PREFIX)?)?;
    Some((org, token_hash(token)))
}

pub fn token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Unpadded base64url (RFC 4648 §5).
pub fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            let index = (n >> (18 - 6 * i)) & 63;
            out.push(char::from(ALPHABET[index as usize]));
        }
    }
    out
}

/// The bytes of unpadded base64url; `None` for anything else (padding,
/// the standard alphabet's `+/`, or stray bits in the last character).
pub fn from_base64url(text: &str) -> Option<Vec<u8>> {
    if text.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut n, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let value = ALPHABET.iter().position(|a| *a == c)?;
        n = n << 6 | value as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((n >> bits) as u8);
            n &= (1 << bits) - 1;
        }
    }
    (n == 0).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    #[test]
    fn a_setup_token_names_its_organization_until_it_expires() {
        let token = setup_token("0123456789abcdef", 2_000, SECRET);
        let org = check_setup(&token, SECRET, 1_999).unwrap();
        assert_eq!(org.as_str(), "org_0123456789abcdef");
        assert_eq!(
            check_setup(&token, SECRET, 2_000),
            Err(SetupProblem::Expired)
        );
        assert_eq!(
            check_setup(&token, b"another secret of thirty-two bytes", 1),
            Err(SetupProblem::Malformed)
        );
        // A longer expiry or another organization breaks the MAC.
        for forged in [
            token.replace(".2000.", ".9000."),
            token.replacen("0123", "9999", 1),
            format!("{token}.x"),
            "".into(),
        ] {
            assert_eq!(
                check_setup(&forged, SECRET, 1),
                Err(SetupProblem::Malformed),
                "{forged}"
            );
        }
        // A well-signed nonce that is not 16 hex digits makes no organization.
        let odd = setup_token("deployment", 2_000, SECRET);
        assert_eq!(check_setup(&odd, SECRET, 1), Err(SetupProblem::Malformed));
    }

    #[test]
    fn an_invitation_token_is_one_path_segment_naming_its_organization() {
        let org = OrgId::parse("org_0123456789abcdef").unwrap();
        let token = invite_token(&org, &[0xfb; 32]).unwrap();
        assert_eq!(token.len(), 59);
        assert!(api::endpoints::is_valid_id(&token));
        let (found, hash) = read_invite(&token).unwrap();
        assert_eq!(found, org);
        assert_eq!(hash, token_hash(&token));
        assert_ne!(hash, token_hash(&invite_token(&org, &[0xfa; 32]).unwrap()));
        assert!(invite_token(&OrgId::deployment(), &[0; 32]).is_none());
        for bad in [
            "",
            &token[..58],
            &format!("{token}a"),
            &token.replace('7', "+"),
        ] {
            assert!(read_invite(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn an_access_token_is_prefixed_and_names_its_organization() {
        let org = OrgId::parse("org_0123456789abcdef").unwrap();
        let token = access_token(&org, &[0xfb; 32]).unwrap();
        assert_eq!(token.len(), 70);
        assert!(token.starts_with("parcel_pat_0123456789abcdef"));
        let (found, hash) = read_access_token(&token).unwrap();
        assert_eq!(found, org);
        // The hash is the whole token's: an invitation with the same secret is another.
        assert_eq!(hash, token_hash(&token));
        assert_ne!(hash, token_hash(&invite_token(&org, &[0xfb; 32]).unwrap()));
        assert!(read_access_token(&token[api::access_tokens::PREFIX.len()..]).is_none());
        assert!(read_access_token(&token[..69]).is_none());
        assert!(access_token(&OrgId::deployment(), &[0; 32]).is_none());
    }

    #[test]
    fn a_reset_token_is_prefixed_and_no_invitation_passes_for_one() {
        let org = OrgId::parse("org_0123456789abcdef").unwrap();
        let token = reset_token(&org, &[0xfb; 32]).unwrap();
        assert_eq!(token.len(), 65);
        assert!(token.starts_with("reset_0123456789abcdef"));
        let (found, hash) = read_reset(&token).unwrap();
        assert_eq!(found, org);
        assert_eq!(hash, token_hash(&token));
        let invite = invite_token(&org, &[0xfb; 32]).unwrap();
        assert_ne!(hash, token_hash(&invite));
        assert!(read_reset(&invite).is_none());
        assert!(read_reset(&token[..64]).is_none());
        assert!(reset_token(&OrgId::deployment(), &[0; 32]).is_none());
    }

    #[test]
    fn base64url_matches_the_rfc_vectors() {
        assert_eq!(base64url(b"f"), "Zg");
        assert_eq!(base64url(b"fo"), "Zm8");
        assert_eq!(base64url(b"foo"), "Zm9v");
        assert_eq!(base64url(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64url(&[0xfb, 0xff]), "-_8");
        for bytes in [
            &b""[..],
            b"f",
            b"fo",
            b"foo",
            b"foob",
            b"fooba",
            b"foobar",
            &[0xfb, 0xff],
        ] {
            assert_eq!(from_base64url(&base64url(bytes)).as_deref(), Some(bytes));
        }
        for bad in ["Zg==", "Zm9v+", "a", "Zh", "Zm/"] {
            assert_eq!(from_base64url(bad), None, "{bad}");
        }
    }
}
