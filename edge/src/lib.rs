//! The edge Worker. Decisions live in plain modules that `cargo test` runs
//! natively; `glue` is the only place that touches the `worker` crate.

pub mod budget;
pub mod config;
pub mod errors;
pub mod idempotency;
pub mod log;
pub mod proxy;
pub mod roles;
pub mod session;

#[cfg(target_arch = "wasm32")]
mod glue;
#[cfg(target_arch = "wasm32")]
mod ledger;
