//! Pure views: they take props and never fetch.

pub mod error_view;
pub mod money;
pub mod shell;
pub mod webhooks;
pub mod when;
