//! The one pipeline every upstream call of the main Worker takes (`call`)
//! and a forwarded v1 call from end to end (`forward`).

pub(crate) mod call;
pub(crate) mod forward;
