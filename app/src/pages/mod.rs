//! One page per route; each page owns its data.

pub mod login;
pub mod not_found;
pub mod wallet;
pub mod webhooks;
