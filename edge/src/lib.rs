//! The edge Worker, one folder per feature. Each feature keeps its
//! decisions in plain modules that `cargo test` runs natively, beside its
//! thin platform glue (`glue.rs`, and its Durable Object if it has one),
//! which only the wasm build compiles. `runtime` is the fetch handler.
//!
//! | folder | what lives there |
//! |---|---|
//! | `access/` | sessions, users, roles, the gate (who calls, may they), the Worker's own sign-in/mode/key endpoints |
//! | `upstream/` | forwarding the v1 endpoints: the allow-list, body checks, budgets, the upstream call |
//! | `purchases/` | never buying twice: `Idempotency-Key` decisions and the `PurchaseRecords` object |
//! | `webhooks/` | `label.created` verification, the ledger's decisions (`ledger`: insights, history pages, CSV), the `WebhookInbox` object (inbox and label ledger: the ledger Worker's), their endpoints |
//! | `jobs/` | batch jobs: the plan, the engine, results CSV, merged label PDFs; the `BatchJob` object; their endpoints |
//! | `orgs/` | organizations: accounts by email (`AccountDirectory`), each organization's members, invitations and audit log (`Organization`), sign-in by password, the names of every organization's objects |
//! | `control/` | what holds across isolates: signed-out sessions, the active key, key alerts (`EdgeControl`) |
//! | `dashboard/` | the app's assets (the wasm as its brotli file) |
//! | `label_pdf/` | label PDFs through the Worker |
//! | `widget/` | the storefront widget page and its CORS |
//! | `runtime/` | the fetch handler, the answers it builds, and Durable Object calls |

// A panic aborts the isolate (`panic = "abort"`): the caller would get a
// bare 500 outside the envelope and no log line. Request paths return errors.
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
// The accounts Worker is this crate with the `accounts` feature, the
// ledger Worker with `ledger`: their objects and endpoints instead of the
// main Worker's glue (`cfg(main_worker)`, build.rs), which they leave out
// (the plain modules stay, some unused there).
#![cfg_attr(not(main_worker), allow(dead_code, unused_imports))]

pub mod access;
pub mod config;
pub mod control;
pub mod dashboard;
pub mod errors;
pub mod jobs;
pub mod label_pdf;
pub mod log;
pub mod objects;
pub mod orgs;
pub mod purchases;
pub mod routes;
pub mod upstream;
pub mod webhooks;
pub mod widget;

#[cfg(target_arch = "wasm32")]
mod runtime;
