//! The ledger Worker: each organization's webhook inbox and label ledger,
//! the `WebhookInbox` Durable Object (`inbox`), which the main Worker binds
//! directly by `script_name`. What it decides (insights, history pages, the
//! CSV export) is `domain::webhooks`.
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

mod inbox;
