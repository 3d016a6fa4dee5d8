//! Sealing an organization's secrets with the master keys, by WebCrypto
//! (AES-GCM under an HKDF of the master key): only the accounts Worker holds
//! `MASTER_KEYS`, so it seals, and opens for the main Worker
//! (`wire::KeyLine`). What is sealed and how it is named: `domain::orgs::sealing`.

use crate::error::AccountsError;
use api::orgs::OrgId;
use domain::errors::Internal;
use domain::errors::SettingError;
use domain::orgs::sealing::{MasterKeys, Purpose, SETTING, associated_data, sealed};
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

async fn text_of(promise: js_sys::Promise, what: &'static str) -> Result<String, AccountsError> {
    let value: JsValue = worker::wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(|_| Internal { what })?;
    value.as_string().ok_or(Internal { what }.into())
}

/// The Worker's master keys (`None`: not set, so no organization's
/// secrets can be stored or used).
pub(crate) fn master_keys(env: &worker::Env) -> Result<MasterKeys, AccountsError> {
    let value = env.secret(SETTING).map(|s| s.to_string()).ok();
    let value = value.ok_or(SettingError {
        setting: SETTING,
        problem: "not set: organizations' keys cannot be stored or used".into(),
    })?;
    MasterKeys::parse(&value)
        .map_err(|problem| SettingError {
            setting: SETTING,
            problem,
        })
        .map_err(AccountsError::from)
}

pub(crate) async fn seal(
    keys: &MasterKeys,
    org: &OrgId,
    purpose: Purpose,
    plaintext: &str,
) -> Result<String, AccountsError> {
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
) -> Result<Vec<String>, AccountsError> {
    // A master key removed too soon, or changed: a setting to fix.
    let lost = || SettingError {
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
