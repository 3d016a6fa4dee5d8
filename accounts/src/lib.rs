//! The accounts Worker: organizations, their people, sign-in, invitations,
//! keys and settings, behind the main Worker's `ACCOUNTS` service binding
//! (what the two say to each other: `domain::orgs::wire`). Its endpoints
//! (`endpoints`, passkeys in `passkeys`), its objects (`organization`: one
//! per organization; `directory`: accounts by email and sign-in counters)
//! and WebCrypto (`crypto`: password hashing; `sealing`: the
//! organizations' secrets under the master keys).
//!
//! Compiled for workerd only (wasm32): natively the crate is empty.
#![cfg(target_arch = "wasm32")]
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

mod account;
mod attempts;
mod caller;
mod crypto;
mod directory;
mod endpoints;
mod input;
mod organization;
mod passkeys;
mod random;
mod sealing;
mod session;

#[worker::event(start)]
fn start() {
    console_error_panic_hook::set_once();
}
