//! Writes the pages the dashboard's error view links to, from the error
//! table (`api::ErrorCode`): `DIR/index.html` lists every code and
//! `DIR/{CODE}/index.html` says what one means and what to do about it.
//! `scripts/build-app` runs it into `dist/errors`, so the assets serve
//! them and the main Worker carries none of it.
//!
//!   cargo run -q -p api --bin error-pages -- dist/errors

use api::ErrorCode;
use api::code::ERRORS_PATH;
use std::fs;
use std::path::Path;

/// What a code's family is about and what to do, by its leading segments
/// (the longest prefix listed wins).
const ABOUT: &[(&str, &str, &str)] = &[
    (
        "ADDRESS",
        "An address could not be checked or is not deliverable.",
        "Correct the address (street, city, ZIP code and country) and check it again; if the checking service is down, you may ship without the check.",
    ),
    (
        "AUTH.KEY",
        "The organization's API key was missing, unknown, revoked, expired or lacks a permission this call needs.",
        "An admin enters a valid key on the API keys page (Settings).",
    ),
    (
        "AUTH.RATE_LIMIT",
        "Too many requests in a short time.",
        "Wait the few seconds shown, then try again; the dashboard retries reads by itself.",
    ),
    (
        "BATCH",
        "A batch of labels could not be made as asked.",
        "Check the rows and the batch size, then start the batch again from the Batches page.",
    ),
    (
        "CARRIER",
        "A carrier or one of your own carrier accounts did not answer as expected.",
        "Check the carrier account's credentials (Settings, Carrier accounts) or choose another carrier's rate.",
    ),
    (
        "EDGE.CONFIG",
        "Parcel is not set up correctly for this request.",
        "Tell whoever runs your Parcel deployment; the request id helps them find it.",
    ),
    (
        "EDGE.IDEMPOTENCY",
        "A purchase was sent twice in a way that cannot be matched, or its outcome is not known yet.",
        "Do not buy again: open the label history to see whether the label exists, then retry the same purchase.",
    ),
    (
        "EDGE.INVITE",
        "The invitation link cannot be used: it is unknown, expired, already used or withdrawn.",
        "Ask an admin of the organization for a new invitation link.",
    ),
    (
        "EDGE.JOB",
        "A batch job cannot do this in its present state.",
        "Open the batch to see where it stands, then take the step it offers.",
    ),
    (
        "EDGE.KEY",
        "An API key could not be checked, saved or rotated.",
        "Enter the key again on the API keys page; a key refused by the shipping service says why.",
    ),
    (
        "EDGE.MEMBER",
        "This change to the team is not possible.",
        "An organization keeps at least one admin: make another member admin first.",
    ),
    (
        "EDGE.MODE",
        "The organization has no key for this mode, or live mode is off.",
        "An admin enters the key, or turns live mode on, on the API keys page.",
    ),
    (
        "EDGE.ORG",
        "The organization or its setup link cannot be used.",
        "Ask whoever runs your Parcel deployment for a new setup link.",
    ),
    (
        "EDGE.ORIGIN",
        "The request came from a site this organization does not allow.",
        "An admin adds the shop's exact origin (scheme, host, www.) in Settings, Storefront widget.",
    ),
    (
        "EDGE.PASSKEY",
        "The passkey could not be used.",
        "Try again, or sign in with your email and password.",
    ),
    (
        "EDGE.PASSWORD",
        "The password is too weak.",
        "Choose a longer password that is not common.",
    ),
    (
        "EDGE.ROLE",
        "Your role cannot do this.",
        "Ask an admin of the organization.",
    ),
    (
        "EDGE.SESSION",
        "You are not signed in, or your session ended.",
        "Sign in again.",
    ),
    (
        "EDGE.SIGN_IN",
        "Signing in failed, or was tried too often.",
        "Check the email and password; after many tries, wait the time shown.",
    ),
    (
        "EDGE.TOKEN",
        "The access token cannot be used.",
        "Make a new access token in Settings, Access tokens.",
    ),
    (
        "EDGE.UPSTREAM",
        "The shipping service did not answer in time.",
        "Try again in a moment; nothing was bought twice.",
    ),
    (
        "EDGE",
        "Parcel could not complete the request.",
        "Try again; if it persists, tell whoever runs your Parcel deployment, with the request id.",
    ),
    (
        "LABEL",
        "The label could not be made, found or voided.",
        "Check the parcel and the service, or the label's state in the label history.",
    ),
    (
        "RATE",
        "The rate cannot be bought: it expired or is unknown.",
        "Get new rates and buy one of them.",
    ),
    (
        "ROUTE",
        "The request went to an address Parcel does not answer.",
        "Reload the dashboard.",
    ),
    (
        "SIM",
        "The test service refused a control request.",
        "Only tests use these requests.",
    ),
    (
        "TRACKER",
        "No shipment has this tracking number.",
        "Check the tracking number.",
    ),
    (
        "VALIDATION",
        "A value in the request is missing or not valid.",
        "Correct the field named in the message and send it again.",
    ),
    (
        "WALLET",
        "The wallet cannot pay for this: the balance is too low and auto-reload is off, or its card failed.",
        "Add funds or a working card in the billing settings of your shipping service account; the Wallet page shows the balance.",
    ),
    (
        "WEBHOOK",
        "A webhook delivery could not be accepted.",
        "Check that the webhook secret in Settings matches the one in your shipping service account.",
    ),
];

fn about(code: &str) -> (&'static str, &'static str) {
    ABOUT
        .iter()
        .filter(|(prefix, _, _)| code == *prefix || code.starts_with(&format!("{prefix}.")))
        .max_by_key(|(prefix, _, _)| prefix.len())
        .map(|(_, what, next)| (*what, *next))
        .unwrap_or(("Parcel refused the request.", "Try again."))
}

/// Their stylesheet, a file of its own (the pages' CSP allows no inline style).
const STYLE: &str = "body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#0f172a;background:#f8fafc}a{color:#1d4ed8}code{font-size:1rem}@media(prefers-color-scheme:dark){body{color:#e2e8f0;background:#0b1120}a{color:#93c5fd}}";

fn page(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{title} · Parcel</title><link rel=\"stylesheet\" href=\"{ERRORS_PATH}errors.css\"></head><body><main>{body}</main></body></html>\n"
    )
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: error-pages DIR");
    let dir = Path::new(&dir);
    let mut list = String::new();
    for code in ErrorCode::all() {
        let name = code.as_str();
        let (what, next) = about(name);
        let body = format!(
            "<h1><code>{name}</code></h1><p>{what}</p><h2>What to do</h2><p>{next}</p><p>HTTP status {}. The dashboard shows this code and the request id under “Details”.</p><p><a href=\"{}\">Every error</a> · <a href=\"/\">Back to the dashboard</a></p>",
            code.http_status(),
            ERRORS_PATH
        );
        let out = dir.join(name);
        fs::create_dir_all(&out).expect("the page's folder");
        fs::write(out.join("index.html"), page(name, &body)).expect("the page");
        list.push_str(&format!(
            "<li id=\"{name}\"><a href=\"{}\"><code>{name}</code></a>: {what}</li>",
            api::errors_page(code)
        ));
    }
    let body = format!(
        "<h1>Errors</h1><p>Every code the dashboard can show, with what it means and what to do.</p><ul>{list}</ul><p><a href=\"/\">Back to the dashboard</a></p>"
    );
    fs::write(dir.join("index.html"), page("Errors", &body)).expect("the list");
    fs::write(dir.join("errors.css"), STYLE).expect("the stylesheet");
}
