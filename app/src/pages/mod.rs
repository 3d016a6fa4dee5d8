//! One page per route; each page owns its data.

pub mod carriers;
pub mod label;
pub mod labels;
pub mod login;
pub mod not_found;
pub mod ship;
pub mod status;
pub mod tracking;
pub mod wallet;
pub mod webhooks;
