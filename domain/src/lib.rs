//! The Workers' decisions, one folder per feature, plain Rust that `cargo
//! test -p domain` runs natively. Nothing here performs I/O: the Workers
//! (`edge`, `accounts`, `ledger`) read a request, ask these modules what to
//! do, and carry it out through `platform`.
//!
//! | module | what lives there |
//! |---|---|
//! | `access/` | sessions, users, roles, the gate (who calls, may they), the answers of the Worker's own sign-in/mode/key endpoints |
//! | `upstream/` | forwarding the v1 endpoints: the allow-list, body checks, budgets, learned key scopes |
//! | `purchases` | never buying twice: `Idempotency-Key` decisions and the purchase records' protocol |
//! | `webhooks/` | `label.created` verification, the inbox protocol, the ledger's decisions (insights, history pages, CSV), the offers a purchase learns from its quote |
//! | `jobs/` | batch jobs: the plan, the engine, the runner, results CSV |
//! | `orgs/` | organizations: rules, passwords, passkeys, throttle, tokens, keys and sealing, the directory, the accounts Worker's wire |
//! | `control/` | what holds across isolates: signed-out sessions, the active key, key alerts |
//! | `dashboard` | which paths are the app's wasm |
//! | `label_pdf` | where a label's PDF is fetched from |
//! | `tracking/` | following every label: when its tracker is registered and read, within a share of the key's limits |
//! | `widget/` | the widget page's CSP and ship-from; its CORS; shopper counters and cached quotes |

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
pub mod per_org;
pub mod prints;
pub mod purchases;
pub mod routes;
pub mod settings;
pub mod tracking;
pub mod upstream;
pub mod webhooks;
pub mod widget;
