//! The accounts Worker: organizations, their people, sign-in, invitations,
//! keys and settings, behind the main Worker's `ACCOUNTS` service binding
//! (what the two say to each other: `domain::orgs::wire`).
//!
//! From the top: `router` sends each request to the module of what it
//! does: `sign_in`, `sign_up`, `invitations`, `resets` (password reset
//! links), `team` (members, roles, the
//! audit log), `api_keys`, `webhook_settings`, `widget_settings`,
//! `access_tokens`, `presets` (saved addresses and package presets),
//! `passkeys`, and `main_worker` (the main Worker's own calls). Below them
//! what they share: `caller` (the caller's membership now), `session` (the
//! session to start), `account` (accounts made or found), `attempts`
//! (sign-in counters), `input` (checks of what people type), `random`.
//! At the bottom the objects (`organization`: one per organization;
//! `directory`: accounts by email, sign-in counters, passkeys) and
//! WebCrypto (`crypto`: password hashing and passkey signatures;
//! `sealing`: the organizations' secrets under the master keys).
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

mod access_tokens;
mod account;
mod api_keys;
mod attempts;
mod caller;
mod crypto;
mod directory;
mod error;
mod input;
mod invitations;
mod main_worker;
mod mode_switch;
mod organization;
mod passkeys;
mod presets;
mod random;
mod resets;
mod router;
mod sealing;
mod session;
mod sign_in;
mod sign_up;
mod team;
mod webhook_settings;
mod widget_settings;
