//! The accounts Worker: the `edge` crate built with its `accounts`
//! feature, whose fetch handler and Durable Objects (`edge::orgs`) are the
//! ones this Worker exports. See `edge/src/orgs/wire.rs`.

pub use edge::orgs::wire;
