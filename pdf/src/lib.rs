//! The PDF Worker (`parcel-pdf`): a job's labels as merged PDFs to print.
//! It is its own Worker, reached only through the main Worker's `PDF`
//! service binding, so only the requests that print pay to load lopdf (its
//! parser, flate, encodings and crypto more than doubled the main Worker's
//! wasm). What the two Workers say to each other is `domain::prints`; `print` decides
//! what a print does next and `merge` merges, both plain Rust that `cargo
//! test -p pdf` runs natively; `prints` (the job's prints object: fetches,
//! storage) and `entry` (the fetch handler) are compiled for workerd alone.

// A panic aborts the isolate (`panic = "abort"`): the main Worker would get
// a bare 500. Every failure is an answer instead (`domain::prints::Unprinted`).
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod merge;
pub mod print;

#[cfg(target_arch = "wasm32")]
mod entry;
#[cfg(target_arch = "wasm32")]
mod prints;
