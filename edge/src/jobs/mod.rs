//! Batch jobs in workerd: the endpoints, the `BatchJob` Durable Object that
//! runs `domain::jobs`' engine from alarms, and its log of upstream calls.

pub(crate) mod calls;
pub(crate) mod endpoints;
pub(crate) mod object;
