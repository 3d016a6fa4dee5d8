//! The main Worker: serves the app, signs people in, forwards only v1 and
//! protects money and limits. Each module serves one feature's endpoints
//! or holds one of its Durable Objects; what they decide is `domain`'s, how
//! they talk to workerd is `platform`'s. `entry` is the fetch handler,
//! `router` the table of the Worker's own endpoints, `context` what every
//! handler is given.
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

mod access;
mod accounts;
mod context;
mod control;
mod dashboard;
mod entry;
mod error;
mod forward;
mod jobs;
mod label_pdf;
mod orgs;
mod purchases;
mod router;
mod settings;
mod tracking;
mod upstream;
mod webhooks;
mod widget;
