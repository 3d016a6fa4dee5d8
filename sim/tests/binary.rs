//! The `sim` binary as the README's run command and the e2e harness use it:
//! `--addr HOST:PORT` (port 0 picks one), keys from flags or the environment,
//! and the `listening on http://HOST:PORT` line once it accepts connections.

mod common;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};

use common::*;

/// Kills the child even when an assertion fails.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the binary and returns it, the lines it printed before the
/// `listening on` line, and the address from that line.
fn launch(args: &[&str], env: &[(&str, &str)]) -> (Running, Vec<String>, SocketAddr) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sim"));
    command
        .args(args)
        .env_remove("SIM_LIVE_KEY")
        .env_remove("SIM_SANDBOX_KEY")
        .env_remove("SIM_WEBHOOK_URL")
        .env_remove("SIM_WEBHOOK_SECRET")
        .stdout(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().expect("the sim binary starts");
    let stdout = child.stdout.take().unwrap();
    let running = Running(child);
    let mut printed = Vec::new();
    for line in BufReader::new(stdout).lines() {
        let line = line.unwrap();
        if let Some(url) = line.strip_prefix("listening on http://") {
            let addr = url.parse().expect("listening on http://HOST:PORT");
            return (running, printed, addr);
        }
        printed.push(line);
    }
    panic!("the binary ended without a listening line; it printed {printed:?}");
}

#[tokio::test]
async fn keys_from_the_environment_work_and_are_printed_redacted() {
    let (_sim, printed, addr) = launch(
        &["--addr", "127.0.0.1:0"],
        &[("SIM_LIVE_KEY", LIVE), ("SIM_SANDBOX_KEY", SANDBOX)],
    );
    assert_ne!(addr.port(), 0, "the real bound port is printed");
    assert!(
        printed.contains(&"account: acct_demo".to_string()),
        "{printed:?}"
    );
    assert!(
        printed.iter().all(|l| !l.contains(&LIVE[9..30])),
        "a key it was given is never printed whole: {printed:?}"
    );
    let s = Server { addr };
    let w = s.get("/v1/wallet", LIVE).await;
    assert_eq!(
        (w.status, w.json["balance_cents"].as_i64()),
        (200, Some(10_000))
    );
    assert_eq!(s.get("/v1/wallet", SANDBOX).await.json["unlimited"], true);
}

#[tokio::test]
async fn without_keys_it_makes_and_prints_working_ones() {
    let (_sim, printed, addr) = launch(&["--addr", "127.0.0.1:0"], &[]);
    let key = |prefix: &str| {
        printed
            .iter()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix} line in {printed:?}"))
            .to_string()
    };
    let (live, sandbox) = (key("live key: "), key("sandbox key: "));
    assert!(api::ApiKey::parse(&live).is_ok_and(|k| k.env() == api::KeyEnv::Live));
    assert!(api::ApiKey::parse(&sandbox).is_ok_and(|k| k.env() == api::KeyEnv::Sandbox));
    let s = Server { addr };
    assert_eq!(s.get("/v1/wallet", &live).await.status, 200);
    assert_eq!(s.get("/v1/wallet", &sandbox).await.status, 200);
}

#[tokio::test]
async fn the_webhook_flags_configure_the_demo_account() {
    let (_sim, printed, addr) = launch(
        &[
            "--addr",
            "127.0.0.1:0",
            "--webhook-url",
            "http://127.0.0.1:9/hooks",
        ],
        &[("SIM_WEBHOOK_SECRET", "whsec_demo"), ("SIM_LIVE_KEY", LIVE)],
    );
    assert!(
        printed.contains(&"webhook: http://127.0.0.1:9/hooks".to_string()),
        "{printed:?}"
    );
    let s = Server { addr };
    assert_eq!(s.buy(LIVE).await.status, 201);
    // Port 9 (discard) refuses on loopback: the attempt is recorded as failed.
    for _ in 0..40 {
        let list = s.get("/v1/webhooks/deliveries", LIVE).await.json;
        if list["deliveries"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["status"] == "failed"))
        {
            assert_eq!(list["deliveries"][0]["url"], "http://127.0.0.1:9/hooks");
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("no failed attempt to the configured URL was recorded");
}

#[test]
fn bad_flags_are_refused_with_the_usage() {
    for args in [
        &["--addr", "nowhere"][..],
        &["--live-key", "svc_test_00000000000000000000000000000001"][..],
        &["--frobnicate", "1"][..],
        &["--webhook-url", "http://127.0.0.1:9/hooks"][..],
        &[
            "--webhook-url",
            "https://example.com/h",
            "--webhook-secret",
            "s",
        ][..],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_sim"))
            .args(args)
            .env_remove("SIM_LIVE_KEY")
            .env_remove("SIM_SANDBOX_KEY")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("usage: sim"));
        assert!(out.stdout.is_empty(), "{args:?} printed nothing to stdout");
    }
}
