//! Delivers `label.created` events: signed as in part 6, retried on the
//! schedule of part 6 by simulated time. A background task looks for due
//! attempts every 250 ms, and at once when something changed; each attempt
//! runs as its own task.

use std::sync::Arc;
use std::time::Duration;

use api::webhooks::{SIGNATURE_HEADER, sign};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::Sim;

/// How long one delivery attempt may take before it counts as failed.
pub const DELIVERY_TIMEOUT: Duration = Duration::from_secs(api::webhooks::DELIVERY_TIMEOUT_SECONDS);

/// At most this many attempts are in flight at once (a 5,000-label batch
/// must not open 5,000 connections together).
pub const MAX_CONCURRENT_ATTEMPTS: usize = 64;

pub async fn run_dispatcher(sim: Arc<Sim>) {
    let permits = Arc::new(tokio::sync::Semaphore::new(MAX_CONCURRENT_ATTEMPTS));
    loop {
        let _ = tokio::time::timeout(
            Duration::from_millis(250),
            sim.deliveries_changed.notified(),
        )
        .await;
        let now = sim.clock.now();
        let due = {
            let mut world = sim.world();
            world.tick(now);
            world.due_deliveries(now)
        };
        // Each attempt runs on its own, so a slow receiver delays no other.
        for d in due {
            let sim = sim.clone();
            let permits = permits.clone();
            tokio::spawn(async move {
                let Ok(_permit) = permits.acquire_owned().await else {
                    return;
                };
                let attempted_at = sim.clock.now();
                let signature = sign(d.secret.as_bytes(), &d.body);
                let outcome =
                    match tokio::time::timeout(DELIVERY_TIMEOUT, post(&d.url, &d.body, &signature))
                        .await
                    {
                        Ok(result) => result,
                        Err(_) => Err(format!("no answer within {} s", DELIVERY_TIMEOUT.as_secs())),
                    };
                sim.world()
                    .finish_delivery(d.generation, d.index, outcome, attempted_at);
                sim.deliveries_changed.notify_one();
            });
        }
    }
}

/// A minimal HTTP/1.1 POST to an `http://` URL; returns the status code.
async fn post(url: &str, body: &[u8], signature: &str) -> Result<u16, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or("only http:// URLs are supported")?;
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let mut stream = TcpStream::connect(authority)
        .await
        .map_err(|e| format!("connection failed: {e}"))?;
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{SIGNATURE_HEADER}: {signature}\r\nUser-Agent: v1-simulator-webhooks\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream
        .write_all(head.as_bytes())
        .await
        .map_err(|e| format!("write failed: {e}"))?;
    stream
        .write_all(body)
        .await
        .map_err(|e| format!("write failed: {e}"))?;
    let mut buf = [0u8; 64];
    let mut read = 0;
    while read < 12 {
        let n = stream
            .read(&mut buf[read..])
            .await
            .map_err(|e| format!("read failed: {e}"))?;
        if n == 0 {
            break;
        }
        read += n;
    }
    let line = String::from_utf8_lossy(&buf[..read]);
    line.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| "no HTTP status line in the answer".to_string())
}
