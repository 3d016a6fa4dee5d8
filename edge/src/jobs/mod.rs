//! Batch jobs in workerd: the endpoints, the `BatchJob` Durable Object that
//! runs `domain::jobs`' engine from alarms, and its log of upstream calls.

mod calls;
mod endpoints;
pub(crate) mod object;

pub(crate) use endpoints::{act, create, get, labels, list, live, results, rows};
