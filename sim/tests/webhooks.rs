//! Part 6: signed label.created deliveries and the retry schedule, driven by
//! the clock control. The receiver is a real HTTP server on 127.0.0.1:0.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use api::webhooks::verify;
use common::*;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const SECRET: &str = "whsec_test_secret";

#[derive(Default)]
struct Received {
    bodies: Vec<(String, Vec<u8>)>,
}

/// A receiver that answers 500 to the first `fail_first` deliveries, then 200.
async fn receiver(fail_first: usize) -> (String, Arc<Mutex<Received>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hooks", listener.local_addr().unwrap());
    let received = Arc::new(Mutex::new(Received::default()));
    let log = received.clone();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            let mut buf = Vec::new();
            let mut chunk = [0u8; 4096];
            let (head_end, length) = loop {
                let n = stream.read(&mut chunk).await.unwrap();
                buf.extend_from_slice(&chunk[..n]);
                if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..i]).to_ascii_lowercase();
                    let len = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .unwrap()
                        .trim()
                        .parse::<usize>()
                        .unwrap();
                    break (i + 4, len);
                }
            };
            while buf.len() < head_end + length {
                let n = stream.read(&mut chunk).await.unwrap();
                buf.extend_from_slice(&chunk[..n]);
            }
            let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
            let sig = head
                .lines()
                .find_map(|l| l.strip_prefix("svc-signature: "))
                .unwrap_or("")
                .to_string();
            let count = {
                let mut r = log.lock().unwrap();
                r.bodies
                    .push((sig, buf[head_end..head_end + length].to_vec()));
                r.bodies.len()
            };
            let status = if count <= fail_first {
                "500 Internal Server Error"
            } else {
                "200 OK"
            };
            let _ = stream
                .write_all(
                    format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .as_bytes(),
                )
                .await;
        }
    });
    (url, received)
}

async fn wait_for(received: &Arc<Mutex<Received>>, count: usize) {
    for _ in 0..40 {
        if received.lock().unwrap().bodies.len() >= count {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "expected {count} deliveries, got {}",
        received.lock().unwrap().bodies.len()
    );
}

async fn deliveries(s: &Server) -> Vec<Value> {
    let mut list = s.get("/v1/webhooks/deliveries", LIVE).await.json["deliveries"]
        .as_array()
        .unwrap()
        .clone();
    list.reverse(); // oldest first
    list
}

#[tokio::test]
async fn a_purchase_is_delivered_signed_at_once() {
    let (url, received) = receiver(0).await;
    let s = start_with(Some((url, SECRET.into()))).await;
    let label = s.buy(LIVE).await.json;
    wait_for(&received, 1).await;
    let (sig, body) = received.lock().unwrap().bodies[0].clone();
    assert_eq!(verify(SECRET.as_bytes(), &body, Some(&sig)), Ok(()));
    let event: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(event["event"], "label.created");
    assert_eq!(event["data"], label, "the full Label object");
    let list = deliveries(&s).await;
    assert_eq!(list.len(), 1);
    assert_eq!(
        (
            list[0]["attempt"].as_u64(),
            list[0]["status"].as_str(),
            list[0]["response_status"].as_u64()
        ),
        (Some(1), Some("succeeded"), Some(200))
    );
}

#[tokio::test]
async fn failures_are_retried_on_the_schedule_until_the_first_2xx() {
    let (url, received) = receiver(2).await;
    let s = start_with(Some((url, SECRET.into()))).await;
    s.buy(LIVE).await;
    wait_for(&received, 1).await;
    // The clock has one-second steps and real time runs too: leave a margin.
    s.advance(295).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        received.lock().unwrap().bodies.len(),
        1,
        "attempt 2 is not due before 5 minutes"
    );
    s.advance(5).await;
    wait_for(&received, 2).await;
    s.advance(1800).await;
    wait_for(&received, 3).await;
    s.advance(7200 + 86400).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(
        received.lock().unwrap().bodies.len(),
        3,
        "no attempt after the first success"
    );
    let list = deliveries(&s).await;
    let summary: Vec<_> = list
        .iter()
        .map(|d| {
            (
                d["attempt"].as_u64().unwrap(),
                d["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (1, "failed".into()),
            (2, "failed".into()),
            (3, "succeeded".into())
        ]
    );
    let gap = list[1]["attempted_at"].as_u64().unwrap() - list[0]["attempted_at"].as_u64().unwrap();
    assert!(
        (300..=302).contains(&gap),
        "attempt 2 came {gap} s after attempt 1"
    );
    let due = list[0]["next_attempt_at"].as_u64().unwrap();
    let attempted = list[1]["attempted_at"].as_u64().unwrap();
    assert!(
        (due..=due + 1).contains(&attempted),
        "a due attempt is made within a second: due {due}, made {attempted}"
    );
}

#[tokio::test]
async fn five_attempts_in_all_then_it_stops() {
    let (url, received) = receiver(usize::MAX).await;
    let s = start_with(Some((url, SECRET.into()))).await;
    s.buy(LIVE).await;
    wait_for(&received, 1).await;
    for (n, delay) in [(2, 300), (3, 1800), (4, 7200), (5, 86400)] {
        s.advance(delay).await;
        wait_for(&received, n).await;
    }
    s.advance(10 * 86400).await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(received.lock().unwrap().bodies.len(), 5);
    let list = deliveries(&s).await;
    assert_eq!(list.len(), 5);
    assert!(list.iter().all(|d| d["status"] == "failed"));
    assert_eq!(
        list[4]["next_attempt_at"],
        Value::Null,
        "no sixth attempt is scheduled"
    );
    let bodies = &received.lock().unwrap().bodies;
    assert!(
        bodies.iter().all(|(_, b)| b == &bodies[0].1),
        "every retry carries the same signed body"
    );
}

#[tokio::test]
async fn an_unreachable_receiver_is_recorded_and_retried() {
    // Bind then drop: nothing listens on that port.
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let s = start_with(Some((
        format!("http://127.0.0.1:{port}/hooks"),
        SECRET.into(),
    )))
    .await;
    s.buy(LIVE).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    let list = deliveries(&s).await;
    assert_eq!(list[0]["status"], "failed");
    assert!(list[0]["error"].as_str().unwrap().contains("connection"));
    assert_eq!(list.last().unwrap()["status"], "pending");
    assert_eq!(list.last().unwrap()["attempt"], 2);
}

/// A receiver that counts connections, then waits `delay` before answering
/// 200 (`None`: never answers).
async fn slow_receiver(delay: Option<Duration>) -> (String, Arc<Mutex<usize>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hooks", listener.local_addr().unwrap());
    let hits = Arc::new(Mutex::new(0));
    let count = hits.clone();
    tokio::spawn(async move {
        loop {
            let (mut stream, _) = listener.accept().await.unwrap();
            *count.lock().unwrap() += 1;
            tokio::spawn(async move {
                let mut chunk = [0u8; 4096];
                let _ = stream.read(&mut chunk).await;
                match delay {
                    Some(d) => tokio::time::sleep(d).await,
                    None => std::future::pending::<()>().await,
                }
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .await;
            });
        }
    });
    (url, hits)
}

#[tokio::test]
async fn a_receiver_that_never_answers_delays_no_other_delivery() {
    let (hanging, hanging_hits) = slow_receiver(None).await;
    let (url, received) = receiver(0).await;
    let s = start_with(Some((url, SECRET.into()))).await;
    let other = s
        .new_key(
            "live",
            &["rates:read", "labels:write"],
            json!({"account": "acct_other"}),
        )
        .await;
    s.control(
        "PUT",
        "/__sim/accounts/acct_other/wallet",
        json!({"balance_cents": 100_000, "card": "ok", "auto_reload": null}),
    )
    .await;
    s.control(
        "PUT",
        "/__sim/accounts/acct_other/webhook",
        json!({"url": hanging, "secret": "s2"}),
    )
    .await;
    assert_eq!(s.buy(&other).await.status, 201);
    for _ in 0..40 {
        if *hanging_hits.lock().unwrap() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        *hanging_hits.lock().unwrap(),
        1,
        "the hanging receiver was called"
    );
    let started = std::time::Instant::now();
    assert_eq!(s.buy(LIVE).await.status, 201);
    wait_for(&received, 1).await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "delivered in {:?} while another receiver hangs",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_reset_during_an_attempt_leaves_the_simulator_working() {
    let (url, hits) = slow_receiver(Some(Duration::from_millis(600))).await;
    let s = start_with(Some((url, SECRET.into()))).await;
    assert_eq!(s.buy(LIVE).await.status, 201);
    for _ in 0..40 {
        if *hits.lock().unwrap() > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(*hits.lock().unwrap(), 1, "the attempt is in flight");
    s.control("POST", "/__sim/reset", json!({})).await;
    tokio::time::sleep(Duration::from_millis(900)).await; // the attempt has finished
    assert!(
        deliveries(&s).await.is_empty(),
        "an attempt from before the reset is not recorded after it"
    );
    assert_eq!(s.balance().await, 10_000);
    assert_eq!(s.buy(LIVE).await.status, 201);
    tokio::time::sleep(Duration::from_millis(900)).await;
    let list = deliveries(&s).await;
    assert_eq!(list.len(), 1, "{list:?}");
    assert_eq!(list[0]["status"], "succeeded");
}

#[tokio::test]
async fn a_large_batch_delivers_one_signed_event_per_label() {
    let (url, received) = receiver(0).await;
    let s = start_with(Some((url, SECRET.into()))).await;
    s.set_wallet(10_000_000, "ok", Value::Null).await;
    let (items, _) = s.quoted_items(LIVE, 300).await;
    let id = s
        .post("/v1/batches", LIVE, json!({"items": items}))
        .await
        .json["id"]
        .as_str()
        .unwrap()
        .to_string();
    s.post(&format!("/v1/batches/{id}/buy"), LIVE, json!({}))
        .await;
    s.advance(15).await; // 20 labels per second: all 300 are due
    wait_for(&received, 300).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let bodies = received.lock().unwrap().bodies.clone();
    assert_eq!(bodies.len(), 300, "exactly one attempt per label");
    let mut labels = std::collections::BTreeSet::new();
    for (sig, body) in &bodies {
        assert_eq!(verify(SECRET.as_bytes(), body, Some(sig)), Ok(()));
        let event: Value = serde_json::from_slice(body).unwrap();
        labels.insert(event["data"]["id"].as_str().unwrap().to_string());
    }
    assert_eq!(labels.len(), 300, "every label once");
    let list = s.get("/v1/webhooks/deliveries?limit=1000", LIVE).await.json["deliveries"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(list.len(), 300);
    assert!(list.iter().all(|d| d["status"] == "succeeded"));
}
