//! Secrets at rest: an organization's v1 keys (and, later, its webhook
//! secret) are stored only as AES-256-GCM ciphertexts under a master key
//! that is a secret (`MASTER_KEYS`) of the accounts Worker alone, which
//! seals them and opens them for the main Worker. The master key's
//! id is written beside each ciphertext (`{kid}.{iv}.{ciphertext}`), so a
//! second master key can be added in front and the old one kept to open
//! what it sealed until everything is sealed again. The organization's id
//! and the secret's purpose are the associated data: a ciphertext copied
//! to another organization, or from a key to a webhook secret, does not open.
//!
//! The cipher is WebCrypto's (`glue`); what is decided (which master key
//! seals, which opens, the associated data) is here.

use api::orgs::OrgId;

/// The setting, on both Workers: `kid:secret`, comma-separated, the first
/// seals; ids are 1–16 of `[a-z0-9]`, secrets at least 32 characters.
pub const SETTING: &str = "MASTER_KEYS";
pub const MIN_SECRET_CHARS: usize = 32;

/// What a sealed secret is for: part of the associated data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    V1Key,
}

/// The associated data of `org`'s secret for `purpose`.
pub fn associated_data(org: &OrgId, purpose: Purpose) -> String {
    let purpose = match purpose {
        Purpose::V1Key => "v1-key",
    };
    format!("parcel/{org}/{purpose}")
}

#[derive(Clone, PartialEq, Eq)]
pub struct MasterKeys(Vec<(String, String)>);

impl std::fmt::Debug for MasterKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ids: Vec<&str> = self.0.iter().map(|(kid, _)| kid.as_str()).collect();
        write!(f, "MasterKeys({ids:?})")
    }
}

impl MasterKeys {
    /// `Err` names what is wrong, never the secret.
    pub fn parse(value: &str) -> Result<MasterKeys, String> {
        let mut keys: Vec<(String, String)> = Vec::new();
        for (n, entry) in value.split(',').map(str::trim).enumerate() {
            let (kid, secret) = entry
                .split_once(':')
                .ok_or(format!("entry {} is not `id:secret`", n + 1))?;
            let kid_ok = (1..=16).contains(&kid.len())
                && kid
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
            if !kid_ok {
                return Err(format!("entry {}'s id is not 1 to 16 of a-z0-9", n + 1));
            }
            if secret.chars().any(char::is_control) {
                return Err(format!("the secret of `{kid}` holds a control character"));
            }
            if secret.chars().count() < MIN_SECRET_CHARS {
                return Err(format!(
                    "the secret of `{kid}` is shorter than {MIN_SECRET_CHARS} characters"
                ));
            }
            if keys.iter().any(|(k, _)| k == kid) {
                return Err(format!("`{kid}` is named twice"));
            }
            keys.push((kid.to_string(), secret.to_string()));
        }
        Ok(MasterKeys(keys))
    }

    /// The key new secrets are sealed with: `(id, secret)`.
    pub fn sealing(&self) -> (&str, &str) {
        let (kid, secret) = &self.0[0];
        (kid, secret)
    }

    /// The secret of the master key that sealed `sealed`, and the rest of
    /// it (`{iv}.{ciphertext}`); `None`: malformed or sealed by a master key
    /// no longer configured.
    pub fn opening<'a>(&self, sealed: &'a str) -> Option<(&str, &'a str)> {
        let (kid, rest) = sealed.split_once('.')?;
        let (_, secret) = self.0.iter().find(|(k, _)| k == kid)?;
        Some((secret, rest))
    }

    /// Whether `sealed` should be sealed again with the current master key.
    pub fn is_stale(&self, sealed: &str) -> bool {
        sealed.split_once('.').map(|(kid, _)| kid) != Some(self.sealing().0)
    }
}

/// `{kid}.{iv}.{ciphertext}`: what is stored.
pub fn sealed(kid: &str, iv_and_ciphertext: &str) -> String {
    format!("{kid}.{iv_and_ciphertext}")
}

/// Only the accounts Worker holds `MASTER_KEYS`: it seals, and opens for
/// the main Worker (`wire::KeyLine`).
#[cfg(all(target_arch = "wasm32", feature = "accounts"))]
pub(crate) mod glue {
    use super::*;
    use crate::errors::EdgeError;
    use worker::js_sys;
    use worker::wasm_bindgen::{self, JsValue, prelude::wasm_bindgen};

    #[wasm_bindgen(inline_js = "
const aesKeys = new Map();
const text = (s) => new TextEncoder().encode(s);
async function aesKey(secret) {
  let key = aesKeys.get(secret);
  if (!key) {
    const base = await crypto.subtle.importKey('raw', text(secret), 'HKDF', false, ['deriveKey']);
    const params = { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: text('parcel sealing v1') };
    key = await crypto.subtle.deriveKey(params, base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
    aesKeys.set(secret, key);
  }
  return key;
}
const b64 = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
const unb64 = (s) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0));
export async function seal_text(secret, aad, plaintext) {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const params = { name: 'AES-GCM', iv, additionalData: text(aad) };
  const ciphertext = await crypto.subtle.encrypt(params, await aesKey(secret), text(plaintext));
  return b64(iv) + '.' + b64(new Uint8Array(ciphertext));
}
// Opened secrets by line (master secret, associated data, ciphertext): a
// changed or resealed secret is a new line.
const opened = new Map();
export async function open_lines(lines) {
  const out = [];
  for (const line of lines.split('\\n')) {
    let plain = opened.get(line);
    if (plain === undefined) {
      const [secret, aad, iv, ciphertext] = line.split('\\t');
      const params = { name: 'AES-GCM', iv: unb64(iv), additionalData: text(aad) };
      plain = new TextDecoder().decode(await crypto.subtle.decrypt(params, await aesKey(secret), unb64(ciphertext)));
      opened.set(line, plain);
    }
    out.push(plain);
  }
  return out.join('\\n');
}")]
    extern "C" {
        fn seal_text(secret: &str, aad: &str, plaintext: &str) -> js_sys::Promise;
        fn open_lines(lines: &str) -> js_sys::Promise;
    }

    async fn text_of(promise: js_sys::Promise, what: &'static str) -> Result<String, EdgeError> {
        let value: JsValue = worker::wasm_bindgen_futures::JsFuture::from(promise)
            .await
            .map_err(|_| EdgeError::Internal { what })?;
        value.as_string().ok_or(EdgeError::Internal { what })
    }

    /// The Worker's master keys (`None`: not set, so no organization's
    /// secrets can be stored or used).
    pub(crate) fn master_keys(env: &worker::Env) -> Result<MasterKeys, EdgeError> {
        let value = env.secret(SETTING).map(|s| s.to_string()).ok();
        let value = value.ok_or(EdgeError::Config {
            setting: SETTING,
            problem: "not set: organizations' keys cannot be stored or used".into(),
        })?;
        MasterKeys::parse(&value).map_err(|problem| EdgeError::Config {
            setting: SETTING,
            problem,
        })
    }

    pub(crate) async fn seal(
        keys: &MasterKeys,
        org: &OrgId,
        purpose: Purpose,
        plaintext: &str,
    ) -> Result<String, EdgeError> {
        let (kid, secret) = keys.sealing();
        let aad = associated_data(org, purpose);
        let rest = text_of(seal_text(secret, &aad, plaintext), "seal a secret").await?;
        Ok(sealed(kid, &rest))
    }

    /// Opens `sealed` (each `{kid}.{iv}.{ciphertext}`), in order, in one
    /// crossing; the runtime keeps what it opened for the isolate's life.
    pub(crate) async fn open_all(
        keys: &MasterKeys,
        org: &OrgId,
        purpose: Purpose,
        sealed: &[&str],
    ) -> Result<Vec<String>, EdgeError> {
        // A master key removed too soon, or changed: a setting to fix.
        let lost = || EdgeError::Config {
            setting: SETTING,
            problem: format!("{org}'s secrets were sealed by a master key it does not hold"),
        };
        let aad = associated_data(org, purpose);
        let mut lines = Vec::with_capacity(sealed.len());
        for one in sealed {
            let (secret, rest) = keys.opening(one).ok_or_else(lost)?;
            let (iv, ciphertext) = rest.split_once('.').ok_or_else(lost)?;
            lines.push([secret, aad.as_str(), iv, ciphertext].join("\t"));
        }
        let opened = text_of(open_lines(&lines.join("\n")), "open a stored secret")
            .await
            .map_err(|_| lost())?;
        Ok(opened.split('\n').map(String::from).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

    #[test]
    fn master_keys_name_their_problem_and_never_their_secret() {
        let keys = MasterKeys::parse(&format!("k2:{B}, k1:{A}")).unwrap();
        assert_eq!(keys.sealing(), ("k2", B));
        assert_eq!(keys.opening("k1.iv.ct"), Some((A, "iv.ct")));
        assert_eq!(keys.opening("k3.iv.ct"), None);
        assert_eq!(keys.opening("k1"), None);
        assert!(keys.is_stale("k1.iv.ct"));
        assert!(!keys.is_stale("k2.iv.ct"));
        assert!(!format!("{keys:?}").contains(A));
        for (bad, says) in [
            ("", "entry 1"),
            ("k1", "entry 1"),
            (&format!("K1:{A}"), "id"),
            (&format!("k1:{A},k1:{B}"), "twice"),
            ("k1:short", "shorter"),
            (&format!("k1:aaaa\tbbbb{A}"), "control"),
        ] {
            let problem = MasterKeys::parse(bad).unwrap_err();
            assert!(problem.contains(says), "{bad}: {problem}");
            assert!(!problem.contains(A));
        }
    }

    #[test]
    fn associated_data_binds_organization_and_purpose() {
        let a = OrgId::parse("org_a").unwrap();
        let b = OrgId::parse("org_b").unwrap();
        assert_ne!(
            associated_data(&a, Purpose::V1Key),
            associated_data(&b, Purpose::V1Key)
        );
        assert_eq!(associated_data(&a, Purpose::V1Key), "parcel/org_a/v1-key");
    }
}
