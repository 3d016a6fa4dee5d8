//! Pure views: they take props and never fetch on their own (a write they
//! show, such as a credential's revocation, runs the call its page gives).

pub mod address_form;
pub mod confirm_inline;
pub mod confirm_purchase;
pub mod credentials;
pub mod dates;
pub mod error_view;
pub mod field;
pub mod loader;
pub mod money;
pub mod org_switch;
pub mod parcel_form;
pub mod password;
pub mod rate_table;
pub mod service;
pub mod shell;
pub mod status_badge;
pub mod timeline;
pub mod webhooks;
