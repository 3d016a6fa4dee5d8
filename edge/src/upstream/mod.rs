//! Forwarding the v1 endpoints: the allow-list and body checks (`proxy`),
//! the per-minute budgets the upstream reports (`budget`), the upstream
//! call itself (`send`) and a forwarded call from end to end (`forward`).

pub mod budget;
pub mod proxy;

#[cfg(target_arch = "wasm32")]
pub(crate) mod forward;
#[cfg(target_arch = "wasm32")]
pub(crate) mod send;
