//! The ledger Worker: the `edge` crate built with its `ledger` feature,
//! whose `WebhookInbox` Durable Object (`edge::webhooks`) is what this
//! Worker exports. See ledger/README.md.

pub use edge::webhooks;
