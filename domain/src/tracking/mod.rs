//! Following every label bought through the product: when its v1 tracker
//! is registered and read (`schedule`), and how much of the key's
//! per-minute limits those calls may take (`share`), so that people, the
//! widget and batch jobs keep the rest. The calls themselves are the ledger
//! Worker's (`ledger/`, the `WebhookInbox` object's alarms); design:
//! docs/tracking.md.

pub mod schedule;
pub mod share;

#[cfg(test)]
mod in_motion;
