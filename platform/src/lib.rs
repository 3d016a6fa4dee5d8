//! The workerd glue every Worker shares, thin by design: what a request
//! says (`request`), the answers built from `web_sys` types (`reply`), the
//! typed Durable Object calls (`objects`), the upstream call (`send`), the
//! few JavaScript crossings they make (`js`), the clock, randomness and the
//! request's trace. Decisions live in `domain`; nothing here decides.
//!
//! Compiled for workerd only (wasm32): natively the crate is empty.
#![cfg(target_arch = "wasm32")]
// A panic aborts the isolate (`panic = "abort"`): the caller would get a
// bare 500 outside the envelope and no log line. Request paths return errors.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod js;
pub mod objects;
pub mod reply;
pub mod request;
pub use request::{Incoming, body_bytes, capped_body, header, json_body};
pub mod send;
mod trace;

pub use trace::Trace;

use domain::errors::Internal;

/// `Date.now()` in one call (no `Date` object made and read).
pub fn now_ms() -> u64 {
    worker::js_sys::Date::now() as u64
}

pub fn now_s() -> u64 {
    now_ms() / 1000
}

/// `n` random bytes as hex, from the runtime's CSPRNG (`crypto.getRandomValues`).
pub fn random_hex(n: usize) -> Result<String, Internal> {
    let mut bytes = vec![0u8; n];
    getrandom::getrandom(&mut bytes).map_err(|_| Internal {
        what: "draw random bytes",
    })?;
    Ok(hex::encode(bytes))
}
