//! WebCrypto for passwords: the derivation runs in the runtime's native
//! code (PBKDF2 in wasm would be several times slower and add to the
//! Worker's size). One call crosses the boundary per sign-in.

use super::passwords::PasswordRecord;
use crate::errors::EdgeError;
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
}")]
extern "C" {
    fn pbkdf2_chain(password: &[u8], salt: &[u8], iterations: u32, rounds: u32) -> js_sys::Promise;
}

/// The chain's output for `password` at `record`'s salt and cost.
pub(crate) async fn derive(password: &str, record: &PasswordRecord) -> Result<Vec<u8>, EdgeError> {
    let promise = pbkdf2_chain(
        password.as_bytes(),
        &record.salt,
        record.iterations,
        record.rounds,
    );
    let bits: JsValue = worker::wasm_bindgen_futures::JsFuture::from(promise)
        .await
        .map_err(|_| EdgeError::Internal {
            what: "hash the password",
        })?;
    Ok(js_sys::Uint8Array::new(&bits).to_vec())
}
