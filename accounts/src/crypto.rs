//! WebCrypto for passwords and passkeys: the derivation and the ES256
//! check run in the runtime's native code (PBKDF2 in wasm would be several
//! times slower, and a P-256 crate adds about 15 KiB gzip to the Worker).
//! One call crosses the boundary per sign-in.

use crate::error::AccountsError;
use domain::errors::Internal;
use domain::orgs::passwords::PasswordRecord;
use worker::js_sys;
use worker::wasm_bindgen::{self, JsValue, prelude::wasm_bindgen};

#[wasm_bindgen(inline_js = "
export async function pbkdf2_chain(password, salt, iterations, rounds) {
  // Round n derives from round n-1's bits: one derivation may not pass the
  // platform's 100,000 iterations.
  let bits = password.slice();
  for (let i = 0; i < rounds; i++) {
    const key = await crypto.subtle.importKey('raw', bits, 'PBKDF2', false, ['deriveBits']);
    const params = { name: 'PBKDF2', hash: 'SHA-256', salt: salt.slice(), iterations };
    bits = new Uint8Array(await crypto.subtle.deriveBits(params, key, 256));
  }
  return bits;
}
export async function es256_verify(spki, signature, message) {
  try {
    const key = await crypto.subtle.importKey('spki', spki.slice(), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
    return await crypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, signature.slice(), message.slice());
  } catch {
    return false;
  }
}")]
extern "C" {
    fn pbkdf2_chain(password: &[u8], salt: &[u8], iterations: u32, rounds: u32) -> js_sys::Promise;
    fn es256_verify(spki: &[u8], signature: &[u8], message: &[u8]) -> js_sys::Promise;
}

/// Whether `signature` (`r ‖ s`) is `spki`'s ES256 signature of `message`
/// (`false` too for a key WebCrypto cannot import).
pub(crate) async fn verify_es256(spki: &[u8], signature: &[u8; 64], message: &[u8]) -> bool {
    let promise = es256_verify(spki, signature, message);
    worker::wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .is_ok_and(|v| v.as_bool() == Some(true))
}

/// The chain's output for `password` at `record`'s salt and cost.
pub(crate) async fn derive(
    password: &str,
    record: &PasswordRecord,
) -> Result<Vec<u8>, AccountsError> {
    let promise = pbkdf2_chain(
        password.as_bytes(),
        &record.salt,
        record.iterations,
        record.rounds,
    );
    let bits: JsValue = worker::wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(|_| Internal {
            what: "hash the password",
        })?;
    Ok(js_sys::Uint8Array::new(&bits).to_vec())
}
