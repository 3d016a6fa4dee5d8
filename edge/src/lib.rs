//! The edge Worker. Decisions live in plain modules that `cargo test` runs
//! natively; `glue` is the only place that touches the `worker` crate.

pub mod assets;
pub mod budget;
pub mod config;
pub mod console;
pub mod control;
pub mod cors;
pub mod errors;
pub mod gate;
pub mod idempotency;
pub mod labels;
pub mod log;
pub mod memory;
pub mod proxy;
pub mod roles;
pub mod routes;
pub mod session;
pub mod users;
pub mod webhooks;
pub mod widget;

#[cfg(target_arch = "wasm32")]
mod control_store;
#[cfg(target_arch = "wasm32")]
mod glue;
#[cfg(target_arch = "wasm32")]
mod inbox_store;
#[cfg(target_arch = "wasm32")]
mod ledger;
